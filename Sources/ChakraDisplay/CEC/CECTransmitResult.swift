/// What the kernel says became of one transmitted frame, and of the reply
/// it waited for: struct cec_msg's tx_status and rx_status bits, and the
/// reply frame. Pure, so the wording of every outcome is unit-tested.
public struct CECTransmitResult: Sendable, Equatable {
    /// tx_status: how the frame went out.
    public struct Sent: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let ok = Sent(rawValue: 1 << 0)
        public static let arbitrationLost = Sent(rawValue: 1 << 1)
        public static let notAcknowledged = Sent(rawValue: 1 << 2)
        public static let lowDrive = Sent(rawValue: 1 << 3)
        public static let error = Sent(rawValue: 1 << 4)
        public static let maxRetries = Sent(rawValue: 1 << 5)
        public static let aborted = Sent(rawValue: 1 << 6)
        public static let timeout = Sent(rawValue: 1 << 7)
    }

    /// rx_status: how waiting for the reply went.
    public struct Received: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let ok = Received(rawValue: 1 << 0)
        public static let timeout = Received(rawValue: 1 << 1)
        public static let featureAbort = Received(rawValue: 1 << 2)
        public static let aborted = Received(rawValue: 1 << 3)
    }

    public var sent: Sent
    public var received: Received
    /// The reply (or the Feature Abort) when one was waited for and came.
    public var reply: CECMessage?

    public init(sent: Sent, received: Received = [], reply: CECMessage? = nil) {
        (self.sent, self.received, self.reply) = (sent, received, reply)
    }

    /// The destination acknowledged the frame (earlier failed attempts may
    /// have set other bits too: the kernel retries).
    public var isAcknowledged: Bool { sent.contains(.ok) }

    /// Why the frame did not get through, in words; nil when it did. A
    /// NACK is the common one: nobody at that address, or a TV whose CEC
    /// is switched off in its menu.
    public var sendFailure: String? {
        if isAcknowledged { return nil }
        if sent.contains(.notAcknowledged) { return "not acknowledged" }
        if sent.contains(.aborted) { return "aborted (HDMI disconnected or the adapter unconfigured)" }
        if sent.contains(.arbitrationLost) { return "arbitration lost (the bus was busy)" }
        if sent.contains(.lowDrive) { return "a device pulled the bus low (a corrupted frame)" }
        if sent.contains(.timeout) { return "timed out in the driver" }
        if sent.contains(.error) { return "a bus error" }
        return "failed (tx_status 0x\(String(sent.rawValue, radix: 16)))"
    }

    /// What came back to a frame sent with a reply awaited.
    public enum Answer: Sendable, Equatable {
        case reply(CECReply)
        /// No reply within the time given.
        case none
        /// The wait was cut short: the cable pulled, the adapter
        /// unconfigured, the call interrupted.
        case aborted
    }

    public var answer: Answer {
        if received.contains(.aborted) { return .aborted }
        if let reply, received.contains(.ok) || received.contains(.featureAbort) { return .reply(CECReply(reply)) }
        return .none
    }
}
