import CLinuxKernel
import ChakraSystem
import Glibc

/// One /dev/cecN through the kernel's CEC API: the ioctls and nothing
/// more. The kernel's CEC framework does the bus work (arbitration,
/// retries, claiming a logical address by polling, matching a reply to
/// its request); this type asks for it and reads the results.
///
/// Opened blocking: a transmit returns once the frame is acknowledged or
/// not, and after the reply when one is awaited. That is hundreds of
/// milliseconds on a real bus (a byte takes 24 ms), which is why
/// `CECController` calls it from a thread of its own.
///
/// Owns the descriptor until `close()`.
public final class CECAdapter: CECBus {
    public let path: String
    /// The driver ("vivid", "dw_hdmi", "pulse8-cec") and the adapter's own
    /// name ("vivid-000-vid-out0", the DRM connector...).
    public let driver: String
    public let name: String
    private var fd: Int32

    public init(path: String) throws(SystemError) {
        let fd = try Descriptor.open(path, O_RDWR)
        var caps = cec_caps()
        do throws(SystemError) {
            try Syscall.check("CEC_ADAP_G_CAPS(\(path))") { CLinux_ioctl_pointer(fd, CLinux_CEC_ADAP_G_CAPS(), &caps) }
            // A monitor-only adapter (a bus analyser) cannot send.
            guard caps.capabilities & UInt32(CEC_CAP_TRANSMIT) != 0 else {
                throw SystemError(call: "CEC_ADAP_G_CAPS(\(path)): no CEC_CAP_TRANSMIT", errno: ENOTTY)
            }
            // Initiator, and no follower: messages to us are left to the
            // kernel, which answers the core ones (Give Physical Address,
            // Give OSD Name...) and Feature Aborts the rest.
            var mode = UInt32(CEC_MODE_INITIATOR | CEC_MODE_NO_FOLLOWER)
            try Syscall.check("CEC_S_MODE(\(path))") { CLinux_ioctl_pointer(fd, CLinux_CEC_S_MODE(), &mode) }
        } catch {
            Descriptor.close(fd)
            throw error
        }
        (self.path, self.fd) = (path, fd)
        driver = Self.string(caps.driver)
        name = Self.string(caps.name)
        canClaim = caps.capabilities & UInt32(CEC_CAP_LOG_ADDRS) != 0
    }

    deinit { close() }

    public func close() {
        if fd >= 0 { Descriptor.close(fd) }
        fd = -1
    }

    /// Whether logical addresses are ours to claim (CEC_CAP_LOG_ADDRS);
    /// otherwise the driver claims them itself.
    public let canClaim: Bool

    /// What the adapter was configured as, for the log.
    public enum Claim: String, Sendable, Equatable {
        /// Already a playback device (ours from an earlier run, or another
        /// program's): kept, so a restart does not unsettle the bus.
        case kept = "kept from before"
        case claimed
        /// Asked for, but the adapter has no physical address yet: the
        /// kernel claims one as soon as it gets one.
        case pending = "claimed once the TV gives a physical address"
        /// The driver manages the addresses.
        case driver = "the driver's"
    }

    /// Makes the adapter a Playback device called `osdName` (what the TV
    /// lists in its source menu). Blocks while the kernel polls for a free
    /// address (4, 8 or 11) when the physical address is valid. An adapter
    /// another program configured as something else is left alone (EBUSY):
    /// clearing it would take the bus from under that program.
    @discardableResult
    public func claimPlaybackAddress(osdName: String) throws(SystemError) -> Claim {
        var current = try logicalAddressState()
        guard canClaim else { return .driver }
        let types = withUnsafeBytes(of: current.log_addr_type) { Array($0.prefix(Int(current.num_log_addrs))) }
        if types.contains(UInt8(CEC_LOG_ADDR_TYPE_PLAYBACK)) { return .kept }
        if let other = types.first {
            throw SystemError(call: "CEC_ADAP_S_LOG_ADDRS(\(path)): configured as \(Self.typeName(other)) by another program", errno: EBUSY)
        }
        current = cec_log_addrs()
        // CEC 1.4: what most TVs speak; 2.0 would add features to declare
        // and nothing the power sequence uses.
        current.cec_version = UInt8(CEC_OP_CEC_VERSION_1_4)
        current.num_log_addrs = 1
        current.vendor_id = UInt32(CEC_VENDOR_ID_NONE)
        current.log_addr_type.0 = UInt8(CEC_LOG_ADDR_TYPE_PLAYBACK)
        current.primary_device_type.0 = UInt8(CEC_OP_PRIM_DEVTYPE_PLAYBACK)
        current.all_device_types.0 = UInt8(CEC_OP_ALL_DEVTYPE_PLAYBACK)
        withUnsafeMutableBytes(of: &current.osd_name) { raw in
            for (index, byte) in osdName.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        try Syscall.check("CEC_ADAP_S_LOG_ADDRS(\(path))") { CLinux_ioctl_pointer(fd, CLinux_CEC_ADAP_S_LOG_ADDRS(), &current) }
        return current.log_addr_mask == 0 ? .pending : .claimed
    }

    private static func typeName(_ type: UInt8) -> String {
        let names = ["a TV", "a recorder", "a tuner", "a playback device", "an audio system", "a specific device", "unregistered"]
        return Int(type) < names.count ? names[Int(type)] : "type \(type)"
    }

    public func addresses() throws(SystemError) -> CECAddresses {
        var physical: UInt16 = 0
        try Syscall.check("CEC_ADAP_G_PHYS_ADDR(\(path))") { CLinux_ioctl_pointer(fd, CLinux_CEC_ADAP_G_PHYS_ADDR(), &physical) }
        let state = try logicalAddressState()
        let first = state.log_addr.0
        let logical: UInt8? = state.log_addr_mask == 0 || first == UInt8(CEC_LOG_ADDR_INVALID) ? nil : first
        return CECAddresses(logical: logical, physical: CECPhysicalAddress(raw: physical))
    }

    private func logicalAddressState() throws(SystemError) -> cec_log_addrs {
        var state = cec_log_addrs()
        try Syscall.check("CEC_ADAP_G_LOG_ADDRS(\(path))") { CLinux_ioctl_pointer(fd, CLinux_CEC_ADAP_G_LOG_ADDRS(), &state) }
        return state
    }

    /// ENONET: no logical address (no physical address); EBUSY: the
    /// transmit queue is full or another program holds the adapter
    /// exclusively. The call is named with the message ("CEC_TRANSMIT
    /// (/dev/cec0, Standby 40:36)").
    public func transmit(_ message: CECMessage, awaiting reply: CECOpcode?, timeoutMilliseconds: UInt32) throws(SystemError) -> CECTransmitResult {
        var frame = cec_msg()
        frame.len = UInt32(message.bytes.count)
        withUnsafeMutableBytes(of: &frame.msg) { raw in
            for (index, byte) in message.bytes.enumerated() { raw[index] = byte }
        }
        if let reply {
            frame.reply = reply.rawValue
            frame.timeout = timeoutMilliseconds
        }
        let label = message.opcode.flatMap(CECOpcode.init(rawValue:)).map { "\($0.name) " } ?? ""
        try Syscall.check("CEC_TRANSMIT(\(path), \(label)\(message))") { CLinux_ioctl_pointer(fd, CLinux_CEC_TRANSMIT(), &frame) }
        // With a reply awaited, the kernel writes it over the frame sent.
        var answer: CECMessage?
        if reply != nil, frame.rx_status & UInt8(CEC_RX_STATUS_OK | CEC_RX_STATUS_FEATURE_ABORT) != 0 {
            let length = Int(min(frame.len, UInt32(CECMessage.maxLength)))
            answer = withUnsafeBytes(of: frame.msg) { CECMessage(bytes: Array($0.prefix(length))) }
        }
        return CECTransmitResult(sent: .init(rawValue: frame.tx_status), received: .init(rawValue: frame.rx_status), reply: answer)
    }

    public func now() -> Double { MonotonicClock.now() }

    public func pause(_ seconds: Double) {
        var wanted = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        _ = try? Syscall.check("nanosleep") { nanosleep(&wanted, nil) }
    }

    private static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
