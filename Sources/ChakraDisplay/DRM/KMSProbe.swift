import CDRM
import ChakraSystem
import Glibc

/// Reads a DRM device's connectors, encoders, CRTCs and planes into plain
/// `KMSTopology` values (KMSSelection chooses from them), keeping libdrm's
/// raw modes aside for the modeset.
struct KMSProbe {
    var topology: KMSTopology
    /// Each connector's modes as libdrm gives them, by connector id.
    var rawModes: [UInt32: [drmModeModeInfo]]

    /// `force`: drmModeGetConnector makes the driver probe outputs (it may
    /// read EDID: slow on real hardware); otherwise the kernel's current
    /// state is read (drmModeGetConnectorCurrent), which is cheap.
    /// `planes`: also list the planes (a dozen more ioctls; the periodic
    /// connector check skips them).
    init(device: DRMDevice, force: Bool, planes: Bool = true) throws(SystemError) {
        let fd = device.fd
        let resources = try Syscall.pointer("drmModeGetResources", { drmModeGetResources(fd) })
        defer { drmModeFreeResources(resources) }
        let res = resources.pointee
        let crtcIDs = Array(UnsafeBufferPointer(start: res.crtcs, count: Int(res.count_crtcs)))
        var connectors: [KMSConnector] = []
        var rawModes: [UInt32: [drmModeModeInfo]] = [:]
        for id in UnsafeBufferPointer(start: res.connectors, count: Int(res.count_connectors)) {
            guard let pointer = force ? drmModeGetConnector(fd, id) : drmModeGetConnectorCurrent(fd, id) else { continue }
            defer { drmModeFreeConnector(pointer) }
            let (connector, modes) = Self.connector(pointer.pointee)
            connectors.append(connector)
            rawModes[id] = modes
        }
        var encoders: [KMSEncoder] = []
        for id in UnsafeBufferPointer(start: res.encoders, count: Int(res.count_encoders)) {
            guard let pointer = drmModeGetEncoder(fd, id) else { continue }
            defer { drmModeFreeEncoder(pointer) }
            encoders.append(KMSEncoder(id: id, possibleCRTCs: pointer.pointee.possible_crtcs, currentCRTCID: pointer.pointee.crtc_id))
        }
        topology = KMSTopology(connectors: connectors, encoders: encoders, crtcIDs: crtcIDs, planes: planes ? Self.planes(fd: fd) : [])
        self.rawModes = rawModes
    }

    private static func connector(_ c: drmModeConnector) -> (KMSConnector, [drmModeModeInfo]) {
        let raw = Array(UnsafeBufferPointer(start: c.modes, count: Int(c.count_modes)))
        let modes = raw.enumerated().map { index, m in
            DisplayMode(width: Int(m.hdisplay), height: Int(m.vdisplay),
                        refresh: DisplayMode.refresh(clockKHz: m.clock, htotal: m.htotal, vtotal: m.vtotal, vscan: m.vscan,
                                                     interlaced: m.flags & UInt32(DRM_MODE_FLAG_INTERLACE) != 0,
                                                     doubleScan: m.flags & UInt32(DRM_MODE_FLAG_DBLSCAN) != 0),
                        isPreferred: m.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0, index: index)
        }
        let connection: ConnectionState = switch c.connection {
        case DRM_MODE_CONNECTED: .connected
        case DRM_MODE_DISCONNECTED: .disconnected
        default: .unknown
        }
        let connector = KMSConnector(id: c.connector_id, type: c.connector_type, typeIndex: c.connector_type_id,
                                     connection: connection, modes: modes,
                                     encoderIDs: Array(UnsafeBufferPointer(start: c.encoders, count: Int(c.count_encoders))),
                                     currentEncoderID: c.encoder_id)
        return (connector, raw)
    }

    /// Planes with their type; empty unless DRM_CLIENT_CAP_UNIVERSAL_PLANES
    /// was enabled (before it only overlay planes are listed).
    private static func planes(fd: Int32) -> [KMSPlane] {
        guard let resources = drmModeGetPlaneResources(fd) else { return [] }
        defer { drmModeFreePlaneResources(resources) }
        var planes: [KMSPlane] = []
        for id in UnsafeBufferPointer(start: resources.pointee.planes, count: Int(resources.pointee.count_planes)) {
            guard let plane = drmModeGetPlane(fd, id) else { continue }
            defer { drmModeFreePlane(plane) }
            let typeValue = properties(fd: fd, object: id, type: UInt32(DRM_MODE_OBJECT_PLANE))["type"]?.value
            let type: PlaneType = switch typeValue {
            case UInt64(DRM_PLANE_TYPE_PRIMARY): .primary
            case UInt64(DRM_PLANE_TYPE_CURSOR): .cursor
            default: .overlay
            }
            planes.append(KMSPlane(id: id, possibleCRTCs: plane.pointee.possible_crtcs, type: type,
                                   formats: Array(UnsafeBufferPointer(start: plane.pointee.formats, count: Int(plane.pointee.count_formats)))))
        }
        return planes
    }

    /// An object's properties by name: id and current value; empty when
    /// they cannot be listed.
    static func properties(fd: Int32, object: UInt32, type: UInt32) -> [String: (id: UInt32, value: UInt64)] {
        (try? readProperties(fd: fd, object: object, type: type)) ?? [:]
    }

    /// The same, with the failure to list them (a read-back must tell
    /// "could not read" from "not there").
    static func readProperties(fd: Int32, object: UInt32, type: UInt32) throws(SystemError) -> [String: (id: UInt32, value: UInt64)] {
        let list = try Syscall.pointer("drmModeObjectGetProperties(\(object))", { drmModeObjectGetProperties(fd, object, type) })
        defer { drmModeFreeObjectProperties(list) }
        var byName: [String: (id: UInt32, value: UInt64)] = [:]
        for index in 0..<Int(list.pointee.count_props) {
            guard let property = drmModeGetProperty(fd, list.pointee.props[index]) else { continue }
            defer { drmModeFreeProperty(property) }
            let name = withUnsafeBytes(of: property.pointee.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            byName[name] = (property.pointee.prop_id, list.pointee.prop_values[index])
        }
        return byName
    }

    /// The CRTC connector `id` is driven by now (through its current
    /// encoder), or nil.
    func crtcOfConnector(_ id: UInt32) -> UInt32? {
        guard let encoder = topology.connectors.first(where: { $0.id == id })?.currentEncoderID, encoder != 0 else { return nil }
        return topology.encoders.first { $0.id == encoder }.map(\.currentCRTCID)
    }
}
