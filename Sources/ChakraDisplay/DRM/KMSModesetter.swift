import CDRM
import ChakraSystem
import Glibc

/// What the DRM output drives: one connector, its mode, a CRTC and (for
/// atomic) the CRTC's primary plane. Plain values plus libdrm's raw mode.
struct KMSPipeline {
    var choice: KMSPipelineChoice
    var rawMode: drmModeModeInfo
    var width: Int { choice.mode.width }
    var height: Int { choice.mode.height }
}

/// The two ways to program KMS: atomic commits where the driver offers
/// them, the legacy SetCrtc/PageFlip ioctls otherwise. One per pipeline.
protocol KMSModesetter: AnyObject {
    var name: String { get }
    /// Lights the pipeline showing `framebuffer`: a full, blocking modeset.
    func modeset(framebuffer: UInt32) throws(SystemError)
    /// Queues a flip to `framebuffer` at the next vblank, non-blocking, with
    /// a completion event carrying `userData`. Must not allocate (per frame).
    func flip(to framebuffer: UInt32, userData: UnsafeMutableRawPointer?) throws(SystemError)
    /// Turns the CRTC off (the display went away).
    func disable() throws(SystemError)
    /// How the pipeline is powered down and up, for the report: "atomic
    /// ACTIVE", "legacy DPMS".
    var powerMethod: String { get }
    /// Powers the lit pipeline down: no signal, so the panel goes to
    /// standby; its mode and framebuffer stay set.
    func powerDown() throws(SystemError)
    /// Powers it up showing `framebuffer`: the whole pipeline set again
    /// (the console may have taken the CRTC while the VT was away).
    func powerUp(framebuffer: UInt32) throws(SystemError)
    /// The power state as the kernel has it now.
    func readPower() throws(SystemError) -> KMSPowerReading
}

/// drmModeSetCrtc + drmModePageFlip: every KMS driver has them. Power
/// goes through the connector's DPMS property.
final class LegacyModesetter: KMSModesetter {
    private let fd: Int32
    private let pipeline: KMSPipeline
    /// The connector's DPMS property (every connector has one), once found.
    private var dpmsProperty: UInt32?

    init(device: DRMDevice, pipeline: KMSPipeline) {
        (fd, self.pipeline) = (device.fd, pipeline)
    }

    var name: String { "legacy" }

    func modeset(framebuffer: UInt32) throws(SystemError) {
        var connector = pipeline.choice.connector.id
        var mode = pipeline.rawMode
        let crtc = pipeline.choice.crtcID
        try Syscall.drm("drmModeSetCrtc", { drmModeSetCrtc(fd, crtc, framebuffer, 0, 0, &connector, 1, &mode) })
    }

    func flip(to framebuffer: UInt32, userData: UnsafeMutableRawPointer?) throws(SystemError) {
        let crtc = pipeline.choice.crtcID
        try Syscall.drm("drmModePageFlip", { drmModePageFlip(fd, crtc, framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), userData) })
    }

    func disable() throws(SystemError) {
        let crtc = pipeline.choice.crtcID
        try Syscall.drm("drmModeSetCrtc(off)", { drmModeSetCrtc(fd, crtc, 0, 0, 0, nil, 0, nil) })
    }

    var powerMethod: String { "legacy DPMS" }

    /// On first: the kernel skips a DPMS change to the value it has, and an
    /// atomic driver's value can say Off while the CRTC is lit (the
    /// console's own commit after a VT switch does not update it). On a lit
    /// screen this changes nothing visible.
    func powerDown() throws(SystemError) {
        try setDPMS(UInt64(DRM_MODE_DPMS_ON))
        try setDPMS(UInt64(DRM_MODE_DPMS_OFF))
    }

    /// SetCrtc first, DPMS on after: on drivers with the old helpers a
    /// SetCrtc that changes only the framebuffer leaves the connector off,
    /// and DPMS on before it would show the old framebuffer for a moment.
    func powerUp(framebuffer: UInt32) throws(SystemError) {
        try modeset(framebuffer: framebuffer)
        try dpmsOn()
    }

    /// Lights what the CRTC shows now (the console's framebuffer put back
    /// at exit by SetCrtc, which leaves the connector's DPMS as it was).
    func dpmsOn() throws(SystemError) {
        try setDPMS(UInt64(DRM_MODE_DPMS_ON))
    }

    func readPower() throws(SystemError) -> KMSPowerReading {
        let connector = pipeline.choice.connector.id
        let properties = try KMSProbe.readProperties(fd: fd, object: connector, type: UInt32(DRM_MODE_OBJECT_CONNECTOR))
        guard let dpms = properties["DPMS"] else { throw SystemError(call: "connector \(connector) DPMS property", errno: ENOENT) }
        return .dpms(connector: connector, value: dpms.value)
    }

    private func setDPMS(_ value: UInt64) throws(SystemError) {
        let connector = pipeline.choice.connector.id
        if dpmsProperty == nil {
            let properties = try KMSProbe.readProperties(fd: fd, object: connector, type: UInt32(DRM_MODE_OBJECT_CONNECTOR))
            dpmsProperty = properties["DPMS"]?.id
        }
        guard let property = dpmsProperty else { throw SystemError(call: "connector \(connector) DPMS property", errno: ENOENT) }
        try Syscall.drm("drmModeConnectorSetProperty(connector \(connector) DPMS=\(value))", {
            drmModeConnectorSetProperty(fd, connector, property, value)
        })
    }
}
