import ChakraControl
import ChakraConfig
import ChakraSystem
import Foundation
import Glibc
import Testing
@testable import ChakraDaemon

/// [metrics]: when the core asks for the file, what the text says, how it
/// is written, and that a real Prometheus parser reads it as meant.
@Suite("Metrics for node_exporter's textfile collector")
struct MetricsTests {
    static func metricsDriver(interval: Double = 15) throws -> CoreDriver {
        try CoreDriver {
            $0.config.metrics.textfileDirectory = "/var/lib/prometheus/node-exporter"
            $0.config.metrics.interval = interval
        }
    }

    // MARK: when

    @Test("the core asks for the file at the first turn, then every interval")
    func everyInterval() throws {
        let driver = try Self.metricsDriver()
        driver.rendering = false
        driver.run(until: 160)
        #expect(driver.metricsWrites.map(\.at) == [100, 115, 130, 145, 160])
        #expect(driver.metricsWrites.allSatisfy { $0.directory == "/var/lib/prometheus/node-exporter" })
    }

    @Test("no directory, no file and no deadline for it")
    func offByDefault() throws {
        let driver = try CoreDriver()
        driver.run(until: 101)
        _ = driver.command { .change(.reduceMotion(true), reply: $0) }
        driver.run(until: 200)
        #expect(driver.metricsWrites.isEmpty)
        #expect(driver.core.nextDeadline() == nil)
    }

    @Test("a still scene and a screen that is off still wake the loop for the file, at its rate only")
    func stillAndOff() throws {
        let driver = try Self.metricsDriver(interval: 10)
        driver.rendering = false
        driver.run(until: 101)
        _ = driver.command { .change(.reduceMotion(true), reply: $0) }
        driver.run(until: 125)
        #expect(driver.core.nextDeadline() == 130, "the next write is the only deadline of a still scene")
        _ = driver.command { .display(.off, reply: $0) }
        #expect(driver.core.status().display.screen.power == .off)
        let before = driver.kinds.count
        driver.run(until: 160)
        #expect(driver.metricsWrites.map(\.at) == [100, 110, 120, 130, 140, 150, 160])
        #expect(!driver.kinds[before...].contains("draw"))
    }

    @Test("a reload that sets the directory writes at once, then at the new interval")
    func reloadApplies() throws {
        let driver = try CoreDriver()
        driver.rendering = false
        driver.run(until: 102)
        var config = driver.core.configuration.config
        config.metrics.textfileDirectory = "/srv/prom"
        config.metrics.interval = 5
        let report = driver.command { .applyConfiguration(LoadedConfig(config: config), reply: $0) }
        let changed = (try? report?.get())?.changed ?? []
        #expect(changed.contains("metrics.textfile_directory") && changed.contains("metrics.interval"), "\(changed)")
        driver.run(until: 112.5)
        #expect(driver.metricsWrites.map(\.at) == [102, 107, 112])
        #expect(driver.metricsWrites.first?.directory == "/srv/prom")
    }

    // MARK: what

    static func sampleStatus() -> DaemonStatus {
        var status = DaemonStatus()
        status.scene = "heart"
        status.frames.presented = 12345
        status.fps = 59.94
        status.fpsTarget = 60
        status.frameTimes = FrameTimes.Summary(median: 4.25, p99: 11.5, samples: 240)
        status.touchLatency = FrameTimes.Summary(median: 21, p99: 38.5, samples: 17)
        status.uptime = 3600.5
        status.settings.lowPower = true
        status.display.screen = ScreenState(.dimmed, .idle)
        status.brightness = 40
        status.schedule = ScheduleStatus(action: "heart", window: "window 2")
        status.sessions.started = 9
        status.sessions.completed = 6
        status.sessions.abandoned = 2
        status.sessions.breathedSeconds = 1234.5
        status.errors[.displayPower] = 3
        status.errors[.sessionRecord] = 1
        return status
    }

    @Test("HELP and TYPE for every family, samples in a fixed order")
    func textShape() {
        let text = MetricsText.render(Self.sampleStatus(), version: "1.2.3")
        #expect(text == MetricsText.render(Self.sampleStatus(), version: "1.2.3"))
        let lines = text.split(separator: "\n").map(String.init)
        #expect(text.hasSuffix("\n"))
        #expect(lines.contains("chakra_frames_presented_total 12345"))
        #expect(lines.contains("chakra_frame_draw_milliseconds{quantile=\"0.5\"} 4.25"))
        #expect(lines.contains("chakra_frame_draw_milliseconds{quantile=\"0.99\"} 11.5"))
        #expect(lines.contains("chakra_display_power{state=\"dimmed\"} 1"))
        #expect(lines.contains("chakra_display_power{state=\"on\"} 0"))
        #expect(lines.contains("chakra_schedule_info{action=\"heart\",window=\"window 2\"} 1"))
        #expect(lines.contains("chakra_build_info{version=\"1.2.3\"} 1"))
        #expect(lines.contains("chakra_sessions_started_total 9"))
        #expect(lines.contains("chakra_sessions_finished_total{outcome=\"completed\"} 6"))
        #expect(lines.contains("chakra_sessions_finished_total{outcome=\"abandoned\"} 2"))
        #expect(lines.contains("chakra_errors_total{kind=\"display_power\"} 3"))
        #expect(lines.contains("chakra_errors_total{kind=\"scene\"} 0"), "every kind is there, 0 too, so rate() sees it from the start")
        let names = lines.filter { !$0.hasPrefix("#") }.map { String($0.prefix { $0 != "{" && $0 != " " }) }
        for name in Set(names) {
            let family = name
            #expect(lines.contains { $0.hasPrefix("# HELP \(family) ") }, "\(family) has no HELP")
            #expect(lines.contains { $0.hasPrefix("# TYPE \(family) ") }, "\(family) has no TYPE")
        }
        // Without a schedule or a backlight, those families are left out.
        let bare = MetricsText.render(DaemonStatus(), version: "1")
        #expect(!bare.contains("chakra_schedule_info") && !bare.contains("chakra_brightness_percent"))
        #expect(bare.contains("chakra_touch_latency_milliseconds{quantile=\"0.5\"} NaN"), "no touch yet: not 0 ms")
    }

    @Test("how the process started: 1 for its kind, 0 for the others; the reason is the status's, not a label")
    func startKind() {
        var status = DaemonStatus()
        status.start = StartReport(kind: .restartedWithoutPicture, reason: "no drm descriptor passed")
        let text = MetricsText.render(status, version: "1")
        #expect(text.contains("chakra_start{kind=\"fresh\"} 0\n"))
        #expect(text.contains("chakra_start{kind=\"restarted\"} 0\n"))
        #expect(text.contains("chakra_start{kind=\"restarted-without-picture\"} 1\n"))
        #expect(!text.contains("no drm descriptor"))
    }

    @Test("label values escape backslash, double quote and line feed; numbers as the format writes them")
    func escaping() {
        #expect(MetricsText.escapeLabel("plain") == "plain")
        #expect(MetricsText.escapeLabel("a\\b\"c\nd") == "a\\\\b\\\"c\\nd")
        #expect(MetricsText.number(3) == "3" && MetricsText.number(-2) == "-2" && MetricsText.number(0.25) == "0.25")
        #expect(MetricsText.number(.infinity) == "+Inf" && MetricsText.number(-.infinity) == "-Inf" && MetricsText.number(.nan) == "NaN")
        var status = DaemonStatus()
        status.scene = "we\"ird\\scene\n"
        #expect(MetricsText.render(status, version: "1").contains("chakra_scene_info{scene=\"we\\\"ird\\\\scene\\n\"} 1\n"))
    }

    // MARK: how

    static func temporaryDirectory() -> String {
        var template = Array("/tmp/chakra-metrics-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    @Test("the file is replaced whole, readable by others, and no temporary file stays")
    func writesAtomically() throws {
        let directory = Self.temporaryDirectory()
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        let writer = TextfileWriter(directory: directory + "/")
        try writer.write("first 1\n")
        // A reader holding the old file keeps it whole: the new one is a
        // new inode renamed over it.
        let reader = try FileHandle(forReadingFrom: URL(fileURLWithPath: writer.path))
        let before = try FileSystem.stat(writer.path).st_ino
        try writer.write("second 2\n")
        #expect(try FileSystem.stat(writer.path).st_ino != before)
        #expect(String(decoding: reader.readDataToEndOfFile(), as: UTF8.self) == "first 1\n")
        #expect(try String(contentsOfFile: directory + "/chakra.prom", encoding: .utf8) == "second 2\n")
        #expect(try FileSystem.stat(writer.path).st_mode & 0o777 == 0o644)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["chakra.prom"])
    }

    @Test("a missing directory is named as such")
    func missingDirectory() {
        let writer = TextfileWriter(directory: "/nonexistent/chakra-metrics")
        let error = #expect(throws: TextfileError.self) { try writer.write("x 1\n") }
        let text = error?.description ?? ""
        #expect(text.contains("/nonexistent/chakra-metrics/chakra.prom") && text.contains("does not exist"), "\(text)")
    }

    @Test("an unwritable directory says what to do, and the old file stays")
    func unwritableDirectory() throws {
        let directory = Self.temporaryDirectory()
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        let writer = TextfileWriter(directory: directory)
        try writer.write("old 1\n")
        // Tests run as root, where permissions do not stop a write: the
        // funnel fails the open as the kernel would for the chakra user.
        SyscallFaults.inject(EACCES, into: "open(\(directory)")
        defer { SyscallFaults.remove(matching: "open(\(directory)") }
        let error = #expect(throws: TextfileError.self) { try writer.write("new 2\n") }
        let text = error?.description ?? ""
        #expect(text.contains("not writable by chakrad") && text.contains("ReadWritePaths="), "\(text)")
        #expect(try String(contentsOfFile: writer.path, encoding: .utf8) == "old 1\n")
        // A rename refused: the temporary file is cleaned up.
        SyscallFaults.inject(EROFS, into: "rename(\(directory)")
        defer { SyscallFaults.remove(matching: "rename(\(directory)") }
        #expect(throws: TextfileError.self) { try writer.write("new 3\n") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["chakra.prom"])
    }

    @Test("failures are logged once, then every 20th, and never stop anything")
    func failuresAreThrottled() {
        let export = MetricsExport(logger: .init(label: "metrics-test", sink: DiscardingLog()))
        for _ in 0..<3 { export.write(DaemonStatus(), into: "/nonexistent/chakra-metrics") }
        #expect(export.failures == 3)
        let directory = Self.temporaryDirectory()
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        export.write(DaemonStatus(), into: directory)
        #expect(export.failures == 0)
    }

    // MARK: read by a real parser

    static let parserCheck = """
        import json, math, sys
        try:
            from prometheus_client.parser import text_string_to_metric_families
        except ImportError as error:
            print(error, file=sys.stderr)
            sys.exit(3)
        families = {}
        for family in text_string_to_metric_families(open(sys.argv[1]).read()):
            families[family.name] = {"type": family.type, "help": family.documentation,
                "samples": [[s.name, s.labels, None if math.isnan(s.value) else s.value] for s in family.samples]}
        print(json.dumps(families, sort_keys=True))
        """

    /// python3 with prometheus_client (Debian: python3-prometheus-client),
    /// or why not.
    static let parserMissing: String? = {
        guard let outcome = try? python(["-c", "import prometheus_client"]) else { return "python3 is not installed" }
        return outcome.status == 0 ? nil : "python3's prometheus_client is missing (apt-get install python3-prometheus-client): \(outcome.error)"
    }()

    static func python(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        // Debian's python3 first: apt's python3-prometheus-client is in its
        // dist-packages, which another python3 on the PATH (pyenv) lacks.
        let debian = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
        process.executableURL = URL(fileURLWithPath: debian ? "/usr/bin/python3" : "/usr/bin/env")
        process.arguments = (debian ? [] : ["python3"]) + arguments
        let out = Pipe(), err = Pipe()
        (process.standardOutput, process.standardError) = (out, err)
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile(), error = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // env's 127: python3 is not on the PATH.
        if process.terminationStatus == 127 { throw CocoaError(.executableNotLoadable) }
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
    }

    /// In CI the parser must be there (a missing one fails the test); on a
    /// workstation without it, the test is skipped.
    @Test("prometheus_client's parser reads the file as the status says",
          .enabled(if: parserMissing == nil || ProcessInfo.processInfo.environment["CI"] != nil))
    func realParserReadsIt() throws {
        if let missing = Self.parserMissing {
            Issue.record("CI is set and the Prometheus parser is not available: \(missing)")
            return
        }
        let directory = Self.temporaryDirectory()
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        var status = Self.sampleStatus()
        status.scene = "a \"quoted\"\\scene\nname"
        let writer = TextfileWriter(directory: directory)
        try writer.write(MetricsText.render(status, version: "0.9.0-test"))
        let run = try Self.python(["-c", Self.parserCheck, writer.path])
        try #require(run.status == 0, "the parser refused the file: \(run.error)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: [String: Any]])

        func samples(_ family: String) -> [(name: String, labels: [String: String], value: Double?)] {
            (json[family]?["samples"] as? [[Any]] ?? []).map { ($0[0] as! String, $0[1] as! [String: String], $0[2] as? Double) }
        }
        // A counter's family drops _total; its sample keeps it.
        #expect(json["chakra_frames_presented"]?["type"] as? String == "counter")
        #expect(samples("chakra_frames_presented").first?.name == "chakra_frames_presented_total")
        #expect(samples("chakra_frames_presented").first?.value == 12345)
        #expect(json["chakra_frame_draw_milliseconds"]?["type"] as? String == "gauge")
        let draw = samples("chakra_frame_draw_milliseconds")
        #expect(draw.first { $0.labels["quantile"] == "0.5" }?.value == 4.25)
        #expect(draw.first { $0.labels["quantile"] == "0.99" }?.value == 11.5)
        #expect(samples("chakra_frame_draw_milliseconds_samples").first?.value == 240)
        #expect(samples("chakra_touch_latency_milliseconds").first { $0.labels["quantile"] == "0.99" }?.value == 38.5)
        #expect(samples("chakra_fps").first?.value == 59.94 && samples("chakra_fps_target").first?.value == 60)
        #expect(samples("chakra_uptime_seconds").first?.value == 3600.5)
        let power = Dictionary(uniqueKeysWithValues: samples("chakra_display_power").map { ($0.labels["state"]!, $0.value!) })
        #expect(power == ["on": 0, "dimmed": 1, "off": 0])
        #expect(samples("chakra_display_check_failed").first?.value == 0)
        #expect(samples("chakra_scene_info").first?.labels["scene"] == status.scene, "escaped label read back as it was")
        #expect(samples("chakra_build_info").first?.labels["version"] == "0.9.0-test")
        #expect(samples("chakra_low_power").first?.value == 1 && samples("chakra_reduce_motion").first?.value == 0)
        #expect(samples("chakra_brightness_percent").first?.value == 40)
        #expect(samples("chakra_schedule_info").first?.labels == ["action": "heart", "window": "window 2"])
        #expect(samples("chakra_sessions_started").first?.value == 9)
        let finished = Dictionary(uniqueKeysWithValues: samples("chakra_sessions_finished").map { ($0.labels["outcome"]!, $0.value!) })
        #expect(finished == ["completed": 6, "abandoned": 2])
        #expect(samples("chakra_sessions_breathed_seconds").first?.value == 1234.5)
        #expect(json["chakra_errors"]?["type"] as? String == "counter")
        let errors = Dictionary(uniqueKeysWithValues: samples("chakra_errors").map { ($0.labels["kind"]!, $0.value!) })
        #expect(errors == ["config_reload": 0, "scene": 0, "display_power": 3, "session_record": 1])
        #expect(json.keys.allSatisfy { $0.hasPrefix("chakra_") })
        #expect(json.values.allSatisfy { !($0["help"] as? String ?? "").isEmpty })
        print("prometheus_client read \(json.count) families: \(json.keys.sorted().joined(separator: ", "))")
    }
}
