import ChakraControl
import Dispatch
import Synchronization
import Testing
@testable import ChakraDaemon

/// Snapshots cost what is wanted, not what is asked: the waiting share one,
/// and the gone get none. Every request is answered exactly once.
@Suite("Snapshot taker")
struct SnapshotTakerTests {
    /// A `take` that counts its calls and, when told to, holds the first
    /// one until released (the PNG being encoded while more requests come).
    final class Taking: Sendable {
        let calls = Atomic<Int>(0)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holdFirst: Bool
        init(holdFirst: Bool) { self.holdFirst = holdFirst }

        func take() -> Result<JSONValue, ControlError> {
            let call = calls.add(1, ordering: .relaxed).newValue
            if holdFirst, call == 1 {
                started.signal()
                release.wait()
            }
            return .success(["call": .int(call)])
        }
    }

    /// Replies as they come, and a semaphore per reply to wait on.
    final class Replies: Sendable {
        let received = Mutex<[Int: [Result<JSONValue, ControlError>]]>([:])
        let arrived = DispatchSemaphore(value: 0)

        func reply(_ index: Int) -> SnapshotTaker.Reply {
            { result in
                self.received.withLock { $0[index, default: []].append(result) }
                self.arrived.signal()
            }
        }

        func wait(for count: Int) {
            for _ in 0..<count { #expect(arrived.wait(timeout: .now() + 30) == .success) }
        }
    }

    @Test func clientsThatHaveGoneCostNoFrame() {
        let taking = Taking(holdFirst: false), replies = Replies()
        let taker = SnapshotTaker(threadName: "test-snapshot") { taking.take() }
        for index in 0..<20 { taker.request(isWanted: { false }, reply: replies.reply(index)) }
        replies.wait(for: 20)
        #expect(taking.calls.load(ordering: .relaxed) == 0)
        replies.received.withLock { received in
            #expect(received.count == 20)
            for (_, results) in received {
                #expect(results.count == 1)
                guard case .failure(let error) = results.first else { Issue.record("a gone client got a frame"); continue }
                #expect(error.code == .unavailable)
            }
        }
    }

    @Test func requestsDuringASnapshotShareTheNextOne() {
        let taking = Taking(holdFirst: true), replies = Replies()
        let taker = SnapshotTaker(threadName: "test-snapshot") { taking.take() }
        taker.request(isWanted: { true }, reply: replies.reply(0))
        #expect(taking.started.wait(timeout: .now() + 30) == .success)
        let leaves = Atomic<Bool>(false)
        for index in 1...10 { taker.request(isWanted: { true }, reply: replies.reply(index)) }
        // One more, whose client goes away while it waits.
        taker.request(isWanted: { !leaves.load(ordering: .relaxed) }, reply: replies.reply(11))
        leaves.store(true, ordering: .relaxed)
        taking.release.signal()
        replies.wait(for: 12)
        #expect(taking.calls.load(ordering: .relaxed) == 2, "the first request's frame, then one for the ten waiting")
        replies.received.withLock { received in
            #expect(received[0]?.count == 1)
            if case .success(let value)? = received[0]?.first { #expect(value == ["call": 1]) } else { Issue.record("the first request") }
            for index in 1...10 {
                #expect(received[index]?.count == 1)
                if case .success(let value)? = received[index]?.first { #expect(value == ["call": 2]) } else { Issue.record("request \(index)") }
            }
            if case .failure(let error)? = received[11]?.first { #expect(error.code == .unavailable) } else { Issue.record("the one that left got a frame") }
        }
    }

    /// After a batch the thread ends; the next request starts another.
    @Test func laterRequestsAreTakenAgain() {
        let taking = Taking(holdFirst: false), replies = Replies()
        let taker = SnapshotTaker(threadName: "test-snapshot") { taking.take() }
        for round in 0..<50 {
            taker.request(isWanted: { true }, reply: replies.reply(round))
            replies.wait(for: 1)
        }
        #expect(taking.calls.load(ordering: .relaxed) == 50)
    }
}
