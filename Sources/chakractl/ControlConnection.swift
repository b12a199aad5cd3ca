import ChakraControl
import Glibc

/// Why chakractl stops: the exit status and the message (docs/protocol.md).
struct ClientFailure: Error, CustomStringConvertible {
    enum Status: Int32 {
        /// The daemon answered no (ok: false).
        case refused = 1
        /// The command line (or a file it names) is wrong; nothing or no
        /// more is done.
        case usage = 2
        /// The daemon cannot be reached, or stopped answering.
        case unreachable = 3
    }

    let status: Status
    let description: String
}

/// One connection to chakrad's control socket, blocking, with deadlines.
/// Owns the descriptor until deinit.
final class ControlConnection {
    let path: String
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var nextID = 1
    /// Replies carry a snapshot as base64: a few megabytes, not more.
    static let maxLine = 256 << 20

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Self.unreachable(path, errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            Glibc.close(fd)
            throw ClientFailure(status: .unreachable, description: "cannot reach chakrad at \(path): the path is longer than \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Self.unreachable(path, code)
        }
    }

    deinit { Glibc.close(fd) }

    private static func unreachable(_ path: String, _ code: Int32) -> ClientFailure {
        let hint = switch code {
        case ENOENT: " (is chakrad running? --socket or CHAKRA_SOCKET name another socket)"
        case EACCES: " (is your user in the socket's group? see [control] group)"
        case ECONNREFUSED: " (nothing listens there: chakrad stopped and left its socket?)"
        default: ""
        }
        return ClientFailure(status: .unreachable, description: "cannot reach chakrad at \(path): \(String(cString: strerror(code)))\(hint)")
    }

    /// Sends `command` and waits for its reply (events before it are skipped).
    func call(_ command: ControlCommand, timeout: Double) throws -> Result<JSONValue, RemoteError> {
        let id = JSONValue.int(nextID)
        nextID += 1
        try send(ControlRequest(id: id, command).line)
        let deadline = MonotonicTime.now() + timeout
        while true {
            switch try readMessage(deadline: deadline) {
            case .reply(let replyID, let outcome) where replyID == id || replyID == nil:
                return outcome
            default:
                continue
            }
        }
    }

    func send(_ line: String) throws {
        var bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw lost("cannot send: \(String(cString: strerror(errno)))") }
            offset += count
        }
    }

    /// The next message; nil deadline: wait for ever (events).
    func readMessage(deadline: Double?) throws -> ControlMessage {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[..<newline]
                defer { buffer.removeSubrange(...newline) }
                guard let message = ControlMessage.parse(line) else {
                    throw lost("chakrad sent a line that is not protocol: \(String(decoding: line.prefix(200), as: UTF8.self))")
                }
                return message
            }
            guard buffer.count <= Self.maxLine else { throw lost("chakrad sent a line longer than \(Self.maxLine) bytes") }
            var wait: Int32 = -1
            if let deadline {
                let left = deadline - MonotonicTime.now()
                guard left > 0 else { throw ClientFailure(status: .unreachable, description: "no answer from chakrad at \(path) in time (--timeout)") }
                wait = Int32(min(left * 1000, 3_600_000).rounded(.up))
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, wait)
            if ready < 0, errno == EINTR { continue }
            if ready == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw lost(count == 0 ? "chakrad closed the connection" : String(cString: strerror(errno))) }
            buffer += chunk[0..<count]
        }
    }

    private func lost(_ why: String) -> ClientFailure {
        ClientFailure(status: .unreachable, description: "lost chakrad at \(path): \(why)")
    }
}

enum MonotonicTime {
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
