import Testing
@testable import ChakraControl

/// The typed replies and events (Replies.swift, Events.swift): each reads
/// back, through a line on the wire, as what was written; a reply that
/// does not fit is refused with the field and the reason.
@Suite("Reply and event types")
struct ReplyTypesTests {
    /// Written, sent as a line, parsed, read back.
    func roundTrip<Value: JSONConvertible>(_ value: Value) throws -> Value {
        let line = ControlReply.success(id: 1, value.json).line
        guard case .reply(_, .success(let result))? = ControlMessage.parse(Array(line.utf8.dropLast())) else {
            Issue.record("not a reply: \(line)")
            return value
        }
        return try Value(json: result)
    }

    static func sampleStatus() -> StatusReply {
        var status = StatusReply()
        status.scene = "spiral"
        (status.paused, status.still, status.vtActive) = (true, false, false)
        (status.output, status.outputSummary, status.device) = ("drm", "drm /dev/dri/card0, Virtual-1", "/dev/dri/card0")
        (status.mode, status.width, status.height, status.rotation) = ("1280x800@59.94", 1280, 800, 270)
        status.fps = StatusReply.Rate(target: 30, actual: 29.99)
        status.frameTimes = StatusReply.Timings(median: 3.14, p99: 9.88, samples: 240)
        status.touchLatency = StatusReply.Timings(median: 21.5, p99: 40.13, samples: 7)
        status.sessions = StatusReply.Sessions(started: 3, completed: 2, abandoned: 1, recorded: 3, breathedSeconds: 123.46)
        status.errors = ["config_reload": 0, "display_power": 2]
        (status.frames, status.backlight, status.power) = (1234, "intel_backlight", "dimmed")
        status.schedule = ScheduleNow(action: "heart", window: "window 1", nextChange: "2026-11-26T22:00:00+01:00", nextAction: "off")
        (status.uptime, status.clients, status.inputDevices) = (3600.46, 2, ["/dev/input/event3"])
        status.spiral = sampleSpiral()
        (status.configFile, status.configFiles, status.version) = (nil, ["/etc/chakra/chakra.toml.d/10.toml"], "0.4.0")
        status.settings = SettingsState(reduceMotion: true, lowPower: true, language: "de", brightness: 40)
        status.display = sampleDisplay()
        return status
    }

    static func sampleSpiral() -> SpiralProgress {
        var spiral = SpiralProgress()
        (spiral.state, spiral.progress, spiral.holdRemaining) = ("hold", 0.1235, 2.35)
        spiral.head = SpiralProgress.Point(x: 100.13, y: 200)
        (spiral.touching, spiral.needsResume, spiral.pattern, spiral.phase) = (true, false, "box", "hold-in")
        return spiral
    }

    static func sampleDisplay() -> DisplayState {
        var display = DisplayState()
        (display.power, display.reason, display.mode, display.until) = ("off", "manual", "off", "2026-11-27T07:30:00+01:00")
        (display.summary, display.check, display.checkDetail) = ("off by hand until 07:30", "confirmed", "drm: atomic ACTIVE confirmed (x)")
        return display
    }

    @Test func everyReplyReadsBackAsWritten() throws {
        #expect(try roundTrip(PongReply()) == PongReply())
        #expect(try roundTrip(VersionReply()) == VersionReply())
        #expect(try roundTrip(Self.sampleStatus()) == Self.sampleStatus())
        #expect(try roundTrip(StatusReply()) == StatusReply())
        #expect(try roundTrip(ScenesReply(scenes: ["heart", "calm"], current: "calm")) == ScenesReply(scenes: ["heart", "calm"], current: "calm"))
        let change = SceneSwitched(scene: "heart", previous: "calm", transition: "crossfade", duration: 1.5)
        #expect(try roundTrip(change) == change)
        #expect(try roundTrip(SettingsState()) == SettingsState())
        let section = GetReply(key: "low_power", value: ["fps": 15, "dim": .array([1.5, "x", .null])])
        #expect(try roundTrip(section) == section)
        let reload = ReloadReply(file: "/etc/chakra/chakra.toml", changed: ["a", "b"], restartNeeded: ["a"], ignored: [], warnings: ["w"])
        #expect(try roundTrip(reload) == reload)
        #expect(try roundTrip(ReloadReply(file: nil)) == ReloadReply(file: nil))
        #expect(try roundTrip(PlaybackState(paused: true)) == PlaybackState(paused: true))
        #expect(try roundTrip(PowerLevel(power: "blanked")) == PowerLevel(power: "blanked"))
        let snapshot = SnapshotReply(width: 2, height: 1, png: "iVBORw0KGgo=")
        #expect(try roundTrip(snapshot) == snapshot)
        let saved = SnapshotSaved(file: "/tmp/a.png", width: 2, height: 1)
        #expect(try roundTrip(saved) == saved)
        var path = Self.sampleSpiral()
        path.points = [[1.23, 5.68], [9, 10.01]]
        path.phase = nil
        #expect(try roundTrip(path) == path)
        #expect(try roundTrip(Self.sampleDisplay()) == Self.sampleDisplay())
        #expect(try roundTrip(DisplayState()) == DisplayState())
        var schedule = ScheduleReply()
        (schedule.date, schedule.weekday, schedule.outside) = ("2026-11-26", "Thursday", "off")
        schedule.runs = [ScheduleReply.Run(start: "2026-11-26T07:30:00+01:00", end: "2026-11-26T22:00:00+01:00",
                                           startClock: "07:30", endClock: "22:00", action: "heart", window: "window 1")]
        schedule.now = ScheduleNow(action: "off", window: "outside")
        schedule.display = Self.sampleDisplay()
        #expect(try roundTrip(schedule) == schedule)
        #expect(try roundTrip(HealthReply(healthy: false, reason: "r", lastFrameAge: 0.01)) == HealthReply(healthy: false, reason: "r", lastFrameAge: 0.01))
        #expect(try roundTrip(HealthReply(healthy: true, reason: "r")) == HealthReply(healthy: true, reason: "r"))
        #expect(try roundTrip(TouchReply(phase: "down", contact: 3)) == TouchReply(phase: "down", contact: 3))
        var stats = StatsReply()
        (stats.file, stats.recording, stats.since, stats.problem, stats.damaged) = ("/var/lib/chakra/sessions.log", true, "2026-11-01", "p", 2)
        stats.firstDay = "2026-10-30"
        stats.total = StatsReply.Counts(started: 4, completed: 3, abandoned: 1, completionRate: 0.75, minutesBreathed: 1.6666666666666667e-05)
        stats.days = [StatsReply.Day(date: "2026-11-02", counts: StatsReply.Counts(started: 1, completionRate: 0, minutesBreathed: 0.446))]
        stats.patterns = ["box": 1, "6-4-8": 3]
        #expect(try roundTrip(stats) == stats)
        #expect(try roundTrip(StatsReply()) == StatsReply())
        #expect(try roundTrip(SubscribeReply(subscribed: true, events: ["scene_changed"])) == SubscribeReply(subscribed: true, events: ["scene_changed"]))
        #expect(try roundTrip(SubscribeReply(subscribed: false)) == SubscribeReply(subscribed: false))
    }

    /// Flat fields stay flat, null stays null, absent stays absent.
    @Test func theWireShapeOfTheTypes() {
        let status = Self.sampleStatus().json
        #expect(status["display_summary"] == "off by hand until 07:30" && status["reduce_motion"] == true && status["brightness"] == 40)
        #expect(status["frame_ms"]?["samples"] == 240 && status["config_file"] == .null && status["spiral"]?["points"] == nil)
        #expect(HealthReply(healthy: true, reason: "r").json.encoded == #"{"healthy":true,"last_frame_age":null,"reason":"r"}"#)
        #expect(SubscribeReply(subscribed: false).json.encoded == #"{"subscribed":false}"#)
        #expect(StatsReply.Day(date: "2026-11-02", counts: StatsReply.Counts(started: 1)).json.encoded
            == #"{"abandoned":0,"completed":0,"completion_rate":null,"date":"2026-11-02","minutes_breathed":0.0,"started":1}"#)
        #expect(ControlReply.failure(id: 7, ControlError(.badJSON, "m")).line == #"{"id":7,"ok":false,"error":{"code":"bad_json","message":"m"}}"# + "\n")
        #expect(ClientOutput.failure(RemoteError(code: "future", message: "m")).encoded == #"{"ok":false,"error":{"code":"future","message":"m"}}"#)
        #expect(ClientOutput.success(["pong": true]).encoded == #"{"ok":true,"result":{"pong":true}}"#)
    }

    /// Every command has its reply type, and every event kind its fields.
    @Test func everyCommandAndEventIsTyped() throws {
        let commands: [ControlCommand] = [
            .ping, .version, .status, .scenes, .switchScene(SceneSwitch(scene: "heart")), .set(.lowPower(true)), .get(key: "k"),
            .reload, .pause, .resume, .snapshot, .wake, .spiral(.start), .display(.off), .schedule, .health,
            .touch(TouchRequest(phase: .up)), .stats(StatsQuery()), .subscribe(events: nil), .unsubscribe,
        ]
        #expect(Set(commands.map(\.name)) == Set(ControlCommand.names))
        #expect(ObjectIdentifier(ControlCommand.status.replyType) == ObjectIdentifier(StatusReply.self))
        #expect(try ControlCommand.health.replyType.init(json: HealthReply(healthy: true, reason: "r").json) as? HealthReply
            == HealthReply(healthy: true, reason: "r"))

        let payloads: [EventPayload] = [
            .sceneChanged(SceneSwitched(scene: "heart", previous: "calm", transition: "cut", duration: 0)),
            .settingsChanged(SettingsState(reduceMotion: true)),
            .displayChanged(DisplayChange(reason: "resized", outputSummary: "headless 64x36", width: 64, height: 36)),
            .playbackChanged(PlaybackState(paused: false)),
            .powerChanged(PowerLevel(power: "normal")),
            .configReloaded(ConfigReloaded(file: nil, changed: ["x"], restartNeeded: [])),
            .spiralState(SpiralStateChange(from: "idle", to: "inhale")),
            .spiralProgress(Self.sampleSpiral()),
            .displayPower(Self.sampleDisplay()),
            .displayCheck(DisplayCheck(part: "cec", on: true, method: "CEC Image View On", check: "failed", detail: "no answer")),
            .scheduleChanged(ScheduleNow(action: "off", window: "outside")),
            .sessionFinished(SessionFinished()),
        ]
        #expect(Set(payloads.map(\.kind)) == Set(EventKind.allCases))
        for payload in payloads {
            let line = ControlEvent(payload).line
            guard case .event(let name, let json)? = ControlMessage.parse(Array(line.utf8.dropLast())),
                  let kind = EventKind(rawValue: name) else {
                Issue.record("not an event: \(line)")
                continue
            }
            #expect(kind == payload.kind)
            #expect(try EventPayload(kind: kind, json: json) == payload)
            #expect(try ControlEvent(payload).payload() == payload)
        }
    }

    /// A reply that does not fit says where and why; nothing traps.
    @Test func aMalformedReplyIsAnErrorThatNamesTheField() throws {
        func refusal<Value: JSONConvertible>(_ type: Value.Type, _ line: String) -> String? {
            guard case .success(let json) = JSONValue.parse(Array(line.utf8)) else { return "not JSON" }
            do {
                _ = try Value(json: json)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refusal(HealthReply.self, #"{"reason":"r"}"#) == "'healthy': missing")
        #expect(refusal(HealthReply.self, #"{"healthy":"yes","reason":"r"}"#) == "'healthy': expected true or false, got a string")
        #expect(refusal(HealthReply.self, #"{"healthy":true,"reason":"r","last_frame_age":"1"}"#) == "'last_frame_age': expected a number, got a string")
        #expect(refusal(HealthReply.self, #"{"healthy":true,"reason":"r"}"#) == nil, "an optional may be missing")
        #expect(refusal(HealthReply.self, #"[1]"#) == "expected an object, got an array")
        #expect(refusal(HealthReply.self, #"null"#) == "expected an object, got null")
        var status = Self.sampleStatus().json
        if case .object(var fields) = status {
            fields["fps"] = ["target": 30, "actual": "fast"]
            status = .object(fields)
        }
        #expect(refusal(StatusReply.self, status.encoded) == "'fps.actual': expected a number, got a string")
        #expect(refusal(StatsReply.self, #"{"recording":false,"damaged":0,"total":{"started":0,"completed":0,"abandoned":0,"minutes_breathed":0},"#
            + #""days":[{"date":"d","started":1,"completed":0,"abandoned":0,"minutes_breathed":0.5},{"started":1}],"patterns":{}}"#)
            == "'days[1].date': missing")
        #expect(refusal(StatsReply.self, #"{"recording":false,"damaged":1.5}"#) == "'damaged': expected a whole number, got a number")
        #expect(refusal(StatsReply.self, #"{"recording":false,"damaged":0,"total":{"started":0,"completed":0,"abandoned":0,"minutes_breathed":0},"#
            + #""days":[],"patterns":{"box":"1"}}"#) == "'patterns.box': expected a whole number, got a string")
        #expect(refusal(SpiralProgress.self, #"{"state":"idle","progress":0,"hold_remaining":0,"head":{"x":1,"y":2},"touching":false,"#
            + #""needs_resume":false,"pattern":"box","points":[[1,2],[3,null]]}"#) == "'points[1][1]': expected a number, got null")
        #expect(refusal(GetReply.self, #"{"key":"k"}"#) == "'value': missing")
        // A newer daemon's extra fields are no reason.
        #expect(refusal(PongReply.self, #"{"pong":true,"later":1}"#) == nil)
    }
}
