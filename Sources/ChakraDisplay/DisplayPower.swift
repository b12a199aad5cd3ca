/// Whether a display really went dark (or came back) as asked: read back
/// from the device, not assumed. Users of signage players report screens
/// that stay lit at night, or stay black after the TV was power-cycled;
/// the status and the events say which it is.
public enum DisplayPowerCheck: Sendable, Equatable {
    /// Read back and as asked ("crtc 38 ACTIVE=0", "bl_power=4",
    /// "TV reports standby").
    case confirmed(String)
    /// The attempt or the read-back says otherwise, or failed: why.
    case failed(String)
    /// Nothing to read back (headless; a method with no read-back).
    case unchecked(String)

    public var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }

    /// "confirmed", "failed" or "unchecked", for status and events.
    public var kind: String {
        switch self {
        case .confirmed: "confirmed"
        case .failed: "failed"
        case .unchecked: "unchecked"
        }
    }

    public var detail: String {
        switch self {
        case .confirmed(let text), .failed(let text), .unchecked(let text): text
        }
    }
}

/// What one part of the display chain (the DRM CRTC, the framebuffer, the
/// backlight, the TV over HDMI-CEC) did when asked to power down or up.
public struct DisplayPowerReport: Sendable, Equatable {
    /// The part: "drm", "fbdev", "backlight", "cec", "headless".
    public var part: String
    /// What was asked: true for on.
    public var on: Bool
    /// How: "atomic ACTIVE", "legacy DPMS", "FBIOBLANK", "bl_power",
    /// "CEC Standby", "CEC Image View On".
    public var method: String
    public var check: DisplayPowerCheck

    public init(part: String, on: Bool, method: String, check: DisplayPowerCheck) {
        (self.part, self.on, self.method, self.check) = (part, on, method, check)
    }

    /// "drm: atomic ACTIVE=0 confirmed (crtc 38 ACTIVE=0)".
    public var summary: String { "\(part): \(method) \(check.kind) (\(check.detail))" }
}
