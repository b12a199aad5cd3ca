import CDRM
import ChakraSystem

/// What a CRTC showed before the daemon took it (usually the console's
/// framebuffer), to put back on exit.
struct SavedCRTC {
    let crtcID: UInt32
    let framebufferID: UInt32
    let x: UInt32, y: UInt32
    let mode: drmModeModeInfo?
    let connectorID: UInt32

    init?(device: DRMDevice, crtcID: UInt32, connectorID: UInt32) {
        guard let crtc = drmModeGetCrtc(device.fd, crtcID) else { return nil }
        defer { drmModeFreeCrtc(crtc) }
        (self.crtcID, framebufferID, x, y) = (crtcID, crtc.pointee.buffer_id, crtc.pointee.x, crtc.pointee.y)
        mode = crtc.pointee.mode_valid != 0 ? crtc.pointee.mode : nil
        self.connectorID = connectorID
    }

    /// Shows the previous framebuffer again with the legacy SetCrtc (which
    /// atomic drivers take too); if it is gone, or there was none, turns the
    /// CRTC off so that the last frame does not stay on screen.
    /// Returns what was done, for the log.
    func restore(device: DRMDevice) -> String {
        if framebufferID != 0, var mode {
            var connector = connectorID
            if drmModeSetCrtc(device.fd, crtcID, framebufferID, x, y, &connector, 1, &mode) == 0 {
                return "restored CRTC \(crtcID) to framebuffer \(framebufferID)"
            }
        }
        let off = drmModeSetCrtc(device.fd, crtcID, 0, 0, 0, nil, 0, nil)
        return off == 0 ? "turned CRTC \(crtcID) off (nothing to restore)" : "could not restore CRTC \(crtcID): \(SystemError(call: "drmModeSetCrtc", errno: -off))"
    }
}
