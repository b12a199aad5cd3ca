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

    /// The packing a DRM buffer gets (XRGB8888: the SIMD pack of the final
    /// pass, streaming stores) must give the pixels PNG's 24-bit path
    /// gives; RGB565 its own coarser levels. A PPM holds them unencoded.
    @Test("--format: XRGB8888 and XBGR8888 give BGR888's pixels, RGB565 coarser ones; .ppm is P6 with the RGB bytes")
    func formatsAndPPM() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func frame(_ format: String) throws -> [UInt8] {
            let path = "\(directory)/\(format).ppm"
            let command = try #require(try Chakrad.parseAsRoot(["render", "--time", "3", "--size", "200x120", "--format", format, "-o", path]) as? RenderCommand)
            try command.run()
            let bytes = try #require(FileManager.default.contents(atPath: path)).map { $0 }
            let header = Array("P6\n200 120\n255\n".utf8)
            #expect(Array(bytes.prefix(header.count)) == header)
            #expect(bytes.count == header.count + 200 * 120 * 3)
            return Array(bytes.dropFirst(header.count))
        }
        let reference = try frame("bgr888")
        #expect(Set(reference).count > 20, "a picture, not a flat frame")
        #expect(try frame("XRGB8888") == reference)
        #expect(try frame("xbgr8888") == reference)
        let coarse = try frame("RGB565")
        #expect(coarse != reference)
        #expect(zip(coarse, reference).allSatisfy { abs(Int($0) - Int($1)) <= 8 })
        #expect(throws: (any Error).self) { try Chakrad.parseAsRoot(["render", "--format", "YUYV", "-o", "\(directory)/x.ppm"]) }
    }
}
