import ChakraSessions
import ChakraSystem
import Foundation
import Glibc
import Testing

/// The log on disk: opening, repairing, appending, and files that are not
/// what they should be.
@Suite("Session log file")
struct SessionLogFileTests {
    @Test("open creates the directories and the file (0640), appends read back, a reopen finds them")
    func createAppendReopen() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/state/chakra/sessions.log"
        let opened = try SessionLog.open(path: path)
        #expect(opened.records.isEmpty && opened.recovery == SessionLogRecovery())
        // Whatever the umask (the unit's is 0077): the group may read the log.
        #expect(try FileSystem.stat(path).st_mode & 0o777 == 0o640)
        #expect(try FileSystem.stat(scratch.path + "/state").st_mode & 0o777 == 0o750)
        let records = (0..<5).map { sampleRecord($0).asWritten }
        for record in records { try opened.log.append(record) }
        #expect(opened.log.length == (try encoded(records)).count)
        #expect(try SessionLog.read(path: path).records == records)

        let again = try SessionLog.open(path: path)
        #expect(again.records == records)
        #expect(again.recovery.records == 5 && again.recovery.bytesCut == 0)
        try again.log.append(sampleRecord(9))
        #expect(try SessionLog.read(path: path).records == records + [sampleRecord(9).asWritten])
    }

    @Test("a torn tail is cut at open (and synced), and the next append's record reads back whole")
    func tornTailCutAtOpen() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let records = (0..<4).map { sampleRecord($0).asWritten }
        let whole = try encoded(records)
        let next = sampleRecord(20).asWritten
        let lastStart = try encoded(Array(records.dropLast())).count
        for cut in lastStart..<whole.count {
            scratch.write(Array(whole[..<cut]))
            let opened = try SessionLog.open(path: scratch.log)
            #expect(opened.records == Array(records.dropLast()))
            #expect(opened.recovery.bytesCut == cut - lastStart)
            #expect(scratch.bytes().count == lastStart, "cut at \(cut)")
            try opened.log.append(next)
            let contents = try SessionLog.read(path: scratch.log)
            #expect(contents.records == Array(records.dropLast()) + [next] && contents.damagedLines == 0, "cut at \(cut)")
        }
    }

    @Test("read does not change the file: a torn tail stays, and is reported as the tail")
    func readIsReadOnly() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let bytes = try encoded([sampleRecord(1), sampleRecord(2)]) + Array("v1 start=20".utf8)
        scratch.write(bytes)
        let contents = try SessionLog.read(path: scratch.log)
        #expect(contents.records.count == 2 && contents.damagedLines == 1 && contents.tail == 11)
        #expect(scratch.bytes() == bytes)
        do {
            _ = try SessionLog.read(path: scratch.path + "/missing.log")
            Issue.record("read a missing file")
        } catch {
            guard case .system(let failure) = error else { throw error }
            #expect(failure.errno == ENOENT)
        }
        #expect(!scratch.exists(scratch.path + "/missing.log"))
    }

    @Test("a file that is not a session log is refused and left exactly as it was")
    func notASessionLog() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        var junk = [UInt8](repeating: 0, count: 5000)
        for index in junk.indices { junk[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 7) }
        for content in [junk, Array(String(repeating: "root:x:0:0:root:/root:/bin/bash\n", count: 40).utf8)] {
            scratch.write(content)
            #expect(throws: SessionLogError.notASessionLog(path: scratch.log)) { try SessionLog.open(path: scratch.log) }
            #expect(scratch.bytes() == content)
            let contents = try SessionLog.read(path: scratch.log)
            #expect(contents.records.isEmpty && contents.damagedLines > 0)
        }
        // A torn first record (a power cut during the very first append) is ours: cut.
        scratch.write(Array(try SessionRecordCodec.encode(sampleRecord(0)).prefix(100)))
        let opened = try SessionLog.open(path: scratch.log)
        #expect(opened.records.isEmpty && opened.recovery.bytesCut == 100 && scratch.bytes().isEmpty)
    }

    @Test("a directory, a FIFO or a symbolic link in the way: a clear error, nothing created or changed")
    func notARegularFile() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        mkdir(scratch.log, 0o755)
        #expect(throws: SessionLogError.notARegularFile(path: scratch.log)) { try SessionLog.open(path: scratch.log) }
        #expect(throws: SessionLogError.notARegularFile(path: scratch.log)) { try SessionLog.read(path: scratch.log) }
        rmdir(scratch.log)
        mkfifo(scratch.log, 0o644)
        #expect(throws: SessionLogError.notARegularFile(path: scratch.log)) { try SessionLog.open(path: scratch.log) }
        #expect(throws: SessionLogError.notARegularFile(path: scratch.log)) { try SessionLog.read(path: scratch.log) }
        unlink(scratch.log)
        let target = scratch.path + "/elsewhere.log"
        scratch.write(try encoded([sampleRecord(0)]), to: target)
        symlink(target, scratch.log)
        #expect(throws: SessionLogError.notARegularFile(path: scratch.log)) { try SessionLog.open(path: scratch.log) }
        // The directory's place taken by a file.
        let blocked = scratch.path + "/file/sessions.log"
        scratch.write([], to: scratch.path + "/file")
        #expect(throws: SessionLogError.self) { try SessionLog.open(path: blocked) }
    }

    @Test("a file larger than any log is refused before it is read")
    func hugeFile() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        scratch.write(try encoded([sampleRecord(0)]))
        // Sparse: no disk used.
        #expect(truncate(scratch.log, off_t(SessionLog.largestFile + 1)) == 0)
        let expected = SessionLogError.tooLarge(path: scratch.log, bytes: SessionLog.largestFile + 1, limit: SessionLog.largestFile)
        #expect(throws: expected) { try SessionLog.open(path: scratch.log) }
        #expect(throws: expected) { try SessionLog.read(path: scratch.log) }
        #expect(try FileSystem.stat(scratch.log).st_size == off_t(SessionLog.largestFile + 1))
    }

    @Test("permission denied (injected: the tests run as root) names the file and the reason")
    func permissionDenied() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        SyscallFaults.inject(EACCES, into: "open(\(scratch.log))")
        defer { SyscallFaults.remove(matching: "open(\(scratch.log))") }
        do {
            _ = try SessionLog.open(path: scratch.log)
            Issue.record("opened through EACCES")
        } catch {
            #expect(error == .system(SystemError(call: "open(\(scratch.log))", errno: EACCES)))
            #expect(error.description.contains(scratch.log) && error.description.contains("Permission denied"))
        }
    }

    @Test("an invalid record is refused before anything is written")
    func invalidRecordWritesNothing() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let log = try SessionLog.open(path: scratch.log).log
        var record = sampleRecord(0)
        record.pattern = "4 7 8"
        #expect(throws: SessionLogError.self) { try log.append(record) }
        #expect(scratch.bytes().isEmpty && log.length == 0)
    }
}
