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
/// - The work runs on a `BackgroundLane` of its own, one snapshot at a
///   time, at the daemon's priority (below it, a snapshot on a single core
///   busy with frames waited for seconds).
final class SnapshotTaker: Sendable {
    typealias Reply = @Sendable (Result<JSONValue, ControlError>) -> Void

    private struct Request: Sendable {
        let isWanted: @Sendable () -> Bool
        let reply: Reply
    }

    private let waiting = Mutex<[Request]>([])
    private let lane: BackgroundLane
    private let take: @Sendable () -> Result<JSONValue, ControlError>

    /// `take` copies a frame and encodes it (slow; called on the lane's
    /// thread, one call at a time).
    init(threadName: String = "chakra-snapshot", take: @escaping @Sendable () -> Result<JSONValue, ControlError>) {
        // At the daemon's own priority: at nice +10, on one core busy with
        // frames (the TCG guest of 55-device-faults), a snapshot took 15 s.
        // What keeps snapshots from costing frames is that they are shared
        // and dropped for the gone, and that a PNG is cheap now.
        lane = BackgroundLane(name: threadName, niceness: 0)
        self.take = take
    }

    /// Answers `reply` once: with the next snapshot taken, or at once
    /// without one when `isWanted` says the asker has gone by its turn.
    func request(isWanted: @escaping @Sendable () -> Bool, reply: @escaping Reply) {
        let first = waiting.withLock { waiting in
            waiting.append(Request(isWanted: isWanted, reply: reply))
            return waiting.count == 1
        }
        // The first to wait schedules a batch; the rest join it.
        if first { lane.submit { [self] in takeBatch() } }
    }

    /// One snapshot for everyone waiting now.
    private func takeBatch() {
        let batch = waiting.withLock { waiting in
            defer { waiting = [] }
            return waiting
        }
        let wanted = batch.filter { request in
            guard request.isWanted() else {
                request.reply(.failure(Self.gone))
                return false
            }
            return true
        }
        guard !wanted.isEmpty else { return }
        let result = take()
        for request in wanted {
            // Encoding the reply's line is a copy of the whole PNG: not for the gone.
            request.reply(request.isWanted() ? result : .failure(Self.gone))
        }
    }

    /// What a client that has gone is answered (the server drops it).
    static let gone = ControlError(.unavailable, "the client closed the connection before its snapshot was taken")
}
