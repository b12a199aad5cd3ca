import ChakraConfig
import ChakraControl
import ChakraDisplay
import ChakraInput
import ChakraPNG
import ChakraRaster
import ChakraScenes
import ChakraSystem
import Synchronization

/// What the control socket can ask of the running loop. Each command is
/// applied between two frames, on the loop's thread; replies are called
/// there too (and must only hand the result on).
public enum DaemonCommand: Sendable {
    public typealias Reply<Value> = @Sendable (Result<Value, DaemonCommandError>) -> Void

    /// Another scene, with a cut or a crossfade (the request's, else the
    /// configured default), answered with what was done.
    case switchScene(SceneSwitch, reply: Reply<SceneChangeReport>)
    /// Freeze scene time (the still frame costs nothing) or continue,
    /// answered once applied.
    case playback(paused: Bool, reply: Reply<Void>)
    /// reduce-motion, low-power, language or brightness, answered once applied.
    case change(SettingChange, reply: Reply<Void>)
    /// The frame on screen as a copy of its memory: the loop only copies,
    /// the caller converts and encodes on its own thread.
    case snapshotFrame(reply: Reply<FrameSnapshot>)
    /// A configuration file read again (reload): applied as far as it can
    /// be at run time.
    case applyConfiguration(LoadedConfig, reply: Reply<ReloadReport>)
    /// A reload whose files could not be read (their errors): refused, and
    /// counted by the loop as a refusal by SIGHUP is.
    case refuseConfiguration(ConfigError, reply: Reply<ReloadReport>)
    /// SIGHUP's read of the files, as `ConfigReader` finished it (or its
    /// errors): applied or refused as `reload`'s is; counted, and logged
    /// as SIGHUP's, with its warnings (nobody is there to answer).
    case signalReload(Result<LoadedConfig, ConfigError>)
    /// Someone is there (`wake`): the idle timers start again and a dimmed
    /// or blank screen comes back.
    case activity(reply: Reply<PowerState>?)
    /// A touch, as if from a touchscreen (`touch`: tools, tests), answered
    /// once the scene has it.
    case touch(TouchContactEvent, reply: Reply<Void>)
    /// The spiral exercise: start (with a breathing pattern for that one
    /// exercise, or the configured one), cancel, or where its path lies.
    case spiral(SpiralAction, pattern: String? = nil, reply: Reply<SpiralReport>)
    /// `display off|on|auto`: the screen by hand, or the schedule again;
    /// answered once applied (the status shows the result).
    case display(DisplayPowerMode, reply: Reply<Void>)
    /// Today's windows, the state and the next change.
    case schedulePlan(reply: Reply<SchedulePlanReport>)
    /// Stop as on SIGTERM.
    case stop
}

/// The spiral exercise as `status` and the spiral events tell it. Lengths
/// are screen pixels of the frame as seen (before the panel's rotation).
public struct SpiralReport: Sendable, Equatable {
    public var state: String
    /// Of the path's length, 0–1.
    public var progress: Double
    public var holdRemaining: Double
    public var headX: Double, headY: Double
    public var touching: Bool
    /// Waiting for the finger to come back to the light.
    public var needsResume: Bool
    /// The breathing pattern's name (the exercise's, or the next one's in Idle).
    public var pattern: String
    /// During Hold, the pattern's phase: in, hold-in, out or hold-out.
    public var phase: String?
    /// The path (only for `spiral path`).
    public var points: [[Double]]?
}

/// A scene change as the core carries it out: a cut, or a crossfade whose
/// spring has `duration` as its response (0: the default, howruSmooth).
public struct SceneTransition: Sendable, Equatable {
    public var kind: TransitionKind
    /// Seconds.
    public var duration: Double

    public init(kind: TransitionKind = .cut, duration: Double = 0) {
        (self.kind, self.duration) = (kind, duration)
    }
}

/// A scene change as done: the transition with the defaults filled in.
public struct SceneChangeReport: Sendable, Equatable {
    public var scene: String
    public var previous: String
    public var transition: SceneTransition
}

/// What `set` changes.
public enum SettingChange: Sendable, Equatable {
    case reduceMotion(Bool)
    case lowPower(Bool)
    case language(String)
    /// Percent of the backlight's maximum.
    case brightness(Int)
}

public enum DaemonCommandError: Error, Equatable, CustomStringConvertible {
    case unknownScene(String)
    /// `spiral start --pattern` with a pattern that cannot be used.
    case unknownPattern(PatternChoiceError)
    case noFrameYet
    /// The display is unplugged (or off): nothing is on screen to show.
    case displayGone
    /// This machine cannot (no backlight; the backlight refused).
    case notSupported(String)
    /// The configuration file does not fit this build (its own errors
    /// name key and line).
    case configInvalid(String)

    public var description: String {
        switch self {
        case .unknownScene(let name): "no scene named '\(name)'; scenes: \(DaemonScenes.names.joined(separator: ", "))"
        case .unknownPattern(let error): error.description
        case .noFrameYet: "no frame has been shown yet"
        case .displayGone: "nothing is on screen: the display is disconnected (snapshots come back with it)"
        case .notSupported(let why), .configInvalid(let why): why
        }
    }
}

/// Something that happened, for subscribers of the control socket. Sent
/// from the loop's thread, at most a few a second (never per frame).
public enum DaemonEvent: Sendable, Equatable {
    case sceneChanged(scene: String, previous: String, transition: SceneTransition)
    case settingsChanged(RenderSettings, language: String, brightness: Int?)
    /// reason: "resized", "disconnected", "connected", "vt_away", "vt_back".
    case displayChanged(reason: String, output: String, width: Int, height: Int)
    case playbackChanged(paused: Bool)
    case powerChanged(PowerState)
    /// With the new [control] section (the server's limits).
    case configReloaded(file: String?, report: ReloadReport, control: ChakraConfig.Control)
    case spiralState(from: String, to: String)
    case spiralProgress(SpiralReport)
    /// The screen went on, dimmed or off (and why), or the hand took over
    /// or gave it back to the schedule.
    case displayPower(DisplayPowerStatus)
    /// One part of the display chain read back after powering (the CEC
    /// answer comes seconds after the rest).
    case displayChecked(DisplayPowerReport)
    /// The schedule moved to another window (or outside them).
    case scheduleChanged(ScheduleStatus)
    /// A breathing exercise ended (and its record was written, or not).
    case sessionFinished(SessionFinishedReport)
}

/// The frame on screen, copied: its memory and how to read it. Converting
/// and encoding happen off the loop's thread.
public struct FrameSnapshot: Sendable {
    public let frame: FrameBuffer
    /// The scene's rotation into the memory.
    public let rotation: Rotation

    /// 8-bit RGB, turned back to the scene's orientation (as a person
    /// in front of the panel sees it).
    public func rgb() -> PNGImage.RGB {
        FrameLoop.rgb(of: frame.pixels.rotated(rotation))
    }

    /// The frame as a PNG (8-bit RGB, as `rgb()`). An unrotated frame of
    /// 4-byte pixels is turned into RGB inside its own memory (each pixel's
    /// three bytes land at or before where it was read), so a 1920x1080
    /// snapshot needs no second 6 MB picture; the copy is spent after this.
    public func consumedIntoPNG() throws -> (width: Int, height: Int, png: [UInt8]) {
        let buffer = frame.pixels
        guard rotation == .none, buffer.format.bytesPerPixel == 4 else {
            let image = rgb()
            return (image.width, image.height, try PNGImage.encode(image, fast: true))
        }
        let rgb = buffer.base.assumingMemoryBound(to: UInt8.self)
        var target = 0
        for y in 0..<buffer.height {
            for x in 0..<buffer.width {
                let c = buffer.rgb(x: x, y: y)
                rgb[target] = c.x
                rgb[target + 1] = c.y
                rgb[target + 2] = c.z
                target += 3
            }
        }
        return (buffer.width, buffer.height, try PNGImage.encode(rgb: buffer.base, width: buffer.width, height: buffer.height, fast: true))
    }
}

/// The thread-safe door into the frame loop: any thread may `send` a
/// command (the loop polls the queue's mailbox) or read the `status`,
/// and listen to events. The loop drains the queue between frames. Lives
/// as long as the daemon.
public final class DaemonControl: Sendable {
    /// The commands sent and not yet taken; the loop polls its descriptor.
    let commands: Mailbox<[DaemonCommand]>
    private let published = Mutex(DaemonStatus())
    private let listeners = Mutex<[@Sendable (DaemonEvent) -> Void]>([])
    /// The frame count, the last frame and the last stall, as of the last
    /// frame presented (the loop stores them after each).
    let frames = LiveFrames()

    init() throws {
        commands = try Mailbox([])
    }

    public func send(_ command: DaemonCommand) {
        commands.post { $0.append(command) }
    }

    /// The status as last published: on every change, and every couple
    /// of seconds while animating.
    public var status: DaemonStatus { published.withLock { $0 } }

    /// The published status made true at `now` (monotonic) where it moves
    /// between publications: the frames (count, last frame, last stall) as
    /// the loop left them after its last presented frame, and the uptime.
    /// For `status` and `health`.
    public func status(at now: Double) -> DaemonStatus {
        var status = status
        // The loop stores the live copy before it publishes the status of
        // the same frame: it is never behind in the daemon (the newer wins).
        let live = frames.load()
        if live.presented >= status.frames.presented { status.frames = live }
        // Not before the first publication (nothing to count from).
        if status.publishedAt > 0, now > status.publishedAt {
            status.uptime += now - status.publishedAt
            status.publishedAt = now
        }
        return status
    }

    func publish(_ status: DaemonStatus) { published.withLock { $0 = status } }

    /// Calls `listener` with every event from now on, on the loop's thread:
    /// it must only hand the event on.
    public func onEvent(_ listener: @escaping @Sendable (DaemonEvent) -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    func emit(_ event: DaemonEvent) {
        for listener in listeners.withLock({ $0 }) { listener(event) }
    }

    /// Loop thread: the commands sent since the last call.
    func takeCommands() -> [DaemonCommand] {
        commands.take { commands in
            defer { commands.removeAll(keepingCapacity: true) }
            return commands
        }
    }
}
