import CLinuxKernel
import Glibc

/// A file read whole because a person named it (chakra.toml and its
/// drop-ins): only a regular file is ever opened, and only so much of it.
/// The reading side of `OutputFile`.
///
/// - **Looked at before it is opened** (stat(2), links followed): opening
///   a FIFO waits for a writer that may never come, and opening a device
///   node can act on the device (a serial line hangs up, a tape rewinds, a
///   terminal becomes the controlling one). Anything but a regular file is
///   refused, named: "not a regular file (a FIFO)".
/// - **The null device reads as an empty file**, unopened: `--config
///   /dev/null` is how tests and people say "no file".
/// - **Opened with O_NONBLOCK | O_NOCTTY, then looked at again** on the
///   descriptor (fstat(2)): the path may name something else by then (a
///   FIFO renamed over the file), and only what was opened counts. Should
///   it be a FIFO after all, O_NONBLOCK made the open return at once.
/// - **Bounded.** A file larger than `limit` is refused before a byte is
///   read; one that grows past it while being read (or whose size says
///   less than it holds, as /proc's do) is refused when it does, having
///   cost at most `limit` bytes and one chunk.
public enum InputFile {
    /// The bytes of the regular file at `path`, at most `limit` of them.
    public static func read(_ path: String, limit: Int) throws(InputFileError) -> [UInt8] {
        let named: Glibc.stat
        do throws(SystemError) { named = try FileSystem.stat(path) } catch {
            throw InputFileError(path: path, cause: .system(error))
        }
        if isNullDevice(named) { return [] }
        try check(named, path: path, limit: limit)
        let fd: Int32
        do throws(SystemError) {
            fd = try Descriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY)
        } catch {
            throw InputFileError(path: path, cause: .system(error))
        }
        defer { Descriptor.close(fd) }
        let opened: Glibc.stat
        do throws(SystemError) { opened = try Descriptor.status(fd, file: path) } catch {
            throw InputFileError(path: path, cause: .system(error))
        }
        if isNullDevice(opened) { return [] }
        try check(opened, path: path, limit: limit)
        return try readAll(fd, path: path, expected: Int(opened.st_size), limit: limit)
    }

    /// A regular file of at most `limit` bytes, or why not.
    private static func check(_ info: Glibc.stat, path: String, limit: Int) throws(InputFileError) {
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw InputFileError(path: path, cause: .notRegular(OutputFile.kind(info.st_mode)))
        }
        guard info.st_size <= limit else { throw InputFileError(path: path, cause: .tooLarge(bytes: Int(info.st_size), limit: limit)) }
    }

    /// Reads to the end, at most `limit` bytes: one byte more means the
    /// file grew past it since it was looked at (or its size said less:
    /// /proc's files say 0).
    private static func readAll(_ fd: Int32, path: String, expected: Int, limit: Int) throws(InputFileError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(expected, limit) + 1)
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { raw in try Descriptor.read(fd, into: raw.baseAddress!, count: raw.count) }
            } catch {
                // withUnsafeMutableBytes rethrows untyped: it is the read's SystemError.
                throw InputFileError(path: path, cause: .system(error as? SystemError ?? SystemError(call: "read(\(path))", errno: EIO)))
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
            guard bytes.count <= limit else { throw InputFileError(path: path, cause: .overran(limit: limit)) }
        }
    }

    /// /dev/null (character device 1:3), wherever its node is.
    static func isNullDevice(_ info: Glibc.stat) -> Bool {
        info.st_mode & S_IFMT == S_IFCHR && CLinux_major(info.st_rdev) == 1 && CLinux_minor(info.st_rdev) == 3
    }
}

/// Why a file named as input was not read. Nothing was changed, and a
/// device or FIFO was never opened.
public struct InputFileError: Error, CustomStringConvertible, Equatable {
    public enum Cause: Equatable, Sendable {
        /// Not a regular file: "a FIFO", "a character device"...
        case notRegular(String)
        /// Its size says more than `limit` bytes.
        case tooLarge(bytes: Int, limit: Int)
        /// More than `limit` bytes came than its size said (it grew while
        /// being read, or is a /proc file, whose size says 0).
        case overran(limit: Int)
        /// A call failed (ENOENT, EACCES...).
        case system(SystemError)
    }

    public let path: String
    public let cause: Cause

    public init(path: String, cause: Cause) { (self.path, self.cause) = (path, cause) }

    /// In words, without the path: "not a regular file (a FIFO)",
    /// "larger than 1 MiB (2097152 bytes)", "Permission denied".
    public var reason: String {
        switch cause {
        case .notRegular(let kind): "not a regular file (\(kind))"
        case .tooLarge(let bytes, let limit): "larger than \(Self.size(limit)) (\(bytes) bytes)"
        case .overran(let limit): "larger than \(Self.size(limit)) (found while reading it)"
        case .system(let error): error.reason
        }
    }

    public var description: String { "\(path): \(reason)" }

    /// "1 MiB", or bytes when not a whole number of MiB.
    private static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }
}
