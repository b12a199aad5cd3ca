/// The KMS properties an atomic commit sets, resolved from names to ids
/// once per device (weston kms.c): a commit then looks ids up by enum.
public enum KMSProperty: CaseIterable, Sendable {
    case connectorCRTC
    case crtcMode, crtcActive
    case planeFB, planeCRTC
    case planeSourceX, planeSourceY, planeSourceWidth, planeSourceHeight
    case planeCRTCX, planeCRTCY, planeCRTCWidth, planeCRTCHeight

    public enum Object: Sendable { case connector, crtc, plane }

    public var object: Object {
        switch self {
        case .connectorCRTC: .connector
        case .crtcMode, .crtcActive: .crtc
        default: .plane
        }
    }

    /// The kernel's property name.
    public var name: String {
        switch self {
        case .connectorCRTC, .planeCRTC: "CRTC_ID"
        case .crtcMode: "MODE_ID"
        case .crtcActive: "ACTIVE"
        case .planeFB: "FB_ID"
        case .planeSourceX: "SRC_X"
        case .planeSourceY: "SRC_Y"
        case .planeSourceWidth: "SRC_W"
        case .planeSourceHeight: "SRC_H"
        case .planeCRTCX: "CRTC_X"
        case .planeCRTCY: "CRTC_Y"
        case .planeCRTCWidth: "CRTC_W"
        case .planeCRTCHeight: "CRTC_H"
        }
    }
}

public struct AtomicPropertyTable: Sendable, Equatable {
    private var ids: [UInt32]   // indexed by KMSProperty.allCases order

    /// Builds the table from each object's name → id list; names every
    /// missing property at once, since a driver lacking one cannot do atomic.
    public init(connector: [String: UInt32], crtc: [String: UInt32], plane: [String: UInt32]) throws(DisplayError) {
        var ids: [UInt32] = []
        var missing: [String] = []
        for property in KMSProperty.allCases {
            let source = switch property.object {
            case .connector: connector
            case .crtc: crtc
            case .plane: plane
            }
            if let id = source[property.name] { ids.append(id) } else { missing.append("\(property.object).\(property.name)") }
        }
        guard missing.isEmpty else { throw .unavailable("atomic modesetting lacks properties: \(missing.joined(separator: ", "))") }
        self.ids = ids
    }

    public subscript(property: KMSProperty) -> UInt32 {
        ids[KMSProperty.allCases.firstIndex(of: property)!]
    }
}
