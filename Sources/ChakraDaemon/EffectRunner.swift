import ChakraConfig
import ChakraContinuity
import ChakraControl
import ChakraDisplay
import ChakraInput
import ChakraScenes
import ChakraSessions
import ChakraSystem

// The shell's outputs, as the effects reach them: small enough that a
// test fakes each in a few lines and drives the very switch the daemon runs.

/// Where frames go: drawn into the output's memory, presented, let go of
/// and taken back with the VT.
protocol FrameDisplay: AnyObject {
    func draw(_ plan: FramePlan)
    /// The frame on screen now (a headless output), or nil: a flip
    /// completes later (`DisplayOutput.handleReadable`).
    func present() -> Presentation?
    func suspend()
    func resume()
}

/// A part of the display chain that powers down and up at once, and reads
/// its state back: the output, the backlight.
protocol DisplayPowerPart: AnyObject {
    func setPower(on: Bool) -> DisplayPowerReport
}

/// A part that is asked and answers later (the TV over CEC).
protocol DisplayPowerRequest: AnyObject {
    func request(on: Bool)
}

/// The backlight's level (idle dimming).
protocol BacklightLevel: AnyObject {
    func set(percent: Int) throws
}

protocol HapticCues: AnyObject {
    func tick()
    func beat()
}

/// The control side: the shared status, events to subscribers, and the
/// frames on screen as `health` reads them between publications.
protocol StatusChannel: AnyObject {
    func publish(_ status: DaemonStatus)
    func emit(_ event: DaemonEvent)
    func framesPresented(_ progress: FrameProgress)
}

/// Answers to requests (each reply is the request's own closure).
protocol ReplyOutput: AnyObject {
    func answer(_ reply: @Sendable () -> Void)
}

/// systemd's notifications (READY=, WATCHDOG=, STATUS=).
protocol NotifyOutput: AnyObject {
    func notify(_ message: NotifyMessage)
}

/// Files that show the status to others: the statistics file and the
/// metrics textfile.
protocol StatusFiles: AnyObject {
    func writeStats(_ status: DaemonStatus)
    func writeMetrics(_ status: DaemonStatus, into directory: String)
}

/// The session log: records written off the loop; the outcome comes back
/// later as `.sessionRecorded`.
protocol SessionRecords: AnyObject {
    func record(_ record: SessionRecord)
    func update(_ settings: ChakraConfig.Sessions)
}

/// Where the continuation record is kept for the next process
/// (`ContinuationStore`); a failure is the keeper's to log.
protocol ContinuationOutput: AnyObject {
    func save(_ record: ContinuationRecord)
}

/// Everything the effects reach; nil where the machine has none.
struct ShellOutputs {
    var display: FrameDisplay
    /// Powered down and up in this order, each read back at once.
    var powerParts: [DisplayPowerPart]
    var powerRequest: DisplayPowerRequest?
    var backlight: BacklightLevel?
    var haptics: HapticCues?
    var status: StatusChannel
    var replies: ReplyOutput
    var notifier: NotifyOutput?
    var files: StatusFiles
    var sessions: SessionRecords?
    /// nil without systemd's store: nothing is kept.
    var continuation: ContinuationOutput? = nil
}

/// Carries out what the core asks (`DaemonEffect`) on the shell's outputs,
/// and hands the core what comes of it (a frame drawn and presented, the
/// display's read-back). `FrameLoop` runs it on the real devices; the tests
/// on fakes, on virtual time (`clock`).
final class EffectRunner {
    let core: DaemonCore
    let outputs: ShellOutputs
    /// Monotonic now: the real clock in the daemon, virtual time in tests.
    private let clock: () -> Double
    private let logger: Logger
    /// The touchscreens let go of (true) or taken back with the VT.
    var touchesAway: ((Bool) -> Void)?

    init(core: DaemonCore, outputs: ShellOutputs, clock: @escaping () -> Double, logger: Logger) {
        (self.core, self.outputs, self.clock, self.logger) = (core, outputs, clock, logger)
    }

    /// Hands `input` to the core and carries out what it asks.
    func send(_ input: DaemonInput, at time: Double) {
        core.send(input, at: time)
        drain()
    }

    /// Carries out every effect queued (those carrying one out causes too).
    func drain() {
        while let effect = core.nextEffect() { perform(effect) }
    }

    private func perform(_ effect: DaemonEffect) {
        switch effect {
        case .draw(let plan):
            let start = clock()
            outputs.display.draw(plan)
            let drawn = clock()
            core.send(.drawn(seconds: drawn - start), at: drawn)
            if let presentation = outputs.display.present() { presented(presentation) }
        case .setBacklight(let percent):
            do {
                try outputs.backlight?.set(percent: percent)
            } catch {
                logger.warning("\(error)")
            }
        case .haptic(.tick):
            outputs.haptics?.tick()
        case .haptic(.beat):
            outputs.haptics?.beat()
        case .suspendOutput:
            outputs.display.suspend()
            touchesAway?(true)
        case .resumeOutput:
            outputs.display.resume()
            touchesAway?(false)
        case .displayPower(let on):
            // Each part powered and read back; the TV's answer comes later.
            outputs.powerRequest?.request(on: on)
            let now = clock()
            for part in outputs.powerParts { core.send(.displayPowerChecked(part.setPower(on: on)), at: now) }
        case .publish(let notify):
            let status = core.status()
            outputs.status.publish(status)
            if notify { outputs.notifier?.notify(.status(status.line)) }
            outputs.files.writeStats(status)
        case .event(let event):
            if case .configReloaded = event { outputs.sessions?.update(core.configuration.config.sessions) }
            outputs.status.emit(event)
        case .reply(let answer):
            outputs.replies.answer(answer)
        case .notify(let message):
            outputs.notifier?.notify(message)
        case .writeMetrics(let directory):
            outputs.files.writeMetrics(core.status(), into: directory)
        case .saveContinuation(let record):
            outputs.continuation?.save(record)
        case .recordSession(let record):
            if let sessions = outputs.sessions {
                sessions.record(record)
            } else {
                core.send(.sessionRecorded(record, error: "sessions are not recorded ([sessions] file is empty)"), at: clock())
            }
        }
    }

    /// A frame is on screen: the core hears it, and the control side's
    /// copy of the frames follows at once (a few atomic stores), so
    /// `status` and `health` never wait for the next publication.
    func presented(_ presentation: Presentation) {
        core.send(.presented(presentation), at: clock())
        outputs.status.framesPresented(core.frameProgress)
    }
}
