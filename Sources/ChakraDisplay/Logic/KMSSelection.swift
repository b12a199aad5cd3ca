/// Which connector, mode, CRTC and plane to drive: pure, from a
/// `KMSTopology`, so every rule here is unit-tested.
public struct KMSPipelineChoice: Equatable, Sendable {
    public var connector: KMSConnector
    public var mode: DisplayMode
    public var crtcID: UInt32
    public var crtcIndex: Int
    /// The primary plane for the CRTC, when the device lists planes.
    public var planeID: UInt32?
}

public enum KMSSelection {
    /// The named connector (case-insensitive, "Virtual-1"), or else the first
    /// connected one, preferring one that is lit now (the console's), or
    /// else one in an unknown state.
    public static func connector(in topology: KMSTopology, named name: String?) throws(DisplayError) -> KMSConnector {
        let names = topology.connectors.map { "\($0.name) (\(describe($0.connection)))" }.joined(separator: ", ")
        if let name {
            guard let match = topology.connectors.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw .invalidArgument("no connector named '\(name)'; this device has: \(names.isEmpty ? "none" : names)")
            }
            guard match.connection != .disconnected else { throw .unavailable("connector \(match.name) is disconnected") }
            guard !match.modes.isEmpty else { throw .unavailable("connector \(match.name) lists no modes") }
            return match
        }
        // Some drivers cannot tell (no hotplug detection): "unknown" with
        // modes is a display too, if no connector says connected.
        var usable = topology.connectors.filter { $0.connection == .connected && !$0.modes.isEmpty }
        if usable.isEmpty { usable = topology.connectors.filter { $0.connection == .unknown && !$0.modes.isEmpty } }
        guard let first = usable.first(where: { $0.currentEncoderID != 0 }) ?? usable.first else {
            throw .unavailable("no connected connector with modes (connectors: \(names.isEmpty ? "none" : names))")
        }
        return first
    }

    /// The asked mode (exact size; the nearest refresh to the asked one, or
    /// the preferred then highest refresh of that size), or the connector's
    /// preferred mode (else its first, which the kernel sorts best-first).
    public static func mode(of connector: KMSConnector, request: ModeRequest?) throws(DisplayError) -> DisplayMode {
        guard let first = connector.modes.first else { throw .unavailable("connector \(connector.name) lists no modes") }
        guard let request else { return connector.modes.first(where: \.isPreferred) ?? first }
        let sized = connector.modes.filter { $0.width == request.width && $0.height == request.height }
        let list = Array(Set(connector.modes.map(\.description))).sorted().joined(separator: ", ")
        guard !sized.isEmpty else { throw .invalidArgument("connector \(connector.name) has no mode \(request); it offers: \(list)") }
        if let hz = request.refresh {
            let best = sized.min { abs($0.refresh - hz) < abs($1.refresh - hz) }!
            guard abs(best.refresh - hz) < 1 else { throw .invalidArgument("connector \(connector.name) has no mode \(request); it offers: \(list)") }
            return best
        }
        return sized.first(where: \.isPreferred) ?? sized.max { $0.refresh < $1.refresh }!
    }

    /// A CRTC the connector's encoders allow: the one lighting it now if any
    /// (no flicker, and the console's CRTC is the one to restore), else the
    /// first allowed (the DRM howto's possible_crtcs walk).
    public static func crtc(for connector: KMSConnector, in topology: KMSTopology) throws(DisplayError) -> (id: UInt32, index: Int) {
        if let current = topology.encoder(connector.currentEncoderID), current.currentCRTCID != 0,
           let index = topology.crtcIDs.firstIndex(of: current.currentCRTCID) {
            return (current.currentCRTCID, index)
        }
        for encoderID in connector.encoderIDs {
            guard let encoder = topology.encoder(encoderID) else { continue }
            for (index, id) in topology.crtcIDs.enumerated() where encoder.possibleCRTCs & (1 << UInt32(index)) != 0 {
                return (id, index)
            }
        }
        throw .unavailable("no CRTC can drive connector \(connector.name)")
    }

    /// The primary plane that can sit on the CRTC at `crtcIndex`.
    public static func primaryPlane(forCRTCAt crtcIndex: Int, in topology: KMSTopology) -> KMSPlane? {
        topology.planes.first { $0.type == .primary && $0.possibleCRTCs & (1 << UInt32(crtcIndex)) != 0 }
    }

    public static func choose(in topology: KMSTopology, connectorName: String?, mode request: ModeRequest?) throws(DisplayError) -> KMSPipelineChoice {
        let connector = try connector(in: topology, named: connectorName)
        let mode = try mode(of: connector, request: request)
        let crtc = try crtc(for: connector, in: topology)
        let plane = primaryPlane(forCRTCAt: crtc.index, in: topology)
        return KMSPipelineChoice(connector: connector, mode: mode, crtcID: crtc.id, crtcIndex: crtc.index, planeID: plane?.id)
    }

    private static func describe(_ state: ConnectionState) -> String {
        switch state {
        case .connected: "connected"
        case .disconnected: "disconnected"
        case .unknown: "unknown"
        }
    }
}
