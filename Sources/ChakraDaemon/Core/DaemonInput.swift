import ChakraContinuity
import ChakraConfig
import ChakraDisplay
import ChakraInput
import ChakraSessions
import ChakraSpiral
import ChakraSystem

/// Everything that can happen to the daemon, as the core sees it: each is
/// handed to `DaemonCore` with the monotonic time it happened at. The shell
/// (`FrameLoop`) turns system events into these.
public enum DaemonInput {
    /// A request from the control socket (snapshots excepted: the shell
    /// answers those from the output's memory).
    case command(DaemonCommand)
    /// A touch; the shell hands it in at its kernel time (no later than
    /// now), and one older than the core's time is applied at that time.
    case touch(TouchContactEvent)
    /// SIGTERM, SIGINT or `stop`: the loop ends.
    case stop
    /// The VT was switched away (false) or back (true).
    case terminal(inFront: Bool)
    /// The output's facts changed (its size, readiness, a display plugged
    /// in or out).
    case display(DisplayFacts)
    /// The output lost its picture (reconnect, recovery): draw again.
    case redrawRequested
    /// The frame of the last `.draw` took this long to draw (seconds).
    case drawn(seconds: Double)
    /// A frame is on screen.
    case presented(Presentation)
    /// The touchscreens in use changed.
    case inputDevices([String])
    /// The wall clock against the monotonic one (wall minus monotonic, in
    /// seconds): at start, and whenever the wall clock was set (an NTP
    /// step, a date set by hand, a resume). The schedule is evaluated again.
    case wallClock(offset: Double)
    /// What one part of the display chain did on `.displayPower`, read
    /// back (the CEC answer comes later than the rest).
    case displayPowerChecked(DisplayPowerReport)
    /// Time passed: a deadline (`nextDeadline`) or a loop turn. `outputReady`:
    /// a frame can be drawn and presented now (no flip outstanding).
    case tick(outputReady: Bool)
    /// What became of a `.recordSession`: on the disk (error nil), or not.
    case sessionRecorded(SessionRecord, error: String?)
}

/// What the core asks the shell to do, in order.
public enum DaemonEffect {
    /// Draw `plan` into the output's draw buffer and present it; then tell
    /// the core `.drawn` and, when on screen, `.presented`.
    case draw(FramePlan)
    /// The backlight at this percent (idle dimming; a failure is logged).
    case setBacklight(Int)
    case haptic(HapticCue)
    /// Let go of the screen and the touchscreens (VT switched away), or take
    /// them back.
    case suspendOutput
    case resumeOutput
    /// Power the display down (the CRTC inactive, the framebuffer blanked,
    /// the backlight's bl_power, the TV's standby over CEC) or up again;
    /// each part's read-back comes back as `.displayPowerChecked`.
    case displayPower(on: Bool)
    /// The shared status and the statistics file (with `notify`, systemd's
    /// STATUS= too), as `DaemonCore.status()` says when this is carried
    /// out: a publish queued before the read-back of a `.displayPower` it
    /// follows (a `display off` and its reply) shows that read-back.
    case publish(notify: Bool)
    case event(DaemonEvent)
    /// Answer a request (after the status that shows its change).
    case reply(@Sendable () -> Void)
    case notify(NotifyMessage)
    /// Write the metrics file (`MetricsText` of `DaemonStatus.status()`)
    /// into `directory`: every `[metrics] interval` seconds, whatever the
    /// screen does, only while `[metrics] textfile_directory` is set.
    case writeMetrics(directory: String)
    /// Append this session record to the log (`SessionRecorder`); the
    /// outcome comes back as `.sessionRecorded`.
    case recordSession(SessionRecord)
    /// Keep this record for the next process (`ContinuationStore.save`:
    /// the memory file in systemd's store); a failure is logged. Asked
    /// for only while `DaemonCore.keepsContinuation`.
    case saveContinuation(ContinuationRecord)
}

/// What the core needs to know about the output, kept up to date by the
/// shell (`.display`).
public struct DisplayFacts: Sendable, Equatable {
    public var summary: String
    /// The screen's memory size (before rotation).
    public var width: Int, height: Int
    public var refreshInterval: Double?
    public var vblankTimed: Bool
    /// The display is unplugged and the output waits for it.
    public var waitingForDisplay: Bool

    public init(summary: String, width: Int, height: Int, refreshInterval: Double? = nil, vblankTimed: Bool = false,
                waitingForDisplay: Bool = false) {
        (self.summary, self.width, self.height, self.refreshInterval) = (summary, width, height, refreshInterval)
        (self.vblankTimed, self.waitingForDisplay) = (vblankTimed, waitingForDisplay)
    }

    public init(_ output: DisplayOutput) {
        self.init(summary: output.summary, width: output.width, height: output.height, refreshInterval: output.refreshInterval,
                  vblankTimed: output.isVBlankTimed, waitingForDisplay: output.isWaitingForDisplay)
    }

    /// Whether `output` may differ from these facts, from its cheap fields
    /// (its summary is built only when one of them moved).
    public func mayDiffer(from output: DisplayOutput) -> Bool {
        output.width != width || output.height != height || output.isWaitingForDisplay != waitingForDisplay
            || output.refreshInterval != refreshInterval || output.isVBlankTimed != vblankTimed
    }
}

/// The backlight as the core uses it: `set brightness` answers with the
/// write's outcome, so this one is called, not an effect.
public protocol BacklightPort: AnyObject {
    var name: String { get }
    /// The level now, in percent, if readable.
    var percent: Int? { get }
    func set(percent: Int) throws
}
