import CLinuxKernel
import ChakraRaster
import ChakraSystem
import Glibc

/// The legacy framebuffer (/dev/fbN): pixel format from the var-screeninfo
/// bitfields, stride from fix-screeninfo, the memory mapped. Two pages with
/// panning when the virtual height holds them (or can be made to), else one
/// page drawn in place; FBIO_WAITFORVSYNC after each pan when the driver
/// has it, else the loop's timer paces frames.
///
/// Ownership: owns the descriptor and the mapping; `close()` clears the
/// screen (the console redraws itself when it gets the VT back) and puts
/// back the original var-screeninfo; `leavePictureForNextProcess()` does
/// neither (a restart under systemd: docs/seams.md). Frame loop thread only.
public final class FBDevOutput: DisplayOutput {
    let path: String
    let fd: Int32
    let logger: Logger
    let original: fb_var_screeninfo
    var screen: fb_var_screeninfo
    let lineLength: Int
    let memory: UnsafeMutableRawPointer
    let memoryLength: Int
    let pages: Int
    public let format: PixelFormat
    var visiblePage = 0
    var presentedAny = false
    let vsync: Bool
    var active = true
    var redrawRequested = false
    var closed = false
    /// Powered down on request: nothing drawn; blanked again after a VT switch.
    var poweredDown = false
    /// How FBIOBLANK is read back, looked for at the first power change:
    /// .some(nil) when there is no way.
    var powerReadBack: FBDevPowerReadBack??
    /// Taken over from a previous chakrad (docs/seams.md): whether its
    /// picture stayed. Nil when the device was opened here.
    public let handOver: FBDevHandOver?

    /// `options.handedOverFramebuffer`: the framebuffer a previous chakrad
    /// left, taken over (through a descriptor of the output's own) instead
    /// of opening the device when it is the same device.
    public init(options: OutputOptions, logger: Logger) throws {
        let path = options.device ?? "/dev/fb0"
        (self.path, self.logger) = (path, logger)
        let passed = options.handedOverFramebuffer.flatMap { Self.takeOver($0, path: path, logger: logger) }
        let fd = try passed ?? Syscall.check("open(\(path))", { open(path, O_RDWR | O_CLOEXEC) })
        var found: fb_var_screeninfo?
        var decision: FBDevHandOver?
        do {
            var screen = try Self.variableInfo(fd)
            (original, found) = (screen, screen)
            var fixed = try Self.fixedInfo(fd)
            let shown = FBDevGeometry(screen, fixed)
            if passed != nil {
                decision = FBDevHandOver.decide(shown: shown, asked: options.format, plan: Self.paging(screen, fixed))
            }
            if decision != .kept, let wanted = options.format {
                screen = try Self.setFormat(wanted, fd: fd, screen: screen)
                fixed = try Self.fixedInfo(fd)
            }
            let layout = Self.layout(screen, fixed)
            guard let format = layout.pixelFormat, fixed.type == UInt32(FB_TYPE_PACKED_PIXELS) else {
                throw DisplayError.unavailable("\(path): unsupported pixel layout \(layout) (type \(fixed.type))")
            }
            (screen, fixed, pages) = Self.preparePages(fd: fd, screen: screen, fixed: fixed, logger: logger, path: path)
            if decision != .kept { screen = Self.panToFirstPage(fd: fd, screen: screen, pages: pages, logger: logger) }
            let length = Int(fixed.smem_len)
            guard let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
                throw SystemError(call: "mmap(\(path))", errno: errno)
            }
            (self.fd, self.screen, self.format, lineLength, memory, memoryLength) = (fd, screen, format, Int(fixed.line_length), mapped, length)
            // A screen info the driver refused to change is the one shown:
            // nothing was set, and the last picture is still there.
            if case .set(let reason)? = decision, FBDevGeometry(screen, fixed) == shown {
                logger.info("fbdev: the screen info was to be set (\(reason)), but the driver kept it as it was")
                decision = .kept
            }
        } catch {
            // setFormat or preparePages may have changed the mode before the
            // failure (vfb switches to 16 bpp but with red in the low bits):
            // leave the device as it was found, as close() does.
            if let found { Self.putBack(found, fd: fd, logger: logger) }
            Descriptor.close(fd)
            throw error
        }
        handOver = decision
        if let decision { logger.info("fbdev: handed over by the last process: \(decision)") }
        // The page on screen now (a framebuffer may start panned to its
        // second page, or a previous chakrad left its last frame there): the
        // first frame is drawn into the other one.
        visiblePage = pages == 2 && screen.yoffset >= screen.yres ? 1 : 0
        vsync = Self.waitsForVSync(fd: fd)
        if !vsync { logger.info("fbdev: \(path): no working FBIO_WAITFORVSYNC; frames are paced by timer") }
        // A blanked console (idle timeout) would hide every frame; so would
        // a previous chakrad that crashed while the display was off. On a
        // lit screen this changes nothing (DRM's emulation commits the mode
        // it shows: no modeset).
        if CLinux_ioctl_value(fd, UInt(FBIOBLANK), UInt(FB_BLANK_UNBLANK)) != 0 {
            logger.debug("fbdev: FBIOBLANK(unblank): \(SystemError(call: "FBIOBLANK", errno: errno))")
        }
    }

    /// A descriptor of this output's own for the framebuffer a previous
    /// chakrad left (the same open file; the caller keeps and closes the one
    /// passed), when it is `path`'s device; else nil (the configuration
    /// names another device, which is opened instead).
    static func takeOver(_ passed: Int32, path: String, logger: Logger) -> Int32? {
        var device = stat(), named = stat()
        guard fstat(passed, &device) == 0, stat(path, &named) == 0, device.st_rdev == named.st_rdev else {
            logger.notice("fbdev: the framebuffer the last process left is not \(path): \(path) is opened instead")
            return nil
        }
        do {
            return try Syscall.check("fcntl(F_DUPFD_CLOEXEC, the framebuffer passed)") { fcntl(passed, F_DUPFD_CLOEXEC, 0) }
        } catch {
            logger.warning("fbdev: \(error); \(path) is opened instead")
            return nil
        }
    }

    deinit { close() }

    static func variableInfo(_ fd: Int32) throws(SystemError) -> fb_var_screeninfo {
        var info = fb_var_screeninfo()
        try Syscall.check("FBIOGET_VSCREENINFO", { CLinux_ioctl_pointer(fd, UInt(FBIOGET_VSCREENINFO), &info) })
        return info
    }

    static func fixedInfo(_ fd: Int32) throws(SystemError) -> fb_fix_screeninfo {
        var info = fb_fix_screeninfo()
        try Syscall.check("FBIOGET_FSCREENINFO", { CLinux_ioctl_pointer(fd, UInt(FBIOGET_FSCREENINFO), &info) })
        return info
    }

    static func layout(_ v: fb_var_screeninfo, _ f: fb_fix_screeninfo) -> FBDevPixelLayout {
        let field = { (b: fb_bitfield) in FBDevPixelLayout.Field(offset: b.offset, length: b.length, msbRight: b.msb_right != 0) }
        var layout = FBDevPixelLayout(bitsPerPixel: v.bits_per_pixel, red: field(v.red), green: field(v.green), blue: field(v.blue), transparency: field(v.transp))
        layout.grayscale = v.grayscale != 0
        layout.trueColor = f.visual == UInt32(FB_VISUAL_TRUECOLOR) || f.visual == UInt32(FB_VISUAL_DIRECTCOLOR)
        return layout
    }

    /// Asks the driver for another depth (e.g. 16 bpp); many refuse (DRM's
    /// fbdev emulation cannot change its format at all), which is an error
    /// since the user asked for it.
    static func setFormat(_ format: PixelFormat, fd: Int32, screen: fb_var_screeninfo) throws -> fb_var_screeninfo {
        var wanted = screen
        let target = FBDevPixelLayout.layout(for: format)
        wanted.bits_per_pixel = target.bitsPerPixel
        wanted.red = fb_bitfield(offset: target.red.offset, length: target.red.length, msb_right: 0)
        wanted.green = fb_bitfield(offset: target.green.offset, length: target.green.length, msb_right: 0)
        wanted.blue = fb_bitfield(offset: target.blue.offset, length: target.blue.length, msb_right: 0)
        wanted.transp = fb_bitfield(offset: target.transparency.offset, length: target.transparency.length, msb_right: 0)
        wanted.activate = UInt32(FB_ACTIVATE_NOW)
        if CLinux_ioctl_pointer(fd, UInt(FBIOPUT_VSCREENINFO), &wanted) != 0 {
            throw DisplayError.unavailable("the framebuffer driver refuses \(format.rawValue): \(SystemError(call: "FBIOPUT_VSCREENINFO", errno: errno))")
        }
        let now = try variableInfo(fd)
        guard Self.layout(now, try fixedInfo(fd)).pixelFormat == format else {
            throw DisplayError.unavailable("the framebuffer driver did not switch to \(format.rawValue)")
        }
        return now
    }

    /// How `FBDevPaging` plans the pages for this screen info.
    static func paging(_ screen: fb_var_screeninfo, _ fixed: fb_fix_screeninfo) -> FBDevPaging.Plan {
        FBDevPaging.plan(height: screen.yres, virtualHeight: screen.yres_virtual, lineLength: fixed.line_length,
                         memoryBytes: fixed.smem_len, panStep: fixed.ypanstep)
    }

    /// Two pages for panning if possible; otherwise one.
    static func preparePages(fd: Int32, screen: fb_var_screeninfo, fixed: fb_fix_screeninfo, logger: Logger, path: String)
        -> (fb_var_screeninfo, fb_fix_screeninfo, Int) {
        switch paging(screen, fixed) {
        case .pan:
            return (screen, fixed, 2)
        case .enlarge(let virtualHeight):
            var taller = screen
            taller.yres_virtual = virtualHeight
            taller.activate = UInt32(FB_ACTIVATE_NOW)
            if CLinux_ioctl_pointer(fd, UInt(FBIOPUT_VSCREENINFO), &taller) == 0,
               let now = try? variableInfo(fd), now.yres_virtual >= virtualHeight, let fixedNow = try? fixedInfo(fd) {
                return (now, fixedNow, 2)
            }
            logger.info("fbdev: \(path): cannot enlarge the virtual height to \(virtualHeight); drawing in one page")
            return (screen, fixed, 1)
        case .single(let reason):
            logger.info("fbdev: \(path): one page (\(reason))")
            return (screen, fixed, 1)
        }
    }

    public var summary: String {
        "fbdev \(path) \(width)x\(height) \(format.rawValue), \(pages == 2 ? "two pages, panning" : "one page")"
            + (vsync ? ", vsync" : "")
    }
    public var width: Int { Int(screen.xres) }
    public var height: Int { Int(screen.yres) }
    /// From the timings when the driver gives them (pixclock in ps).
    public var refreshInterval: Double? {
        let s = screen
        guard s.pixclock > 0 else { return nil }
        let htotal = Double(s.xres + s.left_margin + s.right_margin + s.hsync_len)
        let vtotal = Double(s.yres + s.upper_margin + s.lower_margin + s.vsync_len)
        return Double(s.pixclock) * 1e-12 * htotal * vtotal
    }
    public var isVBlankTimed: Bool { vsync }
    public var usesConsole: Bool { true }
    public var pollDescriptors: [Int32] { [] }
    public var isReady: Bool { active && !closed && !poweredDown }
    public var nextMaintenance: Double? { nil }

    private func page(_ index: Int) -> PixelBuffer {
        PixelBuffer(base: memory + index * Int(screen.yres) * lineLength,
                    width: width, height: height, stride: lineLength, format: format)
    }

    public func drawBuffer() -> PixelBuffer { page(pages == 2 ? 1 - visiblePage : 0) }
    public func frontBuffer() -> PixelBuffer? { presentedAny ? page(visiblePage) : nil }

    public func present() -> Presentation? {
        guard isReady else { return nil }
        if pages == 2 {
            let next = 1 - visiblePage
            screen.yoffset = UInt32(next) * screen.yres
            if CLinux_ioctl_pointer(fd, UInt(FBIOPAN_DISPLAY), &screen) == 0 {
                visiblePage = next
            } else {
                logger.warning("fbdev: \(SystemError(call: "FBIOPAN_DISPLAY", errno: errno))")
            }
        }
        presentedAny = true
        return Presentation(timestamp: waitForVSync())
    }

    /// Blocks until the next vblank when the driver can; the time then is
    /// the frame's presentation time.
    private func waitForVSync() -> Double? {
        guard vsync else { return nil }
        var crtc: UInt32 = 0
        return CLinux_ioctl_pointer(fd, CLinux_FBIO_WAITFORVSYNC(), &crtc) == 0 ? MonotonicClock.now() : nil
    }

    /// Whether FBIO_WAITFORVSYNC really waits: three waits in a row span
    /// at least two refreshes (over 16 ms even at 120 Hz). DRM's fbdev
    /// emulation answers 0 at once on drivers without vblank interrupts
    /// (bochs), which would pace nothing.
    static func waitsForVSync(fd: Int32) -> Bool {
        var crtc: UInt32 = 0
        let start = MonotonicClock.now()
        for _ in 0..<3 {
            if CLinux_ioctl_pointer(fd, CLinux_FBIO_WAITFORVSYNC(), &crtc) != 0 { return false }
        }
        return MonotonicClock.now() - start > 0.008
    }

    public func handleReadable(descriptor: Int32, now: Double) -> Presentation? { nil }
    public func maintain(now: Double) {}
    public func takeRedrawRequest() -> Bool {
        defer { redrawRequested = false }
        return redrawRequested
    }

    public func suspend() { active = false }

    /// Another VT's user may have changed the mode or the panning.
    public func resume() {
        active = true
        screen.activate = UInt32(FB_ACTIVATE_NOW)
        if CLinux_ioctl_pointer(fd, UInt(FBIOPUT_VSCREENINFO), &screen) != 0 {
            logger.warning("fbdev: cannot put the screen info back: \(SystemError(call: "FBIOPUT_VSCREENINFO", errno: errno))")
        }
        redrawRequested = true
        // The console unblanked the screen, and on DRM's emulation setting
        // the screen info lights the CRTC: dark again.
        if poweredDown {
            do {
                try blank(FB_BLANK_POWERDOWN)
                logger.info("fbdev: the VT came back while powered down: blanked again")
            } catch {
                logger.warning("fbdev: the VT came back while powered down: \(error)")
            }
        }
    }

    public func close() {
        guard !closed else { return }
        closed = true
        if active { memset(memory, 0, memoryLength) }   // not another VT's picture
        Self.putBack(original, fd: fd, logger: logger)
        if poweredDown, active { try? blank(FB_BLANK_UNBLANK) }   // the console comes back lit
        munmap(memory, memoryLength)
        Descriptor.close(fd)
    }

    /// Panned to the top of a page, as the frames are drawn (a console
    /// panned elsewhere, or a handed-over screen left between pages, would
    /// show the frames shifted): the top of page 0 when it is not.
    static func panToFirstPage(fd: Int32, screen: fb_var_screeninfo, pages: Int, logger: Logger) -> fb_var_screeninfo {
        guard !FBDevGeometry.isOnAPage(xOffset: screen.xoffset, yOffset: screen.yoffset, height: screen.yres, pages: pages) else {
            return screen
        }
        var panned = screen
        (panned.xoffset, panned.yoffset) = (0, 0)
        if CLinux_ioctl_pointer(fd, UInt(FBIOPAN_DISPLAY), &panned) != 0 {
            logger.warning("fbdev: panned to \(screen.xoffset),\(screen.yoffset): \(SystemError(call: "FBIOPAN_DISPLAY", errno: errno))")
            return screen
        }
        return panned
    }

    /// A restart under systemd (docs/seams.md): the frame on screen stays
    /// there for the next process, which gets this open file from
    /// systemd's store. Nothing cleared and no screen info put back (the
    /// next process finds the pages, the panning and the depth as this one
    /// drew them); the mapping and this process's descriptor go.
    public func leavePictureForNextProcess() {
        guard !closed else { return }
        closed = true
        munmap(memory, memoryLength)
        Descriptor.close(fd)
        logger.info("fbdev: the picture stays on screen for the next process")
    }

    /// The var-screeninfo the daemon found (depth, virtual height, panning).
    static func putBack(_ original: fb_var_screeninfo, fd: Int32, logger: Logger) {
        var restore = original
        restore.activate = UInt32(FB_ACTIVATE_NOW)
        if CLinux_ioctl_pointer(fd, UInt(FBIOPUT_VSCREENINFO), &restore) != 0 {
            logger.debug("fbdev: restoring the screen info: \(SystemError(call: "FBIOPUT_VSCREENINFO", errno: errno))")
        }
    }

    public var isPoweredDown: Bool { poweredDown }

    /// FBIOBLANK: FB_BLANK_POWERDOWN (the panel gets no signal) and
    /// FB_BLANK_UNBLANK. Drivers without a blank operation (vfb, many
    /// simple ones) refuse with EINVAL. fbdev has no read-back of its own;
    /// DRM's emulation is read back through its DRM device
    /// (`FBDevPowerReadBack`).
    public func setPower(on: Bool) -> DisplayPowerReport {
        poweredDown = !on
        if on { redrawRequested = true }
        let check = powerCheck(on: on)
        let report = DisplayPowerReport(part: "fbdev", on: on, method: "FBIOBLANK", check: check)
        let line: Logger.Message = "fbdev: powered \(on ? "up" : "down"): FBIOBLANK \(check.kind) (\(check.detail))"
        if check.isFailure { logger.warning(line) } else { logger.info(line) }
        return report
    }

    private func powerCheck(on: Bool) -> DisplayPowerCheck {
        if closed { return .failed("the output is closed") }
        if !active {
            return on ? .unchecked("the VT is switched away; the screen is unblanked when it comes back")
                      : .failed("the VT is switched away (another console has the screen); it is blanked when the VT comes back")
        }
        if powerReadBack == nil { powerReadBack = .some(FBDevPowerReadBack.open(framebuffer: path)) }
        do throws(SystemError) { try blank(on ? FB_BLANK_UNBLANK : FB_BLANK_POWERDOWN) } catch {
            guard error.errno == EINVAL else { return .failed("\(error)") }
            // Never powered down, so lit: nothing failed when powering up.
            return on ? .unchecked("FBIOBLANK is not supported by this driver; the screen was never powered down")
                      : .failed("FBIOBLANK: powering down is not supported by this driver (\(error.reason))")
        }
        guard let readBack = powerReadBack ?? nil else { return .unchecked("FBIOBLANK accepted") }
        return readBack.check(wanted: on)
    }

    private func blank(_ level: Int) throws(SystemError) {
        let name = level == FB_BLANK_UNBLANK ? "FB_BLANK_UNBLANK" : "FB_BLANK_POWERDOWN"
        try Syscall.check("FBIOBLANK(\(path), \(name))", { CLinux_ioctl_value(fd, UInt(FBIOBLANK), UInt(level)) })
    }
}
