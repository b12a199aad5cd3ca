/// A pipeline's power as the kernel reports it, read back after a change:
/// a CRTC's ACTIVE property (atomic) or a connector's DPMS property
/// (legacy). The detail names the object and the value as the kernel
/// has them, for the status: "crtc 38 ACTIVE=0", "connector 36 DPMS=Off".
public struct KMSPowerReading: Equatable, Sendable {
    public var isOn: Bool
    public var detail: String

    public init(isOn: Bool, detail: String) {
        (self.isOn, self.detail) = (isOn, detail)
    }

    public static func active(crtc: UInt32, value: UInt64) -> KMSPowerReading {
        KMSPowerReading(isOn: value != 0, detail: "crtc \(crtc) ACTIVE=\(value)")
    }

    /// DRM_MODE_DPMS_ON (0), STANDBY, SUSPEND, OFF (3): only On has a picture.
    public static func dpms(connector: UInt32, value: UInt64) -> KMSPowerReading {
        let names = ["On", "Standby", "Suspend", "Off"]
        let name = value < UInt64(names.count) ? names[Int(value)] : "\(value)"
        return KMSPowerReading(isOn: value == 0, detail: "connector \(connector) DPMS=\(name)")
    }

    /// Confirmed when the kernel agrees with what was asked.
    public func check(wanted on: Bool) -> DisplayPowerCheck {
        isOn == on ? .confirmed(detail) : .failed("the kernel reports \(detail)")
    }

    /// Several CRTCs at once (DRM's fbdev emulation powers every CRTC it
    /// lit): down when none is active, up when one is.
    public static func check(_ readings: [KMSPowerReading], wanted on: Bool, through source: String) -> DisplayPowerCheck {
        guard !readings.isEmpty else { return .unchecked("\(source) lists no CRTC to read back") }
        let listed = readings.map(\.detail).joined(separator: ", ") + " (\(source))"
        let agrees = on ? readings.contains { $0.isOn } : readings.allSatisfy { !$0.isOn }
        return agrees ? .confirmed(listed) : .failed("the kernel reports \(listed)")
    }
}
