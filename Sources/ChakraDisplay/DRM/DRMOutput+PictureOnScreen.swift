import CDRM
import ChakraRaster
import ChakraSystem
import Glibc

/// Reading the picture the CRTC shows before chakrad's first frame
/// (docs/seams.md, Boot): GETFB2 gives a buffer handle on the framebuffer
/// (to DRM master or root only), MAP_DUMB an offset to mmap it by; the
/// pixels are copied once and the mapping and handle let go at once.
/// Everything that decides is `PictureOnScreen` (pure, tested).
extension DRMOutput {
    public var pictureOnScreenUnreadable: PictureUnreadable? {
        if handOver != nil { return .notOffered("the CRTC shows the last process's frame (a restart flips onto it)") }
        if onScreen != nil || closed { return .notOffered("chakrad's first frame is already up") }
        return nil
    }

    public func copyPictureOnScreen(into frame: PixelBuffer, turnedBy rotation: Rotation) -> Result<String, PictureUnreadable> {
        if let why = pictureOnScreenUnreadable { return .failure(why) }
        // The caller's frame is the scene's: the screen turned. Refused
        // rather than trusted, since the copy would trap on a mismatch.
        let turned = rotation.swapsAxes ? (pipeline.height, pipeline.width) : (pipeline.width, pipeline.height)
        guard frame.format == .xrgb8888, frame.rotation == .none, (frame.width, frame.height) == turned else {
            return .failure(.failed("the frame to copy into is \(frame.width)x\(frame.height), the screen turned \(turned.0)x\(turned.1)"))
        }
        guard let shown = saved.first(where: { $0.crtcID == pipeline.choice.crtcID }) else { return .failure(.failed("the CRTC cannot be read")) }
        let framebuffer = shown.framebufferID == 0 ? nil : Self.describe(framebuffer: shown.framebufferID, device: device)
        // Given whatever happens next: a handle left open would hold the
        // splash's memory for as long as chakrad runs.
        defer { for handle in Set(framebuffer?.handles ?? []) where handle != 0 { _ = drmCloseBufferHandle(device.fd, handle) } }
        let mode = shown.mode.map { (width: Int($0.hdisplay), height: Int($0.vdisplay)) }
        let planned = PictureOnScreen.plan(shown: shown.framebufferID, mode: mode, origin: (Int(shown.x), Int(shown.y)),
                                           screen: (pipeline.width, pipeline.height), framebuffer: framebuffer)
        let plan: PictureReadPlan
        switch planned {
        case .success(let planned): plan = planned
        case .failure(let why): return .failure(why)
        }
        let fd = device.fd
        do {
            var offset: UInt64 = 0
            try Syscall.drm("drmModeMapDumbBuffer(framebuffer \(shown.framebufferID))", { drmModeMapDumbBuffer(fd, plan.handle, &offset) })
            let mapped = try Syscall.pointer("mmap(framebuffer \(shown.framebufferID))") { () -> UnsafeMutableRawPointer? in
                let pointer = mmap(nil, plan.length, PROT_READ, MAP_SHARED, fd, off_t(offset))
                return pointer == MAP_FAILED ? nil : pointer
            }
            defer { munmap(mapped, plan.length) }
            let memory = PixelBuffer(base: mapped + plan.start, width: plan.width, height: plan.height, stride: plan.pitch, format: plan.format)
            PictureOnScreen.copy(memory, turnedBy: rotation, into: frame)
        } catch {
            return .failure(.failed("\(error)"))
        }
        return .success("framebuffer \(shown.framebufferID), \(plan.format.rawValue) \(plan.width)x\(plan.height)")
    }

    /// GETFB2 (Linux 5.7: format and modifier), else GETFB (depth and bpp
    /// only: 24/32 is XRGB8888, 32/32 ARGB8888, 16/16 RGB565). nil when
    /// neither answers.
    static func describe(framebuffer id: UInt32, device: DRMDevice) -> ShownFramebuffer? {
        if let info = try? Syscall.pointer("drmModeGetFB2(\(id))", { drmModeGetFB2(device.fd, id) }) {
            defer { drmModeFreeFB2(info) }
            let fb = info.pointee
            let handles = [fb.handles.0, fb.handles.1, fb.handles.2, fb.handles.3]
            // The same buffer may back several planes: one handle, given again.
            let distinct = handles.enumerated().filter { $0.element != 0 && !handles[..<$0.offset].contains($0.element) }.map(\.element)
            let modifier = fb.flags & UInt32(DRM_MODE_FB_MODIFIERS) != 0 ? fb.modifier : nil
            return ShownFramebuffer(id: id, width: Int(fb.width), height: Int(fb.height), fourcc: fb.pixel_format, modifier: modifier,
                                    handles: distinct.isEmpty ? [0] : distinct, pitch: Int(fb.pitches.0), offset: Int(fb.offsets.0))
        }
        guard let info = try? Syscall.pointer("drmModeGetFB(\(id))", { drmModeGetFB(device.fd, id) }) else { return nil }
        defer { drmModeFreeFB(info) }
        let fb = info.pointee
        let fourcc: UInt32 = switch (fb.depth, fb.bpp) {
        case (24, 32): DRMFourCC.code(for: .xrgb8888)
        case (32, 32): DRMFourCC.code(for: .argb8888)
        case (16, 16): DRMFourCC.code(for: .rgb565)
        default: 0
        }
        return ShownFramebuffer(id: id, width: Int(fb.width), height: Int(fb.height), fourcc: fourcc, handles: [fb.handle], pitch: Int(fb.pitch))
    }
}
