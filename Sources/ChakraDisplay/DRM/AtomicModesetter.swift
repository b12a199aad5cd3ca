import CDRM
import ChakraSystem
import Glibc

/// Atomic modesetting (DRM_CLIENT_CAP_ATOMIC): the connector, CRTC and
/// primary plane are set in one commit, tested with TEST_ONLY first so a
/// refused configuration changes nothing on screen. Property ids are
/// resolved once, when the pipeline is chosen (weston kms.c).
///
/// Owns the mode blob it created (destroyed in deinit, or when replaced).
final class AtomicModesetter: KMSModesetter {
    private let fd: Int32
    private let pipeline: KMSPipeline
    private let planeID: UInt32
    private let ids: AtomicPipelineIDs
    private let table: AtomicPropertyTable
    /// The plane's FB_ID property: all a flip sets.
    private let planeFB: UInt32
    private var modeBlob: UInt32 = 0

    init(device: DRMDevice, pipeline: KMSPipeline) throws {
        guard let planeID = pipeline.choice.planeID else {
            throw DisplayError.unavailable("atomic modesetting: no primary plane for CRTC \(pipeline.choice.crtcID)")
        }
        let names = { (object: UInt32, type: UInt32) in
            KMSProbe.properties(fd: device.fd, object: object, type: type).mapValues(\.id)
        }
        table = try AtomicPropertyTable(connector: names(pipeline.choice.connector.id, UInt32(DRM_MODE_OBJECT_CONNECTOR)),
                                        crtc: names(pipeline.choice.crtcID, UInt32(DRM_MODE_OBJECT_CRTC)),
                                        plane: names(planeID, UInt32(DRM_MODE_OBJECT_PLANE)))
        (fd, self.pipeline, self.planeID, planeFB) = (device.fd, pipeline, planeID, table[.planeFB])
        ids = AtomicPipelineIDs(connector: pipeline.choice.connector.id, crtc: pipeline.choice.crtcID, plane: planeID)
    }

    deinit {
        if modeBlob != 0 { drmModeDestroyPropertyBlob(fd, modeBlob) }
    }

    var name: String { "atomic" }

    func modeset(framebuffer: UInt32) throws(SystemError) {
        var mode = pipeline.rawMode
        var blob: UInt32 = 0
        try Syscall.drm("drmModeCreatePropertyBlob(mode)", {
            drmModeCreatePropertyBlob(fd, &mode, MemoryLayout<drmModeModeInfo>.size, &blob)
        })
        do {
            try commit("modeset", AtomicRequest.modeset(ids, modeBlob: blob, framebuffer: framebuffer, width: pipeline.width, height: pipeline.height),
                       flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET))
        } catch {
            drmModeDestroyPropertyBlob(fd, blob)
            throw error
        }
        if modeBlob != 0 { drmModeDestroyPropertyBlob(fd, modeBlob) }
        modeBlob = blob
    }

    func flip(to framebuffer: UInt32, userData: UnsafeMutableRawPointer?) throws(SystemError) {
        let flags = UInt32(DRM_MODE_PAGE_FLIP_EVENT) | UInt32(DRM_MODE_ATOMIC_NONBLOCK)
        let (fd, plane, property) = (fd, planeID, planeFB)
        try Syscall.drm("atomic commit (flip)", { CDRM_atomic_flip(fd, plane, property, framebuffer, flags, userData) })
    }

    func disable() throws(SystemError) {
        try commit("disable", AtomicRequest.disable(ids), flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET))
    }

    var powerMethod: String { "atomic ACTIVE" }

    /// A change of ACTIVE is a modeset to the kernel (ALLOW_MODESET), though
    /// nothing else changes.
    func powerDown() throws(SystemError) {
        try commit("power down", AtomicRequest.power(ids, on: false), flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET))
    }

    /// The whole state rather than ACTIVE=1 alone: while the VT was away the
    /// console put its own framebuffer (and perhaps mode) on the CRTC.
    func powerUp(framebuffer: UInt32) throws(SystemError) {
        try modeset(framebuffer: framebuffer)
    }

    func readPower() throws(SystemError) -> KMSPowerReading {
        let crtc = ids.crtc
        let properties = try KMSProbe.readProperties(fd: fd, object: crtc, type: UInt32(DRM_MODE_OBJECT_CRTC))
        guard let active = properties["ACTIVE"] else { throw SystemError(call: "crtc \(crtc) ACTIVE property", errno: ENOENT) }
        return .active(crtc: crtc, value: active.value)
    }

    /// Tests the request, then commits it (blocking).
    private func commit(_ what: String, _ values: [AtomicValue], flags: UInt32) throws(SystemError) {
        guard let request = drmModeAtomicAlloc() else { throw SystemError(call: "drmModeAtomicAlloc", errno: ENOMEM) }
        defer { drmModeAtomicFree(request) }
        for item in values {
            guard drmModeAtomicAddProperty(request, item.object, table[item.property], item.value) >= 0 else {
                throw SystemError(call: "drmModeAtomicAddProperty(\(item.property.name))", errno: ENOMEM)
            }
        }
        let fd = fd
        try Syscall.drm("atomic commit (\(what), test only)", {
            drmModeAtomicCommit(fd, request, flags | UInt32(DRM_MODE_ATOMIC_TEST_ONLY), nil)
        })
        try Syscall.drm("atomic commit (\(what))", { drmModeAtomicCommit(fd, request, flags, nil) })
    }
}
