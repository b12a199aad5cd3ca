import CDRM
import ChakraRaster
import ChakraSystem
import Glibc

/// A dumb buffer (CPU-drawn scanout memory), mapped, with a framebuffer
/// object on it. Owns the handle, mapping and framebuffer from init to
/// deinit, released in reverse order of creation (the DRM howto's
/// modeset_create_fb / modeset_destroy_fb); the `DRMDevice` must outlive it.
final class DumbBuffer {
    let device: DRMDevice
    let width: Int, height: Int
    let format: PixelFormat
    let handle: UInt32
    let pitch: Int
    let framebufferID: UInt32
    private let memory: UnsafeMutableRawPointer
    private let size: Int
    /// Left on screen for the next process (`leaveOnScreen`).
    private var leftOnScreen = false

    init(device: DRMDevice, width: Int, height: Int, format: PixelFormat) throws(SystemError) {
        let fd = device.fd
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        try Syscall.drm("drmModeCreateDumbBuffer", {
            drmModeCreateDumbBuffer(fd, UInt32(width), UInt32(height), UInt32(format.bytesPerPixel * 8), 0, &handle, &pitch, &size)
        })
        var offset: UInt64 = 0
        do {
            try Syscall.drm("drmModeMapDumbBuffer", { drmModeMapDumbBuffer(fd, handle, &offset) })
        } catch {
            drmModeDestroyDumbBuffer(fd, handle)
            throw error
        }
        let mapped = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset))
        guard let mapped, mapped != MAP_FAILED else {
            let code = errno
            drmModeDestroyDumbBuffer(fd, handle)
            throw SystemError(call: "mmap(dumb buffer)", errno: code)
        }
        var handles: (UInt32, UInt32, UInt32, UInt32) = (handle, 0, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (pitch, 0, 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        var framebufferID: UInt32 = 0
        let fourcc = DRMFourCC.code(for: format)
        let added = withUnsafePointer(to: &handles) { h in
            withUnsafePointer(to: &pitches) { p in
                withUnsafePointer(to: &offsets) { o in
                    drmModeAddFB2(fd, UInt32(width), UInt32(height), fourcc,
                                  UnsafeRawPointer(h).assumingMemoryBound(to: UInt32.self),
                                  UnsafeRawPointer(p).assumingMemoryBound(to: UInt32.self),
                                  UnsafeRawPointer(o).assumingMemoryBound(to: UInt32.self), &framebufferID, 0)
                }
            }
        }
        if added != 0 {
            let error = SystemError(call: "drmModeAddFB2(\(format.rawValue))", errno: added == -1 ? errno : -added)
            munmap(mapped, Int(size))
            drmModeDestroyDumbBuffer(fd, handle)
            throw error
        }
        memset(mapped, 0, Int(size))   // black, not whatever the last user left
        (self.device, self.width, self.height, self.format) = (device, width, height, format)
        (self.handle, self.pitch, self.framebufferID, self.memory, self.size) = (handle, Int(pitch), framebufferID, mapped, Int(size))
    }

    deinit {
        // Left on screen: the framebuffer object keeps the memory alive (it
        // holds its own reference) once the handle is gone; the next
        // process, on the same open file, removes it after its first flip.
        if !leftOnScreen { drmModeRmFB(device.fd, framebufferID) }
        munmap(memory, size)
        drmModeDestroyDumbBuffer(device.fd, handle)
    }

    /// At deinit, keep the framebuffer (it is on screen, for the next
    /// process to flip from): only the mapping and the handle go.
    func leaveOnScreen() {
        leftOnScreen = true
    }

    var pixels: PixelBuffer {
        PixelBuffer(base: memory, width: width, height: height, stride: pitch, format: format)
    }
}
