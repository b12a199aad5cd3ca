import Glibc

/// Calls for files that must survive a power cut: one write whose length
/// the caller checks, the data forced to the disk, a file cut back, and a
/// replacement whose rename is itself made durable. Each names the file it
/// works on (not only the descriptor), so a test can fail the calls on its
/// own file and no other.
extension Descriptor {
    /// One write(2): the bytes written, which may be fewer than `count`
    /// (a full disk, a file size limit). Not continued: a caller appending
    /// records must see a short write rather than have it finished later
    /// by a second call that could land after a crash's cut.
    public static func write(_ fd: Int32, _ bytes: UnsafeRawPointer, count: Int, file: String) throws(SystemError) -> Int {
        let call = "write(\(file))"
        let allowed = min(count, SyscallFaults.writeLimit(call) ?? count)
        return try Syscall.check(call) { Glibc.write(fd, bytes, allowed) }
    }

    /// Reads up to `count` bytes at `offset`, whatever the descriptor's
    /// position (pread(2)): the count, 0 at the end.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int, file: String) throws(SystemError) -> Int {
        try Syscall.check("pread(\(file))") { pread(fd, buffer, count, off_t(offset)) }
    }

    /// fsync(2): the file's data and metadata (its size, its times) on the disk.
    public static func sync(_ fd: Int32, file: String) throws(SystemError) {
        try Syscall.check("fsync(\(file))") { fsync(fd) }
    }

    /// fdatasync(2): the file's data and what is needed to read it back
    /// (its size), not its times: what an append needs, one flush cheaper.
    public static func syncData(_ fd: Int32, file: String) throws(SystemError) {
        try Syscall.check("fdatasync(\(file))") { fdatasync(fd) }
    }

    /// ftruncate(2): the file cut (or extended with zeros) to `length` bytes.
    public static func truncate(_ fd: Int32, to length: Int, file: String) throws(SystemError) {
        try Syscall.check("ftruncate(\(file))") { ftruncate(fd, off_t(length)) }
    }

    /// fstat(2).
    public static func status(_ fd: Int32, file: String) throws(SystemError) -> Glibc.stat {
        var info = Glibc.stat()
        try Syscall.check("fstat(\(file))") { fstat(fd, &info) }
        return info
    }
}

extension FileSystem {
    /// fsync(2) on a directory: the names in it (a file just created or
    /// renamed there) on the disk. Without it a rename can be lost to a
    /// power cut even after the file's own fsync.
    public static func syncDirectory(_ path: String) throws(SystemError) {
        let fd = try Descriptor.open(path, O_RDONLY | O_DIRECTORY)
        defer { Descriptor.close(fd) }
        try Descriptor.sync(fd, file: path)
    }

    /// Makes `path` and any missing directories above it (mkdir -p), each
    /// given `mode` whatever the umask (a unit's UMask=0077 would leave
    /// the group out); a directory already there is fine and keeps its
    /// mode, anything else in the way is an error.
    public static func makeDirectories(_ path: String, mode: mode_t) throws(SystemError) {
        if let info = try? stat(path) {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw SystemError(call: "mkdir(\(path))", errno: ENOTDIR) }
            return
        }
        let parent = directory(of: path)
        if parent != path { try makeDirectories(parent, mode: mode) }
        do throws(SystemError) {
            try makeDirectory(path, mode: mode)
            try changeMode(path, to: mode)
        } catch {
            // Made by someone else meanwhile: fine if it is a directory.
            let made = (try? stat(path))?.st_mode ?? 0
            guard error.errno == EEXIST, made & S_IFMT == S_IFDIR else { throw error }
        }
    }

    /// The directory part of a path: "/var/lib/chakra" for
    /// "/var/lib/chakra/sessions.log", "." for a bare name, "/" for "/x".
    public static func directory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let parent = trimmed[..<slash]
        return parent.isEmpty ? "/" : String(parent)
    }

    /// Replaces the file at `path` with `bytes` as `replace(_:with:temporary:mode:)`
    /// does, and, when `durably`, so that a power cut at any moment leaves
    /// either the old file or the new one whole: the temporary file is
    /// fsynced before the rename (else the new name could point at data
    /// never written), and the directory after it (else the rename itself
    /// could be lost). A failure before the rename removes the temporary
    /// file; one after it (the directory's fsync) is thrown with the new
    /// file in place.
    public static func replace(_ path: String, with bytes: [UInt8], temporary: String, mode: mode_t? = nil,
                               durably: Bool) throws(SystemError) {
        do throws(SystemError) {
            let fd = try Descriptor.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: mode ?? 0o644)
            var failure: SystemError?
            do throws(SystemError) {
                let written = bytes.withUnsafeBytes { raw -> SystemError? in
                    guard let base = raw.baseAddress else { return nil }
                    do throws(SystemError) { try Descriptor.writeAll(fd, base, count: raw.count, file: temporary) } catch { return error }
                    return nil
                }
                if let written { throw written }
                // fchmod rather than chmod: the mode of the file just
                // written, not of whatever the name points to by now.
                if let mode { try Syscall.check("fchmod(\(temporary))") { fchmod(fd, mode) } }
                if durably { try Descriptor.sync(fd, file: temporary) }
            } catch {
                failure = error
            }
            if let closing = Descriptor.close(fd), failure == nil { failure = closing }
            if let failure { throw failure }
            try rename(temporary, to: path)
        } catch {
            try? unlink(temporary)
            throw error
        }
        if durably { try syncDirectory(directory(of: path)) }
    }
}
