import ChakraSystem
import Glibc

/// The session log: a file of `SessionRecordCodec` lines, appended to one
/// record at a time, each forced to the disk before it counts as written.
///
/// Why a power cut can lose at most the record being written: a record is
/// one write(2) of its whole line to a descriptor opened O_APPEND, then
/// fdatasync(2); the next record is written only after that returned. So
/// at any moment the file is the records already synced, then at most one
/// line in flight, and a line cut short or garbled fails its checksum.
/// `open` cuts such a tail off, so the next line starts on a line of its
/// own. A compaction writes the kept records to a temporary file, syncs it,
/// renames it over the log and syncs the directory: a crash leaves either
/// file whole, and `open` removes a temporary file left behind
/// (docs/robustness.md, Session records).
///
/// One writer: the log assumes no other process writes the file. Not
/// thread-safe; one owner calls it at a time.
public final class SessionLog {
    public let path: String
    /// The bounds; a configuration reload may change them at any time,
    /// and the next `compactIfDue` applies them.
    public var retention: SessionRetention
    /// Bytes of whole records in the file: where the next record goes, and
    /// where a failed append cuts the file back to.
    public private(set) var length: Int

    /// nil after a compaction that could not open the new file: opened
    /// again at the next append.
    private var descriptor: Int32?
    /// The earliest start of any record in the file (nil: none): makes
    /// "is anything past retention?" a comparison.
    private var oldestStart: Double?
    /// A failed append whose cut failed too left bytes after `length`.
    private var needsCut = false
    /// A compaction's rename is in place but not yet known to be durable.
    private var directoryNeedsSync = false
    /// After a compaction failed, none is tried again before this time, so
    /// a failing disk is not rewritten at every append.
    private var nextCompactionAttempt = -Double.infinity
    /// The last compaction failed: appends stop at twice the bound. (Not
    /// before one was tried: a bound just lowered by a reload must not
    /// cost the next record.)
    private var compactionFailing = false

    /// The largest file `open` and `read` take: twice the configuration's
    /// largest bound (appends stop at twice the bound, `SessionLogError.full`).
    public static let largestFile = 128 << 20
    /// Seconds between compaction attempts once one failed.
    public static let compactionRetryInterval = 3600.0

    /// The file's directory and the compaction's temporary file in it (a
    /// rename is atomic only within one file system).
    public var directory: String { FileSystem.directory(of: path) }
    public var temporaryPath: String { Self.temporaryPath(for: path) }

    static func temporaryPath(for path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let directory = FileSystem.directory(of: path)
        return (directory == "/" ? "" : directory) + "/.\(name).compacting"
    }

    /// The log `open` found: the log, its records (for the daemon's
    /// history) and what it repaired.
    public struct Opened {
        public let log: SessionLog
        public let records: [SessionRecord]
        public let recovery: SessionLogRecovery
    }

    private init(path: String, descriptor: Int32, length: Int, retention: SessionRetention, oldestStart: Double?) {
        (self.path, self.descriptor, self.length, self.retention, self.oldestStart) = (path, descriptor, length, retention, oldestStart)
    }

    deinit {
        if let descriptor { Descriptor.close(descriptor) }
    }

    /// Opens the log at `path` for appending: the directories above it
    /// made if missing (0750), the file created if missing (0640), read,
    /// and a torn tail cut off (then synced); a compaction's temporary file
    /// left by a crash is removed. Call `compactIfDue` next.
    public static func open(path: String, retention: SessionRetention = SessionRetention()) throws(SessionLogError) -> Opened {
        var recovery = SessionLogRecovery()
        do throws(SystemError) {
            try FileSystem.makeDirectories(FileSystem.directory(of: path), mode: 0o750)
        } catch {
            throw .system(error)
        }
        // Only the compaction writes this name, and the log itself is
        // whole while it exists: a crash before its rename.
        if (try? FileSystem.unlink(temporaryPath(for: path))) != nil { recovery.leftoverRemoved = true }

        let fd = try openFile(path, O_RDWR | O_APPEND, create: true)
        do throws(SessionLogError) {
            let contents = try recover(fd, path: path)
            recovery.records = contents.records.count
            recovery.damagedLines = contents.damagedLines
            recovery.bytesCut = contents.tail
            let log = SessionLog(path: path, descriptor: fd, length: contents.validLength, retention: retention,
                                 oldestStart: contents.records.lazy.map(\.startedAt).min())
            return Opened(log: log, records: contents.records, recovery: recovery)
        } catch {
            Descriptor.close(fd)
            throw error
        }
    }

    /// Reads the log and cuts a torn tail off (then syncs), so the next
    /// line starts on a line of its own: its contents before the cut.
    private static func recover(_ fd: Int32, path: String) throws(SessionLogError) -> SessionLogContents {
        let contents = try readContents(fd, path: path)
        guard contents.tail > 0 else { return contents }
        // One append leaves at most one line in flight; more than that,
        // with no record anywhere, is not a log of ours.
        guard !contents.records.isEmpty || contents.tail <= SessionRecordCodec.maxLineBytes else {
            throw .notASessionLog(path: path)
        }
        do throws(SystemError) {
            try Descriptor.truncate(fd, to: contents.validLength, file: path)
            try Descriptor.sync(fd, file: path)
        } catch {
            throw .system(error)
        }
        return contents
    }

    /// The records in the file at `path`, read-only: nothing is cut or
    /// created (for a tool, or a test reading what a killed daemon left).
    public static func read(path: String) throws(SessionLogError) -> SessionLogContents {
        let fd = try openFile(path, O_RDONLY)
        defer { Descriptor.close(fd) }
        return try readContents(fd, path: path)
    }

    /// Appends `record`. When this returns, the record is on the disk
    /// (fdatasync returned) and may be announced. When it throws, the
    /// record is not in the file: a line written in part, or written but
    /// not synced, is cut off again, so the file stays whole records.
    public func append(_ record: SessionRecord) throws(SessionLogError) {
        let line = try SessionRecordCodec.encode(record)
        let fd = try openDescriptor()
        if needsCut {
            do throws(SystemError) { try Descriptor.truncate(fd, to: length, file: path) } catch { throw .system(error) }
            needsCut = false
        }
        if directoryNeedsSync, (try? FileSystem.syncDirectory(directory)) != nil { directoryNeedsSync = false }
        guard !compactionFailing || length + line.count <= 2 * retention.maxBytes else { throw .full(path: path, bytes: length) }
        let written: Int
        do throws(SystemError) {
            // withUnsafeBytes rethrows untyped: the error is carried out in a Result.
            written = try line.withUnsafeBytes { raw in
                Result { () throws(SystemError) in try Descriptor.write(fd, raw.baseAddress!, count: raw.count, file: path) }
            }.get()
        } catch {
            cutBack(fd)
            throw .system(error)
        }
        guard written == line.count else {
            cutBack(fd)
            throw .shortWrite(path: path, written: written, of: line.count)
        }
        do throws(SystemError) {
            try Descriptor.syncData(fd, file: path)
        } catch {
            // Not known to be on the disk: not written. (Cut, it cannot
            // come back whole after a power cut unless the cut is lost too.)
            cutBack(fd)
            throw .system(error)
        }
        length += line.count
        oldestStart = min(oldestStart ?? record.startedAt, record.startedAt)
    }

    /// Whether the file is over its size bound or holds a record past
    /// retention at `now` (wall clock, Unix seconds).
    public func isCompactionDue(now: Double) -> Bool {
        retention.isDue(bytes: length, oldest: oldestStart, now: now)
    }

    /// Compacts the file if it is due and no failed attempt was made in
    /// the last hour. The daemon calls this after open, after each append,
    /// and once a day.
    public func compactIfDue(now: Double) throws(SessionLogError) -> SessionCompaction? {
        guard now >= nextCompactionAttempt, isCompactionDue(now: now) else { return nil }
        return try compact(now: now)
    }

    /// Rewrites the file with the records `retention` keeps at `now`
    /// (`SessionRetention.kept`): through a synced temporary file renamed
    /// over the log, the directory synced after, so a crash at any point
    /// leaves the old file or the new one. On a failure before the rename
    /// the old file stays, untouched, and appends go on to it.
    public func compact(now: Double) throws(SessionLogError) -> SessionCompaction {
        let fd = try openDescriptor()
        let before: Glibc.stat
        let lines: [SessionLogLine]
        let bytes: [UInt8]
        do throws(SessionLogError) {
            if needsCut {
                do throws(SystemError) { try Descriptor.truncate(fd, to: length, file: path) } catch { throw .system(error) }
                needsCut = false
            }
            before = try Self.status(fd, path: path)
            bytes = try Self.readAll(fd, path: path, size: Int(before.st_size))
            lines = SessionLogContents.lines(of: bytes)
        } catch {
            failedCompaction(now: now)
            throw error
        }
        let kept = retention.kept(lines, now: now)
        var output: [UInt8] = []
        output.reserveCapacity(kept.reduce(0) { $0 + $1.range.count })
        for line in kept { output += bytes[line.range] }

        var failure: SystemError?
        do throws(SystemError) {
            try FileSystem.replace(path, with: output, temporary: temporaryPath, mode: before.st_mode & 0o7777, durably: true)
        } catch {
            failure = error
        }
        // Whatever happened, the descriptor must be the file now at the
        // path: the new one if the rename was made (even if the
        // directory's fsync then failed), else the old one, reopened.
        let renamed = reopen(replacing: fd, previousInode: before.st_ino) ?? (failure == nil)
        guard renamed else {
            failedCompaction(now: now)
            throw .system(failure ?? SystemError(call: "rename(\(temporaryPath), \(path))", errno: EIO))
        }
        directoryNeedsSync = failure != nil
        compactionFailing = false
        if descriptor != nil { length = output.count }
        let records = kept.compactMap(\.record)
        oldestStart = records.lazy.map(\.startedAt).min()
        let cutoff = retention.cutoff(now: now)
        let withinRetention = lines.count(where: { $0.record.map { $0.startedAt >= cutoff } ?? false })
        let recordsBefore = lines.count(where: { $0.record != nil })
        return SessionCompaction(kept: records, droppedByRetention: recordsBefore - withinRetention,
                                 droppedBySize: withinRetention - records.count,
                                 damagedLinesDropped: lines.count - recordsBefore,
                                 bytesBefore: bytes.count, bytesAfter: output.count, directoryNotSynced: failure)
    }

    private func failedCompaction(now: Double) {
        compactionFailing = true
        nextCompactionAttempt = now + Self.compactionRetryInterval
    }

    // MARK: - Descriptors

    /// The log's descriptor; opened and recovered again (as `open` does)
    /// if a compaction lost it.
    private func openDescriptor() throws(SessionLogError) -> Int32 {
        if let descriptor { return descriptor }
        let fd = try Self.openFile(path, O_RDWR | O_APPEND, create: true)
        do throws(SessionLogError) {
            let contents = try Self.recover(fd, path: path)
            (length, oldestStart, needsCut) = (contents.validLength, contents.records.lazy.map(\.startedAt).min(), false)
        } catch {
            Descriptor.close(fd)
            throw error
        }
        descriptor = fd
        return fd
    }

    /// Opens the path again in place of `fd`: whether it is another file
    /// than before (the rename was made); nil when it cannot be told (it
    /// could not be opened: the next use opens and reads it again, so no
    /// record goes to a file no longer at the path).
    private func reopen(replacing fd: Int32, previousInode: ino_t) -> Bool? {
        // The old descriptor is closed after: while it is open its inode
        // cannot be freed and its number given to another file.
        defer { Descriptor.close(fd) }
        descriptor = nil
        guard let fresh = try? Self.openFile(path, O_RDWR | O_APPEND) else { return nil }
        guard let info = try? Self.status(fresh, path: path) else {
            Descriptor.close(fresh)
            return nil
        }
        descriptor = fresh
        return info.st_ino != previousInode
    }

    /// A failed append's bytes cut off again; if even that fails, the next
    /// append cuts first.
    private func cutBack(_ fd: Int32) {
        do throws(SystemError) {
            try Descriptor.truncate(fd, to: length, file: path)
            try? Descriptor.syncData(fd, file: path)
        } catch {
            needsCut = true
        }
    }

    /// Opens a regular file (not through a symbolic link: a compaction
    /// would replace the link with a file), close-on-exec; with `create`,
    /// a missing one is made with mode 0640 whatever the umask (the
    /// unit's UMask=0077 would keep the group from reading it).
    private static func openFile(_ path: String, _ flags: Int32, create: Bool = false) throws(SessionLogError) -> Int32 {
        let fd: Int32
        do throws(SystemError) {
            let safe = flags | O_NOFOLLOW | O_NONBLOCK
            if create, let made = try makeFile(path, safe) {
                fd = made
            } else {
                fd = try Descriptor.open(path, safe)
            }
        } catch {
            // ELOOP: a symbolic link; EISDIR: a directory opened for writing.
            if error.errno == ELOOP || error.errno == EISDIR { throw .notARegularFile(path: path) }
            throw .system(error)
        }
        do throws(SessionLogError) {
            let info = try status(fd, path: path)
            guard info.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(path: path) }
            guard Int(info.st_size) <= largestFile else { throw .tooLarge(path: path, bytes: Int(info.st_size), limit: largestFile) }
        } catch {
            Descriptor.close(fd)
            throw error
        }
        return fd
    }

    /// A new file at `path`, mode 0640; nil when one is there already.
    private static func makeFile(_ path: String, _ flags: Int32) throws(SystemError) -> Int32? {
        let fd: Int32
        do throws(SystemError) {
            fd = try Descriptor.open(path, flags | O_CREAT | O_EXCL, mode: 0o640)
        } catch {
            if error.errno == EEXIST { return nil }
            throw error
        }
        do throws(SystemError) {
            try Syscall.check("fchmod(\(path))") { fchmod(fd, 0o640) }
        } catch {
            Descriptor.close(fd)
            throw error
        }
        return fd
    }

    private static func status(_ fd: Int32, path: String) throws(SessionLogError) -> Glibc.stat {
        do throws(SystemError) { return try Descriptor.status(fd, file: path) } catch { throw .system(error) }
    }

    private static func readContents(_ fd: Int32, path: String) throws(SessionLogError) -> SessionLogContents {
        let size = Int(try status(fd, path: path).st_size)
        return SessionLogContents(scanning: try readAll(fd, path: path, size: size))
    }

    /// The file's first `size` bytes (fewer if it is shorter by now).
    private static func readAll(_ fd: Int32, path: String, size: Int) throws(SessionLogError) -> [UInt8] {
        guard size <= largestFile else { throw .tooLarge(path: path, bytes: size, limit: largestFile) }
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        do throws(SystemError) {
            while filled < size {
                let count = try bytes.withUnsafeMutableBytes { raw in
                    Result { () throws(SystemError) in
                        try Descriptor.read(fd, into: raw.baseAddress! + filled, count: size - filled, at: filled, file: path)
                    }
                }.get()
                if count == 0 { break }
                filled += count
            }
        } catch {
            throw .system(error)
        }
        bytes.removeLast(size - filled)
        return bytes
    }
}

/// What `SessionLog.open` found and repaired, for a log line.
public struct SessionLogRecovery: Sendable, Equatable, CustomStringConvertible {
    public var records = 0
    /// Lines that are not records (kept in the file unless they were the
    /// tail; a compaction drops them).
    public var damagedLines = 0
    /// Bytes cut off the end: a record torn by a power cut, or damage.
    public var bytesCut = 0
    /// A compaction's temporary file, left by a crash, was removed.
    public var leftoverRemoved = false

    public init() {}

    public var description: String {
        var text = "\(records) record\(records == 1 ? "" : "s")"
        if damagedLines > 0 { text += ", \(damagedLines) damaged line\(damagedLines == 1 ? "" : "s") skipped" }
        if bytesCut > 0 { text += ", \(bytesCut) bytes of a torn or damaged tail cut off" }
        if leftoverRemoved { text += ", an unfinished compaction's temporary file removed" }
        return text
    }
}
