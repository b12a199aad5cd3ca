/// What the command line says, laid over the file: a given option beats the
/// file's key, an absent one leaves it. Kept apart from the configuration so
/// that a reload re-reads the file and lays the same options over it again.
public struct ConfigOverrides: Sendable, Equatable {
    public var output: OutputChoice?
    public var device: String?
    public var connector: String?
    public var mode: DisplayModeSetting?
    public var rotation: Int?
    public var fps: Double?
    public var vt: VirtualTerminalChoice?
    public var scene: String?
    /// Flags: only `true` overrides (there is no --no-reduce-motion).
    public var reduceMotion: Bool?
    public var lowPower: Bool?
    public var threads: Int?
    /// `--socket PATH`; "" disables the socket.
    public var socket: String?

    public init() {}

    public func apply(to file: ChakraConfig) -> ChakraConfig {
        var c = file
        if let output { c.display.output = output }
        if let device { c.display.device = device }
        if let connector { c.display.connector = connector }
        if let mode { c.display.mode = mode }
        if let rotation { c.display.rotation = rotation }
        if let fps { c.display.fps = fps }
        if let vt { c.display.vt = vt }
        if let scene { c.scene.defaultScene = scene }
        if let reduceMotion { c.reduceMotion = reduceMotion }
        if let lowPower { c.lowPower.enabled = lowPower }
        if let threads { c.render.threads = threads }
        if let socket { c.control.socket = socket.isEmpty ? nil : socket }
        return c
    }

    /// The keys the command line decides (the reload report names them).
    public var keys: [String] {
        let set: [(String, Bool)] = [
            ("display.output", output != nil), ("display.device", device != nil), ("display.connector", connector != nil),
            ("display.mode", mode != nil), ("display.rotation", rotation != nil), ("display.fps", fps != nil),
            ("display.vt", vt != nil), ("scene.default", scene != nil), ("reduce_motion", reduceMotion != nil),
            ("low_power.enabled", lowPower != nil), ("render.threads", threads != nil), ("control.socket", socket != nil),
        ]
        return set.filter(\.1).map(\.0)
    }
}
