import ChakraSystem
import Foundation
import Glibc
import Testing

/// flock(2) through the funnel: one holder at a time, released on
/// release, never following a link or blocking on a FIFO.
@Suite("File lock")
struct FileLockTests {
    @Test func oneHolderAtATime() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/a.lock"
        let first = try #require(try FileLock.take(path))
        #expect(try FileLock.take(path) == nil, "two holders")
        first.release()
        let second = try #require(try FileLock.take(path))
        second.release()
        // Made empty, and left in place.
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_size == 0 && info.st_mode & S_IFMT == S_IFREG)
    }

    @Test func aHolderThatEndsLetsGo() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/b.lock"
        do { _ = try #require(try FileLock.take(path)) }   // dropped: deinit releases
        #expect(try FileLock.take(path) != nil)
    }

    @Test func neitherFollowsALinkNorBlocksOnAFIFO() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let link = directory.path + "/link.lock"
        symlink(directory.path + "/target", link)
        #expect(throws: SystemError.self) { try FileLock.take(link) }
        #expect(access(directory.path + "/target", F_OK) != 0, "the link was followed")
        let fifo = directory.path + "/fifo.lock"
        mkfifo(fifo, 0o600)
        #expect(throws: SystemError.self) { try FileLock.take(fifo) }
    }
}
