import Glibc

/// An exclusive advisory lock on a file (flock(2)), held from `take` until
/// `release` or deinit; the kernel lets go of it when the process ends,
/// however it ends, so a lock is never left stale by a crash.
///
/// The file is only a name to lock: it is made empty if missing and never
/// removed (removing it would let a process that opened the old one and a
/// process that makes a new one both hold "the" lock). It is opened
/// read-only, which is all flock needs, so a file left by another user
/// (chakrad once run by root) can still be locked if it is readable.
public final class FileLock {
    public let path: String
    private let descriptor: Int32
    private var released = false

    private init(path: String, descriptor: Int32) {
        (self.path, self.descriptor) = (path, descriptor)
    }

    deinit { release() }

    /// Takes the lock on `path` without waiting: nil when another open
    /// file (another process) holds it. A symbolic link at `path` is not
    /// followed (ELOOP), and anything but a regular file is refused
    /// (EINVAL, "flock(PATH): not a regular file" in its call's name).
    public static func take(_ path: String) throws(SystemError) -> FileLock? {
        // O_NONBLOCK: a FIFO put in its place must not block the open.
        let fd = try Descriptor.open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK, mode: 0o644)
        var info = stat()
        do throws(SystemError) {
            try Syscall.check("fstat(\(path))") { fstat(fd, &info) }
            guard (info.st_mode & S_IFMT) == S_IFREG else { throw SystemError(call: "flock(\(path)): not a regular file", errno: EINVAL) }
            try Syscall.check("flock(\(path))") { flock(fd, LOCK_EX | LOCK_NB) }
        } catch {
            Descriptor.close(fd)
            if error.errno == EWOULDBLOCK { return nil }
            throw error
        }
        return FileLock(path: path, descriptor: fd)
    }

    /// Lets go of the lock (closing the file releases it).
    public func release() {
        guard !released else { return }
        released = true
        Descriptor.close(descriptor)
    }
}
