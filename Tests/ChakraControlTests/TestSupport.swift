import ChakraControl
import ChakraControlServer
import ChakraSystem
import ChakraTestSupport
import Foundation
import Glibc
import Synchronization

/// A fresh directory under /tmp, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/chakra-test-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A socket file at `path` nobody listens on: what a daemon that died leaves.
func leaveStaleSocket(at path: String) throws {
    let stale = try UnixSocket.make()
    try UnixSocket.bind(stale, path: path)
    Descriptor.close(stale)
}

/// Why binding the control socket at `path` fails; nil when it works (the
/// listener is closed again).
func bindFailure(_ path: String) -> ControlSocketError? {
    do {
        try ControlListener.bind(path: path, mode: 0o660, group: nil).close()
        return nil
    } catch {
        return error
    }
}

/// A blocking client for tests: connect, send, read lines with a deadline.
final class TestClient: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        fd = try connectUnixSocket(path)
    }

    deinit { Glibc.close(fd) }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    func shutdownWriting() { shutdown(fd, Int32(SHUT_WR)) }

    /// The next line, or nil at end of stream or after `timeout` seconds.
    func readLine(timeout: Double = 10) -> String? {
        let deadline = Deadline(seconds: timeout)
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            guard waitUntilReadable(fd, by: deadline) else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// The next `count` lines (fewer at end of stream or after `timeout`
    /// seconds without a byte): for many lines, without the per-line
    /// copying of `readLine`.
    func readLines(_ count: Int, timeout: Double = 10) -> [String] {
        var lines: [String] = []
        var pending = buffer
        buffer = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            var start = pending.startIndex
            while lines.count < count, let newline = pending[start...].firstIndex(of: 10) {
                lines.append(String(decoding: pending[start..<newline], as: UTF8.self))
                start = newline + 1
            }
            pending.removeFirst(start - pending.startIndex)
            if lines.count == count { break }
            guard waitUntilReadable(fd, by: Deadline(seconds: timeout)) else { break }
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            pending += chunk[0..<n]
        }
        buffer = pending
        return lines
    }

    /// True when the server closed the connection within `timeout` (lines still
    /// waiting are skipped).
    func isClosed(timeout: Double = 10) -> Bool {
        let deadline = Deadline(seconds: timeout)
        var chunk = [UInt8](repeating: 0, count: 65536)
        while waitUntilReadable(fd, by: deadline) {
            if recv(fd, &chunk, chunk.count, 0) <= 0 { return true }
        }
        return false
    }

    /// Sends a request line and reads the reply line, parsed.
    func request(_ json: String, timeout: Double = 10) -> JSONValue? {
        send(json + "\n")
        guard let line = readLine(timeout: timeout) else { return nil }
        return try? JSONValue.parse(Array(line.utf8)).get()
    }
}

/// A handler that answers like a tiny daemon, counts requests in flight,
/// and can hold its answers back.
final class FakeHandler: ControlHandler {
    struct State {
        var handled: [ControlCommand] = []
        var contexts: [RequestContext] = []
        var inFlight = 0
        var mostInFlight = 0
        var held: [@Sendable (Result<JSONValue, ControlError>) -> Void] = []
        var holding = false
        /// Bytes of padding in each status reply (a real one is about 1.5 KB).
        var statusPadding = 0
        /// Bytes of base64 in a snapshot reply (a real frame's is hundreds of KB).
        var snapshotBytes = 0
    }

    let state = Mutex(State())

    func handle(_ request: ControlRequest, context: RequestContext, reply: @escaping @Sendable (Result<JSONValue, ControlError>) -> Void) {
        let (holding, padding, snapshotBytes) = state.withLock { state in
            state.handled.append(request.command)
            state.contexts.append(context)
            state.inFlight += 1
            state.mostInFlight = max(state.mostInFlight, state.inFlight)
            return (state.holding, state.statusPadding, state.snapshotBytes)
        }
        let answer: @Sendable (Result<JSONValue, ControlError>) -> Void = { [self] outcome in
            state.withLock { $0.inFlight -= 1 }
            reply(outcome)
        }
        let outcome: Result<JSONValue, ControlError>
        switch request.command {
        case .ping: outcome = .success(["pong": true])
        case .status where padding > 0: outcome = .success(["clients": .int(context.clients), "padding": .string(String(repeating: "p", count: padding))])
        case .status: outcome = .success(["clients": .int(context.clients)])
        case .snapshot where snapshotBytes > 0: outcome = .success(["format": "png", "png": .string(String(repeating: "A", count: snapshotBytes))])
        case .switchScene(let request) where request.scene != "heart":
            outcome = .failure(ControlError(.unknownScene, "no scene named '\(request.scene)'"))
        default: outcome = .success(["command": .string(request.command.name)])
        }
        if holding {
            state.withLock { $0.held.append({ _ in answer(outcome) }) }
        } else {
            answer(outcome)
        }
    }

    func hold() { state.withLock { $0.holding = true } }

    /// Answers every held request (from this thread, like a frame loop would).
    func release() {
        let held = state.withLock { state in
            defer { state.held = []; state.holding = false }
            return state.held
        }
        for answer in held { answer(.success(.null)) }
    }
}

/// A server on a socket in a temporary directory.
struct RunningServer {
    let directory = TemporaryDirectory()
    let path: String
    let server: ControlServer
    let handler = FakeHandler()

    init(limits: ServerLimits = ServerLimits(), name: String = "control.sock") throws {
        path = directory.path + "/run/" + name
        let listener = try ControlListener.bind(path: path, mode: 0o660, group: nil)
        server = try ControlServer(listener: listener, limits: limits, handler: handler, logger: Logger(label: "test"))
        server.start()
    }

    func client() throws -> TestClient { try TestClient(path: path) }

    func stop() {
        server.stop()
        directory.remove()
    }

    /// The value of `count` once the server has stopped changing it: the
    /// same before and after two round trips of `fence` (another client's
    /// ping). Each round trip is a turn of the server's loop after the one
    /// the first count came from, and a loop that still took lines from a
    /// client would have counted them there. (Two: the count is read while
    /// the loop may still be in the turn that answered the ping.)
    func settledCount(_ count: () -> Int, fence: TestClient) -> Int {
        let deadline = Deadline(seconds: 60)
        var before = count()
        while !deadline.hasPassed {
            _ = fence.request(#"{"cmd":"ping"}"#)
            _ = fence.request(#"{"cmd":"ping"}"#)
            let after = count()
            if after == before { return after }
            before = after
        }
        return before
    }
}
