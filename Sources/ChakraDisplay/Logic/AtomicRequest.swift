/// One property value in an atomic commit.
public struct AtomicValue: Equatable, Sendable {
    public var object: UInt32
    public var property: KMSProperty
    public var value: UInt64

    public init(_ object: UInt32, _ property: KMSProperty, _ value: UInt64) {
        (self.object, self.property, self.value) = (object, property, value)
    }
}

/// The objects of one atomic pipeline.
public struct AtomicPipelineIDs: Equatable, Sendable {
    public var connector: UInt32
    public var crtc: UInt32
    public var plane: UInt32

    public init(connector: UInt32, crtc: UInt32, plane: UInt32) {
        (self.connector, self.crtc, self.plane) = (connector, crtc, plane)
    }
}

/// What each atomic commit sets, as plain values (the modesetter hands
/// them to the kernel; the tests read them).
public enum AtomicRequest {
    /// Lights the pipeline showing `framebuffer`, unscaled, in the mode of
    /// `modeBlob`: the whole state, so that it holds whatever the kernel
    /// had before (the console's framebuffer after a VT switch, a CRTC
    /// taken apart by an unplug or left inactive by a power-down).
    public static func modeset(_ ids: AtomicPipelineIDs, modeBlob: UInt32, framebuffer: UInt32, width: Int, height: Int) -> [AtomicValue] {
        let w = UInt64(width), h = UInt64(height), crtc = UInt64(ids.crtc)
        return [
            AtomicValue(ids.connector, .connectorCRTC, crtc),
            AtomicValue(ids.crtc, .crtcMode, UInt64(modeBlob)), AtomicValue(ids.crtc, .crtcActive, 1),
            AtomicValue(ids.plane, .planeFB, UInt64(framebuffer)), AtomicValue(ids.plane, .planeCRTC, crtc),
            AtomicValue(ids.plane, .planeSourceX, 0), AtomicValue(ids.plane, .planeSourceY, 0),
            AtomicValue(ids.plane, .planeSourceWidth, w << 16), AtomicValue(ids.plane, .planeSourceHeight, h << 16),   // 16.16 fixed point
            AtomicValue(ids.plane, .planeCRTCX, 0), AtomicValue(ids.plane, .planeCRTCY, 0),
            AtomicValue(ids.plane, .planeCRTCWidth, w), AtomicValue(ids.plane, .planeCRTCHeight, h),
        ]
    }

    /// Takes the pipeline apart (the display went away): no mode, no plane.
    public static func disable(_ ids: AtomicPipelineIDs) -> [AtomicValue] {
        [
            AtomicValue(ids.connector, .connectorCRTC, 0),
            AtomicValue(ids.crtc, .crtcMode, 0), AtomicValue(ids.crtc, .crtcActive, 0),
            AtomicValue(ids.plane, .planeFB, 0), AtomicValue(ids.plane, .planeCRTC, 0),
        ]
    }

    /// Powers the CRTC down (no signal: the panel goes to standby) or up,
    /// and nothing else: the mode, the plane and the connector stay bound,
    /// as the kernel's own DPMS does it, so that ACTIVE=1 alone lights the
    /// same picture again.
    public static func power(_ ids: AtomicPipelineIDs, on: Bool) -> [AtomicValue] {
        [AtomicValue(ids.crtc, .crtcActive, on ? 1 : 0)]
    }
}
