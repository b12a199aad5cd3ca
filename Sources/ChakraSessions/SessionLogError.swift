import ChakraSystem
import Glibc

/// Why the session log could not do what was asked. Each says what to
/// fix; none is a reason to stop the daemon (it goes on without recording).
public enum SessionLogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The record breaks a bound (`SessionRecord.problem`); nothing was written.
    case invalidRecord(String)
    /// A system call failed (open, read, write, fdatasync, rename...).
    case system(SystemError)
    /// The disk took only part of the line; the part was cut off again.
    case shortWrite(path: String, written: Int, of: Int)
    /// A directory, device, socket or symbolic link where the log should be.
    case notARegularFile(path: String)
    /// Too large to read into memory: not a file this daemon wrote.
    case tooLarge(path: String, bytes: Int, limit: Int)
    /// Something else is at the path (no record in it, and more than a
    /// torn record's worth of other bytes): left alone, never truncated.
    case notASessionLog(path: String)
    /// Twice the size bound, and the last compaction failed: appends stop
    /// until one succeeds, so a failing disk cannot be filled.
    case full(path: String, bytes: Int)

    public var description: String {
        switch self {
        case .invalidRecord(let why): "not a valid session record: \(why)"
        case .system(let error): "\(error)"
        case .shortWrite(let path, let written, let count): "\(path): the disk took \(written) of \(count) bytes (full?); the record is not written"
        case .notARegularFile(let path): "\(path) is not a regular file"
        case .tooLarge(let path, let bytes, let limit): "\(path) is \(bytes) bytes, more than a session log can be (\(limit)); move it aside"
        case .notASessionLog(let path): "\(path) holds something other than session records; move it aside (it is left as it is)"
        case .full(let path, let bytes): "\(path) is \(bytes) bytes and cannot be compacted; not recording until it can"
        }
    }
}
