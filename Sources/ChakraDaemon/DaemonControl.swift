import ChakraDisplay
import ChakraPNG
import ChakraScenes
import Synchronization

/// What the control socket (next issue) can ask of the running loop. Each
/// command is applied between two frames, on the loop's thread.
public enum DaemonCommand: Sendable {
    public typealias Reply<Value> = @Sendable (Result<Value, DaemonCommandError>) -> Void

    /// Cut to another scene (transitions come with the scene manager).
    case switchScene(String, reply: Reply<Void>)
    /// Freeze scene time (the still frame costs nothing); resume continues.
    case pause
    case resume
    /// Reduce motion / low power: rebuilds the scene.
    case setSettings(RenderSettings)
    /// The frame on screen, as RGB (memory layout, i.e. rotated as shown).
    case snapshot(reply: Reply<PNGImage.RGB>)
    /// Stop as on SIGTERM.
    case stop
}

public enum DaemonCommandError: Error, Equatable, CustomStringConvertible {
    case unknownScene(String)
    case noFrameYet

    public var description: String {
        switch self {
        case .unknownScene(let name): "unknown scene '\(name)'; known: \(SceneCatalog.names.joined(separator: ", "))"
        case .noFrameYet: "no frame has been shown yet"
        }
    }
}

/// What the daemon is doing, for `status` and STATUS=.
public struct DaemonStatus: Sendable, Equatable {
    public var scene = ""
    public var output = ""
    /// The screen's size in pixels (memory, before rotation).
    public var width = 0, height = 0
    public var settings = RenderSettings()
    public var paused = false
    /// Every frame is the same (reduce motion): one was shown, no more.
    public var still = false
    public var vtActive = true
    public var framesPresented = 0
    public var fps = 0.0
    public var uptime = 0.0

    /// The STATUS= line: "heart, 59.9 fps — drm /dev/dri/card0 Virtual-1 ...".
    public var line: String {
        var state = format1(fps) + " fps"
        if paused { state = "paused" } else if !vtActive { state = "VT switched away" } else if still { state = "still" }
        let modes = [settings.reduceMotion ? "reduce-motion" : nil, settings.lowPower ? "low-power" : nil].compactMap { $0 }
        return "\(scene)\(modes.isEmpty ? "" : " (" + modes.joined(separator: ", ") + ")"), \(state) — \(output)"
    }

    /// key=value lines for --stats-file.
    public var keyValues: String {
        """
        scene=\(scene)
        output=\(output)
        size=\(width)x\(height)
        frames=\(framesPresented)
        fps=\(format1(fps))
        paused=\(paused)
        still=\(still)
        vt_active=\(vtActive)
        reduce_motion=\(settings.reduceMotion)
        low_power=\(settings.lowPower)
        uptime=\(format1(uptime))

        """
    }

    private func format1(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return "\(Int(tenths) / 10).\(abs(Int(tenths)) % 10)"
    }
}

/// The thread-safe door into the frame loop: any thread may `send` a
/// command (it wakes the loop through an eventfd) or read the `status`.
/// The loop drains the queue between frames. Lives as long as the daemon.
public final class DaemonControl: Sendable {
    private let queue = Mutex<[DaemonCommand]>([])
    private let published = Mutex(DaemonStatus())
    let wakeup: Wakeup

    init() throws {
        wakeup = try Wakeup()
    }

    public func send(_ command: DaemonCommand) {
        queue.withLock { $0.append(command) }
        wakeup.signal()
    }

    public var status: DaemonStatus { published.withLock { $0 } }

    func publish(_ status: DaemonStatus) { published.withLock { $0 = status } }

    /// Loop thread: the commands sent since the last call.
    func takeCommands() -> [DaemonCommand] {
        wakeup.drain()
        return queue.withLock { commands in
            defer { commands.removeAll(keepingCapacity: true) }
            return commands
        }
    }
}
