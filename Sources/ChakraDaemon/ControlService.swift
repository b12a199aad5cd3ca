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
            reply(.success(["pong": true]))
        case .version:
            reply(.success(["version": .string(ChakraVersion.current), "protocol": .int(ControlProtocol.version), "daemon": "chakrad"]))
        case .status:
            reply(.success(Self.statusJSON(control.status(at: MonotonicClock.now()), clients: context.clients)))
        case .scenes:
            reply(.success(["scenes": .array(DaemonScenes.names.map { .string($0) }), "current": .string(control.status.scene)]))
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
            control.send(.playback(paused: paused) { result in reply(result.map { ["paused": .bool(paused)] }.mapError(Self.error)) })
        case .snapshot:
            snapshots.request(isWanted: { context.isConnected }, reply: reply)
        case .wake:
            control.send(.activity { result in reply(result.map { ["power": .string($0.rawValue)] }.mapError(Self.error)) })
        case .spiral(let action, let pattern):
            control.send(.spiral(action, pattern: pattern) { result in
                reply(result.map { Self.spiralJSON($0) }.mapError(Self.error))
            })
        case .display(let mode):
            control.send(.display(mode) { [control] result in
                reply(result.map { Self.displayJSON(control.status.display) }.mapError(Self.error))
            })
        case .health:
            let now = MonotonicClock.now()
            reply(.success(Self.healthJSON(DaemonHealth.evaluate(control.status(at: now), now: now))))
        case .touch(let touch):
            let event = Self.touchEvent(touch, time: MonotonicClock.now())
            control.send(.touch(event) { result in
                reply(result.map { ["phase": .string(touch.phase.rawValue), "contact": .int(touch.contact)] }.mapError(Self.error))
            })
        case .stats(let query):
            reply(stats(query))
        case .schedule:
            control.send(.schedulePlan { result in reply(result.map(Self.scheduleJSON).mapError(Self.error)) })
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
                ["scene": .string(done.scene), "previous": .string(done.previous),
                 "transition": .string(done.transition.kind.rawValue), "duration": .double(done.transition.duration)]
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
            reply(result.map { Self.settingsJSON(control.status) }.mapError(Self.error))
        })
    }

    private func get(_ key: String) -> Result<JSONValue, ControlError> {
        let config = control.status.configuration
        guard let values = config.values(for: key) else {
            let hint = ConfigParser.closestKey(to: key).map { "; did you mean \($0)?" } ?? ""
            return .failure(ControlError(.unknownKey, "no configuration key or section '\(Excerpt.text(key))'\(hint) (keys as in chakra.toml, e.g. low_power.fps)"))
        }
        if values.count == 1, values[0].key == key { return .success(["key": .string(key), "value": Self.json(values[0].value)]) }
        var fields: [String: JSONValue] = [:]
        for (full, value) in values { fields[String(full.dropFirst(key.count + 1))] = Self.json(value) }
        return .success(["key": .string(key), "value": .object(fields)])
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
                    ["file": file.map { .string($0) } ?? .null,
                     "changed": .array(report.changed.map { .string($0) }),
                     "restart_needed": .array(report.restartNeeded.map { .string($0) }),
                     "ignored": .array(report.ignored.map { .string($0) }),
                     "warnings": .array(report.warnings.map { .string($0) })]
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
                return .success(["format": "png", "width": .int(image.width), "height": .int(image.height),
                                 "png": .string(Data(image.png).base64EncodedString())])
            } catch {
                return .failure(ControlError(.internal, "\(error)"))
            }
        }
    }
}

// MARK: JSON

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

    static func settingsJSON(_ status: DaemonStatus) -> JSONValue {
        ["reduce_motion": .bool(status.settings.reduceMotion), "low_power": .bool(status.settings.lowPower),
         "language": .string(status.language), "brightness": status.brightness.map { .int($0) } ?? .null]
    }

    /// `status`'s fields from `status` as given (`DaemonControl.status(at:)`
    /// makes the frames and the uptime those of the moment asked).
    static func statusJSON(_ status: DaemonStatus, clients: Int) -> JSONValue {
        var fields: [String: JSONValue] = [
            "scene": .string(status.scene),
            "paused": .bool(status.paused),
            "still": .bool(status.still),
            "output": .string(status.outputKind),
            "output_summary": .string(status.output),
            "device": status.device.map { .string($0) } ?? .null,
            "mode": .string(status.mode),
            "width": .int(status.width),
            "height": .int(status.height),
            "rotation": .int(status.rotation),
            "fps": ["target": .double(round2(status.fpsTarget)), "actual": .double(round2(status.fps))],
            "frame_ms": ["median": .double(round2(status.frameTimes.median)), "p99": .double(round2(status.frameTimes.p99)),
                         "samples": .int(status.frameTimes.samples)],
            "sessions": ["started": .int(status.sessions.started), "completed": .int(status.sessions.completed),
                         "abandoned": .int(status.sessions.abandoned), "recorded": .int(status.sessions.recorded),
                         "breathed_seconds": .double(round2(status.sessions.breathedSeconds))],
            "errors": .object(Dictionary(uniqueKeysWithValues: ErrorKind.allCases.map { ($0.rawValue, JSONValue.int(status.errors[$0])) })),
            "frames": .int(status.frames.presented),
            "vt_active": .bool(status.vtActive),
            "backlight": status.backlight.map { .string($0) } ?? .null,
            "power": .string(status.power.rawValue),
            "schedule": status.schedule.map(scheduleStatusJSON) ?? .null,
            "uptime": .double(round2(status.uptime)),
            "clients": .int(clients),
            "input_devices": .array(status.inputDevices.map { .string($0) }),
            "touch_latency_ms": ["median": .double(round2(status.touchLatency.median)), "p99": .double(round2(status.touchLatency.p99)),
                                 "samples": .int(status.touchLatency.samples)],
            "spiral": status.spiral.map(spiralJSON) ?? .null,
            "config_file": status.configFile.map { .string($0) } ?? .null,
            "config_files": .array(status.configFiles.map { .string($0) }),
            "version": .string(ChakraVersion.current),
        ]
        if case .object(let settings) = settingsJSON(status) { fields.merge(settings) { _, new in new } }
        if case .object(let display) = displayJSON(status.display) { fields.merge(display) { _, new in new } }
        return .object(fields)
    }

    /// The screen's fields, flat (in `status`, the `display` reply and the
    /// `display_power` event alike).
    static func displayJSON(_ display: DisplayPowerStatus) -> JSONValue {
        ["display_power": .string(display.screen.power.rawValue),
         "display_reason": .string(display.screen.reason?.rawValue ?? ""),
         "display_mode": .string(display.mode.rawValue),
         "display_until": display.until.map { .string($0) } ?? .null,
         "display_summary": .string(display.summary),
         "display_check": .string(display.check),
         "display_check_detail": .string(display.checkDetail)]
    }

    static func scheduleStatusJSON(_ schedule: ScheduleStatus) -> JSONValue {
        ["action": .string(schedule.action), "window": .string(schedule.window),
         "next_change": schedule.nextChange.map { .string($0) } ?? .null,
         "next_action": schedule.nextAction.map { .string($0) } ?? .null]
    }

    static func scheduleJSON(_ plan: SchedulePlanReport) -> JSONValue {
        var fields: [String: JSONValue] = [
            "date": .string(plan.date), "weekday": .string(plan.weekday), "outside": .string(plan.outside),
            "runs": .array(plan.runs.map { run in
                ["start": .string(run.start), "end": .string(run.end), "start_clock": .string(run.startClock),
                 "end_clock": .string(run.endClock), "action": .string(run.action), "window": .string(run.window)]
            }),
            "now": plan.now.map(scheduleStatusJSON) ?? .null,
        ]
        if case .object(let display) = displayJSON(plan.display) { fields.merge(display) { _, new in new } }
        return .object(fields)
    }

    static func healthJSON(_ health: DaemonHealth) -> JSONValue {
        ["healthy": .bool(health.healthy), "reason": .string(health.reason),
         "last_frame_age": health.lastFrameAge.map { .double(round2($0)) } ?? .null]
    }

    static func displayCheckJSON(_ report: DisplayPowerReport) -> JSONValue {
        ["part": .string(report.part), "on": .bool(report.on), "method": .string(report.method),
         "check": .string(report.check.kind), "detail": .string(report.check.detail)]
    }

    private static func round2(_ value: Double) -> Double { (value * 100).rounded() / 100 }

    static func spiralJSON(_ report: SpiralReport) -> JSONValue {
        var fields: [String: JSONValue] = [
            "state": .string(report.state), "progress": .double((report.progress * 10_000).rounded() / 10_000),
            "hold_remaining": .double(round2(report.holdRemaining)),
            "head": ["x": .double(round2(report.headX)), "y": .double(round2(report.headY))],
            "touching": .bool(report.touching), "needs_resume": .bool(report.needsResume),
            "pattern": .string(report.pattern), "phase": report.phase.map { .string($0) } ?? .null,
        ]
        if let points = report.points {
            fields["points"] = .array(points.map { .array($0.map { .double(round2($0)) }) })
        }
        return .object(fields)
    }

    static func event(_ event: DaemonEvent) -> ControlEvent {
        switch event {
        case .sceneChanged(let scene, let previous, let transition):
            ControlEvent(.sceneChanged, ["scene": .string(scene), "previous": .string(previous),
                                         "transition": .string(transition.kind.rawValue), "duration": .double(transition.duration)])
        case .settingsChanged(let settings, let language, let brightness):
            ControlEvent(.settingsChanged, ["reduce_motion": .bool(settings.reduceMotion), "low_power": .bool(settings.lowPower),
                                            "language": .string(language), "brightness": brightness.map { .int($0) } ?? .null])
        case .displayChanged(let reason, let output, let width, let height):
            ControlEvent(.displayChanged, ["reason": .string(reason), "output_summary": .string(output),
                                           "width": .int(width), "height": .int(height)])
        case .playbackChanged(let paused):
            ControlEvent(.playbackChanged, ["paused": .bool(paused)])
        case .powerChanged(let state):
            ControlEvent(.powerChanged, ["power": .string(state.rawValue)])
        case .configReloaded(let file, let report, _):
            ControlEvent(.configReloaded, ["file": file.map { .string($0) } ?? .null,
                                           "changed": .array(report.changed.map { .string($0) }),
                                           "restart_needed": .array(report.restartNeeded.map { .string($0) })])
        case .spiralState(let from, let to):
            ControlEvent(.spiralState, ["from": .string(from), "to": .string(to)])
        case .spiralProgress(let report):
            ControlEvent(.spiralProgress, { if case .object(let f) = spiralJSON(report) { f } else { [:] } }())
        case .displayPower(let display):
            ControlEvent(.displayPower, { if case .object(let f) = displayJSON(display) { f } else { [:] } }())
        case .displayChecked(let report):
            ControlEvent(.displayCheck, { if case .object(let f) = displayCheckJSON(report) { f } else { [:] } }())
        case .scheduleChanged(let schedule):
            ControlEvent(.scheduleChanged, { if case .object(let f) = scheduleStatusJSON(schedule) { f } else { [:] } }())
        case .sessionFinished(let report):
            ControlEvent(.sessionFinished, sessionJSON(report))
        }
    }
}

extension ControlService {
    /// `stats`: from the history the recorder keeps (the file is not read).
    func stats(_ query: StatsQuery) -> Result<JSONValue, ControlError> {
        let since = query.since.map { CalendarDate(year: $0.year, month: $0.month, day: $0.day) }
        var fields: [String: JSONValue] = [
            "file": sessionsFile.map { .string($0) } ?? .null, "recording": .bool(sessionsFile != nil),
            "since": since.map { .string("\($0)") } ?? .null, "problem": .null, "damaged": 0,
        ]
        var history = SessionHistory()
        switch sessions?.contents {
        case nil:
            if sessionsFile != nil { fields["problem"] = "the session recorder could not be started (see the journal)" }
        case .loading?:
            return .failure(ControlError(.notSupported, "the session records are still being read; ask again in a moment"))
        case .failed(let problem)?:
            fields["problem"] = .string(problem)
        case .ready(let kept, let damaged)?:
            history = kept
            fields["damaged"] = .int(damaged)
        }
        let report = history.report(since: since)
        fields["first_day"] = history.firstDay.map { .string("\($0)") } ?? .null
        fields["total"] = Self.statsJSON(report.totals)
        fields["days"] = .array(report.days.map { day in
            guard case .object(var row) = Self.statsJSON(day.stats) else { return .null }
            row["date"] = .string("\(day.date)")
            return .object(row)
        })
        fields["patterns"] = .object(report.totals.patterns.mapValues { .int($0) })
        return .success(.object(fields))
    }

    /// `minutes_breathed` unrounded: whoever shows it rounds it, once (a
    /// value rounded here and again there, 0.446 → 0.45 → 0.5, is wrong).
    static func statsJSON(_ stats: SessionStats) -> JSONValue {
        ["started": .int(stats.started), "completed": .int(stats.completed), "abandoned": .int(stats.abandoned),
         "completion_rate": stats.completionRate.map { .double((($0 * 10_000).rounded()) / 10_000) } ?? .null,
         "minutes_breathed": .double(stats.breathedSeconds / 60)]
    }

    static func sessionJSON(_ report: SessionFinishedReport) -> [String: JSONValue] {
        let r = report.record
        return ["outcome": .string(r.outcome.rawValue), "ending": .string(r.ending), "pattern": .string(r.pattern),
                "started_at": .string(report.startedAt), "duration": .double(round2(r.duration)),
                "breathed_seconds": .double(round2(r.breathedSeconds)), "hold_seconds": .double(round2(r.holdSeconds)),
                "lifts": .int(r.lifts), "furthest_state": .string(r.furthestState), "recorded": .bool(report.recorded),
                "error": report.error.map { .string($0) } ?? .null]
    }
}
