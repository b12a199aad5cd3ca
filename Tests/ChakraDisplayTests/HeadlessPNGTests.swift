import ChakraDisplay
import ChakraRaster
import Foundation
import Glibc
import ChakraSystem
import Testing

/// `--headless-png-dir`: frames written as files, and a FIFO where a frame's
/// file would go neither blocks the frame loop nor is replaced.
@Suite("headless PNG frames")
struct HeadlessPNGTests {
    @Test("a FIFO in place of a frame's file is refused and left; the next frame is written")
    func fifoIsNotWritten() throws {
        var template = Array("/tmp/chakra-headless-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(mkfifo(directory + "/frame-000001.png", 0o600) == 0)
        let output = HeadlessOutput(width: 32, height: 18, format: .xrgb8888, pngDirectory: directory, pngEvery: 1,
                                    logger: Logger(label: "test"))
        _ = output.present()   // with libpng's writer this blocked in open(2)
        _ = output.present()
        var info = stat()
        #expect(lstat(directory + "/frame-000001.png", &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        let second = try Data(contentsOf: URL(fileURLWithPath: directory + "/frame-000002.png"))
        #expect(second.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }
}
