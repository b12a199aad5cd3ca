import Testing
@testable import ChakraDisplay

/// The pure parts of powering a display down: what an atomic commit sets,
/// and how the kernel's answer reads.
@Suite("Display power")
struct DisplayPowerTests {
    let ids = AtomicPipelineIDs(connector: 36, crtc: 38, plane: 31)

    @Test func powerDownSetsActiveAloneSoThatTheMapStaysForPowerUp() {
        #expect(AtomicRequest.power(ids, on: false) == [AtomicValue(38, .crtcActive, 0)])
        #expect(AtomicRequest.power(ids, on: true) == [AtomicValue(38, .crtcActive, 1)])
    }

    @Test func powerUpIsTheWholePipelineLit() {
        let values = AtomicRequest.modeset(ids, modeBlob: 77, framebuffer: 90, width: 1280, height: 800)
        #expect(values.contains(AtomicValue(38, .crtcActive, 1)))
        #expect(values.contains(AtomicValue(38, .crtcMode, 77)))
        #expect(values.contains(AtomicValue(36, .connectorCRTC, 38)))
        #expect(values.contains(AtomicValue(31, .planeFB, 90)))
        #expect(values.contains(AtomicValue(31, .planeCRTC, 38)))
        #expect(values.contains(AtomicValue(31, .planeSourceWidth, 1280 << 16)))   // 16.16
        #expect(values.contains(AtomicValue(31, .planeCRTCHeight, 800)))
        // Every property set once, each on its own object.
        #expect(Set(values.map { "\($0.property)" }).count == values.count)
        #expect(values.allSatisfy { $0.object == [.connector: 36, .crtc: 38, .plane: 31][$0.property.object] })
    }

    @Test func disableTakesThePipelineApart() {
        let values = AtomicRequest.disable(ids)
        #expect(values.contains(AtomicValue(38, .crtcActive, 0)))
        #expect(values.contains(AtomicValue(38, .crtcMode, 0)))
        #expect(values.contains(AtomicValue(31, .planeFB, 0)))
        #expect(values.contains(AtomicValue(36, .connectorCRTC, 0)))
    }

    @Test func readingsNameTheObjectAndTheKernelsValue() {
        #expect(KMSPowerReading.active(crtc: 38, value: 0) == KMSPowerReading(isOn: false, detail: "crtc 38 ACTIVE=0"))
        #expect(KMSPowerReading.active(crtc: 38, value: 1).isOn)
        #expect(KMSPowerReading.dpms(connector: 36, value: 3) == KMSPowerReading(isOn: false, detail: "connector 36 DPMS=Off"))
        #expect(KMSPowerReading.dpms(connector: 36, value: 0) == KMSPowerReading(isOn: true, detail: "connector 36 DPMS=On"))
        // Standby and suspend have no picture either.
        #expect(KMSPowerReading.dpms(connector: 36, value: 1) == KMSPowerReading(isOn: false, detail: "connector 36 DPMS=Standby"))
        #expect(KMSPowerReading.dpms(connector: 36, value: 9).detail == "connector 36 DPMS=9")
    }

    @Test func aReadingConfirmsOnlyWhatWasAsked() {
        let off = KMSPowerReading.active(crtc: 38, value: 0)
        #expect(off.check(wanted: false) == .confirmed("crtc 38 ACTIVE=0"))
        #expect(off.check(wanted: true) == .failed("the kernel reports crtc 38 ACTIVE=0"))
        #expect(KMSPowerReading.dpms(connector: 36, value: 0).check(wanted: true) == .confirmed("connector 36 DPMS=On"))
    }

    /// DRM's fbdev emulation powers every CRTC it lit.
    @Test func manyCRTCsDownWhenNoneIsActiveUpWhenOneIs() {
        let a0 = KMSPowerReading.active(crtc: 34, value: 0), b0 = KMSPowerReading.active(crtc: 35, value: 0)
        let a1 = KMSPowerReading.active(crtc: 34, value: 1)
        #expect(KMSPowerReading.check([a0, b0], wanted: false, through: "/dev/dri/card0")
            == .confirmed("crtc 34 ACTIVE=0, crtc 35 ACTIVE=0 (/dev/dri/card0)"))
        #expect(KMSPowerReading.check([a1, b0], wanted: false, through: "/dev/dri/card0")
            == .failed("the kernel reports crtc 34 ACTIVE=1, crtc 35 ACTIVE=0 (/dev/dri/card0)"))
        #expect(KMSPowerReading.check([a1, b0], wanted: true, through: "/dev/dri/card0").kind == "confirmed")
        #expect(KMSPowerReading.check([a0, b0], wanted: true, through: "/dev/dri/card0").isFailure)
        #expect(KMSPowerReading.check([], wanted: false, through: "/dev/dri/card0") == .unchecked("/dev/dri/card0 lists no CRTC to read back"))
    }

    @Test func reportSummary() {
        let report = DisplayPowerReport(part: "drm", on: false, method: "atomic ACTIVE", check: .confirmed("crtc 38 ACTIVE=0"))
        #expect(report.summary == "drm: atomic ACTIVE confirmed (crtc 38 ACTIVE=0)")
    }
}
