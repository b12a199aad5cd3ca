/// What an evdev device offers, as far as choosing a touchscreen goes:
/// read from libevdev (`libevdev_has_property`, `libevdev_has_event_code`,
/// `libevdev_get_abs_info`) by the device layer, judged here.
public struct DeviceCapabilities: Sendable, Equatable {
    public var name: String
    public var direct = false           // INPUT_PROP_DIRECT: on a screen
    public var pointer = false          // INPUT_PROP_POINTER: a touchpad
    public var mtPositionX: ClosedRange<Int32>?
    public var mtPositionY: ClosedRange<Int32>?
    /// ABS_MT_SLOT's maximum + 1 (protocol B).
    public var slots: Int?
    public var absX: ClosedRange<Int32>?
    public var absY: ClosedRange<Int32>?
    public var buttonTouch = false      // BTN_TOUCH
    public var toolFinger = false       // BTN_TOOL_FINGER
    public var toolPen = false          // BTN_TOOL_PEN
    public var rumble = false           // EV_FF FF_RUMBLE

    public init(name: String) { self.name = name }
}

/// Whether a device is a touchscreen, and why (for the log).
public enum DeviceClassification: Sendable, Equatable {
    case touchscreen(TouchProtocol, axes: TouchMapping.Axes, reason: String)
    case other(reason: String)

    public var isTouchscreen: Bool {
        if case .touchscreen = self { return true }
        return false
    }

    public var reason: String {
        switch self {
        case .touchscreen(_, _, let reason), .other(let reason): reason
        }
    }

    /// A touchscreen is INPUT_PROP_DIRECT with ABS_MT_POSITION_X/Y, or has
    /// ABS_X/ABS_Y with BTN_TOUCH (docs/design.md, Touch), as udev's input_id builtin
    /// decides ID_INPUT_TOUCHSCREEN: multitouch axes without
    /// INPUT_PROP_DIRECT, or a finger tool without it, are a touchpad; a pen
    /// without INPUT_PROP_DIRECT is a graphics tablet; absolute axes without
    /// BTN_TOUCH are a tablet or a virtual mouse (QEMU's usb-tablet).
    ///
    /// `configured`: the configuration names this device, so the guesses
    /// about touchpads and tablets are waived (a panel whose driver leaves
    /// out INPUT_PROP_DIRECT); it still needs axes a tracker can read.
    public init(_ device: DeviceCapabilities, configured: Bool = false) {
        if let x = device.mtPositionX, let y = device.mtPositionY {
            guard device.direct || configured else {
                self = .other(reason: "multitouch axes without INPUT_PROP_DIRECT (a touchpad)")
                return
            }
            let axes = TouchMapping.Axes(x: x, y: y)
            let direct = device.direct ? "INPUT_PROP_DIRECT with " : "configured, no INPUT_PROP_DIRECT; "
            if let slots = device.slots {
                self = .touchscreen(.multitouchB(slots: slots), axes: axes, reason: direct + "ABS_MT_POSITION_X/Y and ABS_MT_SLOT")
            } else {
                self = .touchscreen(.multitouchA, axes: axes, reason: direct + "ABS_MT_POSITION_X/Y, no ABS_MT_SLOT")
            }
            return
        }
        guard let x = device.absX, let y = device.absY else {
            self = .other(reason: "no absolute X/Y axes")
            return
        }
        guard device.buttonTouch else {
            self = .other(reason: "ABS_X/ABS_Y without BTN_TOUCH (a tablet or virtual mouse)")
            return
        }
        if !device.direct && !configured {
            if device.pointer || device.toolFinger {
                self = .other(reason: "ABS_X/ABS_Y with a finger tool and no INPUT_PROP_DIRECT (a touchpad)")
                return
            }
            if device.toolPen {
                self = .other(reason: "a pen without INPUT_PROP_DIRECT (a graphics tablet)")
                return
            }
        }
        self = .touchscreen(.singleTouch, axes: TouchMapping.Axes(x: x, y: y),
                            reason: "ABS_X/ABS_Y with BTN_TOUCH" + (device.direct ? " and INPUT_PROP_DIRECT" : configured ? " (configured)" : ""))
    }
}

/// Which device the configuration asks for: `input.device` is a path
/// (/dev/input/event3, /dev/input/by-path/...) or a name to look for.
public enum DeviceChoice: Sendable, Equatable, CustomStringConvertible {
    /// Every touchscreen found.
    case automatic
    case path(String)
    /// Matches a device whose name equals it, or contains it, ignoring case.
    case name(String)

    /// nil or "" → automatic; an absolute path → path; anything else → name.
    public init(_ setting: String?) {
        guard let setting, !setting.isEmpty else { self = .automatic; return }
        self = setting.hasPrefix("/") ? .path(setting) : .name(setting)
    }

    public func matchesName(_ deviceName: String) -> Bool {
        guard case .name(let wanted) = self else { return false }
        return deviceName.lowercased().firstRange(of: wanted.lowercased()) != nil
    }

    public var description: String {
        switch self {
        case .automatic: "the touchscreens found"
        case .path(let path): path
        case .name(let name): "a device named like \"\(name)\""
        }
    }
}
