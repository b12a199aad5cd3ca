import ChakraSystem
import Glibc

/// Why the control socket could not be set up: says what and where.
public struct ControlSocketError: Error, CustomStringConvertible, Equatable {
    public let description: String
    /// Another process answers on the path: most likely another chakrad,
    /// which this one must not run beside.
    public let inUse: Bool
    init(_ description: String, inUse: Bool = false) { (self.description, self.inUse) = (description, inUse) }
}

/// The listening control socket: bound to a path by the daemon, or handed
/// over by systemd (chakrad.socket). Owns the descriptor until `close()`;
/// removes the socket file it made, and only that one (same inode), so a
/// second daemon's socket is never unlinked by the first one's exit.
public final class ControlListener: @unchecked Sendable {
    public let descriptor: Int32
    /// The socket's path, for the log and for clean-up (nil: unnamed).
    public let path: String?
    /// True when systemd made the socket: never unlinked by us.
    public let activated: Bool
    /// bind replaced a socket file left by a daemon that died (for the log).
    public private(set) var replacedStaleSocket = false
    private let madeInode: (dev: UInt, ino: UInt)?
    private var closed = false

    private init(descriptor: Int32, path: String?, activated: Bool, madeInode: (dev: UInt, ino: UInt)?) {
        (self.descriptor, self.path, self.activated, self.madeInode) = (descriptor, path, activated, madeInode)
    }

    deinit { close() }

    /// Closes the socket; removes the file if this listener made it.
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(descriptor)
        guard let path, let made = madeInode else { return }
        var info = stat()
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFSOCK, UInt(info.st_dev) == made.dev, UInt(info.st_ino) == made.ino {
            unlink(path)
        }
    }

    // MARK: systemd socket activation

    /// The socket systemd passed (sd_listen_fds(3): $LISTEN_PID is us,
    /// $LISTEN_FDS ≥ 1, the first at fd 3), or nil when not activated. The
    /// caller unsets the variables (before any thread starts).
    public static func activated(environment: [String: String], pid: pid_t = getpid()) throws(ControlSocketError) -> ControlListener? {
        guard let pidText = environment["LISTEN_PID"], pid_t(pidText) == pid,
              let count = environment["LISTEN_FDS"].flatMap({ Int($0) }), count >= 1 else { return nil }
        let fd: Int32 = 3   // SD_LISTEN_FDS_START
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fd, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        guard option(SO_DOMAIN) == AF_UNIX, option(SO_TYPE) == Int32(SOCK_STREAM.rawValue), option(SO_ACCEPTCONN) == 1 else {
            throw ControlSocketError("socket activation: fd 3 is not a listening Unix stream socket (use ListenStream= and Accept=no in chakrad.socket)")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return ControlListener(descriptor: fd, path: boundPath(of: fd), activated: true, madeInode: nil)
    }

    private static func boundPath(of fd: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { return nil }
        let path = withUnsafeBytes(of: address.sun_path) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return path.isEmpty ? nil : path
    }

    // MARK: binding a path

    /// Listens at `path` with permission bits `mode` and, if given, group
    /// `group`. The parent directory is made (0755) when missing. A socket
    /// file left by a daemon that died is replaced; anything else at the
    /// path (a live socket, a regular file, a symlink) is refused, and no
    /// symlink is ever followed.
    public static func bind(path: String, mode: Int, group: String?) throws(ControlSocketError) -> ControlListener {
        let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        guard path.hasPrefix("/"), path.utf8.count < capacity else {
            throw ControlSocketError("control socket '\(path)': must be an absolute path shorter than \(capacity) bytes")
        }
        try makeParent(of: path)
        let replaced = try removeStaleSocket(at: path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure("socket", path) }
        var address = Self.address(path)
        // The file is created 0600 and opened up to `mode` only after it has
        // its group: no one outside the group can connect in between.
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(previous)
        guard bound == 0 else {
            let error = failure("bind", path)
            Glibc.close(fd)
            throw error
        }
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFSOCK else {
            Glibc.close(fd)
            throw ControlSocketError("control socket '\(path)': not a socket after bind")
        }
        let listener = ControlListener(descriptor: fd, path: path, activated: false, madeInode: (UInt(info.st_dev), UInt(info.st_ino)))
        listener.replacedStaleSocket = replaced
        if let group {
            let gid = try groupID(group, for: path)
            guard lchown(path, uid_t.max, gid) == 0 else { throw failure("chown to group '\(group)'", path) }
        }
        guard chmod(path, mode_t(mode)) == 0 else { throw failure("chmod \(String(mode, radix: 8))", path) }
        guard listen(fd, 64) == 0 else { throw failure("listen", path) }
        return listener
    }

    static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        return address
    }

    private static func failure(_ what: String, _ path: String) -> ControlSocketError {
        ControlSocketError("control socket '\(path)': \(what) failed: \(String(cString: strerror(errno)))")
    }

    /// Makes the missing directories above `path`, 0755 each.
    private static func makeParent(of path: String) throws(ControlSocketError) {
        var prefix = ""
        for component in path.split(separator: "/").dropLast() {
            prefix += "/" + component
            var info = stat()
            if stat(prefix, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw ControlSocketError("control socket '\(path)': '\(prefix)' is not a directory")
                }
                continue
            }
            guard errno == ENOENT, mkdir(prefix, 0o755) == 0 || errno == EEXIST else {
                throw ControlSocketError("control socket '\(path)': cannot create directory '\(prefix)': \(String(cString: strerror(errno)))")
            }
        }
    }

    /// A socket file no one listens on is left by a daemon that died:
    /// remove it (true). Refuse anything else.
    private static func removeStaleSocket(at path: String) throws(ControlSocketError) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return false }
            throw failure("lstat", path)
        }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            let kind = (info.st_mode & S_IFMT) == S_IFLNK ? "a symbolic link" : (info.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a socket"
            throw ControlSocketError("control socket '\(path)': the path exists and is \(kind); not replacing it")
        }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw failure("socket", path) }
        defer { Glibc.close(probe) }
        var address = Self.address(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if connected == 0 || errno == EAGAIN {
            throw ControlSocketError("control socket '\(path)': another process is listening there (another chakrad?)", inUse: true)
        }
        guard errno == ECONNREFUSED, unlink(path) == 0 || errno == ENOENT else { throw failure("removing the stale socket", path) }
        return true
    }

    private static func groupID(_ name: String, for path: String) throws(ControlSocketError) -> gid_t {
        var group = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16384)
        let status = getgrnam_r(name, &group, &buffer, buffer.count, &result)
        guard status == 0, result != nil else {
            throw ControlSocketError("control socket '\(path)': no group named '\(name)' ([control] group)")
        }
        return group.gr_gid
    }
}
