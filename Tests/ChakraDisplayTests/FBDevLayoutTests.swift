import ChakraRaster
import Testing
@testable import ChakraDisplay

@Suite("fbdev pixel layouts and paging")
struct FBDevLayoutTests {
    private typealias F = FBDevPixelLayout.Field

    @Test func layoutsFromBitfields() {
        let f = { (o: UInt32, l: UInt32) in F(offset: o, length: l) }
        #expect(FBDevPixelLayout(bitsPerPixel: 32, red: f(16, 8), green: f(8, 8), blue: f(0, 8)).pixelFormat == .xrgb8888)
        #expect(FBDevPixelLayout(bitsPerPixel: 32, red: f(16, 8), green: f(8, 8), blue: f(0, 8), transparency: f(24, 8)).pixelFormat == .argb8888)
        #expect(FBDevPixelLayout(bitsPerPixel: 32, red: f(0, 8), green: f(8, 8), blue: f(16, 8)).pixelFormat == .xbgr8888)
        #expect(FBDevPixelLayout(bitsPerPixel: 24, red: f(16, 8), green: f(8, 8), blue: f(0, 8)).pixelFormat == .rgb888)
        #expect(FBDevPixelLayout(bitsPerPixel: 24, red: f(0, 8), green: f(8, 8), blue: f(16, 8)).pixelFormat == .bgr888)
        #expect(FBDevPixelLayout(bitsPerPixel: 16, red: f(11, 5), green: f(5, 6), blue: f(0, 5)).pixelFormat == .rgb565)
        #expect(FBDevPixelLayout(bitsPerPixel: 16, red: f(0, 5), green: f(5, 6), blue: f(11, 5)).pixelFormat == .bgr565)
    }

    @Test func unsupportedLayouts() {
        let f = { (o: UInt32, l: UInt32) in F(offset: o, length: l) }
        // 15-bit (XRGB1555), 8-bit pseudocolour, right-to-left bits, grey.
        #expect(FBDevPixelLayout(bitsPerPixel: 16, red: f(10, 5), green: f(5, 5), blue: f(0, 5)).pixelFormat == nil)
        #expect(FBDevPixelLayout(bitsPerPixel: 8, red: f(0, 8), green: f(0, 8), blue: f(0, 8)).pixelFormat == nil)
        #expect(FBDevPixelLayout(bitsPerPixel: 32, red: F(offset: 16, length: 8, msbRight: true), green: f(8, 8), blue: f(0, 8)).pixelFormat == nil)
        var grey = FBDevPixelLayout(bitsPerPixel: 32, red: f(16, 8), green: f(8, 8), blue: f(0, 8))
        grey.grayscale = true
        #expect(grey.pixelFormat == nil)
        var pseudo = FBDevPixelLayout(bitsPerPixel: 32, red: f(16, 8), green: f(8, 8), blue: f(0, 8))
        pseudo.trueColor = false
        #expect(pseudo.pixelFormat == nil)
    }

    @Test(arguments: PixelFormat.allCases)
    func layoutForFormatRoundTrips(format: PixelFormat) {
        #expect(FBDevPixelLayout.layout(for: format).pixelFormat == format)
        #expect(Int(FBDevPixelLayout.layout(for: format).bitsPerPixel) == format.bytesPerPixel * 8)
    }

    @Test func pagingPlans() {
        let line: UInt32 = 1024 * 4
        #expect(FBDevPaging.plan(height: 768, virtualHeight: 1536, lineLength: line, memoryBytes: line * 1536, panStep: 1) == .pan)
        #expect(FBDevPaging.plan(height: 768, virtualHeight: 768, lineLength: line, memoryBytes: line * 1536, panStep: 1) == .enlarge(virtualHeight: 1536))
        // DRM's fbdev emulation: one page of memory.
        if case .single = FBDevPaging.plan(height: 768, virtualHeight: 768, lineLength: line, memoryBytes: line * 768, panStep: 1) {} else { Issue.record("expected one page") }
        if case .single = FBDevPaging.plan(height: 768, virtualHeight: 1536, lineLength: line, memoryBytes: line * 1536, panStep: 0) {} else { Issue.record("ypanstep 0 pans") }
        if case .single = FBDevPaging.plan(height: 767, virtualHeight: 1534, lineLength: line, memoryBytes: line * 1534, panStep: 2) {} else { Issue.record("odd height with ypanstep 2 pans") }
    }
}
