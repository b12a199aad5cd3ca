import ChakraContinuity
import ChakraSystem
import Glibc
import Testing

@Suite("The state record in a memory file in the store")
struct ContinuationStoreTests {
    /// What systemd would hand the next process reads back as the record
    /// saved last: the store's duplicate sees every rewrite.
    @Test func theStoresCopyReadsTheLastRecord() throws {
        let listener = try NotifyListener()
        let store = try ContinuationStore(notifier: listener.notifier())
        let stored = try #require(listener.receive())
        #expect(stored.text == "FDSTORE=1\nFDNAME=state\nFDPOLL=0")
        try #require(stored.descriptors.count == 1)
        let systemdsCopy = stored.descriptors[0]
        defer { close(systemdsCopy) }
        #expect(identity(systemdsCopy)?.inode == identity(store.fd)?.inode)

        // Nothing saved yet: an empty record, a fresh start.
        #expect(throws: ContinuationStoreError.record(.empty)) { try ContinuationStore.read(from: systemdsCopy) }
        try store.save(fullRecord)
        #expect(try ContinuationStore.read(from: systemdsCopy) == fullRecord)
        // A shorter record after a longer one: the file is cut to it.
        let short = ContinuationRecord(takenAt: 7, scene: "heart", sceneTime: 3)
        try store.save(short)
        #expect(try ContinuationStore.read(from: systemdsCopy) == short)
        #expect(lseek(systemdsCopy, 0, SEEK_END) == off_t(try ContinuationRecordCodec.encode(short).count))
        // Whatever the descriptor's position: read from the start.
        #expect(lseek(systemdsCopy, 5, SEEK_SET) == 5)
        #expect(try ContinuationStore.read(from: systemdsCopy) == short)
        // Saving sends nothing more.
        #expect(listener.receive() == nil)

        #expect(throws: ContinuationStoreError.record(.unwritable(field: "scene", reason: "empty"))) {
            try store.save(ContinuationRecord(takenAt: 1, scene: "", sceneTime: 1))
        }
        #expect(try ContinuationStore.read(from: systemdsCopy) == short)

        try store.withdraw()
        #expect(listener.receive()?.text == "FDSTOREREMOVE=1\nFDNAME=state")
    }

    /// The next process keeps writing into the file it was passed.
    @Test func aPassedFileIsReused() throws {
        let listener = try NotifyListener()
        let passed = try MemoryFile.create(name: "chakra-test")
        let store = try ContinuationStore(notifier: listener.notifier(), reusing: passed)
        #expect(store.fd == passed)
        let stored = try #require(listener.receive())
        defer { stored.descriptors.forEach { _ = close($0) } }
        #expect(stored.descriptors.map { identity($0)?.inode } == [identity(passed)?.inode])
        try store.save(fullRecord)
        #expect(try ContinuationStore.read(from: stored.descriptors[0]) == fullRecord)
    }

    @Test func whatIsNotAMemoryFileIsRefused() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        #expect(throws: ContinuationStoreError.file(.notRegular("a FIFO"))) { try ContinuationStore.read(from: ends[0]) }
        #expect(throws: ContinuationStoreError.file(.system(SystemError(call: "fstat(fd 9999)", errno: EBADF)))) {
            try ContinuationStore.read(from: 9999)
        }
        let big = try MemoryFile.create(name: "chakra-test")
        defer { close(big) }
        try MemoryFile.replaceContents(of: big, with: [UInt8](repeating: 0x61, count: ContinuationRecordCodec.maxBytes + 1))
        #expect(throws: ContinuationStoreError.file(.tooLarge(bytes: ContinuationRecordCodec.maxBytes + 1, limit: ContinuationRecordCodec.maxBytes))) {
            try ContinuationStore.read(from: big)
        }
        try MemoryFile.replaceContents(of: big, with: Array("chakra-continuation v9\n".utf8))
        #expect(throws: ContinuationStoreError.record(.unsupportedVersion("v9"))) { try ContinuationStore.read(from: big) }
    }

    /// A write that fails leaves the last record whole for systemd's copy;
    /// a write that stops short is continued.
    @Test func aFailedSaveKeepsTheLastRecord() throws {
        let listener = try NotifyListener()
        let store = try ContinuationStore(notifier: listener.notifier())
        let stored = try #require(listener.receive())
        defer { stored.descriptors.forEach { _ = close($0) } }
        let systemdsCopy = try #require(stored.descriptors.first)
        try store.save(fullRecord)
        let call = "pwrite(memfd \(store.fd))"
        SyscallFaults.inject(ENOMEM, into: call)
        defer { SyscallFaults.remove(matching: call) }
        #expect(throws: ContinuationStoreError.system(SystemError(call: call, errno: ENOMEM))) {
            try store.save(ContinuationRecord(takenAt: 1, scene: "calm", sceneTime: 1))
        }
        #expect(try ContinuationStore.read(from: systemdsCopy) == fullRecord)
        SyscallFaults.inject(EINTR, into: call)
        let next = ContinuationRecord(takenAt: 2, scene: "drift", sceneTime: 9.5)
        try store.save(next)
        #expect(try ContinuationStore.read(from: systemdsCopy) == next)
    }

    @Test func memoryFilesHoldWhatWasWritten() throws {
        let fd = try MemoryFile.create(name: "chakra-test")
        defer { close(fd) }
        #expect(try MemoryFile.contents(of: fd, limit: 10) == [])
        try MemoryFile.replaceContents(of: fd, with: [1, 2, 3, 4, 5])
        try MemoryFile.replaceContents(of: fd, with: [9, 8])
        #expect(try MemoryFile.contents(of: fd, limit: 10) == [9, 8])
        #expect(try MemoryFile.contents(of: fd, limit: 2) == [9, 8])
        #expect(throws: MemoryFileError.tooLarge(bytes: 2, limit: 1)) { try MemoryFile.contents(of: fd, limit: 1) }
        // Close-on-exec, as every descriptor chakrad makes.
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
    }
}
