import ChakraControl
import ChakraSystem
import Glibc

/// Why chakractl stops: the exit status and the message (docs/protocol.md).
struct ClientFailure: Error, CustomStringConvertible {
    enum Status: Int32 {
        /// The daemon answered no (ok: false), or what it answered could
        /// not be kept: a file not written (a full disk), the errno named.
        case failed = 1
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
    /// One read's worth, reused.
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private var nextID = 1
    /// Replies carry a snapshot as base64: a few megabytes, not more.
    static let maxLine = 256 << 20

    init(path: String) throws {
        self.path = path
        guard path.utf8.count < UnixSocket.pathCapacity else {
            throw ClientFailure(status: .unreachable, description: "cannot reach chakrad at \(path): the path is longer than \(UnixSocket.pathCapacity - 1) bytes")
        }
        do {
            fd = try UnixSocket.make()
        } catch {
            throw Self.unreachable(path, error.errno)
        }
        do {
            try UnixSocket.connect(fd, path: path)
        } catch {
            Descriptor.close(fd)
            throw Self.unreachable(path, error.errno)
        }
    }

    deinit { Descriptor.close(fd) }

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
        let bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            do {
                offset += try bytes.withUnsafeBytes { raw throws in
                    try UnixSocket.send(fd, raw.baseAddress! + offset, count: raw.count - offset, wait: true) ?? 0
                }
            } catch {
                throw lost("cannot send: \(SystemError.reason(of: error))")
            }
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
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            let received: Int?
            do {
                guard try Poller.wait(&fds, milliseconds: wait) > 0 else { continue }
                received = try chunk.withUnsafeMutableBytes { raw throws in
                    try UnixSocket.receive(fd, into: raw.baseAddress!, count: raw.count)
                }
            } catch {
                throw lost(SystemError.reason(of: error))
            }
            guard let count = received else { continue }   // woken, nothing there yet
            guard count > 0 else { throw lost("chakrad closed the connection") }
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
