import Dispatch
import Foundation
import Glibc
import Testing
@testable import ChakraText

/// A font or catalog path that names a FIFO or a device is refused before
/// it is opened: opening a FIFO waits for a writer, and whoever opened it
/// (the scene's rebuild, a reload) with it.
@Suite("Fonts and catalogs that are not files")
struct SpecialFilesTests {
    /// Runs `body` on a thread of its own and waits at most 5 s; past that
    /// the FIFO's writer is played, so that code which opened it fails the
    /// test instead of hanging it.
    private func withinFiveSeconds<T: Sendable>(fifo: String, _ body: @escaping @Sendable () -> T) -> T? {
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox<T>()
        Thread.detachNewThread {
            result.value = body()
            done.signal()
        }
        if done.wait(timeout: .now() + 5) == .success { return result.value }
        let writer = open(fifo, O_WRONLY | O_NONBLOCK)
        if writer >= 0 { close(writer) }
        _ = done.wait(timeout: .now() + 5)
        return nil
    }

    private final class ResultBox<T>: @unchecked Sendable {
        var value: T?
    }

    private func makeFIFO() throws -> (directory: String, fifo: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chakra-special-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fifo = directory + "/en.toml"
        try #require(mkfifo(fifo, 0o600) == 0)
        return (directory, fifo)
    }

    @Test func aFIFOAsTheFontIsRefusedUnopened() throws {
        let (directory, fifo) = try makeFIFO()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = withinFiveSeconds(fifo: fifo) { () -> String in
            do {
                _ = try Font(path: fifo)
                return "opened"
            } catch {
                return "\(error)"
            }
        }
        #expect(outcome == "font \(fifo): not a regular file", "nil: it waited for a writer")
        #expect(throws: FontError.self) { try Font(path: "/dev/zero") }
    }

    @Test func aFIFOAsACatalogIsUnusableNotAWait() throws {
        let (directory, fifo) = try makeFIFO()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = withinFiveSeconds(fifo: fifo) { CatalogFile.read(fifo) }
        #expect(outcome == .unusable("not a regular file (a FIFO)"), "nil: it waited for a writer")
        #expect(CatalogFile.read("/dev/zero") == .unusable("not a regular file (a character device)"))
        #expect(CatalogFile.read(directory + "/missing.toml") == .missing)
    }
}
