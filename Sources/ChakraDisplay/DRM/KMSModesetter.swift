import CDRM
import ChakraSystem

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
}

/// drmModeSetCrtc + drmModePageFlip: every KMS driver has them.
final class LegacyModesetter: KMSModesetter {
    private let fd: Int32
    private let pipeline: KMSPipeline

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
}
