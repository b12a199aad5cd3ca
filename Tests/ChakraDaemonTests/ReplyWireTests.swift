import ChakraConfig
import ChakraControl
import ChakraDisplay
import ChakraSchedule
import ChakraScenes
import ChakraSessions
import Testing
@testable import ChakraDaemon

/// The replies and events as the daemon writes them, byte for byte: the
/// expected lines were taken from the daemon before its replies were
/// typed (ChakraControl's `StatusReply` & co.), so any key or value that
/// moves shows here. Clients (chakractl, tests/flood, the VM cases) read them.
@Suite("Reply and event wire format")
struct ReplyWireTests {
    static func sampleStatus() -> DaemonStatus {
        var status = DaemonStatus()
        status.scene = "spiral"
        status.output = "drm /dev/dri/card0, Virtual-1 1280x800"
        (status.width, status.height, status.refreshRate, status.rotation) = (1280, 800, 59.94, 90)
        status.settings = RenderSettings(reduceMotion: true, lowPower: false)
        (status.paused, status.still, status.vtActive) = (false, true, true)
        status.frames = FrameProgress(presented: 1234, lastAt: 10)
        status.fps = 29.987
        status.fpsTarget = 30
        status.frameTimes = FrameTimes.Summary(median: 3.14159, p99: 9.876, samples: 240)
        status.touchLatency = FrameTimes.Summary(median: 21.5, p99: 40.125, samples: 7)
        status.uptime = 3600.456
        status.language = "de"
        status.brightness = 40
        status.backlight = "intel_backlight"
        status.power = .dimmed
        status.inputDevices = ["/dev/input/event3 (ft5x06)"]
        status.spiral = SpiralReport(state: "hold", progress: 0.123456, holdRemaining: 2.345, headX: 100.126, headY: 200,
                                     touching: true, needsResume: false, pattern: "box", phase: "hold-in", points: nil)
        status.schedule = ScheduleStatus(action: "heart", window: "window 1", nextChange: "2026-11-26T22:00:00+01:00",
                                         nextClock: "22:00", nextAction: "off")
        status.configFile = "/etc/chakra/chakra.toml"
        status.configFiles = ["/etc/chakra/chakra.toml", "/etc/chakra/chakra.toml.d/10-site.toml"]
        status.sessions.started = 3
        status.sessions.completed = 2
        status.sessions.abandoned = 1
        status.sessions.recorded = 3
        status.sessions.breathedSeconds = 123.456
        status.errors[.displayPower] = 2
        status.display = sampleDisplay()
        status.start = StartReport(kind: .restartedWithoutPicture, reason: "no drm descriptor passed")
        return status
    }

    static func sampleDisplay() -> DisplayPowerStatus {
        var display = DisplayPowerStatus()
        display.mode = .off
        display.screen = ScreenState(.off, .manual)
        display.until = "2026-11-27T07:30:00+01:00"
        display.untilClock = "07:30"
        display.checks = [DisplayPowerReport(part: "drm", on: false, method: "atomic ACTIVE", check: .confirmed("crtc 38 ACTIVE=0"))]
        return display
    }

    static func sampleSession() -> SessionRecord {
        SessionRecord(startedAt: 1_790_000_000.5, duration: 61.237, outcome: .completed, ending: "completed", pattern: "6-4-8",
                      furthestState: "completed", breathedSeconds: 55.555, holdSeconds: 4.004, lifts: 1)
    }

    static func samplePlan() -> SchedulePlanReport {
        SchedulePlanReport(date: "2026-11-26", weekday: "Thursday",
                           runs: [.init(start: "2026-11-26T07:30:00+01:00", end: "2026-11-26T22:00:00+01:00",
                                        startClock: "07:30", endClock: "22:00", action: "heart", window: "window 1")],
                           outside: "off", now: ScheduleStatus(action: "heart", window: "window 1"), display: DisplayPowerStatus())
    }

    /// Every line the daemon's JSON functions write for the samples.
    static func lines() -> [String] {
        var lines: [String] = []
        lines.append(ControlService.statusReply(sampleStatus(), clients: 2).json.encoded)
        lines.append(ControlService.statusReply(DaemonStatus(), clients: 0).json.encoded)
        lines.append(ControlService.settingsState(sampleStatus()).json.encoded)
        lines.append(ControlService.displayState(sampleDisplay()).json.encoded)
        lines.append(ControlService.scheduleReply(samplePlan()).json.encoded)
        lines.append(ControlService.healthReply(DaemonHealth(healthy: true, reason: "frames reach the screen", lastFrameAge: 0.01234)).json.encoded)
        lines.append(ControlService.healthReply(DaemonHealth(healthy: false, reason: "no frame has reached the screen yet", lastFrameAge: nil)).json.encoded)
        var path = sampleStatus().spiral!
        path.points = [[1.234, 5.678], [9, 10.005]]
        lines.append(ControlService.spiralProgress(path).json.encoded)
        let history = SessionHistory(records: [sampleSession()], in: FixedOffsetZone(offset: 3600))
        let report = history.report()
        lines.append(ControlService.statsCounts(report.totals).json.encoded)
        lines.append(ControlService.statsCounts(SessionStats()).json.encoded)
        let events: [DaemonEvent] = [
            .sceneChanged(scene: "heart", previous: "calm", transition: SceneTransition(kind: .crossfade, duration: 1.5)),
            .settingsChanged(RenderSettings(reduceMotion: false, lowPower: true), language: "en", brightness: nil),
            .displayChanged(reason: "resized", output: "headless 64x36", width: 64, height: 36),
            .playbackChanged(paused: true),
            .powerChanged(.blanked),
            .configReloaded(file: nil, report: ReloadReport(changed: ["low_power.fps"], restartNeeded: [], ignored: ["x"], warnings: ["w"]),
                            control: ChakraConfig.Control()),
            .spiralState(from: "idle", to: "inhale"),
            .spiralProgress(sampleStatus().spiral!),
            .displayPower(sampleDisplay()),
            .displayChecked(DisplayPowerReport(part: "cec", on: true, method: "CEC Image View On", check: .failed("no answer"))),
            .scheduleChanged(ScheduleStatus(action: "off", window: "outside")),
            .sessionFinished(SessionFinishedReport(record: sampleSession(), startedAt: "2026-09-21T15:33:20+02:00", error: nil)),
            .sessionFinished(SessionFinishedReport(record: sampleSession(), startedAt: "2026-09-21T15:33:20+02:00", error: "ENOSPC")),
        ]
        for event in events { lines.append(ControlService.event(event).line.dropLast().description) }
        return lines
    }

    /// Taken from the daemon's hand-built JSON before the types, one line each.
    static let expected = #"""
{"backlight":"intel_backlight","brightness":40,"clients":2,"config_file":"/etc/chakra/chakra.toml","config_files":["/etc/chakra/chakra.toml","/etc/chakra/chakra.toml.d/10-site.toml"],"device":"/dev/dri/card0","display_check":"confirmed","display_check_detail":"drm: atomic ACTIVE confirmed (crtc 38 ACTIVE=0)","display_mode":"off","display_power":"off","display_reason":"manual","display_summary":"off by hand until 07:30","display_until":"2026-11-27T07:30:00+01:00","errors":{"config_reload":0,"display_power":2,"scene":0,"session_record":0},"fps":{"actual":29.99,"target":30.0},"frame_ms":{"median":3.14,"p99":9.88,"samples":240},"frames":1234,"height":800,"input_devices":["/dev/input/event3 (ft5x06)"],"language":"de","low_power":false,"mode":"1280x800@59.94","output":"drm","output_summary":"drm /dev/dri/card0, Virtual-1 1280x800","paused":false,"power":"dimmed","reduce_motion":true,"rotation":90,"scene":"spiral","schedule":{"action":"heart","next_action":"off","next_change":"2026-11-26T22:00:00+01:00","window":"window 1"},"sessions":{"abandoned":1,"breathed_seconds":123.46,"completed":2,"recorded":3,"started":3},"spiral":{"head":{"x":100.13,"y":200.0},"hold_remaining":2.35,"needs_resume":false,"pattern":"box","phase":"hold-in","progress":0.1235,"state":"hold","touching":true},"start":"restarted-without-picture","start_reason":"no drm descriptor passed","still":true,"touch_latency_ms":{"median":21.5,"p99":40.13,"samples":7},"uptime":3600.46,"version":"0.4.0","vt_active":true,"width":1280}
{"backlight":null,"brightness":null,"clients":0,"config_file":null,"config_files":[],"device":null,"display_check":"","display_check_detail":"","display_mode":"auto","display_power":"on","display_reason":"","display_summary":"on","display_until":null,"errors":{"config_reload":0,"display_power":0,"scene":0,"session_record":0},"fps":{"actual":0.0,"target":0.0},"frame_ms":{"median":0.0,"p99":0.0,"samples":0},"frames":0,"height":0,"input_devices":[],"language":"en","low_power":false,"mode":"0x0","output":"","output_summary":"","paused":false,"power":"normal","reduce_motion":false,"rotation":0,"scene":"","schedule":null,"sessions":{"abandoned":0,"breathed_seconds":0.0,"completed":0,"recorded":0,"started":0},"spiral":null,"start":"fresh","start_reason":null,"still":false,"touch_latency_ms":{"median":0.0,"p99":0.0,"samples":0},"uptime":0.0,"version":"0.4.0","vt_active":true,"width":0}
{"brightness":40,"language":"de","low_power":false,"reduce_motion":true}
{"display_check":"confirmed","display_check_detail":"drm: atomic ACTIVE confirmed (crtc 38 ACTIVE=0)","display_mode":"off","display_power":"off","display_reason":"manual","display_summary":"off by hand until 07:30","display_until":"2026-11-27T07:30:00+01:00"}
{"date":"2026-11-26","display_check":"","display_check_detail":"","display_mode":"auto","display_power":"on","display_reason":"","display_summary":"on","display_until":null,"now":{"action":"heart","next_action":null,"next_change":null,"window":"window 1"},"outside":"off","runs":[{"action":"heart","end":"2026-11-26T22:00:00+01:00","end_clock":"22:00","start":"2026-11-26T07:30:00+01:00","start_clock":"07:30","window":"window 1"}],"weekday":"Thursday"}
{"healthy":true,"last_frame_age":0.01,"reason":"frames reach the screen"}
{"healthy":false,"last_frame_age":null,"reason":"no frame has reached the screen yet"}
{"head":{"x":100.13,"y":200.0},"hold_remaining":2.35,"needs_resume":false,"pattern":"box","phase":"hold-in","points":[[1.23,5.68],[9.0,10.01]],"progress":0.1235,"state":"hold","touching":true}
{"abandoned":0,"completed":1,"completion_rate":1.0,"minutes_breathed":0.9259166666666666,"started":1}
{"abandoned":0,"completed":0,"completion_rate":null,"minutes_breathed":0.0,"started":0}
{"event":"scene_changed","duration":1.5,"previous":"calm","scene":"heart","transition":"crossfade"}
{"event":"settings_changed","brightness":null,"language":"en","low_power":true,"reduce_motion":false}
{"event":"display_changed","height":36,"output_summary":"headless 64x36","reason":"resized","width":64}
{"event":"playback_changed","paused":true}
{"event":"power_changed","power":"blanked"}
{"event":"config_reloaded","changed":["low_power.fps"],"file":null,"restart_needed":[]}
{"event":"spiral_state","from":"idle","to":"inhale"}
{"event":"spiral_progress","head":{"x":100.13,"y":200.0},"hold_remaining":2.35,"needs_resume":false,"pattern":"box","phase":"hold-in","progress":0.1235,"state":"hold","touching":true}
{"event":"display_power","display_check":"confirmed","display_check_detail":"drm: atomic ACTIVE confirmed (crtc 38 ACTIVE=0)","display_mode":"off","display_power":"off","display_reason":"manual","display_summary":"off by hand until 07:30","display_until":"2026-11-27T07:30:00+01:00"}
{"event":"display_check","check":"failed","detail":"no answer","method":"CEC Image View On","on":true,"part":"cec"}
{"event":"schedule_changed","action":"off","next_action":null,"next_change":null,"window":"outside"}
{"event":"session_finished","error":null,"breathed_seconds":55.56,"duration":61.24,"ending":"completed","furthest_state":"completed","hold_seconds":4.0,"lifts":1,"outcome":"completed","pattern":"6-4-8","recorded":true,"started_at":"2026-09-21T15:33:20+02:00"}
{"event":"session_finished","error":"ENOSPC","breathed_seconds":55.56,"duration":61.24,"ending":"completed","furthest_state":"completed","hold_seconds":4.0,"lifts":1,"outcome":"completed","pattern":"6-4-8","recorded":false,"started_at":"2026-09-21T15:33:20+02:00"}
"""#

    @Test func linesAreTheSameAsBefore() {
        let expected = Self.expected.split(separator: "\n").map(String.init)
        let lines = Self.lines()
        #expect(lines.count == expected.count)
        for (line, before) in zip(lines, expected) { #expect(line == before) }
    }

    /// And every line reads back as its type.
    @Test func linesReadBackAsTheirTypes() throws {
        let lines = Self.lines()
        let status = try StatusReply(json: JSONValue.parse(Array(lines[0].utf8)).get())
        #expect(status == ControlService.statusReply(Self.sampleStatus(), clients: 2))
        #expect(status.display.summary == "off by hand until 07:30" && status.schedule?.nextChange == "2026-11-26T22:00:00+01:00")
        let plan = try ScheduleReply(json: JSONValue.parse(Array(lines[4].utf8)).get())
        #expect(plan == ControlService.scheduleReply(Self.samplePlan()))
        for line in lines[10...] {
            guard case .event(let name, let json)? = ControlMessage.parse(Array(line.utf8)), let kind = EventKind(rawValue: name) else {
                Issue.record("not an event: \(line)")
                continue
            }
            #expect(try ControlEvent(EventPayload(kind: kind, json: json)).line == line + "\n")
        }
    }
}
