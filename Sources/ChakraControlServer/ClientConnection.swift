import ChakraControl
import ChakraSystem
import Glibc

/// One accepted connection: its bytes in and out, its request in flight,
/// its subscription. Owned by the server's thread, from accept to close.
final class ClientConnection {
    let id: UInt64
    let descriptor: Int32
    var framer: LineFramer
    /// Closed with the descriptor, for the threads that answer its requests.
    let presence = ConnectionPresence()
    /// Bytes to send; those before `sent` are sent.
    private var output: [UInt8] = []
    private var sent = 0
    /// The unsent bytes by kind, in order, neighbours of a kind merged
    /// (a handful at most): replies do not count against the event bound.
    private var segments: [(bytes: Int, isReply: Bool)] = []
    private var unsentReplyBytes = 0

    /// A request is with the handler; no other is read until it answers.
    var requestInFlight = false
    /// nil: not subscribed.
    var subscription: Set<EventKind>?
    /// The client closed its sending side: answer what it sent, then close.
    var inputClosed = false
    /// Close once the output is sent (after line_too_long, at end of input).
    var closing = false
    /// The peer is gone or broke the rules: close now.
    var dead = false
    /// When its last complete request line arrived, or it connected
    /// (monotonic seconds): for the idle rules (IdleConnections).
    var lastRequest: Double

    init(id: UInt64, descriptor: Int32, maxLine: Int, now: Double) {
        (self.id, self.descriptor, self.lastRequest) = (id, descriptor, now)
        framer = LineFramer(maxLine: maxLine)
    }

    var activity: IdleConnections.Activity {
        IdleConnections.Activity(id: id, lastRequest: lastRequest, subscribed: subscription != nil, requestInFlight: requestInFlight)
    }

    var pendingOutput: Int { output.count - sent }

    /// Bytes of events waiting (replies excluded).
    var queuedEventBytes: Int { pendingOutput - unsentReplyBytes }

    func queue(_ line: String, isReply: Bool) {
        if sent > 0, sent == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 256 << 10)
            sent = 0
        }
        let start = output.count
        output.append(contentsOf: line.utf8)
        let count = output.count - start
        if isReply { unsentReplyBytes += count }
        if let last = segments.last, last.isReply == isReply {
            segments[segments.count - 1].bytes += count
        } else {
            segments.append((count, isReply))
        }
    }

    /// `count` bytes left: they came off the front of the segments.
    private func consumed(_ count: Int) {
        var left = count
        while left > 0, let first = segments.first {
            let taken = min(left, first.bytes)
            if first.isReply { unsentReplyBytes -= taken }
            left -= taken
            if taken == first.bytes { segments.removeFirst() } else { segments[0].bytes -= taken }
        }
    }

    /// Sends what the socket takes now. Marks the connection dead when the
    /// peer is gone.
    func flush() {
        while sent < output.count {
            let count: Int?
            do {
                count = try output.withUnsafeBytes { raw throws in
                    try UnixSocket.send(descriptor, raw.baseAddress! + sent, count: output.count - sent)
                }
            } catch {
                dead = true   // EPIPE, ECONNRESET...
                return
            }
            guard let count else { return compact() }   // full: POLLOUT says when
            sent += count
            consumed(count)
        }
        if output.count > 256 << 10 {
            output = []   // a snapshot went out: give its memory back
            sent = 0
        }
    }

    /// Drops what was sent when the socket is full: a reader that always
    /// lags a little must not make the buffer grow by what it did read.
    private func compact() {
        guard sent >= 64 << 10, sent * 2 >= output.count else { return }
        output.removeFirst(sent)
        sent = 0
    }

    /// poll(2) events wanted now.
    func pollEvents(resumeReadingBelow: Int) -> Int16 {
        var events: Int32 = 0
        if wantsInput(resumeReadingBelow: resumeReadingBelow) { events |= POLLIN }
        if pendingOutput > 0 { events |= POLLOUT }
        return Int16(events)
    }

    func wantsInput(resumeReadingBelow: Int) -> Bool {
        !requestInFlight && !inputClosed && !closing && !dead && pendingOutput < resumeReadingBelow
    }
}
