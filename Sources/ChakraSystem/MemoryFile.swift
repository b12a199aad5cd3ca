import CLinuxKernel
import Glibc

/// A file that lives only in memory (memfd_create(2)): bytes that outlive
/// the process by being held in another one's descriptor, as systemd's
/// file descriptor store holds chakrad's state record across a restart.
/// Plain descriptors, owned by the caller (close with `Descriptor.close`).
public enum MemoryFile {
    /// A new, empty memory file, close-on-exec. `name` shows in
    /// /proc/<pid>/fd as "memfd:<name>" (at most 249 bytes).
    public static func create(name: String) throws(SystemError) -> Int32 {
        try Syscall.check("memfd_create(\(name))") { CLinux_memfd_create(name, CLinux_MFD_CLOEXEC()) }
    }

    /// Makes `bytes` the whole content: written from offset 0, then the
    /// file cut to their length. Whoever holds a duplicate of the
    /// descriptor (systemd) sees the new content, so a record can be kept
    /// current without sending the descriptor again. Not atomic: a crash
    /// between the write and the cut leaves the new bytes followed by the
    /// old one's tail, which a reader must refuse (the record's checksum
    /// and length do).
    public static func replaceContents(of fd: Int32, with bytes: [UInt8]) throws(SystemError) {
        let failure = bytes.withUnsafeBytes { raw -> SystemError? in
            var offset = 0
            while offset < raw.count {
                do throws(SystemError) {
                    let written = try Syscall.check("pwrite(memfd \(fd))") { pwrite(fd, raw.baseAddress! + offset, raw.count - offset, off_t(offset)) }
                    guard written > 0 else { return SystemError(call: "pwrite(memfd \(fd))", errno: ENOSPC) }
                    offset += written
                } catch {
                    return error
                }
            }
            return nil
        }
        if let failure { throw failure }
        try Syscall.check("ftruncate(memfd \(fd))") { ftruncate(fd, off_t(bytes.count)) }
    }

    /// The whole content of `fd` (read from offset 0 whatever the file's
    /// position), at most `limit` bytes. A descriptor that is not a regular
    /// file (a memfd is one), or holds more than `limit`, throws: a passed
    /// descriptor is checked before it is trusted.
    public static func contents(of fd: Int32, limit: Int) throws(MemoryFileError) -> [UInt8] {
        let info: Glibc.stat
        do throws(SystemError) { info = try Descriptor.status(fd, file: "fd \(fd)") } catch { throw .system(error) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notRegular(OutputFile.kind(info.st_mode)) }
        guard info.st_size <= limit else { throw .tooLarge(bytes: Int(info.st_size), limit: limit) }
        // One byte more than the limit: a file that grew since fstat shows it.
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { raw -> Result<Int, SystemError> in
                do throws(SystemError) {
                    return .success(try Syscall.check("pread(fd \(fd))") { pread(fd, raw.baseAddress! + count, raw.count - count, off_t(count)) })
                } catch {
                    return .failure(error)
                }
            }
            switch read {
            case .success(0): return Array(bytes.prefix(count))
            case .success(let chunk): count += chunk
            case .failure(let error): throw .system(error)
            }
        }
        throw .tooLarge(bytes: count, limit: limit)
    }
}

/// Why a memory file could not be read.
public enum MemoryFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// It is a socket, a device...: "a socket".
    case notRegular(String)
    case tooLarge(bytes: Int, limit: Int)
    case system(SystemError)

    public var description: String {
        switch self {
        case .notRegular(let kind): "not a memory file but \(kind)"
        case .tooLarge(let bytes, let limit): "\(bytes) bytes, more than \(limit)"
        case .system(let error): "\(error)"
        }
    }
}
