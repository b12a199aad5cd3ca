import ChakraControl
import ChakraSystem
import Synchronization

/// Takes the snapshots clients ask for, bounded by what is wanted rather
/// than by how often it is asked.
///
/// - Requests that come while a snapshot is being taken share the next
///   one: one copy of the frame on the loop and one PNG for all of them.
/// - A request whose client has gone (it asked and closed) is answered
///   without a frame: 20 connections that ask and close at once used to
///   cost 20 PNGs (23 s before the next client's turn).
/// - The work runs on a thread of its own at a lower priority than the
///   frames: a PNG of a large frame is tens of milliseconds of CPU, and on
///   a 2-core board it must not take a core from the render threads. The
///   thread ends when nothing is left to take.
final class SnapshotTaker: Sendable {
    typealias Reply = @Sendable (Result<JSONValue, ControlError>) -> Void

    private struct Request: Sendable {
        let isWanted: @Sendable () -> Bool
        let reply: Reply
    }

    private struct Queue {
        var requests: [Request] = []
        var working = false
    }

    private let queue = Mutex(Queue())
    private let take: @Sendable () -> Result<JSONValue, ControlError>
    private let threadName: String

    /// `take` copies a frame and encodes it (slow; called on the taker's
    /// thread, one call at a time).
    init(threadName: String = "chakra-snapshot", take: @escaping @Sendable () -> Result<JSONValue, ControlError>) {
        (self.threadName, self.take) = (threadName, take)
    }

    /// Answers `reply` once: with the next snapshot taken, or at once
    /// without one when `isWanted` says the asker has gone by its turn.
    func request(isWanted: @escaping @Sendable () -> Bool, reply: @escaping Reply) {
        let startThread = queue.withLock { queue in
            queue.requests.append(Request(isWanted: isWanted, reply: reply))
            defer { queue.working = true }
            return !queue.working
        }
        guard startThread else { return }
        DetachedThread.start(name: threadName) { [self] in
            try? ThreadPriority.lowerCallingThread(by: 10)   // best effort: the frames come first
            while takeNextBatch() {}
        }
    }

    /// One snapshot for everyone waiting; false once nobody is.
    private func takeNextBatch() -> Bool {
        let batch = queue.withLock { queue in
            defer { queue.requests = [] }
            if queue.requests.isEmpty { queue.working = false }
            return queue.requests
        }
        guard !batch.isEmpty else { return false }
        let waiting = batch.filter { request in
            guard request.isWanted() else {
                request.reply(.failure(Self.gone))
                return false
            }
            return true
        }
        guard !waiting.isEmpty else { return true }
        let result = take()
        for request in waiting {
            // Encoding the reply's line is a copy of the whole PNG: not for the gone.
            request.reply(request.isWanted() ? result : .failure(Self.gone))
        }
        return true
    }

    /// What a client that has gone is answered (the server drops it).
    static let gone = ControlError(.unavailable, "the client closed the connection before its snapshot was taken")
}
