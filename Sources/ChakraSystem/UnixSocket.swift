import Glibc

/// Unix stream sockets through the funnel: the daemon's control socket and
/// chakractl's connection to it. Descriptors are plain Int32s owned by the
/// caller (close them with `Descriptor.close`).
public enum UnixSocket {
    /// Bytes a socket path may have (sun_path, with its terminating 0).
    public static let pathCapacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    /// A new stream socket, close-on-exec, non-blocking if asked.
    public static func make(nonBlocking: Bool = false) throws(SystemError) -> Int32 {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        return try Syscall.check("socket(AF_UNIX)") { socket(AF_UNIX, type, 0) }
    }

    public static func bind(_ fd: Int32, path: String) throws(SystemError) {
        var address = try Self.address(path, call: "bind")
        try Syscall.check("bind(\(path))") {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
    }

    /// Connects to `path`. On a non-blocking socket EAGAIN means a full
    /// backlog: someone listens there.
    public static func connect(_ fd: Int32, path: String) throws(SystemError) {
        var address = try Self.address(path, call: "connect")
        try Syscall.check("connect(\(path))") {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
    }

    public static func listen(_ fd: Int32, backlog: Int32, path: String) throws(SystemError) {
        try Syscall.check("listen(\(path))") { Glibc.listen(fd, backlog) }
    }

    /// The next connection, or nil when none is waiting (EAGAIN); the new
    /// descriptor is made non-blocking and close-on-exec (accept4 needs
    /// _GNU_SOURCE, which Glibc's module does not set; the daemon never
    /// execs, so setting the flags after is as good).
    public static func accept(_ fd: Int32) throws(SystemError) -> Int32? {
        let connection: Int32
        do {
            connection = try Syscall.check("accept(fd \(fd))") { Glibc.accept(fd, nil, nil) }
        } catch {
            if error.errno == EAGAIN || error.errno == EWOULDBLOCK { return nil }
            throw error
        }
        do {
            try Descriptor.setNonBlockingCloseOnExec(connection)
        } catch {
            Descriptor.close(connection)
            throw error
        }
        return connection
    }

    /// Sends what it can without blocking or raising SIGPIPE: the byte
    /// count, or nil when the peer's buffer is full (EAGAIN).
    public static func send(_ fd: Int32, _ bytes: UnsafeRawPointer, count: Int, wait: Bool = false) throws(SystemError) -> Int? {
        let flags = Int32(MSG_NOSIGNAL) | (wait ? 0 : Int32(MSG_DONTWAIT))
        do {
            return try Syscall.check("send(fd \(fd))") { Glibc.send(fd, bytes, count, flags) }
        } catch {
            if error.errno == EAGAIN || error.errno == EWOULDBLOCK { return nil }
            throw error
        }
    }

    /// Reads what is there: the byte count (0: the peer closed), or nil
    /// when nothing is waiting (EAGAIN).
    public static func receive(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int) throws(SystemError) -> Int? {
        do {
            return try Syscall.check("recv(fd \(fd))") { recv(fd, buffer, count, Int32(MSG_DONTWAIT)) }
        } catch {
            if error.errno == EAGAIN || error.errno == EWOULDBLOCK { return nil }
            throw error
        }
    }

    /// An integer socket option (SO_DOMAIN, SO_TYPE, SO_ACCEPTCONN...).
    public static func option(_ fd: Int32, _ name: Int32) -> Int32? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return (try? Syscall.check("getsockopt") { getsockopt(fd, SOL_SOCKET, name, &value, &length) }) != nil ? value : nil
    }

    /// Who is at the other end (SO_PEERCRED): struct ucred, declared only
    /// under _GNU_SOURCE, as its three fields.
    public static func peerCredentials(_ fd: Int32) -> (pid: Int32, uid: UInt32, gid: UInt32)? {
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        let read = try? Syscall.check("getsockopt(SO_PEERCRED)") { getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) }
        return read == nil ? nil : credentials
    }

    /// The path a socket is bound to; nil when unnamed.
    public static func boundPath(of fd: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = try? Syscall.check("getsockname") {
            withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        }
        guard named != nil else { return nil }
        let path = withUnsafeBytes(of: address.sun_path) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return path.isEmpty ? nil : path
    }

    private static func address(_ path: String, call: String) throws(SystemError) -> sockaddr_un {
        guard path.utf8.count < pathCapacity else { throw SystemError(call: "\(call)(\(path))", errno: ENAMETOOLONG) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        return address
    }
}

/// Descriptor-level calls through the funnel.
public enum Descriptor {
    /// Opens `path`, close-on-exec added.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(SystemError) -> Int32 {
        try Syscall.check("open(\(path))") { Glibc.open(path, flags | O_CLOEXEC, mode) }
    }

    /// Reads up to `count` bytes: the count (0 at the end).
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int) throws(SystemError) -> Int {
        try Syscall.check("read(fd \(fd))") { Glibc.read(fd, buffer, count) }
    }

    /// Writes all of `count` bytes, a short write continued; `file` names
    /// the calls (for errors, and for tests' faults), else the descriptor.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawPointer, count: Int, file: String? = nil) throws(SystemError) {
        let name = file ?? "fd \(fd)"
        var offset = 0
        while offset < count {
            let written = try write(fd, bytes + offset, count: count - offset, file: name)
            // A file that takes nothing (no space, no error) would spin.
            guard written > 0 else { throw SystemError(call: "write(\(name))", errno: ENOSPC) }
            offset += written
        }
    }

    /// Makes `fd` non-blocking and close-on-exec (a descriptor systemd handed over).
    public static func setNonBlockingCloseOnExec(_ fd: Int32) throws(SystemError) {
        let flags = try Syscall.check("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
        try Syscall.check("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        try Syscall.check("fcntl(F_SETFD)") { fcntl(fd, F_SETFD, FD_CLOEXEC) }
    }

    /// Closes `fd`. Not retried on EINTR (Linux releases the descriptor
    /// anyway, and a retry could close another thread's new one); errors
    /// are returned for callers that must know (a file's last write).
    @discardableResult
    public static func close(_ fd: Int32) -> SystemError? {
        Glibc.close(fd) == 0 ? nil : SystemError(call: "close", errno: errno)
    }
}

/// Path-level calls through the funnel.
public enum FileSystem {
    public static func stat(_ path: String) throws(SystemError) -> Glibc.stat {
        var info = Glibc.stat()
        try Syscall.check("stat(\(path))") { fstatat(AT_FDCWD, path, &info, 0) }
        return info
    }

    /// The path itself, not what a symbolic link there points to.
    public static func lstat(_ path: String) throws(SystemError) -> Glibc.stat {
        var info = Glibc.stat()
        try Syscall.check("lstat(\(path))") { fstatat(AT_FDCWD, path, &info, AT_SYMLINK_NOFOLLOW) }
        return info
    }

    public static func unlink(_ path: String) throws(SystemError) {
        try Syscall.check("unlink(\(path))") { Glibc.unlink(path) }
    }

    public static func makeDirectory(_ path: String, mode: mode_t) throws(SystemError) {
        try Syscall.check("mkdir(\(path))") { mkdir(path, mode) }
    }

    public static func changeMode(_ path: String, to mode: mode_t) throws(SystemError) {
        try Syscall.check("chmod(\(path))") { chmod(path, mode) }
    }

    /// The group of `path` itself (a symbolic link is not followed).
    public static func changeGroup(_ path: String, to group: gid_t) throws(SystemError) {
        try Syscall.check("lchown(\(path))") { lchown(path, uid_t.max, group) }
    }

    public static func rename(_ from: String, to: String) throws(SystemError) {
        try Syscall.check("rename(\(from), \(to))") { Glibc.rename(from, to) }
    }

    /// Replaces the file at `path` with `text` so that a reader never sees
    /// half of it: written to `temporary` (in the same directory: a rename
    /// is atomic only within a file system), given `mode` if asked (the
    /// unit's UMask would otherwise decide), then renamed over `path`. On a
    /// failure the temporary file is removed and the old file stays. No
    /// fsync: the callers rewrite their files every few seconds.
    public static func replace(_ path: String, with text: String, temporary: String, mode: mode_t? = nil) throws(SystemError) {
        try replace(path, with: Array(text.utf8), temporary: temporary, mode: mode, durably: false)
    }
}
