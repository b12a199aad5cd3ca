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
///
/// A bound socket holds a lock on `PATH.lock` (`ControlListener.lockPath`)
/// from before it looks at the path until it is closed: of daemons started
/// at the same moment for one path, exactly one gets past it, and only
/// that one decides whether a socket file there is stale, removes it and
/// binds. Without it two could both find no one listening, and the loser
/// either failed at bind (EADDRINUSE) or removed the winner's new socket.
public final class ControlListener: @unchecked Sendable {
    public let descriptor: Int32
    /// The socket's path, for the log and for clean-up (nil: unnamed).
    public let path: String?
    /// True when systemd made the socket: never unlinked by us.
    public let activated: Bool
    /// bind replaced a socket file left by a daemon that died (for the log).
    public private(set) var replacedStaleSocket = false
    private let madeInode: (dev: UInt, ino: UInt)?
    /// Held while this listener owns its path (nil: activated).
    private let lock: FileLock?
    private var closed = false
    /// The socket is in systemd's file descriptor store for the next
    /// chakrad: closing leaves the file at the path (the store's copy
    /// still listens there).
    private var keepsPath = false

    private init(descriptor: Int32, path: String?, activated: Bool, madeInode: (dev: UInt, ino: UInt)?, lock: FileLock? = nil) {
        (self.descriptor, self.path, self.activated, self.madeInode, self.lock) = (descriptor, path, activated, madeInode, lock)
    }

    /// The lock file that says a daemon owns the socket at `path`.
    public static func lockPath(for path: String) -> String { path + ".lock" }

    deinit { close() }

    /// Closes the socket; removes the file if this listener made it; then
    /// lets go of the lock (the next daemon finds the path clean).
    public func close() {
        guard !closed else { return }
        closed = true
        Descriptor.close(descriptor)
        defer { lock?.release() }
        guard !keepsPath, let path, let made = madeInode, let info = try? FileSystem.lstat(path) else { return }
        if (info.st_mode & S_IFMT) == S_IFSOCK, UInt(info.st_dev) == made.dev, UInt(info.st_ino) == made.ino {
            try? FileSystem.unlink(path)
        }
    }

    /// The socket went into systemd's file descriptor store: `close`
    /// leaves its file, so the next chakrad, handed the same socket, is
    /// reached at the same path, and clients connecting between the two
    /// wait in its backlog. After a stop for good (the store flushed) the
    /// file is stale, and the next bind replaces it.
    public func keepPathForNextProcess() {
        keepsPath = true
    }

    // MARK: systemd socket activation

    /// The socket systemd passed (sd_listen_fds(3): $LISTEN_PID is us,
    /// $LISTEN_FDS ≥ 1, the first at fd 3), or nil when not activated. The
    /// caller unsets the variables (before any thread starts).
    public static func activated(environment: [String: String], pid: pid_t = getpid()) throws(ControlSocketError) -> ControlListener? {
        guard let pidText = environment["LISTEN_PID"], pid_t(pidText) == pid,
              let count = environment["LISTEN_FDS"].flatMap({ Int($0) }), count >= 1 else { return nil }
        return try activated(descriptor: 3)   // SD_LISTEN_FDS_START
    }

    /// The passed descriptor `fd` as the listener (chakrad.socket's, or
    /// the `control` socket a previous chakrad left in systemd's store).
    public static func activated(descriptor fd: Int32) throws(ControlSocketError) -> ControlListener {
        guard UnixSocket.option(fd, SO_DOMAIN) == AF_UNIX, UnixSocket.option(fd, SO_TYPE) == Int32(SOCK_STREAM.rawValue),
              UnixSocket.option(fd, SO_ACCEPTCONN) == 1 else {
            throw ControlSocketError("socket activation: fd \(fd) is not a listening Unix stream socket (use ListenStream= and Accept=no in chakrad.socket)")
        }
        do {
            try Descriptor.setNonBlockingCloseOnExec(fd)
        } catch {
            throw ControlSocketError("socket activation: fd \(fd): \(error)")
        }
        return ControlListener(descriptor: fd, path: UnixSocket.boundPath(of: fd), activated: true, madeInode: nil)
    }

    // MARK: binding a path

    /// Listens at `path` with permission bits `mode` and, if given, group
    /// `group`. The parent directory is made (0755) when missing. A socket
    /// file left by a daemon that died is replaced; anything else at the
    /// path (a live socket, a regular file, a symlink) is refused, and no
    /// symlink is ever followed. Another daemon holding the path's lock,
    /// or a socket someone bound there in the meantime, is `inUse`.
    public static func bind(path: String, mode: Int, group: String?) throws(ControlSocketError) -> ControlListener {
        guard path.hasPrefix("/"), path.utf8.count < UnixSocket.pathCapacity else {
            throw ControlSocketError("control socket '\(path)': must be an absolute path shorter than \(UnixSocket.pathCapacity) bytes")
        }
        try makeParent(of: path)
        // Anything but a socket is refused before a lock file is made beside it.
        _ = try socketExists(at: path)
        // The lock, then the decision about what is at the path: see the type's comment.
        let lock = try claim(path)
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
            // Bound by someone who does not take the lock: as good as listening.
            if error.errno == EADDRINUSE {
                throw ControlSocketError("control socket '\(path)': another process bound it just now (another chakrad?)", inUse: true)
            }
            throw failure(error, path)
        }
        guard let info = try? FileSystem.lstat(path), (info.st_mode & S_IFMT) == S_IFSOCK else {
            Descriptor.close(fd)
            throw ControlSocketError("control socket '\(path)': not a socket after bind")
        }
        let listener = ControlListener(descriptor: fd, path: path, activated: false, madeInode: (UInt(info.st_dev), UInt(info.st_ino)), lock: lock)
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

    /// The lock on `path`'s lock file, or `inUse` when another daemon holds
    /// it (it is starting, or running on the path). Anything but a regular
    /// file at the lock's path is refused, like anything but a socket at
    /// the socket's.
    private static func claim(_ path: String) throws(ControlSocketError) -> FileLock {
        let lockPath = lockPath(for: path)
        if let info = try? FileSystem.lstat(lockPath), (info.st_mode & S_IFMT) != S_IFREG {
            let kind = (info.st_mode & S_IFMT) == S_IFLNK ? "a symbolic link" : (info.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a regular file"
            throw ControlSocketError("control socket '\(path)': its lock file '\(lockPath)' is \(kind); not using it")
        }
        let lock: FileLock?
        do {
            lock = try FileLock.take(lockPath)
        } catch {
            throw ControlSocketError("control socket '\(path)': cannot lock '\(lockPath)': \(String(cString: strerror(error.errno)))")
        }
        guard let lock else {
            // Say what an operator can check: a daemon answering there, or one starting.
            if (try? probe(path)) == nil { throw listening(path) }
            throw ControlSocketError("control socket '\(path)': another chakrad holds its lock '\(lockPath)' (it is starting)", inUse: true)
        }
        return lock
    }

    private static func listening(_ path: String) -> ControlSocketError {
        ControlSocketError("control socket '\(path)': another process is listening there (another chakrad?)", inUse: true)
    }

    /// Connects to `path` and hangs up: nil when someone accepts there (or
    /// its backlog is full, EAGAIN), else why the connection failed.
    private static func probe(_ path: String) throws(ControlSocketError) -> SystemError? {
        let probe: Int32
        do {
            probe = try UnixSocket.make()
        } catch {
            throw failure(error, path)
        }
        defer { Descriptor.close(probe) }
        do {
            try UnixSocket.connect(probe, path: path)
            return nil
        } catch {
            return error.errno == EAGAIN ? nil : error
        }
    }

    /// True when a socket file is at `path`, false when nothing is;
    /// anything else there is refused.
    private static func socketExists(at path: String) throws(ControlSocketError) -> Bool {
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
        return true
    }

    /// A socket file no one listens on is left by a daemon that died:
    /// remove it (true). Refuse anything else.
    private static func removeStaleSocket(at path: String) throws(ControlSocketError) -> Bool {
        guard try socketExists(at: path) else { return false }
        guard let refused = try probe(path) else { throw listening(path) }
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
