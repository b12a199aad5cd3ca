import ChakraConfig
import ChakraControl
import ChakraControlServer
import ChakraDisplay
import ChakraInput
import ChakraPNG
import ChakraScenes
import ChakraSessions
import ChakraSchedule
import ChakraSystem
import FoundationEssentials

/// The daemon's side of the control protocol: turns requests into
/// `DaemonCommand`s for the frame loop, or answers them from the published
/// status, and turns the loop's events into protocol events.
///
/// Called on the server's thread and must not block it: what needs the
/// loop is sent and answered when the loop replies; what is slow
/// (a PNG, reading the configuration files) runs on a lane of its own
/// (`SnapshotTaker`, `ConfigReader`).
/// Nothing here writes a file.
public final class ControlService: ControlHandler {
    private let control: DaemonControl
    private let configReader: ConfigReader
    private let logger: Logger
    /// Snapshots one at a time, shared by the clients waiting for one.
    private let snapshots: SnapshotTaker

    /// The server's limits from [control].
    public static func limits(_ settings: ChakraConfig.Control) -> ServerLimits {
        ServerLimits(maxClients: settings.maxClients, maxLine: settings.maxLine, idleTimeout: settings.idleTimeout)
    }

    /// The session records `stats` reads (nil: not kept, or the thread
    /// could not start), and the file configured at start.
    private let sessions: SessionRecorder?
    private let sessionsFile: String?

    public init(control: DaemonControl, configReader: ConfigReader, sessions: SessionRecorder? = nil, sessionsFile: String? = nil,
                logger: Logger) {
        (self.control, self.configReader, self.logger) = (control, configReader, logger)
        (self.sessions, self.sessionsFile) = (sessions, sessionsFile)
        snapshots = SnapshotTaker { [control] in Self.takeSnapshot(control) }
    }

    /// Forwards the loop's events to `server`'s subscribers, and new limits
    /// after a reload.
    public func connect(_ server: ControlServer) {
        control.onEvent { event in
            server.publish(Self.event(event))
            if case .configReloaded(_, _, let settings) = event {
                server.update(Self.limits(settings))
            }
        }
    }

    public func handle(_ request: ControlRequest, context: RequestContext,
                       reply: @escaping @Sendable (Result<JSONValue, ControlError>) -> Void) {
        switch request.command {
        case .ping:
            reply(.success(PongReply().json))
        case .version:
            reply(.success(VersionReply().json))
        case .status:
            reply(.success(Self.statusReply(control.status(at: MonotonicClock.now()), clients: context.clients).json))
        case .scenes:
            reply(.success(ScenesReply(scenes: DaemonScenes.names, current: control.status.scene).json))
        case .switchScene(let request):
            switchScene(request, reply: reply)
        case .set(let setting):
            set(setting, reply: reply)
        case .get(let key):
            reply(get(key))
        case .reload:
            reload(reply: reply)
        case .pause, .resume:
            let paused = request.command == .pause
            control.send(.playback(paused: paused) { result in reply(result.map { PlaybackState(paused: paused).json }.mapError(Self.error)) })
        case .snapshot:
            snapshots.request(isWanted: { context.isConnected }, reply: reply)
        case .wake:
            control.send(.activity { result in reply(result.map { PowerLevel(power: $0.rawValue).json }.mapError(Self.error)) })
        case .spiral(let action, let pattern):
            control.send(.spiral(action, pattern: pattern) { result in
                reply(result.map { Self.spiralProgress($0).json }.mapError(Self.error))
            })
        case .display(let mode):
            control.send(.display(mode) { [control] result in
                reply(result.map { Self.displayState(control.status.display).json }.mapError(Self.error))
            })
        case .health:
            let now = MonotonicClock.now()
            reply(.success(Self.healthReply(DaemonHealth.evaluate(control.status(at: now), now: now)).json))
        case .touch(let touch):
            let event = Self.touchEvent(touch, time: MonotonicClock.now())
            control.send(.touch(event) { result in
                reply(result.map { TouchReply(phase: touch.phase.rawValue, contact: touch.contact).json }.mapError(Self.error))
            })
        case .stats(let query):
            reply(stats(query).map(\.json))
        case .schedule:
            control.send(.schedulePlan { result in reply(result.map { Self.scheduleReply($0).json }.mapError(Self.error)) })
        case .subscribe, .unsubscribe:
            reply(.failure(ControlError(.internal, "subscriptions are the server's")))
        }
    }

    // MARK: commands

    /// A `touch` request as a touchscreen's contact. Its ids are negative
    /// (-1 for contact 0), so they never meet a touchscreen's, which count
    /// up from 0.
    static func touchEvent(_ touch: TouchRequest, time: Double) -> TouchContactEvent {
        let phase: TouchPhase = switch touch.phase {
        case .down: .down
        case .move: .move
        case .up: .up
        case .cancel: .cancel
        }
        return TouchContactEvent(phase: phase, id: -1 - touch.contact, x: touch.x ?? 0, y: touch.y ?? 0, time: time,
                                 deviceX: 0, deviceY: 0, device: -1)
    }

    private func switchScene(_ request: SceneSwitch, reply: @escaping @Sendable (Result<JSONValue, ControlError>) -> Void) {
        guard DaemonScenes.names.contains(request.scene) else {
            return reply(.failure(Self.error(.unknownScene(request.scene))))
        }
        control.send(.switchScene(request) { result in
            reply(result.map { done in
                Self.sceneChange(scene: done.scene, previous: done.previous, transition: done.transition).json
            }.mapError(Self.error))
        })
    }

    private func set(_ setting: Setting, reply: @escaping @Sendable (Result<JSONValue, ControlError>) -> Void) {
        let change: SettingChange
        switch setting {
        case .reduceMotion(let on): change = .reduceMotion(on)
        case .lowPower(let on): change = .lowPower(on)
        case .brightness(let percent): change = .brightness(percent)
        case .language(let code):
            guard LanguageCode.isValid(code) else {
                return reply(.failure(ControlError(.badArgument, "'\(code)': \(LanguageCode.rule)")))
            }
            change = .language(code)
        }
        control.send(.change(change) { [control] result in
            reply(result.map { Self.settingsState(control.status).json }.mapError(Self.error))
        })
    }

    private func get(_ key: String) -> Result<JSONValue, ControlError> {
        let config = control.status.configuration
        guard let values = config.values(for: key) else {
            let hint = ConfigParser.closestKey(to: key).map { "; did you mean \($0)?" } ?? ""
            return .failure(ControlError(.unknownKey, "no configuration key or section '\(Excerpt.text(key))'\(hint) (keys as in chakra.toml, e.g. low_power.fps)"))
        }
        if values.count == 1, values[0].key == key { return .success(GetReply(key: key, value: Self.json(values[0].value)).json) }
        // A section: its keys, each without the section's name.
        var fields: [String: JSONValue] = [:]
        for (full, value) in values { fields[String(full.dropFirst(key.count + 1))] = Self.json(value) }
        return .success(GetReply(key: key, value: .object(fields)).json)
    }

    /// The files are read by the reader, not here (this thread serves every
    /// client); the loop applies them, or counts and answers their errors:
    /// a refusal is counted in one place whichever way the reload came. An
    /// invalid file changes nothing. A read not done within 10 s is
    /// answered `unavailable`, and its late result dropped.
    private func reload(reply: @escaping @Sendable (Result<JSONValue, ControlError>) -> Void) {
        configReader.read { [control] outcome in
            let loaded: LoadedConfig
            switch outcome {
            case .overdue(let overdue):
                return reply(.failure(ControlError(.unavailable, overdue.description)))
            case .read(.failure(let error)):
                return control.send(.refuseConfiguration(error) { result in reply(result.map { _ in .null }.mapError(Self.error)) })
            case .read(.success(let read)):
                loaded = read
            }
            let file = loaded.file
            control.send(.applyConfiguration(loaded) { result in
                reply(result.map { report in
                    ReloadReply(file: file, changed: report.changed, restartNeeded: report.restartNeeded,
                                ignored: report.ignored, warnings: report.warnings).json
                }.mapError(Self.error))
            })
        }
    }

    /// The loop copies the frame; the copy is converted and encoded on
    /// the snapshot taker's thread. The PNG travels in the reply: no file
    /// is written on the daemon's side.
    private static func takeSnapshot(_ control: DaemonControl) -> Result<JSONValue, ControlError> {
        let answer: ReplySlot<Result<FrameSnapshot, DaemonCommandError>>
        do { answer = try ReplySlot() } catch {
            return .failure(ControlError(.internal, "\(error)"))
        }
        control.send(.snapshotFrame { outcome in answer.give(outcome) })
        guard let outcome = answer.wait(timeout: 10) else {
            return .failure(ControlError(.unavailable, "the frame loop did not answer within 10 s"))
        }
        switch outcome {
        case .failure(let error):
            return .failure(Self.error(error))
        case .success(let frame):
            do {
                let image = try frame.consumedIntoPNG()
                return .success(SnapshotReply(width: image.width, height: image.height, png: Data(image.png).base64EncodedString()).json)
            } catch {
                return .failure(ControlError(.internal, "\(error)"))
            }
        }
    }
}

// MARK: replies and events

/// The daemon's values as the protocol's typed replies and events
/// (ChakraControl, Replies.swift and Events.swift, spell their keys):
/// what is rounded for the wire is rounded here.
extension ControlService {
    static func error(_ error: DaemonCommandError) -> ControlError {
        switch error {
        case .unknownScene: ControlError(.unknownScene, error.description)
        case .unknownPattern: ControlError(.unknownPattern, error.description)
        case .noFrameYet, .displayGone: ControlError(.noFrame, error.description)
        case .notSupported: ControlError(.notSupported, error.description)
        case .configInvalid: ControlError(.configInvalid, error.description)
        }
    }

    static func json(_ value: ConfigValue) -> JSONValue {
        switch value {
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .array(let items): .array(items.map(json))
        case .other(let kind): .string(kind)
        }
    }

    static func settingsState(_ status: DaemonStatus) -> SettingsState {
        SettingsState(reduceMotion: status.settings.reduceMotion, lowPower: status.settings.lowPower,
                      language: status.language, brightness: status.brightness)
    }

    static func sceneChange(scene: String, previous: String, transition: SceneTransition) -> SceneSwitched {
        SceneSwitched(scene: scene, previous: previous, transition: transition.kind.rawValue, duration: transition.duration)
    }

    /// `status`'s fields from `status` as given (`DaemonControl.status(at:)`
    /// makes the frames and the uptime those of the moment asked).
    static func statusReply(_ status: DaemonStatus, clients: Int) -> StatusReply {
        var reply = StatusReply()
        reply.scene = status.scene
        reply.paused = status.paused
        reply.still = status.still
        reply.output = status.outputKind
        reply.outputSummary = status.output
        reply.device = status.device
        reply.mode = status.mode
        (reply.width, reply.height, reply.rotation) = (status.width, status.height, status.rotation)
        reply.fps = StatusReply.Rate(target: round2(status.fpsTarget), actual: round2(status.fps))
        reply.frameTimes = timings(status.frameTimes)
        let sessions = status.sessions
        reply.sessions = StatusReply.Sessions(started: sessions.started, completed: sessions.completed, abandoned: sessions.abandoned,
                                              recorded: sessions.recorded, breathedSeconds: round2(sessions.breathedSeconds))
        for kind in ErrorKind.allCases { reply.errors[kind.rawValue] = status.errors[kind] }
        reply.frames = status.frames.presented
        reply.vtActive = status.vtActive
        reply.backlight = status.backlight
        reply.power = status.power.rawValue
        reply.schedule = status.schedule.map(scheduleNow)
        reply.uptime = round2(status.uptime)
        reply.clients = clients
        reply.inputDevices = status.inputDevices
        reply.touchLatency = timings(status.touchLatency)
        reply.spiral = status.spiral.map(spiralProgress)
        reply.configFile = status.configFile
        reply.configFiles = status.configFiles
        reply.version = ChakraVersion.current
        reply.settings = settingsState(status)
        reply.display = displayState(status.display)
        reply.start = status.start
        return reply
    }

    private static func timings(_ summary: FrameTimes.Summary) -> StatusReply.Timings {
        StatusReply.Timings(median: round2(summary.median), p99: round2(summary.p99), samples: summary.samples)
    }

    /// The screen's fields (flat in `status`, the `display` reply and the
    /// `display_power` event alike).
    static func displayState(_ display: DisplayPowerStatus) -> DisplayState {
        var state = DisplayState()
        state.power = display.screen.power.rawValue
        state.reason = display.screen.reason?.rawValue ?? ""
        state.mode = display.mode.rawValue
        state.until = display.until
        state.summary = display.summary
        state.check = display.check
        state.checkDetail = display.checkDetail
        return state
    }

    static func scheduleNow(_ schedule: ScheduleStatus) -> ScheduleNow {
        ScheduleNow(action: schedule.action, window: schedule.window, nextChange: schedule.nextChange, nextAction: schedule.nextAction)
    }

    static func scheduleReply(_ plan: SchedulePlanReport) -> ScheduleReply {
        var reply = ScheduleReply()
        (reply.date, reply.weekday, reply.outside) = (plan.date, plan.weekday, plan.outside)
        reply.runs = plan.runs.map { run in
            ScheduleReply.Run(start: run.start, end: run.end, startClock: run.startClock, endClock: run.endClock,
                              action: run.action, window: run.window)
        }
        reply.now = plan.now.map(scheduleNow)
        reply.display = displayState(plan.display)
        return reply
    }

    static func healthReply(_ health: DaemonHealth) -> HealthReply {
        HealthReply(healthy: health.healthy, reason: health.reason, lastFrameAge: health.lastFrameAge.map(round2))
    }

    static func displayCheck(_ report: DisplayPowerReport) -> DisplayCheck {
        DisplayCheck(part: report.part, on: report.on, method: report.method, check: report.check.kind, detail: report.check.detail)
    }

    private static func round2(_ value: Double) -> Double { (value * 100).rounded() / 100 }

    static func spiralProgress(_ report: SpiralReport) -> SpiralProgress {
        var progress = SpiralProgress()
        progress.state = report.state
        progress.progress = (report.progress * 10_000).rounded() / 10_000
        progress.holdRemaining = round2(report.holdRemaining)
        progress.head = SpiralProgress.Point(x: round2(report.headX), y: round2(report.headY))
        progress.touching = report.touching
        progress.needsResume = report.needsResume
        progress.pattern = report.pattern
        progress.phase = report.phase
        progress.points = report.points.map { points in points.map { $0.map(round2) } }
        return progress
    }

    static func event(_ event: DaemonEvent) -> ControlEvent {
        ControlEvent(payload(event))
    }

    static func payload(_ event: DaemonEvent) -> EventPayload {
        switch event {
        case .sceneChanged(let scene, let previous, let transition):
            .sceneChanged(sceneChange(scene: scene, previous: previous, transition: transition))
        case .settingsChanged(let settings, let language, let brightness):
            .settingsChanged(SettingsState(reduceMotion: settings.reduceMotion, lowPower: settings.lowPower,
                                           language: language, brightness: brightness))
        case .displayChanged(let reason, let output, let width, let height):
            .displayChanged(DisplayChange(reason: reason, outputSummary: output, width: width, height: height))
        case .playbackChanged(let paused):
            .playbackChanged(PlaybackState(paused: paused))
        case .powerChanged(let state):
            .powerChanged(PowerLevel(power: state.rawValue))
        case .configReloaded(let file, let report, _):
            .configReloaded(ConfigReloaded(file: file, changed: report.changed, restartNeeded: report.restartNeeded))
        case .spiralState(let from, let to):
            .spiralState(SpiralStateChange(from: from, to: to))
        case .spiralProgress(let report):
            .spiralProgress(spiralProgress(report))
        case .displayPower(let display):
            .displayPower(displayState(display))
        case .displayChecked(let report):
            .displayCheck(displayCheck(report))
        case .scheduleChanged(let schedule):
            .scheduleChanged(scheduleNow(schedule))
        case .sessionFinished(let report):
            .sessionFinished(sessionFinished(report))
        }
    }
}

extension ControlService {
    /// `stats`: from the history the recorder keeps (the file is not read).
    func stats(_ query: StatsQuery) -> Result<StatsReply, ControlError> {
        let since = query.since.map { CalendarDate(year: $0.year, month: $0.month, day: $0.day) }
        var reply = StatsReply()
        (reply.file, reply.recording, reply.since) = (sessionsFile, sessionsFile != nil, since.map { "\($0)" })
        var history = SessionHistory()
        switch sessions?.contents {
        case nil:
            if sessionsFile != nil { reply.problem = "the session recorder could not be started (see the journal)" }
        case .loading?:
            return .failure(ControlError(.notSupported, "the session records are still being read; ask again in a moment"))
        case .failed(let problem)?:
            reply.problem = problem
        case .ready(let kept, let damaged)?:
            history = kept
            reply.damaged = damaged
        }
        let report = history.report(since: since)
        reply.firstDay = history.firstDay.map { "\($0)" }
        reply.total = Self.statsCounts(report.totals)
        reply.days = report.days.map { StatsReply.Day(date: "\($0.date)", counts: Self.statsCounts($0.stats)) }
        reply.patterns = report.totals.patterns
        return .success(reply)
    }

    /// `minutes_breathed` unrounded: whoever shows it rounds it, once (a
    /// value rounded here and again there, 0.446 → 0.45 → 0.5, is wrong).
    static func statsCounts(_ stats: SessionStats) -> StatsReply.Counts {
        StatsReply.Counts(started: stats.started, completed: stats.completed, abandoned: stats.abandoned,
                          completionRate: stats.completionRate.map { (($0 * 10_000).rounded()) / 10_000 },
                          minutesBreathed: stats.breathedSeconds / 60)
    }

    static func sessionFinished(_ report: SessionFinishedReport) -> SessionFinished {
        let r = report.record
        var session = SessionFinished()
        (session.outcome, session.ending, session.pattern) = (r.outcome.rawValue, r.ending, r.pattern)
        (session.startedAt, session.duration) = (report.startedAt, round2(r.duration))
        (session.breathedSeconds, session.holdSeconds) = (round2(r.breathedSeconds), round2(r.holdSeconds))
        (session.lifts, session.furthestState) = (r.lifts, r.furthestState)
        (session.recorded, session.error) = (report.recorded, report.error)
        return session
    }
}
