import CLinuxKernel
import ChakraRaster
import ChakraSystem
import Glibc
import Testing
@testable import ChakraDisplay

@Suite("fbdev hand-over: when a restarted chakrad sets nothing")
struct FBDevHandOverTests {
    private typealias F = FBDevPixelLayout.Field
    static let xrgb = FBDevPixelLayout(bitsPerPixel: 32, red: F(offset: 16, length: 8), green: F(offset: 8, length: 8), blue: F(offset: 0, length: 8))
    static let rgb565 = FBDevPixelLayout(bitsPerPixel: 16, red: F(offset: 11, length: 5), green: F(offset: 5, length: 6), blue: F(offset: 0, length: 5))

    /// 1280x800 with a virtual height of `virtualHeight`, panned to `y`.
    static func screen(virtualHeight: UInt32 = 800, x: UInt32 = 0, y: UInt32 = 0, layout: FBDevPixelLayout = xrgb) -> FBDevGeometry {
        FBDevGeometry(width: 1280, height: 800, virtualWidth: 1280, virtualHeight: virtualHeight, xOffset: x, yOffset: y, layout: layout)
    }

    @Test("the screen info as this process would set it: kept (one page; two pages on either page; the format asked)")
    func kept() {
        let onePage = FBDevPaging.Plan.single(reason: "one page")
        #expect(FBDevHandOver.decide(shown: Self.screen(), asked: nil, plan: onePage) == .kept)
        #expect(FBDevHandOver.decide(shown: Self.screen(virtualHeight: 1600), asked: nil, plan: .pan) == .kept)
        #expect(FBDevHandOver.decide(shown: Self.screen(virtualHeight: 1600, y: 800), asked: nil, plan: .pan) == .kept)
        #expect(FBDevHandOver.decide(shown: Self.screen(), asked: .xrgb8888, plan: onePage) == .kept)
        #expect(FBDevHandOver.decide(shown: Self.screen(layout: Self.rgb565), asked: .rgb565, plan: onePage) == .kept)
        // chakrad never sets the resolution on fbdev: any is as it would be.
        var small = Self.screen()
        (small.width, small.virtualWidth, small.height, small.virtualHeight) = (640, 640, 480, 480)
        #expect(FBDevHandOver.decide(shown: small, asked: nil, plan: onePage) == .kept)
    }

    @Test("anything it would set is set, and says why")
    func set() {
        let onePage = FBDevPaging.Plan.single(reason: "one page")
        #expect(FBDevHandOver.decide(shown: Self.screen(layout: Self.rgb565), asked: .xrgb8888, plan: onePage)
            == .set(reason: "another pixel format (RGB565 shown, XRGB8888 asked)"))
        #expect(FBDevHandOver.decide(shown: Self.screen(), asked: nil, plan: .enlarge(virtualHeight: 1600))
            == .set(reason: "a virtual height of one page (800 lines shown, 1600 for two pages)"))
        #expect(FBDevHandOver.decide(shown: Self.screen(virtualHeight: 1600, y: 400), asked: nil, plan: .pan)
            == .set(reason: "panned to 0,400, not to a page"))
        #expect(FBDevHandOver.decide(shown: Self.screen(virtualHeight: 1600, x: 8), asked: nil, plan: .pan)
            == .set(reason: "panned to 8,0, not to a page"))
        // One page: the second page's offset is not a page of its own.
        #expect(FBDevHandOver.decide(shown: Self.screen(virtualHeight: 1600, y: 800), asked: nil, plan: onePage)
            == .set(reason: "panned to 0,800, not to a page"))
        let grey = FBDevPixelLayout(bitsPerPixel: 8, red: F(offset: 0, length: 8), green: F(offset: 0, length: 8), blue: F(offset: 0, length: 8))
        #expect(FBDevHandOver.decide(shown: Self.screen(layout: grey), asked: nil, plan: onePage)
            == .set(reason: "a pixel layout chakrad does not draw (8 bpp r8@0 g8@0 b8@0)"))
        // The format is the first reason: setting it may change the rest.
        #expect(FBDevHandOver.decide(shown: Self.screen(y: 37, layout: Self.rgb565), asked: .xrgb8888, plan: .enlarge(virtualHeight: 1600))
            == .set(reason: "another pixel format (RGB565 shown, XRGB8888 asked)"))
    }

    /// A device number as the kernel encodes small ones (major < 4096, minor < 256).
    static func device(_ major: UInt32, _ minor: UInt32) -> dev_t { dev_t(major) << 8 | dev_t(minor) }

    @Test("a framebuffer is a character device of major 29; anything else says what it is")
    func framebufferByType() {
        #expect(PassedFramebuffer.problem(mode: S_IFCHR | 0o660, device: Self.device(29, 0)) == nil)
        #expect(PassedFramebuffer.problem(mode: S_IFCHR | 0o666, device: Self.device(1, 3))
            == "character device 1:3, not a framebuffer (major 29)")
        #expect(PassedFramebuffer.problem(mode: S_IFREG | 0o600, device: 0) == "not a character device (a regular file)")
        #expect(PassedFramebuffer.problem(mode: S_IFSOCK | 0o600, device: 0) == "not a character device (a socket)")
        #expect(PassedFramebuffer.problem(mode: S_IFBLK | 0o600, device: Self.device(29, 0)) == "not a character device (a block device)")
    }

    @Test("real descriptors that are not framebuffers: a memory file, /dev/null, a pipe")
    func notFramebuffers() throws {
        let memory = try MemoryFile.create(name: "not-a-framebuffer")
        defer { Descriptor.close(memory) }
        #expect(PassedFramebuffer.problem(with: memory) == "not a character device (a regular file)")
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        try #require(null >= 0)
        defer { Descriptor.close(null) }
        #expect(PassedFramebuffer.problem(with: null) == "character device 1:3, not a framebuffer (major 29)")
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { for end in ends { Descriptor.close(end) } }
        #expect(PassedFramebuffer.problem(with: ends[0]) == "not a character device (a pipe)")
    }

    @Test("the output takes a passed framebuffer over only when it is the device it would open, with a descriptor of its own")
    func takeOverTheSameDevice() throws {
        let passed = open("/dev/null", O_RDWR | O_CLOEXEC)
        try #require(passed >= 0)
        defer { Descriptor.close(passed) }
        let logger = Logger(label: "test", sink: DiscardingLog())
        #expect(FBDevOutput.takeOver(passed, path: "/dev/zero", logger: logger) == nil)
        let own = try #require(FBDevOutput.takeOver(passed, path: "/dev/null", logger: logger))
        defer { Descriptor.close(own) }
        #expect(own != passed)
        var a = stat(), b = stat()
        #expect(fstat(own, &a) == 0 && fstat(passed, &b) == 0 && a.st_rdev == b.st_rdev)
        #expect(fcntl(own, F_GETFD) & FD_CLOEXEC != 0)
        // The same open file, not another open of the device (status
        // flags are the open file's): what the output stores is what
        // systemd already holds.
        #expect(fcntl(passed, F_GETFL) & O_NONBLOCK == 0)
        #expect(fcntl(own, F_SETFL, fcntl(own, F_GETFL) | O_NONBLOCK) == 0)
        #expect(fcntl(passed, F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(passed, F_GETFD) >= 0)
    }
}
