import Testing
@testable import ChakraInput

@Suite("Device discovery rules")
struct DeviceClassificationTests {
    func device(_ name: String, _ setup: (inout DeviceCapabilities) -> Void) -> DeviceCapabilities {
        var capabilities = DeviceCapabilities(name: name)
        setup(&capabilities)
        return capabilities
    }

    let goodix: DeviceCapabilities
    let touchpad: DeviceCapabilities

    init() {
        var panel = DeviceCapabilities(name: "Goodix Capacitive TouchScreen")
        panel.direct = true
        (panel.mtPositionX, panel.mtPositionY, panel.slots) = (0...1279, 0...799, 10)
        (panel.absX, panel.absY, panel.buttonTouch) = (0...1279, 0...799, true)
        goodix = panel
        var pad = DeviceCapabilities(name: "SynPS/2 Synaptics TouchPad")
        pad.pointer = true
        (pad.mtPositionX, pad.mtPositionY, pad.slots) = (1266...5676, 1094...4760, 5)
        (pad.absX, pad.absY, pad.buttonTouch, pad.toolFinger) = (1266...5676, 1094...4760, true, true)
        touchpad = pad
    }

    @Test func multitouchScreens() {
        #expect(DeviceClassification(goodix) == .touchscreen(.multitouchB(slots: 10), axes: TouchMapping.Axes(x: 0...1279, y: 0...799),
                                                             reason: "INPUT_PROP_DIRECT with ABS_MT_POSITION_X/Y and ABS_MT_SLOT"))
        var protocolA = goodix
        protocolA.slots = nil
        guard case .touchscreen(.multitouchA, _, _) = DeviceClassification(protocolA) else {
            Issue.record("no ABS_MT_SLOT: protocol A")
            return
        }
    }

    @Test func singleTouchScreens() {
        let resistive = device("ADS7846 Touchscreen") { ($0.absX, $0.absY, $0.buttonTouch) = (0...4095, 0...4095, true) }
        #expect(DeviceClassification(resistive) == .touchscreen(.singleTouch, axes: TouchMapping.Axes(x: 0...4095, y: 0...4095),
                                                                reason: "ABS_X/ABS_Y with BTN_TOUCH"))
    }

    @Test func whatIsNotATouchscreen() {
        #expect(DeviceClassification(touchpad) == .other(reason: "multitouch axes without INPUT_PROP_DIRECT (a touchpad)"))
        var oldPad = touchpad
        (oldPad.mtPositionX, oldPad.mtPositionY, oldPad.pointer) = (nil, nil, false)
        #expect(DeviceClassification(oldPad) == .other(reason: "ABS_X/ABS_Y with a finger tool and no INPUT_PROP_DIRECT (a touchpad)"))
        let keyboard = device("AT Translated Set 2 keyboard") { _ in }
        #expect(DeviceClassification(keyboard) == .other(reason: "no absolute X/Y axes"))
        let qemuTablet = device("QEMU Virtio Tablet") { ($0.absX, $0.absY) = (0...32767, 0...32767) }
        #expect(DeviceClassification(qemuTablet) == .other(reason: "ABS_X/ABS_Y without BTN_TOUCH (a tablet or virtual mouse)"))
        let pen = device("Wacom Intuos") { ($0.absX, $0.absY, $0.buttonTouch, $0.toolPen) = (0...100, 0...100, true, true) }
        #expect(DeviceClassification(pen) == .other(reason: "a pen without INPUT_PROP_DIRECT (a graphics tablet)"))
        var penDisplay = pen
        penDisplay.direct = true
        #expect(DeviceClassification(penDisplay).isTouchscreen)
    }

    @Test func aConfiguredDeviceWaivesTheGuesses() {
        var panel = goodix
        panel.direct = false
        #expect(!DeviceClassification(panel).isTouchscreen)
        #expect(DeviceClassification(panel, configured: true)
            == .touchscreen(.multitouchB(slots: 10), axes: TouchMapping.Axes(x: 0...1279, y: 0...799),
                            reason: "configured, no INPUT_PROP_DIRECT; ABS_MT_POSITION_X/Y and ABS_MT_SLOT"))
        // Still nothing to read on a keyboard.
        #expect(!DeviceClassification(device("keyboard") { _ in }, configured: true).isTouchscreen)
    }

    @Test func deviceChoice() {
        #expect(DeviceChoice(nil) == .automatic)
        #expect(DeviceChoice("") == .automatic)
        #expect(DeviceChoice("/dev/input/event3") == .path("/dev/input/event3"))
        #expect(DeviceChoice("goodix") == .name("goodix"))
        #expect(DeviceChoice("goodix").matchesName("Goodix Capacitive TouchScreen"))
        #expect(!DeviceChoice("ilitek").matchesName("Goodix Capacitive TouchScreen"))
        #expect(DeviceChoice("goodix").accepts(path: "/dev/input/event9", name: "Goodix Capacitive TouchScreen"))
        #expect(DeviceChoice.automatic.accepts(path: "/dev/input/event9", name: "anything"))
    }

    /// inotify's records as read() returns them: header, then a name padded with NULs.
    @Test func inotifyRecords() {
        func record(_ watch: Int32, _ mask: UInt32, _ name: String, padTo: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            withUnsafeBytes(of: watch.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: mask.littleEndian) { bytes += $0 }
            bytes += [0, 0, 0, 0]  // cookie
            withUnsafeBytes(of: UInt32(padTo).littleEndian) { bytes += $0 }
            return bytes + Array(name.utf8) + Array(repeating: 0, count: padTo - name.utf8.count)
        }
        let bytes = record(1, 0x100, "event5", padTo: 16) + record(1, 0x200, "event12", padTo: 16) + record(2, 0x4000, "", padTo: 0)
        var seen: [String] = []
        bytes.withUnsafeBytes { raw in
            InotifyRecords.parse(raw) { seen.append("\($0.watch) \(String($0.mask, radix: 16)) \($0.name ?? "-")") }
        }
        #expect(seen == ["1 100 event5", "1 200 event12", "2 4000 -"])
    }
}
