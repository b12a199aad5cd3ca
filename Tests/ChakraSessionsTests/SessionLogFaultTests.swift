import ChakraSessions
import ChakraSystem
import Glibc
import Testing

/// Appends that fail, through the funnel's injected faults on the test's
/// own file: whatever fails, the file stays a sequence of whole records,
/// and the next append works.
@Suite("Session log appends under injected faults")
struct SessionLogFaultTests {
    /// A log holding three records, and those records.
    func logWithThree(_ scratch: ScratchDirectory) throws -> (SessionLog, [SessionRecord]) {
        let log = try SessionLog.open(path: scratch.log).log
        let records = (0..<3).map { sampleRecord($0).asWritten }
        for record in records { try log.append(record) }
        return (log, records)
    }

    func expectWhole(_ scratch: ScratchDirectory, _ records: [SessionRecord], _ comment: Comment? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        let contents = try SessionLog.read(path: scratch.log)
        #expect(contents.records == records, comment, sourceLocation: sourceLocation)
        #expect(contents.damagedLines == 0 && contents.tail == 0, comment, sourceLocation: sourceLocation)
    }

    @Test("EIO or ENOSPC from write: the error, nothing in the file, the next append works", arguments: [EIO, ENOSPC, EFBIG])
    func writeFails(_ errno: Int32) throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let (log, records) = try logWithThree(scratch)
        let rule = "write(\(scratch.log))"
        SyscallFaults.inject(errno, into: rule)
        defer { SyscallFaults.remove(matching: rule) }
        #expect(throws: SessionLogError.system(SystemError(call: rule, errno: errno))) { try log.append(sampleRecord(7)) }
        #expect(SyscallFaults.pending(matching: rule) == 0)
        try expectWhole(scratch, records)
        try log.append(sampleRecord(8))
        try expectWhole(scratch, records + [sampleRecord(8).asWritten])
    }

    @Test("a short write (the disk filling up): the part written is cut off again")
    func shortWrite() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let (log, records) = try logWithThree(scratch)
        let rule = "write(\(scratch.log))"
        SyscallFaults.shorten(rule, to: 50)
        defer { SyscallFaults.remove(matching: rule) }
        let count = try SessionRecordCodec.encode(sampleRecord(7)).count
        #expect(throws: SessionLogError.shortWrite(path: scratch.log, written: 50, of: count)) { try log.append(sampleRecord(7)) }
        try expectWhole(scratch, records)
        try log.append(sampleRecord(8))
        try expectWhole(scratch, records + [sampleRecord(8).asWritten])
    }

    @Test("fdatasync fails: the record was written but is not known to be on the disk, so it is cut off and not reported written")
    func syncFails() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let (log, records) = try logWithThree(scratch)
        let rule = "fdatasync(\(scratch.log))"
        SyscallFaults.inject(EIO, into: rule)
        defer { SyscallFaults.remove(matching: rule) }
        #expect(throws: SessionLogError.system(SystemError(call: rule, errno: EIO))) { try log.append(sampleRecord(7)) }
        try expectWhole(scratch, records)
        try log.append(sampleRecord(8))
        try expectWhole(scratch, records + [sampleRecord(8).asWritten])
    }

    @Test("the cut back fails too: the next append cuts first; a restart instead cuts at open")
    func cutBackFails() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let (log, records) = try logWithThree(scratch)
        let write = "write(\(scratch.log))", truncate = "ftruncate(\(scratch.log))"
        SyscallFaults.shorten(write, to: 80)
        SyscallFaults.inject(EIO, into: truncate)
        defer { SyscallFaults.remove(matching: write); SyscallFaults.remove(matching: truncate) }
        #expect(throws: SessionLogError.self) { try log.append(sampleRecord(7)) }
        #expect(try SessionLog.read(path: scratch.log).tail == 80, "the part is still there")
        try log.append(sampleRecord(8))
        try expectWhole(scratch, records + [sampleRecord(8).asWritten])

        // Written whole, not synced, not cut: after a restart instead, open
        // finds a whole record it was never told of. It reads (the session
        // did happen); what matters is that the file is whole.
        let sync = "fdatasync(\(scratch.log))"
        SyscallFaults.inject(EIO, into: sync)
        SyscallFaults.inject(EIO, into: truncate)
        defer { SyscallFaults.remove(matching: sync) }
        #expect(throws: SessionLogError.self) { try log.append(sampleRecord(9)) }
        let reopened = try SessionLog.open(path: scratch.log)
        #expect(reopened.records.count == 5 && reopened.recovery.bytesCut == 0)
    }

    @Test("EINTR from write and fdatasync is retried: the record is written")
    func interrupted() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let (log, records) = try logWithThree(scratch)
        let write = "write(\(scratch.log))", sync = "fdatasync(\(scratch.log))"
        SyscallFaults.inject(EINTR, into: write, times: 2)
        SyscallFaults.inject(EINTR, into: sync)
        defer { SyscallFaults.remove(matching: write); SyscallFaults.remove(matching: sync) }
        try log.append(sampleRecord(7))
        #expect(SyscallFaults.pending(matching: write) == 0 && SyscallFaults.pending(matching: sync) == 0)
        try expectWhole(scratch, records + [sampleRecord(7).asWritten])
    }

    @Test("a torn tail cut at open: the truncation failing is an error, and the file is not appended to")
    func cutAtOpenFails() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let torn = try encoded([sampleRecord(0)]) + Array("v1 start".utf8)
        scratch.write(torn)
        let rule = "ftruncate(\(scratch.log))"
        SyscallFaults.inject(EIO, into: rule)
        defer { SyscallFaults.remove(matching: rule) }
        #expect(throws: SessionLogError.system(SystemError(call: rule, errno: EIO))) { try SessionLog.open(path: scratch.log) }
        #expect(scratch.bytes() == torn)
    }
}
