import Glibc
import Synchronization

/// A file a command writes because a person named it (`chakrad render -o`,
/// `chakractl snapshot`): either a new file or a regular file replaced
/// whole, and nothing else is ever opened, written, replaced or removed.
///
/// - A path that exists and is not a regular file (a device, a FIFO, a
///   directory, a socket) is refused before anything is opened: writing
///   "through" /dev/full or renaming over /dev/null is never what was meant.
/// - A symbolic link is followed, as a shell's `>` does, to the regular
///   file it names, which is replaced; the link itself stays a link (a
///   rename over it would turn it into a file). A link to nothing is
///   refused: the file would appear wherever the link points, which in a
///   shared directory is a way to make root write anywhere.
/// - The bytes go to a temporary file made (O_EXCL) beside the target,
///   then renamed over it: a failed write leaves the target exactly as it
///   was, and the only thing removed is the temporary file this call made.
///   The replaced file's permissions are kept; its owner becomes the writer.
///
/// No fsync: these files are made by hand and looked at at once, not
/// records that must survive a power cut.
public enum OutputFile {
    /// Where the bytes of a write to `path` will go.
    public struct Destination: Equatable, Sendable {
        /// The file made or replaced: `path`, or the file its link names.
        public let path: String
        /// The regular file there now (its device, inode and mode), or nil
        /// when there is none yet.
        public let existing: Existing?
    }

    /// A regular file that is there now, known by identity, not by name.
    public struct Existing: Equatable, Sendable {
        public let device: UInt64
        public let inode: UInt64
        public let permissions: mode_t
    }

    /// Where a write to `path` would go, or why it may not be written.
    /// Only looks: nothing is opened or written, so it is safe on any
    /// path at all (a device node included) and is how commands refuse a
    /// target before doing any work.
    public static func destination(of path: String) throws(OutputFileError) -> Destination {
        let info: Glibc.stat
        do throws(SystemError) {
            info = try FileSystem.lstat(path)
        } catch where error.errno == ENOENT {
            // Nothing there: a new file, in a directory that must exist.
            let directory = FileSystem.directory(of: path)
            guard let above = try? FileSystem.stat(directory), above.st_mode & S_IFMT == S_IFDIR else {
                throw OutputFileError(path: path, cause: .noDirectory(directory))
            }
            return Destination(path: path, existing: nil)
        } catch {
            throw OutputFileError(path: path, cause: .system(error))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return Destination(path: path, existing: Existing(info))
        case S_IFLNK:
            return try destination(ofLink: path)
        default:
            throw OutputFileError(path: path, cause: .notRegular(kind(info.st_mode)))
        }
    }

    /// Writes `bytes` to `path` (see the type): the file replaced whole or
    /// not at all.
    public static func write(_ bytes: [UInt8], to path: String) throws(OutputFileError) {
        let destination = try destination(of: path)
        let temporary = temporaryPath(for: destination.path)
        let fd: Int32
        do throws(SystemError) {
            // O_EXCL: never open (and later remove) a file someone else made.
            fd = try Descriptor.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o666)
        } catch {
            throw OutputFileError(path: path, cause: .system(error))
        }
        do throws(SystemError) {
            var failure: SystemError?
            do throws(SystemError) {
                // The closure's error comes back as a value: through
                // withUnsafeBytes a thrown one would lose its type.
                let written = bytes.withUnsafeBytes { raw -> SystemError? in
                    guard let base = raw.baseAddress else { return nil }
                    do throws(SystemError) { try Descriptor.writeAll(fd, base, count: raw.count, file: temporary) } catch { return error }
                    return nil
                }
                if let written { throw written }
                // The replaced file's permissions (fchmod: the umask does not apply).
                if let existing = destination.existing {
                    try Syscall.check("fchmod(\(temporary))") { fchmod(fd, existing.permissions) }
                }
            } catch {
                failure = error
            }
            // close can report a write the kernel could not finish (NFS).
            if let closing = Descriptor.close(fd), failure == nil { failure = closing }
            if let failure { throw failure }
        } catch {
            try? FileSystem.unlink(temporary)
            throw OutputFileError(path: path, cause: .system(error))
        }
        // Looked at again just before the rename: what was checked may have
        // been replaced meanwhile (a FIFO made where there was nothing).
        let now = try? FileSystem.lstat(destination.path)
        let unchanged: Bool
        if let existing = destination.existing {
            unchanged = now.map { $0.st_mode & S_IFMT == S_IFREG && Existing($0).sameFile(as: existing) } ?? false
        } else {
            unchanged = now == nil
        }
        guard unchanged else {
            try? FileSystem.unlink(temporary)
            throw OutputFileError(path: path, cause: .changed)
        }
        do throws(SystemError) {
            try FileSystem.rename(temporary, to: destination.path)
        } catch {
            try? FileSystem.unlink(temporary)
            throw OutputFileError(path: path, cause: .system(error))
        }
    }

    /// A link: the regular file at its end (links followed all the way), or why not.
    private static func destination(ofLink path: String) throws(OutputFileError) -> Destination {
        let resolved: String
        do throws(SystemError) {
            let pointer = try Syscall.pointer("realpath(\(path))") { realpath(path, nil) }
            defer { free(pointer) }
            resolved = String(cString: pointer)
        } catch where error.errno == ENOENT {
            throw OutputFileError(path: path, cause: .danglingLink(linkText(path)))
        } catch {
            throw OutputFileError(path: path, cause: .system(error))
        }
        let info: Glibc.stat
        do throws(SystemError) { info = try FileSystem.lstat(resolved) } catch {
            throw OutputFileError(path: path, cause: .system(error))
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw OutputFileError(path: path, cause: .notRegular("a symbolic link to \(kind(info.st_mode)) (\(resolved))"))
        }
        return Destination(path: resolved, existing: Existing(info))
    }

    /// What the link at `path` says, for the message.
    private static func linkText(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = (try? Syscall.check("readlink(\(path))") { readlink(path, &buffer, buffer.count - 1) }) ?? 0
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// "a FIFO": what is there, in words.
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a file"
        }
    }

    private static let written = Atomic<Int>(0)

    /// `.shot.png.1234-0.tmp` beside `path`: in the same directory (a
    /// rename is atomic only within a file system), hidden, and unique to
    /// this process and call.
    static func temporaryPath(for path: String) -> String {
        let directory = FileSystem.directory(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let serial = written.add(1, ordering: .relaxed).oldValue
        return (directory == "/" ? "" : directory) + "/.\(name).\(getpid())-\(serial).tmp"
    }
}

extension OutputFile.Existing {
    init(_ info: Glibc.stat) {
        (device, inode, permissions) = (UInt64(info.st_dev), UInt64(info.st_ino), info.st_mode & 0o7777)
    }

    func sameFile(as other: Self) -> Bool { device == other.device && inode == other.inode }
}

/// Why a file could not be written, and that nothing was destroyed.
public struct OutputFileError: Error, CustomStringConvertible, Equatable {
    public enum Cause: Equatable, Sendable {
        /// There is something other than a regular file: "a FIFO".
        case notRegular(String)
        /// A symbolic link to nothing; what it says.
        case danglingLink(String)
        /// A new file's directory is missing or is not one.
        case noDirectory(String)
        /// The target changed between the check and the rename.
        case changed
        /// A call failed: the errno.
        case system(SystemError)
    }

    public let path: String
    public let cause: Cause

    /// The path names something that may not be written (nothing was):
    /// the command line is wrong, not the system.
    public var refusesTarget: Bool {
        switch cause {
        case .notRegular, .danglingLink, .noDirectory: true
        case .changed, .system: false
        }
    }

    public var description: String {
        switch cause {
        case .notRegular(let kind):
            "cannot write \(path): it is \(kind), not a regular file; nothing written"
        case .danglingLink(let target):
            "cannot write \(path): it is a symbolic link to \(target), which does not exist; nothing written"
        case .noDirectory(let directory):
            "cannot write \(path): the directory \(directory) does not exist; nothing written"
        case .changed:
            "cannot write \(path): it was replaced by something else while being written; left as it is"
        case .system(let error):
            "cannot write \(path): \(error.call) failed: \(error.reason); \(path) left as it was"
        }
    }
}
