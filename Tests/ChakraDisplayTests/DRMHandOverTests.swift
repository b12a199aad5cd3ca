import Testing
@testable import ChakraDisplay

@Suite("DRM hand-over: when a restarted chakrad skips the modeset")
struct DRMHandOverTests {
    static let mode1080 = ModeTiming(clock: 148_500, horizontal: [1920, 2008, 2052, 2200, 0], vertical: [1080, 1084, 1089, 1125, 0], refresh: 60)
    static let mode720 = ModeTiming(clock: 74_250, horizontal: [1280, 1390, 1430, 1650, 0], vertical: [720, 725, 730, 750, 0], refresh: 60)

    @Test("the same CRTC, connector and mode: kept, flipping from the last frame")
    func kept() {
        let decision = DRMHandOver.decide(framebuffer: 77, mode: Self.mode1080, connectorCRTC: 38, crtcID: 38, wanted: Self.mode1080)
        #expect(decision == .kept(framebuffer: 77))
    }

    @Test("anything else is a modeset, and says why")
    func modeset() {
        let off = DRMHandOver.decide(framebuffer: 0, mode: nil, connectorCRTC: 38, crtcID: 38, wanted: Self.mode1080)
        #expect(off == .modeset(reason: "the CRTC was off"))
        let moved = DRMHandOver.decide(framebuffer: 77, mode: Self.mode1080, connectorCRTC: 41, crtcID: 38, wanted: Self.mode1080)
        #expect(moved == .modeset(reason: "another connector or CRTC"))
        let unplugged = DRMHandOver.decide(framebuffer: 77, mode: Self.mode1080, connectorCRTC: nil, crtcID: 38, wanted: Self.mode1080)
        #expect(unplugged == .modeset(reason: "another connector or CRTC"))
        let other = DRMHandOver.decide(framebuffer: 77, mode: Self.mode720, connectorCRTC: 38, crtcID: 38, wanted: Self.mode1080)
        #expect(other == .modeset(reason: "another mode (1280x720@60 shown, 1920x1080@60 chosen)"))
        var interlaced = Self.mode1080
        interlaced.flags = 0x10
        #expect(DRMHandOver.decide(framebuffer: 77, mode: interlaced, connectorCRTC: 38, crtcID: 38, wanted: Self.mode1080) != .kept(framebuffer: 77))
    }
}
