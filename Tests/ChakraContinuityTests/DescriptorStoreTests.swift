import CLinuxKernel
import ChakraContinuity
import ChakraSystem
import Glibc
import Synchronization
import Testing

private let listeners = Atomic<Int>(0)

/// systemd's end of $NOTIFY_SOCKET, as far as a test needs it: a real
/// AF_UNIX datagram socket bound to an abstract address unique to the
/// test, read with recvmsg(2), descriptors and all. Written apart from
/// the sending code, so that one is checked against the kernel, not
/// against itself.
final class NotifyListener {
    let fd: Int32
    /// $NOTIFY_SOCKET's value: "@chakra-fdstore-<pid>-<n>".
    let environmentValue: String

    init() throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        let name = "chakra-fdstore-\(getpid())-\(listeners.add(1, ordering: .relaxed).oldValue)"
        environmentValue = "@" + name
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw[0] = 0
            for (index, byte) in name.utf8.enumerated() { raw[index + 1] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + 1 + name.utf8.count)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        try #require(bound == 0, "bind: \(errno)")
    }

    deinit { close(fd) }

    func notifier() throws -> SystemdNotifier {
        try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": environmentValue], logger: Logger(label: "test")))
    }

    /// The next datagram (without waiting): its text and the descriptors
    /// that came with it, which the caller now owns; nil when none waits.
    func receive() -> (text: String, descriptors: [Int32], truncatedControl: Bool)? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let controlCapacity = CLinux_CMSG_SPACE(253 * MemoryLayout<Int32>.size)
        let control = UnsafeMutableRawPointer.allocate(byteCount: controlCapacity, alignment: MemoryLayout<cmsghdr>.alignment)
        defer { control.deallocate() }
        return buffer.withUnsafeMutableBytes { raw in
            var vector = iovec(iov_base: raw.baseAddress, iov_len: raw.count)
            var message = msghdr()
            return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                message.msg_iov = vectorPointer
                message.msg_iovlen = 1
                message.msg_control = control
                message.msg_controllen = controlCapacity
                let count = recvmsg(fd, &message, Int32(MSG_DONTWAIT) | Int32(MSG_CMSG_CLOEXEC))
                guard count >= 0 else { return nil }
                var descriptors: [Int32] = []
                var header = CLinux_CMSG_FIRSTHDR(&message)
                while let current = header {
                    if CLinux_is_rights(current) != 0 {
                        let bytes = current.pointee.cmsg_len - CLinux_CMSG_LEN(0)
                        let data = UnsafeRawPointer(CLinux_CMSG_DATA(current)!)
                        for index in 0..<(bytes / MemoryLayout<Int32>.size) {
                            descriptors.append(data.loadUnaligned(fromByteOffset: index * MemoryLayout<Int32>.size, as: Int32.self))
                        }
                    }
                    header = CLinux_CMSG_NXTHDR(&message, current)
                }
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: raw[..<count]), as: UTF8.self)
                return (text, descriptors, message.msg_flags & Int32(MSG_CTRUNC) != 0)
            }
        }
    }
}

/// The device and inode a descriptor refers to: two descriptors of the
/// same file agree.
func identity(_ fd: Int32) -> (device: UInt64, inode: UInt64)? {
    var info = stat()
    guard fstat(fd, &info) == 0 else { return nil }
    return (UInt64(info.st_dev), UInt64(info.st_ino))
}

@Suite("systemd's file descriptor store, over a real socket")
struct DescriptorStoreTests {
    @Test func storedDescriptorsArriveAsTheSameFiles() throws {
        let listener = try NotifyListener()
        let notifier = try listener.notifier()
        let memory = try MemoryFile.create(name: "chakra-test")
        defer { close(memory) }
        var pipeEnds: [Int32] = [0, 0]
        try #require(pipe(&pipeEnds) == 0)
        defer { close(pipeEnds[0]); close(pipeEnds[1]) }

        try notifier.store([memory, pipeEnds[1]], as: DescriptorName("drm"))
        let received = try #require(listener.receive())
        #expect(received.text == "FDSTORE=1\nFDNAME=drm")
        #expect(!received.truncatedControl)
        try #require(received.descriptors.count == 2)
        defer { for fd in received.descriptors { close(fd) } }
        // New numbers for the same open files: what systemd holds.
        #expect(!received.descriptors.contains(memory))
        let sent = [memory, pipeEnds[1]].map(identity)
        let arrived = received.descriptors.map(identity)
        #expect(sent[0]?.inode == arrived[0]?.inode && sent[0]?.device == arrived[0]?.device)
        #expect(sent[1]?.inode == arrived[1]?.inode && sent[1]?.device == arrived[1]?.device)
        #expect(sent[0]?.inode != sent[1]?.inode)
        // Written through the received one, read through ours: one file.
        let word = Array("seam".utf8)
        #expect(write(received.descriptors[1], word, word.count) == word.count)
        var back = [UInt8](repeating: 0, count: 4)
        #expect(read(pipeEnds[0], &back, 4) == 4)
        #expect(back == word)
    }

    @Test func pollCanBeTurnedOffAndNamesRemoved() throws {
        let listener = try NotifyListener()
        let notifier = try listener.notifier()
        let memory = try MemoryFile.create(name: "chakra-test")
        defer { close(memory) }
        try notifier.store([memory], as: StoredDescriptors.state, poll: false)
        let stored = try #require(listener.receive())
        #expect(stored.text == "FDSTORE=1\nFDNAME=state\nFDPOLL=0")
        #expect(stored.descriptors.count == 1)
        stored.descriptors.forEach { _ = close($0) }

        try notifier.removeStored(StoredDescriptors.drm)
        let removed = try #require(listener.receive())
        #expect(removed.text == "FDSTOREREMOVE=1\nFDNAME=drm")
        #expect(removed.descriptors.isEmpty)
    }

    @Test func plainMessagesStillGoOut() throws {
        let listener = try NotifyListener()
        try listener.notifier().send(.ready, .status("heart"))
        let received = try #require(listener.receive())
        #expect(received.text == "READY=1\nSTATUS=heart")
        #expect(received.descriptors.isEmpty)
    }

    @Test func refusals() throws {
        let listener = try NotifyListener()
        let notifier = try listener.notifier()
        let name = try DescriptorName("drm")
        #expect(throws: DescriptorStoreError(name: name, problem: .noDescriptors)) { try notifier.store([], as: name) }
        #expect(throws: DescriptorStoreError(name: name, problem: .tooManyDescriptors(254))) {
            try notifier.store(Array(repeating: 0, count: 254), as: name)
        }
        // A descriptor that is not open: the kernel refuses the datagram.
        #expect(throws: DescriptorStoreError(name: name, problem: .send(SystemError(call: "sendmsg(\(listener.environmentValue))", errno: EBADF)))) {
            try notifier.store([9999], as: name)
        }
        #expect(listener.receive() == nil)
        // Nobody listening any more (systemd gone): said, not crashed.
        let lonely: SystemdNotifier
        let lonelyAddress: String
        do {
            let orphan = try NotifyListener()
            lonely = try orphan.notifier()
            lonelyAddress = orphan.environmentValue
        }
        let memory = try MemoryFile.create(name: "chakra-test")
        defer { close(memory) }
        #expect(throws: DescriptorStoreError(name: name, problem: .send(SystemError(call: "sendmsg(\(lonelyAddress))", errno: ECONNREFUSED)))) {
            try lonely.store([memory], as: name)
        }
        #expect(DescriptorStoreError(name: name, problem: .tooManyDescriptors(300)).description
            == "cannot store 'drm': 300 descriptors, more than one message carries (253)")
    }

    /// Through the funnel: an interrupted send is sent again, a failed
    /// one is said (faults injected for this test's socket alone).
    @Test func sendsGoThroughTheFunnel() throws {
        let listener = try NotifyListener()
        let notifier = try listener.notifier()
        let call = "sendmsg(\(listener.environmentValue))"
        let memory = try MemoryFile.create(name: "chakra-test")
        defer { close(memory) }
        SyscallFaults.inject(EINTR, into: call)
        defer { SyscallFaults.remove(matching: call) }
        try notifier.store([memory], as: StoredDescriptors.state)
        #expect(SyscallFaults.pending(matching: call) == 0)
        let stored = try #require(listener.receive())
        #expect(stored.text == "FDSTORE=1\nFDNAME=state")
        stored.descriptors.forEach { _ = close($0) }

        SyscallFaults.inject(ENOBUFS, into: call)
        #expect(throws: DescriptorStoreError(name: StoredDescriptors.state, problem: .send(SystemError(call: call, errno: ENOBUFS)))) {
            try notifier.store([memory], as: StoredDescriptors.state)
        }
        #expect(listener.receive() == nil)
        // A status that fails is only logged.
        SyscallFaults.inject(ENOBUFS, into: call)
        notifier.send(.status("lost"))
        #expect(listener.receive() == nil)
        notifier.send(.status("kept"))
        #expect(listener.receive()?.text == "STATUS=kept")
    }

    @Test func theNamesAreValid() {
        #expect(StoredDescriptors.all.map(\.text) == ["state", "drm", "fb", "control"])
    }
}
