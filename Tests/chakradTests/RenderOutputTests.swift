import ArgumentParser
import ChakraSystem
import Foundation
import Glibc
import Testing
@testable import chakrad

/// `chakrad render -o PATH` writes a PNG a person named and destroys
/// nothing: libpng's own writer removed PATH when a write failed.
@Suite("chakrad render -o")
struct RenderOutputTests {
    private func temporaryDirectory() -> String {
        var template = Array("/tmp/chakra-render-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    private func names(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// Refused while the command line is read (exit 64), before a frame
    /// is drawn or the target opened: a FIFO would block the open.
    @Test("a FIFO, a directory and a dangling link as -o are refused before anything is written")
    func refusesTargetsThatAreNotFiles() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(mkfifo(directory + "/pipe", 0o600) == 0)
        #expect(mkdir(directory + "/pictures", 0o700) == 0)
        #expect(symlink(directory + "/nowhere.png", directory + "/dangling.png") == 0)
        for name in ["pipe", "pictures", "dangling.png"] {
            let path = directory + "/" + name
            #expect(throws: (any Error).self, "\(name)") {
                try Chakrad.parseAsRoot(["render", "--size", "64x36", "-o", path])
            }
        }
        #expect(names(in: directory) == ["dangling.png", "pictures", "pipe"])
    }

    @Test("ENOSPC on the write: the old file is as it was, no temporary file left")
    func fullDiskKeepsTheOldFile() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/frame.png"
        let old = Data("the old picture".utf8)
        try old.write(to: URL(fileURLWithPath: path))
        let command = try #require(try Chakrad.parseAsRoot(["render", "--size", "64x36", "-o", path]) as? RenderCommand)
        let rule = "write(\(directory)/"
        SyscallFaults.inject(ENOSPC, into: rule)
        defer { SyscallFaults.remove(matching: rule) }
        let failure = #expect(throws: (any Error).self) { try command.run() }
        #expect(SyscallFaults.pending(matching: rule) == 0, "the fault was not hit")
        #expect("\(failure.map { "\($0)" } ?? "")".contains("No space left on device"))
        #expect(FileManager.default.contents(atPath: path) == old)
        #expect(names(in: directory) == ["frame.png"])
        // Without the fault the frame replaces it.
        try command.run()
        #expect(FileManager.default.contents(atPath: path)?.starts(with: [0x89, 0x50, 0x4E, 0x47]) == true)
        #expect(names(in: directory) == ["frame.png"])
    }
}
