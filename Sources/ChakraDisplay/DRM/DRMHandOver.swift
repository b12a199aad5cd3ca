import CDRM

/// What a restarted chakrad does with the DRM device the last one left in
/// systemd's store (docs/seams.md): the CRTC it chose still shows the mode
/// it chose on the connector it chose, with the last frame in a
/// framebuffer of the same open file: no modeset, the first frame is a
/// flip onto it (`kept`). Anything else is a modeset, and why.
public enum DRMHandOver: Equatable, Sendable, CustomStringConvertible {
    /// The picture stays: `framebuffer` is the last process's frame.
    case kept(framebuffer: UInt32)
    case modeset(reason: String)

    public var description: String {
        switch self {
        case .kept(let framebuffer): "no modeset: the first frame flips onto the last process's (framebuffer \(framebuffer))"
        case .modeset(let reason): "modeset: \(reason)"
        }
    }

    /// `framebuffer` and `mode` are what the CRTC `crtcID` shows now (0 and
    /// nil: off), `connectorCRTC` the CRTC the chosen connector is driven
    /// by now; `wanted` the mode chosen.
    static func decide(framebuffer: UInt32, mode: ModeTiming?, connectorCRTC: UInt32?, crtcID: UInt32,
                       wanted: ModeTiming) -> DRMHandOver {
        guard framebuffer != 0, let mode else { return .modeset(reason: "the CRTC was off") }
        guard connectorCRTC == crtcID else { return .modeset(reason: "another connector or CRTC") }
        guard mode == wanted else { return .modeset(reason: "another mode (\(mode) shown, \(wanted) chosen)") }
        return .kept(framebuffer: framebuffer)
    }

    static func decide(current: SavedCRTC?, connectorCRTC: UInt32?, crtcID: UInt32, mode wanted: drmModeModeInfo) -> DRMHandOver {
        guard let current else { return .modeset(reason: "the CRTC cannot be read") }
        return decide(framebuffer: current.framebufferID, mode: current.mode.map(ModeTiming.init), connectorCRTC: connectorCRTC,
                      crtcID: crtcID, wanted: ModeTiming(wanted))
    }
}

/// A display mode's timing, as the kernel compares modes (the name and the
/// preferred flag aside): equal timings need no modeset.
struct ModeTiming: Equatable, CustomStringConvertible {
    var clock: UInt32, flags: UInt32
    var horizontal: [UInt16]
    var vertical: [UInt16]
    var refresh: UInt32

    init(clock: UInt32, flags: UInt32 = 0, horizontal: [UInt16], vertical: [UInt16], refresh: UInt32) {
        (self.clock, self.flags, self.horizontal, self.vertical, self.refresh) = (clock, flags, horizontal, vertical, refresh)
    }

    init(_ m: drmModeModeInfo) {
        let horizontal = [m.hdisplay, m.hsync_start, m.hsync_end, m.htotal, m.hskew]
        let vertical = [m.vdisplay, m.vsync_start, m.vsync_end, m.vtotal, m.vscan]
        self.init(clock: m.clock, flags: m.flags, horizontal: horizontal, vertical: vertical, refresh: m.vrefresh)
    }

    var description: String { "\(horizontal.first ?? 0)x\(vertical.first ?? 0)@\(refresh)" }
}
