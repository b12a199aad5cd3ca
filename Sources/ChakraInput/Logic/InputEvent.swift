/// One evdev event as the kernel reports it (struct input_event), with its
/// time in seconds on the clock the reader set (CLOCK_MONOTONIC,
/// EVIOCSCLOCKID). The pure parts of this module see only these, so that
/// recorded sequences drive them in tests.
public struct InputEvent: Sendable, Equatable, CustomStringConvertible {
    public var type: UInt16
    public var code: UInt16
    public var value: Int32
    public var time: Double

    public init(type: UInt16, code: UInt16, value: Int32, time: Double = 0) {
        (self.type, self.code, self.value, self.time) = (type, code, value, time)
    }

    public init(_ type: UInt16, _ code: UInt16, _ value: Int32, time: Double = 0) {
        self.init(type: type, code: code, value: value, time: time)
    }

    public var description: String { "\(EventCode.name(type: type, code: code)) \(value)" }
}

/// The event types and codes this module reads, with the values of
/// linux/input-event-codes.h (a stable kernel ABI), so that the pure code
/// needs no C module.
public enum EventCode {
    // Types.
    public static let EV_SYN: UInt16 = 0x00
    public static let EV_KEY: UInt16 = 0x01
    public static let EV_ABS: UInt16 = 0x03
    public static let EV_FF: UInt16 = 0x15

    // EV_SYN codes.
    public static let SYN_REPORT: UInt16 = 0
    public static let SYN_MT_REPORT: UInt16 = 2
    public static let SYN_DROPPED: UInt16 = 3

    // EV_KEY codes.
    public static let BTN_TOOL_PEN: UInt16 = 0x140
    public static let BTN_TOOL_FINGER: UInt16 = 0x145
    public static let BTN_TOUCH: UInt16 = 0x14a

    // EV_ABS codes.
    public static let ABS_X: UInt16 = 0x00
    public static let ABS_Y: UInt16 = 0x01
    public static let ABS_MT_SLOT: UInt16 = 0x2f
    public static let ABS_MT_POSITION_X: UInt16 = 0x35
    public static let ABS_MT_POSITION_Y: UInt16 = 0x36
    public static let ABS_MT_TRACKING_ID: UInt16 = 0x39

    // Input properties (EVIOCGPROP bits).
    public static let INPUT_PROP_POINTER: UInt32 = 0x00
    public static let INPUT_PROP_DIRECT: UInt32 = 0x01

    // Force-feedback effect types.
    public static let FF_RUMBLE: UInt16 = 0x50

    /// "EV_ABS ABS_MT_SLOT" for the codes above, numbers otherwise (logs, test failures).
    public static func name(type: UInt16, code: UInt16) -> String {
        let names: [UInt16: (String, [UInt16: String])] = [
            EV_SYN: ("EV_SYN", [SYN_REPORT: "SYN_REPORT", SYN_MT_REPORT: "SYN_MT_REPORT", SYN_DROPPED: "SYN_DROPPED"]),
            EV_KEY: ("EV_KEY", [BTN_TOUCH: "BTN_TOUCH", BTN_TOOL_FINGER: "BTN_TOOL_FINGER", BTN_TOOL_PEN: "BTN_TOOL_PEN"]),
            EV_ABS: ("EV_ABS", [ABS_X: "ABS_X", ABS_Y: "ABS_Y", ABS_MT_SLOT: "ABS_MT_SLOT", ABS_MT_POSITION_X: "ABS_MT_POSITION_X",
                                ABS_MT_POSITION_Y: "ABS_MT_POSITION_Y", ABS_MT_TRACKING_ID: "ABS_MT_TRACKING_ID"]),
        ]
        guard let (typeName, codes) = names[type] else { return "type \(type) code \(code)" }
        return "\(typeName) \(codes[code] ?? "code \(code)")"
    }
}
