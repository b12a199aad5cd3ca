import Testing
@testable import ChakraDisplay

@Suite("Mode strings")
struct ModeRequestTests {
    @Test(arguments: [
        ("1920x1080", 1920, 1080, nil as Double?),
        ("1920x1080@60", 1920, 1080, 60),
        ("1280X720@59.94", 1280, 720, 59.94),
        ("640x480@75", 640, 480, 75),
    ])
    func parses(text: String, width: Int, height: Int, refresh: Double?) throws {
        let mode = try ModeRequest(parsing: text)
        #expect(mode == ModeRequest(width: width, height: height, refresh: refresh))
    }

    @Test(arguments: ["", "1920", "x1080", "1920x", "0x1080", "1920x1080@", "1920x1080@abc", "1920x1080@0",
                      "1920x1080@60@2", "99999x10", "1920x1080x3", "-5x10", "1920 x 1080"])
    func rejects(text: String) {
        #expect(throws: DisplayError.self) { try ModeRequest(parsing: text) }
    }

    @Test func errorSaysWhatIsExpected() {
        do {
            _ = try ModeRequest(parsing: "big")
            Issue.record("accepted 'big'")
        } catch {
            #expect(error.description.contains("'big'"))
            #expect(error.description.contains("WIDTHxHEIGHT@HZ"))
        }
    }

    @Test func refreshFromTimings() {
        // CEA-861 1080p60: 148.5 MHz over 2200×1125.
        #expect(abs(DisplayMode.refresh(clockKHz: 148_500, htotal: 2200, vtotal: 1125) - 60) < 1e-9)
        // The 1000/1001 variant: 148.352 MHz.
        #expect(abs(DisplayMode.refresh(clockKHz: 148_352, htotal: 2200, vtotal: 1125) - 59.94) < 0.001)
        // 1080i: fields count, so interlace doubles the frame rate (30 → 60).
        #expect(abs(DisplayMode.refresh(clockKHz: 74_250, htotal: 2200, vtotal: 1125, interlaced: true) - 60) < 1e-9)
        #expect(abs(DisplayMode.refresh(clockKHz: 148_500, htotal: 2200, vtotal: 1125, doubleScan: true) - 30) < 1e-9)
        #expect(DisplayMode.refresh(clockKHz: 148_500, htotal: 0, vtotal: 1125) == 0)
        #expect(DisplayMode(width: 1920, height: 1080, refresh: 59.9401).description == "1920x1080@59.94")
        #expect(DisplayMode(width: 1024, height: 768, refresh: 60.0004).description == "1024x768@60")
    }
}

/// A two-connector card: HDMI-A-1 (connected, lit by CRTC 41 through
/// encoder 31) and Virtual-1; CRTCs 41 and 42; one primary plane per CRTC.
private func card(hdmi: ConnectionState = .connected, virtual: ConnectionState = .connected, hdmiLit: Bool = true) -> KMSTopology {
    let hdmiModes = [
        DisplayMode(width: 1920, height: 1080, refresh: 60, isPreferred: true, index: 0),
        DisplayMode(width: 1920, height: 1080, refresh: 50, index: 1),
        DisplayMode(width: 1280, height: 720, refresh: 59.94, index: 2),
        DisplayMode(width: 1280, height: 720, refresh: 60, index: 3),
        DisplayMode(width: 1280, height: 720, refresh: 50, index: 4),
    ]
    let virtualModes = [DisplayMode(width: 1024, height: 768, refresh: 60, index: 0), DisplayMode(width: 800, height: 600, refresh: 60, index: 1)]
    return KMSTopology(
        connectors: [
            KMSConnector(id: 51, type: 11, typeIndex: 1, connection: hdmi, modes: hdmiModes, encoderIDs: [31], currentEncoderID: hdmiLit ? 31 : 0),
            KMSConnector(id: 52, type: 15, typeIndex: 1, connection: virtual, modes: virtualModes, encoderIDs: [32]),
        ],
        encoders: [KMSEncoder(id: 31, possibleCRTCs: 0b11, currentCRTCID: hdmiLit ? 41 : 0), KMSEncoder(id: 32, possibleCRTCs: 0b10)],
        crtcIDs: [41, 42],
        planes: [
            KMSPlane(id: 61, possibleCRTCs: 0b11, type: .overlay, formats: []),
            KMSPlane(id: 62, possibleCRTCs: 0b01, type: .primary, formats: [DRMFourCC.code("XR24")]),
            KMSPlane(id: 63, possibleCRTCs: 0b10, type: .primary, formats: [DRMFourCC.code("XR24"), DRMFourCC.code("RG16")]),
        ])
}

@Suite("Choosing connector, mode, CRTC and plane")
struct KMSSelectionTests {
    @Test func connectorNamesFollowTheKernel() {
        #expect(card().connectors.map(\.name) == ["HDMI-A-1", "Virtual-1"])
        #expect(KMSConnector.typeName(14) == "eDP")
        #expect(KMSConnector.typeName(99) == "Unknown99")
    }

    @Test func firstConnectedPrefersTheLitOne() throws {
        #expect(try KMSSelection.connector(in: card(), named: nil).name == "HDMI-A-1")
        #expect(try KMSSelection.connector(in: card(hdmi: .disconnected), named: nil).name == "Virtual-1")
        // Neither lit: the kernel's order.
        #expect(try KMSSelection.connector(in: card(hdmiLit: false), named: nil).name == "HDMI-A-1")
    }

    @Test func namedConnectorIgnoresCase() throws {
        #expect(try KMSSelection.connector(in: card(), named: "virtual-1").id == 52)
    }

    @Test func unknownConnectorListsTheRealOnes() {
        #expect(throws: DisplayError.invalidArgument("no connector named 'DP-3'; this device has: HDMI-A-1 (connected), Virtual-1 (connected)")) {
            try KMSSelection.connector(in: card(), named: "DP-3")
        }
    }

    @Test func disconnectedIsUnavailable() throws {
        #expect(throws: DisplayError.unavailable("connector Virtual-1 is disconnected")) {
            try KMSSelection.connector(in: card(virtual: .disconnected), named: "Virtual-1")
        }
        #expect(throws: DisplayError.self) { try KMSSelection.connector(in: card(hdmi: .disconnected, virtual: .disconnected), named: nil) }
        // Unknown counts only when nothing says connected.
        #expect(try KMSSelection.connector(in: card(hdmi: .disconnected, virtual: .unknown), named: nil).name == "Virtual-1")
        #expect(try KMSSelection.connector(in: card(hdmi: .connected, virtual: .unknown, hdmiLit: false), named: nil).name == "HDMI-A-1")
    }

    @Test func modeChoice() throws {
        let hdmi = card().connectors[0]
        #expect(try KMSSelection.mode(of: hdmi, request: nil).index == 0)                                  // preferred
        #expect(try KMSSelection.mode(of: hdmi, request: ModeRequest(width: 1280, height: 720)).index == 3)  // highest refresh
        #expect(try KMSSelection.mode(of: hdmi, request: ModeRequest(width: 1280, height: 720, refresh: 59.94)).index == 2)
        #expect(try KMSSelection.mode(of: hdmi, request: ModeRequest(width: 1280, height: 720, refresh: 50)).index == 4)
        #expect(try KMSSelection.mode(of: hdmi, request: ModeRequest(width: 1920, height: 1080)).index == 0)  // preferred of the size
        #expect(throws: DisplayError.self) { try KMSSelection.mode(of: hdmi, request: ModeRequest(width: 1280, height: 720, refresh: 75)) }
        do {
            _ = try KMSSelection.mode(of: hdmi, request: ModeRequest(width: 800, height: 600))
            Issue.record("800x600 accepted")
        } catch {
            #expect(error.description.contains("1280x720@59.94"))
        }
        // No preferred flag: the kernel sorts best first.
        #expect(try KMSSelection.mode(of: card().connectors[1], request: nil).width == 1024)
    }

    @Test func crtcFollowsTheEncoder() throws {
        let topology = card()
        #expect(try KMSSelection.crtc(for: topology.connectors[0], in: topology) == (41, 0))     // lit now
        #expect(try KMSSelection.crtc(for: topology.connectors[1], in: topology) == (42, 1))     // possible_crtcs bit 1 only
        var none = topology
        none.encoders[1].possibleCRTCs = 0
        #expect(throws: DisplayError.self) { try KMSSelection.crtc(for: none.connectors[1], in: none) }
    }

    @Test func primaryPlaneForTheCRTC() throws {
        let choice = try KMSSelection.choose(in: card(), connectorName: "Virtual-1", mode: nil)
        #expect(choice.crtcID == 42)
        #expect(choice.planeID == 63)
        #expect(try KMSSelection.choose(in: card(), connectorName: nil, mode: nil).planeID == 62)
        #expect(KMSSelection.primaryPlane(forCRTCAt: 5, in: card()) == nil)
    }

    @Test func formatChoice() throws {
        #expect(DRMFourCC.code("XR24") == 0x3432_5258)
        #expect(DRMFourCC.code(for: .rgb565) == 0x3631_4752)
        #expect(DRMFourCC.name(0x3432_5258) == "XR24")
        let both = [DRMFourCC.code("XR24"), DRMFourCC.code("RG16")]
        #expect(try DRMFourCC.choose(requested: nil, preferredDepth: 24, planeFormats: both) == .xrgb8888)
        #expect(try DRMFourCC.choose(requested: nil, preferredDepth: 16, planeFormats: both) == .rgb565)
        #expect(try DRMFourCC.choose(requested: nil, preferredDepth: 16, planeFormats: [DRMFourCC.code("XR24")]) == .xrgb8888)
        #expect(try DRMFourCC.choose(requested: .rgb565, preferredDepth: 24, planeFormats: both) == .rgb565)
        #expect(try DRMFourCC.choose(requested: .rgb565, preferredDepth: 24, planeFormats: []) == .rgb565)   // unknown: try it
        #expect(throws: DisplayError.self) { try DRMFourCC.choose(requested: .rgb565, preferredDepth: 24, planeFormats: [DRMFourCC.code("XR24")]) }
    }

    @Test func atomicPropertyTable() throws {
        let plane = ["FB_ID": 10, "CRTC_ID": 11, "SRC_X": 12, "SRC_Y": 13, "SRC_W": 14, "SRC_H": 15,
                     "CRTC_X": 16, "CRTC_Y": 17, "CRTC_W": 18, "CRTC_H": 19, "type": 9] as [String: UInt32]
        let table = try AtomicPropertyTable(connector: ["CRTC_ID": 20, "DPMS": 2], crtc: ["MODE_ID": 30, "ACTIVE": 31], plane: plane)
        #expect(table[.connectorCRTC] == 20)
        #expect(table[.planeCRTC] == 11)
        #expect(table[.crtcActive] == 31)
        #expect(table[.planeSourceHeight] == 15)
        #expect(throws: DisplayError.unavailable("atomic modesetting lacks properties: crtc.ACTIVE, plane.SRC_W")) {
            var partial = plane
            partial["SRC_W"] = nil
            _ = try AtomicPropertyTable(connector: ["CRTC_ID": 20], crtc: ["MODE_ID": 30], plane: partial)
        }
    }
}
