import ChakraSessions
import ChakraSystem
import Glibc
import Testing

/// Compaction by age and by size, on a "now" the test chooses, and what a
/// crash or a failure at each of its steps leaves.
@Suite("Session log compaction")
struct SessionCompactionTests {
    let day = 86400.0
    /// 2026-03-14T09:30:12.345Z.
    let now = 1_773_480_612.345

    /// A log file written directly (no fsync per record): `records`.
    func writeLog(_ scratch: ScratchDirectory, _ records: [SessionRecord]) throws {
        scratch.write(try encoded(records))
    }

    /// One record a day for `days` days, the last one day before `now`.
    func daily(_ days: Int) -> [SessionRecord] {
        (0..<days).map { sampleRecord($0, startedAt: now - Double(days - $0) * day).asWritten }
    }

    @Test("past the size bound: compacted to at most three quarters of it, the newest kept, appends go on")
    func bySize() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let retention = SessionRetention(retentionDays: 365, maxBytes: 4096)
        let log = try SessionLog.open(path: scratch.log, retention: retention).log
        var written: [SessionRecord] = []
        var index = 0
        while log.length <= 4096 {
            #expect(!log.isCompactionDue(now: now))
            let record = sampleRecord(index, startedAt: now - 3600).asWritten
            try log.append(record)
            written.append(record)
            index += 1
        }
        #expect(log.isCompactionDue(now: now))
        let compaction = try #require(try log.compactIfDue(now: now))
        #expect(compaction.bytesAfter <= 3072 && compaction.bytesAfter > 3072 - SessionRecordCodec.maxLineBytes)
        #expect(compaction.kept == Array(written.suffix(compaction.kept.count)), "the oldest written are dropped")
        #expect(compaction.droppedBySize == written.count - compaction.kept.count && compaction.droppedByRetention == 0)
        #expect(compaction.directoryNotSynced == nil)
        #expect(log.length == compaction.bytesAfter && scratch.bytes().count == compaction.bytesAfter)
        #expect(!scratch.exists(log.temporaryPath))
        #expect(!log.isCompactionDue(now: now))
        try log.append(sampleRecord(999))
        #expect(try SessionLog.read(path: scratch.log).records == compaction.kept + [sampleRecord(999).asWritten])
    }

    @Test("past retention: the records older than retention_days at now are dropped, the rest kept in order")
    func byRetention() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let records = daily(400)
        try writeLog(scratch, records)
        let opened = try SessionLog.open(path: scratch.log, retention: SessionRetention(retentionDays: 365))
        #expect(opened.records == records)
        let log = opened.log
        #expect(log.isCompactionDue(now: now))
        #expect(!log.isCompactionDue(now: records[0].startedAt + 365 * day - 1), "not yet at an earlier now")
        let compaction = try #require(try log.compactIfDue(now: now))
        let cutoff = now - 365 * day
        #expect(compaction.kept == records.filter { $0.startedAt >= cutoff })
        #expect(compaction.kept.count == 365 && compaction.droppedByRetention == 35 && compaction.droppedBySize == 0)
        #expect(try SessionLog.read(path: scratch.log).records == compaction.kept)
        #expect(!log.isCompactionDue(now: now))
        #expect(try log.compactIfDue(now: now) == nil)
        // A day later the next oldest is past retention.
        #expect(log.isCompactionDue(now: now + day))
    }

    @Test("not due: nothing is rewritten")
    func notDue() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        try writeLog(scratch, daily(30))
        let before = try FileSystem.stat(scratch.log)
        let log = try SessionLog.open(path: scratch.log).log
        #expect(try log.compactIfDue(now: now) == nil)
        #expect(try FileSystem.stat(scratch.log).st_ino == before.st_ino)
    }

    @Test("a compaction drops damaged lines and keeps the file's mode")
    func damageAndMode() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let old = daily(3)
        scratch.write(try encoded([old[0]]) + Array("garbled\n".utf8) + encoded(Array(old[1...])))
        chmod(scratch.log, 0o600)
        let opened = try SessionLog.open(path: scratch.log)
        #expect(opened.recovery.damagedLines == 1 && opened.recovery.bytesCut == 0)
        let compaction = try opened.log.compact(now: now)
        #expect(compaction.kept == old && compaction.damagedLinesDropped == 1)
        #expect(try SessionLog.read(path: scratch.log) == SessionLog.read(path: scratch.log))
        #expect(try SessionLog.read(path: scratch.log).damagedLines == 0)
        #expect(try FileSystem.stat(scratch.log).st_mode & 0o777 == 0o600)
    }

    @Test("a crash while the temporary file was written or before its rename: open ignores and removes it, the log is whole")
    func crashBeforeRename() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let records = daily(400)
        try writeLog(scratch, records)
        let temporary = scratch.path + "/.sessions.log.compacting"
        let compacted = try encoded(Array(records.suffix(365)))
        // Cut short while being written; whole but not renamed.
        for leftover in [Array(compacted.prefix(1000)), compacted] {
            scratch.write(leftover, to: temporary)
            let opened = try SessionLog.open(path: scratch.log)
            #expect(opened.records == records && opened.recovery.leftoverRemoved)
            #expect(!scratch.exists(temporary))
        }
    }

    @Test("a crash after the rename, before the directory's fsync: the new file (or the old one) is whole")
    func crashAfterRename() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let records = daily(400)
        // What the directory may show after the power comes back: either file.
        for survivor in [Array(records.suffix(365)), records] {
            try writeLog(scratch, survivor)
            let opened = try SessionLog.open(path: scratch.log)
            #expect(opened.records == survivor && opened.recovery == {
                var recovery = SessionLogRecovery()
                recovery.records = survivor.count
                return recovery
            }())
        }
    }

    @Test("a step failing before the rename (write, fsync, rename): the old file stays whole, appends go to it, the next try waits an hour",
          arguments: ["write", "fsync", "rename"])
    func stepFails(_ step: String) throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let records = daily(400)
        try writeLog(scratch, records)
        let log = try SessionLog.open(path: scratch.log).log
        let rule = "\(step)(\(log.temporaryPath)"
        SyscallFaults.inject(step == "write" ? ENOSPC : step == "fsync" ? EIO : EROFS, into: rule)
        defer { SyscallFaults.remove(matching: rule) }
        let before = scratch.bytes()
        #expect(throws: SessionLogError.self) { try log.compactIfDue(now: now) }
        #expect(SyscallFaults.pending(matching: rule) == 0)
        #expect(scratch.bytes() == before && !scratch.exists(log.temporaryPath))
        try log.append(sampleRecord(999, startedAt: now))
        #expect(try SessionLog.read(path: scratch.log).records == records + [sampleRecord(999, startedAt: now).asWritten])
        #expect(try log.compactIfDue(now: now + 60) == nil, "no retry within the hour")
        let compaction = try #require(try log.compactIfDue(now: now + SessionLog.compactionRetryInterval))
        #expect(compaction.kept.last == sampleRecord(999, startedAt: now).asWritten)
        #expect(try SessionLog.read(path: scratch.log).records == compaction.kept)
    }

    @Test("the directory's fsync failing after the rename: the new file is in use, the failure reported, the fsync tried again")
    func directorySyncFails() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        try writeLog(scratch, daily(400))
        let log = try SessionLog.open(path: scratch.log).log
        let rule = "fsync(\(scratch.path))"
        SyscallFaults.inject(EIO, into: rule)
        defer { SyscallFaults.remove(matching: rule) }
        let compaction = try #require(try log.compactIfDue(now: now))
        #expect(compaction.directoryNotSynced?.errno == EIO)
        #expect(compaction.description.contains("fsync"))
        try log.append(sampleRecord(999, startedAt: now))
        #expect(try SessionLog.read(path: scratch.log).records == compaction.kept + [sampleRecord(999, startedAt: now).asWritten])
    }

    @Test("compaction failing for good: appends stop at twice the bound rather than fill the disk")
    func fullWhileCompactionFails() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let log = try SessionLog.open(path: scratch.log, retention: SessionRetention(maxBytes: 4096)).log
        let rule = "rename(\(log.temporaryPath)"
        SyscallFaults.inject(EROFS, into: rule, times: 1000)
        defer { SyscallFaults.remove(matching: rule) }
        var clock = now
        var refused: SessionLogError?
        for index in 0..<200 {
            do {
                try log.append(sampleRecord(index, startedAt: clock))
                _ = try? log.compactIfDue(now: clock)
            } catch {
                refused = error
                break
            }
            clock += 3600
        }
        #expect(refused == .full(path: scratch.log, bytes: log.length))
        #expect(log.length <= 8192 && log.length > 8192 - SessionRecordCodec.maxLineBytes)
        #expect(try SessionLog.read(path: scratch.log).tail == 0)
    }

    @Test("a bound lowered by a reload: the next record is still written, and the compaction after it brings the file under")
    func boundLowered() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let records = (0..<100).map { sampleRecord($0, startedAt: now - 86400).asWritten }
        try writeLog(scratch, records)
        let log = try SessionLog.open(path: scratch.log).log
        #expect(log.length > 2 * 4096)
        log.retention = SessionRetention(maxBytes: 4096)
        try log.append(sampleRecord(100, startedAt: now))
        let compaction = try #require(try log.compactIfDue(now: now))
        #expect(compaction.bytesAfter <= 3072 && compaction.kept.last == sampleRecord(100, startedAt: now).asWritten)
    }

    @Test("which lines are kept: within retention first, then the oldest written dropped to three quarters of the bound")
    func keptLines() throws {
        let retention = SessionRetention(retentionDays: 10, maxBytes: 4096)
        #expect(retention.compactedBytes == 3072)
        #expect(SessionRetention(retentionDays: 0, maxBytes: 1) == SessionRetention(retentionDays: 1, maxBytes: SessionRetention.minimumBytes))
        let records = (0..<60).map { sampleRecord($0, startedAt: now - Double(60 - $0) * 3600 * 6).asWritten }
        let lines = SessionLogContents.lines(of: try encoded(records))
        let kept = retention.kept(lines, now: now)
        #expect(kept.reduce(0) { $0 + $1.range.count } <= 3072)
        let keptRecords = kept.compactMap(\.record)
        #expect(keptRecords == Array(records.suffix(keptRecords.count)))
        #expect(keptRecords.allSatisfy { $0.startedAt >= now - 10 * day })
        #expect(retention.kept(lines, now: now + 1000 * day).isEmpty)
        #expect(!retention.isDue(bytes: 4096, oldest: nil, now: now) && retention.isDue(bytes: 4097, oldest: nil, now: now))
    }
}
