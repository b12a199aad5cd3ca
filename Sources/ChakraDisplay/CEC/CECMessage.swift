/// One HDMI-CEC frame as it goes over the wire: a header byte (initiator
/// in the high nibble, destination in the low one), then the opcode and
/// its operands. A header alone is a poll. Pure: built and read here, sent
/// by `CECAdapter`.
public struct CECMessage: Sendable, Equatable, CustomStringConvertible {
    /// The kernel's frame limit (struct cec_msg holds 16 bytes).
    public static let maxLength = 16

    public let bytes: [UInt8]

    /// nil for an empty frame or one longer than a CEC frame can be.
    public init?(bytes: [UInt8]) {
        guard (1...Self.maxLength).contains(bytes.count) else { return nil }
        self.bytes = bytes
    }

    init(from initiator: UInt8, to destination: UInt8, _ opcode: CECOpcode, _ operands: UInt8...) {
        bytes = [initiator << 4 | destination & 0xF, opcode.rawValue] + operands
    }

    public var initiator: UInt8 { bytes[0] >> 4 }
    public var destination: UInt8 { bytes[0] & 0xF }
    public var opcode: UInt8? { bytes.count > 1 ? bytes[1] : nil }
    public var operands: ArraySlice<UInt8> { bytes.dropFirst(2) }
    public var isBroadcast: Bool { destination == CECAddress.broadcast }

    /// "40:36", the way cec-ctl and bus analysers print frames.
    public var description: String {
        bytes.map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined(separator: ":")
    }
}

/// The logical addresses this daemon talks to or from.
public enum CECAddress {
    public static let tv: UInt8 = 0
    /// As a destination, 15 is everyone; as an initiator, a device with
    /// no logical address of its own.
    public static let broadcast: UInt8 = 15
    public static let unregistered: UInt8 = 15
}

/// The opcodes the power sequence uses.
public enum CECOpcode: UInt8, Sendable {
    case featureAbort = 0x00
    case imageViewOn = 0x04
    case standby = 0x36
    case activeSource = 0x82
    case giveDevicePowerStatus = 0x8F
    case reportPowerStatus = 0x90
}

extension CECMessage {
    /// Standby, to the TV alone. Broadcast it would also switch off an AV
    /// receiver, a soundbar or a recorder sharing the bus, which the kiosk
    /// has no business turning off; and a directed frame is acknowledged,
    /// so a TV that is not listening shows up as a NACK instead of
    /// silence (a broadcast is "acknowledged" by nobody objecting).
    public static func standby(from initiator: UInt8) -> CECMessage {
        CECMessage(from: initiator, to: CECAddress.tv, .standby)
    }

    /// Image View On: the TV leaves standby and shows an HDMI input. The
    /// one message (with Text View On and polls) that may come from
    /// Unregistered: a TV in standby often drops the hotplug line, and
    /// with it the physical address the adapter needs to claim a logical
    /// one.
    public static func imageViewOn(from initiator: UInt8) -> CECMessage {
        CECMessage(from: initiator, to: CECAddress.tv, .imageViewOn)
    }

    /// Active Source, broadcast: the TV (and any switch between) selects
    /// the input at this physical address.
    public static func activeSource(from initiator: UInt8, physicalAddress: CECPhysicalAddress) -> CECMessage {
        CECMessage(from: initiator, to: CECAddress.broadcast, .activeSource,
                   UInt8(physicalAddress.raw >> 8), UInt8(physicalAddress.raw & 0xFF))
    }

    /// Give Device Power Status, to the TV; answered by Report Power Status.
    public static func giveDevicePowerStatus(from initiator: UInt8) -> CECMessage {
        CECMessage(from: initiator, to: CECAddress.tv, .giveDevicePowerStatus)
    }

    /// Report Power Status (what the test TV sends back).
    public static func reportPowerStatus(from initiator: UInt8, to destination: UInt8, _ status: CECPowerStatus) -> CECMessage {
        CECMessage(from: initiator, to: destination, .reportPowerStatus, status.rawValue)
    }

    /// Feature Abort: `opcode` is not handled, for `reason`.
    public static func featureAbort(from initiator: UInt8, to destination: UInt8, opcode: UInt8,
                                    reason: CECAbortReason) -> CECMessage {
        CECMessage(from: initiator, to: destination, .featureAbort, opcode, reason.rawValue)
    }
}

/// A TV's answer to Give Device Power Status. The two transitions are what
/// TVs report for the seconds a panel takes to come up or go down.
public enum CECPowerStatus: UInt8, Sendable, CustomStringConvertible {
    case on = 0
    case standby = 1
    case turningOn = 2
    case turningToStandby = 3

    public var isTransition: Bool { self == .turningOn || self == .turningToStandby }

    public var description: String {
        switch self {
        case .on: "on"
        case .standby: "standby"
        case .turningOn: "in transition from standby to on"
        case .turningToStandby: "in transition from on to standby"
        }
    }
}

/// Why a device refused a message (Feature Abort's second operand).
public enum CECAbortReason: UInt8, Sendable, CustomStringConvertible {
    case unrecognizedOpcode = 0
    case notInCorrectMode = 1
    case cannotProvideSource = 2
    case invalidOperand = 3
    case refused = 4
    case unableToDetermine = 5

    public var description: String {
        switch self {
        case .unrecognizedOpcode: "unrecognized opcode"
        case .notInCorrectMode: "not in the mode to respond"
        case .cannotProvideSource: "cannot provide the source"
        case .invalidOperand: "invalid operand"
        case .refused: "refused"
        case .unableToDetermine: "unable to determine"
        }
    }
}

/// A received frame, read for what the power sequence cares about.
public enum CECReply: Sendable, Equatable {
    case powerStatus(CECPowerStatus)
    case featureAbort(opcode: UInt8, reason: CECAbortReason?)
    /// Anything else, or a known opcode with operands missing or out of
    /// range (a TV's bug, not ours to trap on).
    case other(CECMessage)

    public init(_ message: CECMessage) {
        let operands = Array(message.operands)
        switch message.opcode.flatMap(CECOpcode.init(rawValue:)) {
        case .reportPowerStatus:
            if let first = operands.first, let status = CECPowerStatus(rawValue: first) {
                self = .powerStatus(status)
                return
            }
        case .featureAbort:
            if let opcode = operands.first {
                self = .featureAbort(opcode: opcode, reason: operands.count > 1 ? CECAbortReason(rawValue: operands[1]) : nil)
                return
            }
        default:
            break
        }
        self = .other(message)
    }
}

/// Where a device sits in the HDMI tree, one hex digit a level: the TV is
/// 0.0.0.0, whatever is on its first input 1.0.0.0, and so on. It comes
/// from the EDID the TV hands the source; 0xFFFF (f.f.f.f) is none, e.g.
/// with the cable out or the TV's hotplug line low.
public struct CECPhysicalAddress: Sendable, Equatable, CustomStringConvertible {
    public static let invalid = CECPhysicalAddress(raw: 0xFFFF)

    public let raw: UInt16

    public init(raw: UInt16) { self.raw = raw }

    public var isValid: Bool { raw != 0xFFFF }

    /// "1.0.0.0", or "none".
    public var description: String {
        guard isValid else { return "none" }
        return [12, 8, 4, 0].map { String((raw >> UInt16($0)) & 0xF, radix: 16) }.joined(separator: ".")
    }
}
