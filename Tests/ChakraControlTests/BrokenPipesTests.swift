import ChakraSystem
import Glibc
import Testing

/// With SIGPIPE ignored (as `chakrad run` does first thing), a write to a
/// pipe whose reader is gone is an EPIPE error, not the end of the process.
@Suite("Broken pipes")
struct BrokenPipesTests {
    @Test func aWriteWithNoReaderFailsWithEPIPE() throws {
        // Put back as it was: children other tests spawn (chakrad among them)
        // would inherit an ignored SIGPIPE and hide what those tests check.
        var before = sigaction()
        sigaction(SIGPIPE, nil, &before)
        defer { sigaction(SIGPIPE, &before, nil) }
        try BrokenPipes.ignore()
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        Glibc.close(ends[0])   // the reader goes away
        defer { Glibc.close(ends[1]) }
        let line = Array("a log line\n".utf8)
        #expect(throws: SystemError(call: "write(stderr)", errno: EPIPE)) {
            try Descriptor.writeAll(ends[1], line, count: line.count, file: "stderr")
        }
        // Still here, and it keeps failing the same harmless way.
        #expect(write(ends[1], line, line.count) == -1 && errno == EPIPE)
    }
}
