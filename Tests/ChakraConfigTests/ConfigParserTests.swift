import Foundation
import Testing
@testable import ChakraConfig

/// chakra.toml: defaults, every key, the shipped example, errors with key
/// and line, unknown keys.
@Suite("Configuration file")
struct ConfigParserTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let examplePath = repositoryRoot.appendingPathComponent("etc/chakra/chakra.toml").path

    private func parse(_ text: String) throws -> LoadedConfig {
        try ConfigParser.parse(text, file: "test.toml")
    }

    /// The issues of a file that must be refused.
    private func issues(_ text: String) -> [ConfigIssue] {
        do {
            let loaded = try ConfigParser.parse(text, file: "test.toml")
            Issue.record("accepted: \(text) -> \(loaded.config)")
            return []
        } catch {
            return error.issues
        }
    }

    @Test func emptyFileGivesTheDefaults() throws {
        let loaded = try parse("")
        #expect(loaded.config == ChakraConfig())
        #expect(loaded.warnings.isEmpty)
        let c = loaded.config
        #expect(c.display.output == .auto && c.display.rotation == 0 && c.display.fps == nil && c.display.vt == .auto)
        #expect(c.input.calibration == [1, 0, 0, 0, 1, 0] && c.input.grab && c.input.rotation == nil)
        #expect(c.scene.defaultScene == "heart" && c.scene.transition == .crossfade && c.scene.transitionDuration == 0.5)
        #expect(c.lowPower.fps == 20 && !c.lowPower.enabled && c.lowPower.dimLevel == 30)
        #expect(c.spiral.holdDuration == 72 && c.spiral.pattern == "6-4-8" && c.spiral.selectedPattern.cycleSeconds == 18)
        #expect(c.spiral.customPatterns.isEmpty && c.spiral.maxBreathHold == 10 && c.spiral.abandonAfter == 120)
        #expect(c.text.font == "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf" && c.text.language == "en")
        #expect(c.control.socket == "/run/chakra/control.sock" && c.control.mode == 0o660 && c.control.maxClients == 256 && c.control.maxLine == 16384)
        #expect(c.control.idleTimeout == 60)
    }

    /// etc/chakra/chakra.toml shows every key with its default: it parses
    /// to exactly the defaults, and names every key the daemon knows.
    @Test func shippedExampleIsEveryKeyWithItsDefault() throws {
        let loaded = try ConfigParser.load(path: Self.examplePath)
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
        #expect(loaded.config == ChakraConfig())
        for key in ConfigKeys.all {
            #expect(loaded.lines.lines[key.path] != nil, "\(key.path) is not in etc/chakra/chakra.toml")
        }
        #expect(ConfigKeys.all.count == 55)
    }

    @Test func everyKeyIsRead() throws {
        let loaded = try parse("""
            reduce_motion = true
            [display]
            output = "drm"
            device = "/dev/dri/card1"
            connector = "HDMI-A-1"
            mode = "1920x1080@59.94"
            rotation = 270
            fps = 30
            vt = 2
            backlight = "intel_backlight"
            cec = "/dev/cec1"
            wake_on_touch = 120
            [input]
            device = "/dev/input/event3"
            rotation = 90
            calibration = [0, 1, 0, -1, 0, 1]
            grab = false
            haptics = "/dev/input/event4"
            [render]
            threads = 3
            [scene]
            default = "drift"
            transition = "cut"
            transition_duration = 1.25
            [low_power]
            enabled = true
            fps = 12.5
            dim_level = 10
            dim_after = 60
            blank_after = 300.5
            [spiral]
            head_size = 30
            line_width = 10
            color_distance_offset = 25
            start_radius = 15
            spacing = 30
            rotations = 3.5
            hold_duration = 36
            pattern = "calm"
            max_breath_hold = 12
            haptic_feedback_distance = 8
            haptic_beat_interval = 0.5
            inhale_fraction = 0.4
            proximity = 60
            completion_delay = 5
            abandon_after = 30
            [spiral.patterns.calm]
            phases = [{ kind = "in", seconds = 4 }, { kind = "hold-in", seconds = 12 }, { kind = "out", seconds = 6 }]
            [text]
            font = "/usr/share/fonts/other.ttf"
            language = "pt-BR"
            [control]
            socket = "/tmp/chakra.sock"
            mode = 0o600
            group = "operators"
            max_clients = 4
            max_line = 1024
            idle_timeout = 5
            [metrics]
            textfile_directory = "/var/lib/prometheus/node-exporter"
            interval = 30
            [sessions]
            file = "/srv/kiosk/sessions.log"
            retention_days = 90
            max_size = 1048576
            [[schedule.window]]
            days = "daily"
            start = "06:00"
            end = "22:00"
            show = "heart"
            """)
        #expect(loaded.warnings.isEmpty)
        let c = loaded.config
        #expect(c.reduceMotion)
        #expect(c.display.output == .drm && c.display.device == "/dev/dri/card1" && c.display.connector == "HDMI-A-1")
        #expect(c.display.mode == DisplayModeSetting(width: 1920, height: 1080, refresh: 59.94))
        #expect(c.display.rotation == 270 && c.display.fps == 30 && c.display.vt == .number(2))
        #expect(c.display.backlight == .named("intel_backlight"))
        #expect(c.display.cec == .device("/dev/cec1") && c.display.wakeOnTouch == 120)
        #expect(c.input.device == "/dev/input/event3" && c.input.rotation == 90 && !c.input.grab)
        #expect(c.input.calibration == [0, 1, 0, -1, 0, 1] && c.input.haptics == .device("/dev/input/event4"))
        #expect(c.render.threads == 3)
        #expect(c.scene.defaultScene == "drift" && c.scene.transition == .cut && c.scene.transitionDuration == 1.25)
        #expect(c.lowPower.enabled && c.lowPower.fps == 12.5 && c.lowPower.dimLevel == 10)
        #expect(c.lowPower.dimAfter == 60 && c.lowPower.blankAfter == 300.5)
        let s = c.spiral
        #expect(s.headSize == 30 && s.lineWidth == 10 && s.colorDistanceOffset == 25 && s.startRadius == 15)
        #expect(s.spacing == 30 && s.rotations == 3.5 && s.holdDuration == 36)
        #expect(s.pattern == "calm" && s.maxBreathHold == 12 && s.abandonAfter == 30)
        #expect(s.customPatterns == [BreathingPattern(name: "calm", phases: [BreathPhase(.in, 4), BreathPhase(.holdIn, 12), BreathPhase(.out, 6)])])
        #expect(s.hapticFeedbackDistance == 8 && s.hapticBeatInterval == 0.5)
        #expect(s.inhaleFraction == 0.4 && s.proximity == 60 && s.completionDelay == 5)
        #expect(c.text.font == "/usr/share/fonts/other.ttf" && c.text.language == "pt-BR")
        #expect(c.control.socket == "/tmp/chakra.sock" && c.control.mode == 0o600 && c.control.group == "operators")
        #expect(c.control.maxClients == 4 && c.control.maxLine == 1024 && c.control.idleTimeout == 5)
        #expect(c.metrics.textfileDirectory == "/var/lib/prometheus/node-exporter" && c.metrics.interval == 30)
        #expect(c.sessions.file == "/srv/kiosk/sessions.log" && c.sessions.retentionDays == 90 && c.sessions.maxSize == 1_048_576)
        // Every key differs from its default: the file reached all of them.
        #expect(c.changedKeys(from: ChakraConfig()).count == ConfigKeys.all.count)
    }

    /// The values a configuration reads back as, written as TOML, read the
    /// same configuration back.
    @Test func entriesRoundTrip() throws {
        var c = ChakraConfig()
        c.display.mode = DisplayModeSetting(width: 800, height: 480)
        c.display.vt = .number(7)
        c.display.backlight = .disabled
        c.input.rotation = 180
        c.input.haptics = .disabled
        c.input.device = "Goodix Capacitive TouchScreen"
        c.control.mode = 0o640
        c.control.socket = nil
        c.lowPower.fps = 15
        var text = ""
        var section: String?
        // [spiral.patterns] is tables, shown by `get` as a line a pattern (as [schedule]).
        for (key, value) in c.entries where key != "spiral.patterns" {
            let parts = key.split(separator: ".")
            if parts.count == 2, String(parts[0]) != section {
                section = String(parts[0])
                text += "[\(parts[0])]\n"
            }
            text += "\(parts.last!) = \(value)\n"
        }
        // reduce_motion is first in file order, before any table.
        #expect(text.hasPrefix("reduce_motion = false\n[display]\n"))
        #expect(try parse(text).config == c)
    }

    @Test func wrongTypesNameTheKeyAndLine() {
        let found = issues("""
            # a comment
            [display]
            rotation = "90"
            fps = true
            """)
        #expect(found.count == 2)
        #expect(found.first == ConfigIssue(file: "test.toml", line: 3, key: "display.rotation",
                                           message: "must be one of 0, 90, 180, 270 (got the string \"90\")"))
        #expect(found.last?.line == 4 && found.last?.key == "display.fps")
        #expect(found.first?.description == "test.toml:3: display.rotation: must be one of 0, 90, 180, 270 (got the string \"90\")")
    }

    @Test(arguments: [
        ("[display]\nrotation = 45", "display.rotation", "must be one of 0, 90, 180, 270"),
        ("[display]\nfps = 0.5", "display.fps", "must be 0 (the display's refresh) or 1...1000"),
        ("[display]\nmode = \"1920*1080\"", "display.mode", "is not WIDTHxHEIGHT"),
        ("[display]\noutput = \"x11\"", "display.output", "must be one of \"auto\", \"drm\", \"fbdev\", \"headless\""),
        ("[display]\nvt = 64", "display.vt", "VT number 1...63"),
        ("[display]\ndevice = \"dri/card0\"", "display.device", "must be an absolute path"),
        ("[display]\nbacklight = \"../x\"", "display.backlight", "a name under /sys/class/backlight"),
        ("[input]\ncalibration = [1, 0, 0, 0, 1]", "input.calibration", "an array of 6 numbers"),
        ("[input]\ncalibration = [1, 0, 0, 0, 1, \"x\"]", "input.calibration", "an array of 6 numbers"),
        ("[input]\nrotation = \"left\"", "input.rotation", "must be \"display\""),
        ("[input]\ngrab = 1", "input.grab", "must be true or false (got the integer 1)"),
        ("[input]\ndevice = \"input/event3\"", "input.device", "an absolute path or a device name"),
        ("[input]\nhaptics = \"vibra/0\"", "input.haptics", "an absolute path or a device name"),
        ("[render]\nthreads = 2.5", "render.threads", "must be a whole number in 0...256"),
        ("[render]\nthreads = 1000", "render.threads", "must be in 0...256 (got 1000)"),
        ("[scene]\ndefault = \"\"", "scene.default", "must be a scene name"),
        ("[scene]\ntransition = \"wipe\"", "scene.transition", "\"cut\", \"crossfade\""),
        ("[scene]\ntransition_duration = -1", "scene.transition_duration", "must be in 0...60"),
        ("[scene]\ntransition_duration = 61", "scene.transition_duration", "must be in 0...60"),
        ("reduce_motion = \"yes\"", "reduce_motion", "must be true or false (got the string \"yes\")"),
        ("[low_power]\ndim_level = 101", "low_power.dim_level", "must be in 0...100"),
        ("[low_power]\nfps = 0", "low_power.fps", "must be in 1...1000"),
        ("[low_power]\nblank_after = -5", "low_power.blank_after", "must be in 0...604800"),
        ("[spiral]\nhead_size = 0", "spiral.head_size", "must be more than 0"),
        ("[spiral]\ninhale_fraction = 1", "spiral.inhale_fraction", "between 0 and 1, exclusive"),
        ("[spiral]\nhold_duration = \"72s\"", "spiral.hold_duration", "must be a number"),
        ("[text]\nlanguage = \"English\"", "text.language", "must be a language code"),
        ("[text]\nfont = \"DejaVuSans.ttf\"", "text.font", "must be an absolute path"),
        ("[control]\nsocket = \"control.sock\"", "control.socket", "must be an absolute path"),
        ("[control]\nsocket = \"/\(String(repeating: "s", count: 120))\"", "control.socket", "at most 107"),
        ("[control]\nmode = \"0999\"", "control.mode", "permission bits in octal"),
        ("[control]\nmode = 1024", "control.mode", "permission bits in octal"),
        ("[control]\nmax_clients = 0", "control.max_clients", "must be in 1...1024"),
        ("[control]\nmax_line = 10", "control.max_line", "must be in 256...1048576"),
        ("[control]\nidle_timeout = 0", "control.idle_timeout", "must be in 1...86400 (got 0)"),
        ("[metrics]\ntextfile_directory = \"prom\"", "metrics.textfile_directory", "must be an absolute path"),
        ("[metrics]\ninterval = 0.5", "metrics.interval", "must be in 1...3600 (got 0.5)"),
        ("[metrics]\ninterval = 7200", "metrics.interval", "must be in 1...3600"),
        ("[sessions]\nfile = \"sessions.log\"", "sessions.file", "must be an absolute path to a file"),
        ("[sessions]\nfile = \"/var/lib/chakra/\"", "sessions.file", "must be an absolute path to a file"),
        ("[sessions]\nretention_days = 0", "sessions.retention_days", "must be in 1...3650 (got 0)"),
        ("[sessions]\nretention_days = 36.5", "sessions.retention_days", "must be a whole number"),
        ("[sessions]\nmax_size = 1024", "sessions.max_size", "must be in 65536...67108864"),
        ("[sessions]\nmax_size = \"4 MiB\"", "sessions.max_size", "must be a whole number"),
        ("display = 5", "display", "must be a table ([display])"),
        ("[display]\nmode = 1920", "display.mode", "must be a string (got the integer 1920)"),
    ])
    func badValueIsRefusedWithKeyAndLine(text: String, key: String, message: String) {
        let found = issues(text)
        #expect(found.count == 1)
        #expect(found.first?.key == key)
        #expect(found.first?.line == text.split(separator: "\n").count, "\(found)")
        #expect(found.first?.message.contains(message) == true, "\(found.first?.message ?? "nothing")")
    }

    @Test func syntaxErrorsHaveLineAndColumn() {
        let found = issues("[display]\nfps = 30\nrotation = = 90\n")
        #expect(found.count == 1)
        #expect(found.first?.line == 3)
        #expect(found.first?.message.hasPrefix("column ") == true)
        #expect(found.first?.key == nil)
        // A key given twice is a TOML error too.
        #expect(issues("[display]\nfps = 30\nfps = 40\n").first?.line == 3)
    }

    @Test func unknownKeysAreWarningsWithTheirLines() throws {
        let loaded = try parse("""
            reduce_motoin = true
            [display]
            fsp = 30
            rotation = 90

            [spiral]
            hold_cycle_duration = 18
            [extras]
            colour = "red"
            [display.more]
            x = 1
            """)
        #expect(loaded.config.display.rotation == 90)
        let warnings = loaded.warnings.map { "\($0.line ?? 0) \($0.key ?? "") \($0.message)" }
        #expect(warnings == [
            "1 reduce_motoin unknown key, ignored; did you mean reduce_motion?",
            "3 display.fsp unknown key, ignored; did you mean display.fps?",
            "7 spiral.hold_cycle_duration ignored: the hold cycle is a breathing pattern now (spiral.pattern); delete the line",
            "8 extras unknown table [extras], ignored",
            "10 display.more unknown table [display.more], ignored",
        ])
    }

    @Test func missingFileIsAnErrorNamingIt() {
        do {
            _ = try ConfigParser.load(path: "/nonexistent/chakra.toml")
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.description == "/nonexistent/chakra.toml: cannot read the file: No such file or directory")
        }
    }

    @Test func valuesForKeysAndSections() {
        let c = ChakraConfig()
        #expect(c.values(for: "low_power.fps")?.map(\.value) == [.double(20)])
        #expect(c.values(for: "low_power")?.map(\.key) == ["low_power.enabled", "low_power.fps", "low_power.dim_level", "low_power.dim_after", "low_power.blank_after"])
        #expect(c.values(for: "control.mode")?.first?.value == .string("0660"))
        #expect(c.values(for: "reduce_motion")?.first?.value == .bool(false))
        #expect(c.values(for: "low_pow") == nil)
        #expect(c.values(for: "nothing.here") == nil)
    }

    @Test func changedKeysAndWhatNeedsARestart() {
        let old = ChakraConfig()
        var new = old
        new.display.fps = 30
        new.display.output = .fbdev
        new.control.maxClients = 2
        new.control.socket = "/tmp/x.sock"
        let changed = new.changedKeys(from: old)
        #expect(changed == ["display.output", "display.fps", "control.socket", "control.max_clients"])
        #expect(changed.filter { ConfigKeys.key($0)?.liveReload == false } == ["display.output", "control.socket"])
        #expect(ConfigKeys.all.filter { !$0.liveReload }.map(\.path) == [
            "display.output", "display.device", "display.connector", "display.mode", "display.vt", "display.backlight",
            "display.cec", "input.device", "input.rotation", "input.calibration", "input.grab", "input.haptics",
            "control.socket", "control.mode", "control.group", "sessions.file",
        ])
    }
}
