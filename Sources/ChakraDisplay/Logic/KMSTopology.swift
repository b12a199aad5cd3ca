/// What a DRM device offers, copied out of libdrm's structs into plain
/// values (DRM/KMSProbe.swift does the copying), so that choosing a
/// connector, mode, CRTC and plane is pure and unit-tested.

/// One display mode of a connector.
public struct DisplayMode: Equatable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    /// Refresh in Hz, computed from the timings (not the rounded vrefresh).
    public var refresh: Double
    public var isPreferred: Bool
    /// Position in the connector's mode list (to find libdrm's struct again).
    public var index: Int

    public init(width: Int, height: Int, refresh: Double, isPreferred: Bool = false, index: Int = 0) {
        (self.width, self.height, self.refresh, self.isPreferred, self.index) = (width, height, refresh, isPreferred, index)
    }

    /// Hz from the pixel clock (kHz) and the totals, as the kernel's
    /// drm_mode_vrefresh does: interlace doubles, doublescan and vscan divide.
    public static func refresh(clockKHz: UInt32, htotal: UInt16, vtotal: UInt16, vscan: UInt16 = 0,
                               interlaced: Bool = false, doubleScan: Bool = false) -> Double {
        guard htotal > 0, vtotal > 0 else { return 0 }
        var hz = Double(clockKHz) * 1000 / (Double(htotal) * Double(vtotal))
        if interlaced { hz *= 2 }
        if doubleScan { hz /= 2 }
        if vscan > 1 { hz /= Double(vscan) }
        return hz
    }

    public static func format(hz: Double) -> String {
        let rounded = (hz * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    public var description: String { "\(width)x\(height)@\(Self.format(hz: refresh))" }
}

public enum ConnectionState: Sendable, Equatable {
    case connected, disconnected, unknown
}

public struct KMSConnector: Equatable, Sendable {
    public var id: UInt32
    /// DRM_MODE_CONNECTOR_* and its per-type index: Virtual-1, HDMI-A-2.
    public var type: UInt32
    public var typeIndex: UInt32
    public var connection: ConnectionState
    public var modes: [DisplayMode]
    public var encoderIDs: [UInt32]
    /// The encoder driving it now, 0 for none.
    public var currentEncoderID: UInt32

    public init(id: UInt32, type: UInt32, typeIndex: UInt32, connection: ConnectionState,
                modes: [DisplayMode], encoderIDs: [UInt32], currentEncoderID: UInt32 = 0) {
        (self.id, self.type, self.typeIndex, self.connection) = (id, type, typeIndex, connection)
        (self.modes, self.encoderIDs, self.currentEncoderID) = (modes, encoderIDs, currentEncoderID)
    }

    /// The kernel's name for it, as in /sys/class/drm/card0-Virtual-1.
    public var name: String { "\(Self.typeName(type))-\(typeIndex)" }

    /// drm_connector_enum_list in the kernel's drm_connector.c.
    public static func typeName(_ type: UInt32) -> String {
        let names = ["Unknown", "VGA", "DVI-I", "DVI-D", "DVI-A", "Composite", "SVIDEO", "LVDS", "Component",
                     "DIN", "DP", "HDMI-A", "HDMI-B", "TV", "eDP", "Virtual", "DSI", "DPI", "Writeback", "SPI", "USB"]
        return Int(type) < names.count ? names[Int(type)] : "Unknown\(type)"
    }
}

public struct KMSEncoder: Equatable, Sendable {
    public var id: UInt32
    /// Bit i set: the CRTC at index i of the resources' CRTC list can drive it.
    public var possibleCRTCs: UInt32
    public var currentCRTCID: UInt32

    public init(id: UInt32, possibleCRTCs: UInt32, currentCRTCID: UInt32 = 0) {
        (self.id, self.possibleCRTCs, self.currentCRTCID) = (id, possibleCRTCs, currentCRTCID)
    }
}

public enum PlaneType: Sendable, Equatable {
    case overlay, primary, cursor
}

public struct KMSPlane: Equatable, Sendable {
    public var id: UInt32
    public var possibleCRTCs: UInt32
    public var type: PlaneType
    public var formats: [UInt32]

    public init(id: UInt32, possibleCRTCs: UInt32, type: PlaneType, formats: [UInt32]) {
        (self.id, self.possibleCRTCs, self.type, self.formats) = (id, possibleCRTCs, type, formats)
    }
}

/// The whole device: CRTC ids in the kernel's order (encoders' and planes'
/// possible-CRTC masks index into it).
public struct KMSTopology: Equatable, Sendable {
    public var connectors: [KMSConnector]
    public var encoders: [KMSEncoder]
    public var crtcIDs: [UInt32]
    public var planes: [KMSPlane]

    public init(connectors: [KMSConnector], encoders: [KMSEncoder], crtcIDs: [UInt32], planes: [KMSPlane] = []) {
        (self.connectors, self.encoders, self.crtcIDs, self.planes) = (connectors, encoders, crtcIDs, planes)
    }

    public func encoder(_ id: UInt32) -> KMSEncoder? { encoders.first { $0.id == id } }
}
