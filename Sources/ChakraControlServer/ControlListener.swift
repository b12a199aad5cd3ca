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
        Descriptor.close(descriptor)
        guard let path, let made = madeInode, let info = try? FileSystem.lstat(path) else { return }
        if (info.st_mode & S_IFMT) == S_IFSOCK, UInt(info.st_dev) == made.dev, UInt(info.st_ino) == made.ino {
            try? FileSystem.unlink(path)
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
        guard UnixSocket.option(fd, SO_DOMAIN) == AF_UNIX, UnixSocket.option(fd, SO_TYPE) == Int32(SOCK_STREAM.rawValue),
              UnixSocket.option(fd, SO_ACCEPTCONN) == 1 else {
            throw ControlSocketError("socket activation: fd 3 is not a listening Unix stream socket (use ListenStream= and Accept=no in chakrad.socket)")
        }
        do {
            try Descriptor.setNonBlockingCloseOnExec(fd)
        } catch {
            throw ControlSocketError("socket activation: fd 3: \(error)")
        }
        return ControlListener(descriptor: fd, path: UnixSocket.boundPath(of: fd), activated: true, madeInode: nil)
    }

    // MARK: binding a path

    /// Listens at `path` with permission bits `mode` and, if given, group
    /// `group`. The parent directory is made (0755) when missing. A socket
    /// file left by a daemon that died is replaced; anything else at the
    /// path (a live socket, a regular file, a symlink) is refused, and no
    /// symlink is ever followed.
    public static func bind(path: String, mode: Int, group: String?) throws(ControlSocketError) -> ControlListener {
        guard path.hasPrefix("/"), path.utf8.count < UnixSocket.pathCapacity else {
            throw ControlSocketError("control socket '\(path)': must be an absolute path shorter than \(UnixSocket.pathCapacity) bytes")
        }
        try makeParent(of: path)
        let replaced = try removeStaleSocket(at: path)
        let fd: Int32
        do {
            fd = try UnixSocket.make(nonBlocking: true)
        } catch {
            throw failure(error, path)
        }
        // The file is created 0600 and opened up to `mode` only after it has
        // its group: no one outside the group can connect in between.
        let previous = umask(0o177)
        do {
            try UnixSocket.bind(fd, path: path)
            umask(previous)
        } catch {
            umask(previous)
            Descriptor.close(fd)
            throw failure(error, path)
        }
        guard let info = try? FileSystem.lstat(path), (info.st_mode & S_IFMT) == S_IFSOCK else {
            Descriptor.close(fd)
            throw ControlSocketError("control socket '\(path)': not a socket after bind")
        }
        let listener = ControlListener(descriptor: fd, path: path, activated: false, madeInode: (UInt(info.st_dev), UInt(info.st_ino)))
        listener.replacedStaleSocket = replaced
        if let group {
            let gid = try groupID(group, for: path)
            do { try FileSystem.changeGroup(path, to: gid) } catch { throw failure(error, path) }
        }
        do {
            try FileSystem.changeMode(path, to: mode_t(mode))
            try UnixSocket.listen(fd, backlog: 64, path: path)
        } catch {
            throw failure(error, path)
        }
        return listener
    }

    private static func failure(_ error: SystemError, _ path: String) -> ControlSocketError {
        ControlSocketError("control socket '\(path)': \(error.call) failed: \(String(cString: strerror(error.errno)))")
    }

    /// Makes the missing directories above `path`, 0755 each.
    private static func makeParent(of path: String) throws(ControlSocketError) {
        var prefix = ""
        for component in path.split(separator: "/").dropLast() {
            prefix += "/" + component
            let existing: stat?
            do {
                existing = try FileSystem.stat(prefix)
            } catch where error.errno == ENOENT {
                existing = nil
            } catch {
                throw ControlSocketError("control socket '\(path)': cannot look at '\(prefix)': \(String(cString: strerror(error.errno)))")
            }
            if let existing {
                guard (existing.st_mode & S_IFMT) == S_IFDIR else {
                    throw ControlSocketError("control socket '\(path)': '\(prefix)' is not a directory")
                }
                continue
            }
            do {
                try FileSystem.makeDirectory(prefix, mode: 0o755)
            } catch where error.errno == EEXIST {
                continue
            } catch {
                throw ControlSocketError("control socket '\(path)': cannot create directory '\(prefix)': \(String(cString: strerror(error.errno)))")
            }
        }
    }

    /// A socket file no one listens on is left by a daemon that died:
    /// remove it (true). Refuse anything else.
    private static func removeStaleSocket(at path: String) throws(ControlSocketError) -> Bool {
        let info: stat
        do {
            info = try FileSystem.lstat(path)
        } catch where error.errno == ENOENT {
            return false
        } catch {
            throw failure(error, path)
        }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            let kind = (info.st_mode & S_IFMT) == S_IFLNK ? "a symbolic link" : (info.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a socket"
            throw ControlSocketError("control socket '\(path)': the path exists and is \(kind); not replacing it")
        }
        let probe: Int32
        do {
            probe = try UnixSocket.make()
        } catch {
            throw failure(error, path)
        }
        defer { Descriptor.close(probe) }
        var refused: SystemError?
        do {
            try UnixSocket.connect(probe, path: path)
        } catch {
            refused = error
        }
        guard let refused, refused.errno != EAGAIN else {
            throw ControlSocketError("control socket '\(path)': another process is listening there (another chakrad?)", inUse: true)
        }
        guard refused.errno == ECONNREFUSED else { throw failure(refused, path) }
        do {
            try FileSystem.unlink(path)
        } catch where error.errno == ENOENT {
        } catch {
            throw ControlSocketError("control socket '\(path)': removing the stale socket failed: \(String(cString: strerror(error.errno)))")
        }
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
