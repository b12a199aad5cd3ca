import Glibc

/// Why a test client could not connect: the errno of socket(2) or connect(2).
public struct ConnectFailure: Error, CustomStringConvertible {
    public let errno: Int32
    public var description: String { "connect: " + String(cString: strerror(errno)) }
}

/// A blocking stream socket connected to the Unix socket at `path`; the
/// caller owns the descriptor. On failure nothing is left open: a client
/// class must not take the descriptor until it is connected, or its deinit
/// (which runs when an initializer throws after setting every property)
/// closes a number that may be another thread's by then — the daemon's,
/// starting in this process.
public func connectUnixSocket(_ path: String) throws(ConnectFailure) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw ConnectFailure(errno: errno) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (i, b) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
    }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard result == 0 else {
        let code = errno
        close(fd)
        throw ConnectFailure(errno: code)
    }
    return fd
}
