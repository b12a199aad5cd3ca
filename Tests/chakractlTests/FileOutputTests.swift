import ChakraControl
import ChakraPNG
import ChakraSystem
import Foundation
import Glibc
import Testing
@testable import chakractl

/// `chakractl snapshot FILE` writes a file a person named: a new file, or
/// a regular file replaced whole. Anything else there is refused and left
/// alone, and a failed write leaves the old file exactly as it was.
@Suite("chakractl's file output")
struct FileOutputTests {
    private func temporaryDirectory() -> String {
        var template = Array("/tmp/chakra-out-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    private func names(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    private func kind(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    private let old = Array("the old picture".utf8)
    private let new = Array("the new picture".utf8)

    @Test("a new file is made, and a regular file replaced whole")
    func writesAndReplaces() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/shot.png"
        try OutputFile.write(old, to: path)
        #expect(FileManager.default.contents(atPath: path) == Data(old))
        try OutputFile.write(new, to: path)
        #expect(FileManager.default.contents(atPath: path) == Data(new))
        #expect(names(in: directory) == ["shot.png"], "no temporary file left")
    }

    @Test("a FIFO is refused and stays a FIFO")
    func refusesAFIFO() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/pipe"
        #expect(mkfifo(path, 0o600) == 0)
        let failure = #expect(throws: OutputFileError.self) { try OutputFile.write(new, to: path) }
        #expect(failure?.description == "cannot write \(path): it is a FIFO, not a regular file; nothing written")
        #expect(kind(path) == S_IFIFO)
        #expect(names(in: directory) == ["pipe"])
    }

    @Test("a directory is refused and left as it was")
    func refusesADirectory() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/pictures"
        #expect(mkdir(path, 0o700) == 0)
        let failure = #expect(throws: OutputFileError.self) { try OutputFile.write(new, to: path) }
        #expect(failure?.description == "cannot write \(path): it is a directory, not a regular file; nothing written")
        #expect(kind(path) == S_IFDIR)
        #expect(names(in: directory) == ["pictures"])
    }

    /// Only looked at: `destination` opens nothing, and a device is
    /// refused before `write` would open anything.
    @Test("a character device (/dev/null) is refused without being opened")
    func refusesADevice() throws {
        let failure = #expect(throws: OutputFileError.self) { try OutputFile.destination(of: "/dev/null") }
        #expect(failure?.refusesTarget == true)
        #expect(failure?.description == "cannot write /dev/null: it is a character device, not a regular file; nothing written")
        // A link to it is refused as the device itself.
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(symlink("/dev/null", directory + "/null.png") == 0)
        let linked = #expect(throws: OutputFileError.self) { try OutputFile.destination(of: directory + "/null.png") }
        #expect(linked?.description == "cannot write \(directory)/null.png: it is a symbolic link to a character device (/dev/null), not a regular file; nothing written")
    }

    @Test("a new file in a directory that does not exist is refused")
    func refusesAMissingDirectory() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let failure = #expect(throws: OutputFileError.self) { try OutputFile.write(new, to: directory + "/no/shot.png") }
        #expect(failure?.refusesTarget == true)
        #expect(failure?.description == "cannot write \(directory)/no/shot.png: the directory \(directory)/no does not exist; nothing written")
    }

    @Test("a replaced file keeps its permissions")
    func keepsPermissions() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/shot.png"
        try Data(old).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, 0o640) == 0)
        try OutputFile.write(new, to: path)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o7777 == 0o640)
    }

    @Test("a symbolic link to a regular file: the file is replaced, the link stays a link to it")
    func followsALinkToARegularFile() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(mkdir(directory + "/real", 0o700) == 0)
        let target = directory + "/real/shot.png", link = directory + "/latest.png"
        try Data(old).write(to: URL(fileURLWithPath: target))
        #expect(symlink("real/shot.png", link) == 0)
        try OutputFile.write(new, to: link)
        #expect(kind(link) == S_IFLNK, "the link itself was replaced by a file")
        #expect(FileManager.default.contents(atPath: target) == Data(new))
        #expect(names(in: directory) == ["latest.png", "real"])
        #expect(names(in: directory + "/real") == ["shot.png"])
    }

    @Test("a dangling symbolic link is refused: no file made where it points, the link kept")
    func refusesADanglingLink() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let link = directory + "/latest.png"
        #expect(symlink(directory + "/nowhere.png", link) == 0)
        let failure = #expect(throws: OutputFileError.self) { try OutputFile.write(new, to: link) }
        #expect(failure?.description == "cannot write \(link): it is a symbolic link to \(directory)/nowhere.png, which does not exist; nothing written")
        #expect(kind(link) == S_IFLNK)
        #expect(names(in: directory) == ["latest.png"])
    }

    @Test("ENOSPC, EIO and EFBIG on write: the old file as it was, no temporary file left", arguments: [ENOSPC, EIO, EFBIG])
    func failedWriteKeepsTheOldFile(code: Int32) throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/shot.png"
        try Data(old).write(to: URL(fileURLWithPath: path))
        let rule = "write(\(directory)/"
        SyscallFaults.inject(code, into: rule)
        defer { SyscallFaults.remove(matching: rule) }
        let failure = #expect(throws: OutputFileError.self) { try OutputFile.write(new, to: path) }
        #expect(SyscallFaults.pending(matching: rule) == 0, "the fault was not hit")
        #expect(failure?.description.hasPrefix("cannot write \(path): ") == true)
        #expect(failure?.description.contains(String(cString: strerror(code))) == true, "the errno is named: \(String(describing: failure))")
        #expect(FileManager.default.contents(atPath: path) == Data(old))
        #expect(names(in: directory) == ["shot.png"])
    }

    /// Exit 1 (I/O failure), not 2 (usage): the command line was right.
    @Test("snapshot: a full disk is exit status 1, with the errno named")
    func fullDiskIsStatusOne() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/shot.png"
        guard case .run(let command, _) = try Chakractl.invocation(["snapshot", path]) else { throw UsageError("not a command") }
        let snapshot = try #require(command as? Snapshot)
        let png = try PNGImage.encode(PNGImage.RGB(width: 2, height: 1, bytes: [255, 0, 0, 0, 0, 255]))
        let result = SnapshotReply(width: 2, height: 1, png: Data(png).base64EncodedString())
        let rule = "write(\(directory)/"
        SyscallFaults.inject(ENOSPC, into: rule)
        defer { SyscallFaults.remove(matching: rule) }
        let failure = #expect(throws: ClientFailure.self) { _ = try snapshot.human(result) }
        #expect(failure?.status.rawValue == 1)
        #expect(failure?.description.contains("No space left on device") == true, "\(String(describing: failure))")
        #expect(names(in: directory) == [])
        // Without the fault it is written.
        #expect(try snapshot.human(result) == "wrote \(path) (2x1)")
        #expect(try PNGImage.read(from: path).width == 2)
    }
}
