import Testing
@testable import ChakraDaemon

@Suite("Render threads follow the drawing time")
struct RenderThreadsTests {
    let interval = 1.0 / 60   // 16.7 ms

    @Test func oneThreadWhileItKeepsUp() {
        // 1080p heart on one core: ~3 ms of 16.7.
        #expect(DaemonCore.threadsFor(median: 0.003, threads: 1, interval: interval, maximum: 4) == 1)
    }

    @Test func anotherThreadPastHalfTheInterval() {
        #expect(DaemonCore.threadsFor(median: 0.0090, threads: 1, interval: interval, maximum: 4) == 2)
        #expect(DaemonCore.threadsFor(median: 0.0090, threads: 2, interval: interval, maximum: 4) == 3)
        // Never past the ceiling.
        #expect(DaemonCore.threadsFor(median: 0.0150, threads: 2, interval: interval, maximum: 2) == 2)
    }

    @Test func givenBackWhenOneFewerWouldTakeUnderAThird() {
        // 2 threads at 2 ms: one would take ≥ 4 ms (< 5.6 ms): back to one.
        #expect(DaemonCore.threadsFor(median: 0.002, threads: 2, interval: interval, maximum: 2) == 1)
        // 2 threads at 3 ms: one would take ≥ 6 ms (over a third): keep two.
        #expect(DaemonCore.threadsFor(median: 0.003, threads: 2, interval: interval, maximum: 2) == 2)
        // Between the two thresholds nothing changes (no flapping).
        #expect(DaemonCore.threadsFor(median: 0.007, threads: 1, interval: interval, maximum: 2) == 1)
    }
}
