import CLinuxKernel
import ChakraRaster
import ChakraSystem
import Glibc

/// What a restarted chakrad does with the framebuffer the last one left in
/// systemd's store (`fb`, docs/seams.md). The last frame is in the
/// framebuffer's memory, on screen: when the variable screen info is what
/// this process would set (the pixel format asked for, a virtual height
/// that holds the pages it draws in, the panning on a page), nothing is
/// set and nothing cleared, and the first frame replaces the last one
/// (`kept`). Otherwise the screen info is set as on a fresh start, and why.
///
/// The resolution is no reason: chakrad never sets it on fbdev (it draws
/// at the size the framebuffer has), so it is the same whatever it is.
public enum FBDevHandOver: Equatable, Sendable, CustomStringConvertible {
    case kept
    case set(reason: String)

    public var description: String {
        switch self {
        case .kept: "the screen info is as this process would set it: no mode set, the first frame replaces the last one"
        case .set(let reason): "the screen info is set: \(reason)"
        }
    }

    /// `shown`: the screen info as the last process left it; `asked`: the
    /// pixel format the options ask for (nil: the framebuffer's own);
    /// `plan`: the paging `FBDevPaging` plans for it.
    static func decide(shown: FBDevGeometry, asked: PixelFormat?, plan: FBDevPaging.Plan) -> FBDevHandOver {
        guard let format = shown.format else { return .set(reason: "a pixel layout chakrad does not draw (\(shown.layout))") }
        if let asked, asked != format { return .set(reason: "another pixel format (\(format.rawValue) shown, \(asked.rawValue) asked)") }
        if case .enlarge(let height) = plan {
            return .set(reason: "a virtual height of one page (\(shown.virtualHeight) lines shown, \(height) for two pages)")
        }
        guard shown.isOnAPage(pages: plan == .pan ? 2 : 1) else {
            return .set(reason: "panned to \(shown.xOffset),\(shown.yOffset), not to a page")
        }
        return .kept
    }
}

/// The parts of fb_var_screeninfo a hand-over compares: the size, the
/// virtual size, the panning and the pixel layout.
struct FBDevGeometry: Equatable, Sendable {
    var width: UInt32, height: UInt32
    var virtualWidth: UInt32, virtualHeight: UInt32
    var xOffset: UInt32, yOffset: UInt32
    var layout: FBDevPixelLayout

    var format: PixelFormat? { layout.pixelFormat }

    /// Panned to the top of page 0, or of page 1 when there are two.
    func isOnAPage(pages: Int) -> Bool {
        Self.isOnAPage(xOffset: xOffset, yOffset: yOffset, height: height, pages: pages)
    }

    static func isOnAPage(xOffset: UInt32, yOffset: UInt32, height: UInt32, pages: Int) -> Bool {
        xOffset == 0 && (yOffset == 0 || (pages == 2 && yOffset == height))
    }
}

extension FBDevGeometry {
    init(_ v: fb_var_screeninfo, _ f: fb_fix_screeninfo) {
        self.init(width: v.xres, height: v.yres, virtualWidth: v.xres_virtual, virtualHeight: v.yres_virtual,
                  xOffset: v.xoffset, yOffset: v.yoffset, layout: FBDevOutput.layout(v, f))
    }
}

/// Whether a descriptor passed as `fb` is a framebuffer device: a
/// character device of the framebuffer major (29, FB_MAJOR) that answers
/// FBIOGET_FSCREENINFO. Anything else (a file, another device: a store
/// filled by hand, or a name reused by another version) is not taken.
public enum PassedFramebuffer {
    /// FB_MAJOR (linux/major.h).
    static let major: UInt32 = 29

    /// Why `fd` is not a framebuffer, or nil when it is one.
    public static func problem(with fd: Int32) -> String? {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return "\(SystemError(call: "fstat", errno: errno))" }
        if let problem = problem(mode: status.st_mode, device: status.st_rdev) { return problem }
        var fixed = fb_fix_screeninfo()
        guard CLinux_ioctl_pointer(fd, UInt(FBIOGET_FSCREENINFO), &fixed) == 0 else {
            return "\(SystemError(call: "FBIOGET_FSCREENINFO", errno: errno))"
        }
        return nil
    }

    /// The file's type and device number alone.
    static func problem(mode: mode_t, device: dev_t) -> String? {
        guard mode & S_IFMT == S_IFCHR else { return "not a character device (\(kind(mode)))" }
        let (major, minor) = (CLinux_major(device), CLinux_minor(device))
        guard major == Self.major else { return "character device \(major):\(minor), not a framebuffer (major \(Self.major))" }
        return nil
    }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a directory"
        case S_IFSOCK: "a socket"
        case S_IFIFO: "a pipe"
        case S_IFBLK: "a block device"
        case S_IFLNK: "a symbolic link"
        default: "file type 0o\(String(mode & S_IFMT, radix: 8))"
        }
    }
}
