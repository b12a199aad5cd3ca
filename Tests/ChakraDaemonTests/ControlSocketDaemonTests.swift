import ChakraConfig
import ChakraControl
import ChakraDisplay
import ChakraInput
import ChakraPNG
import ChakraSystem
import ChakraTestSupport
import Foundation
import Glibc
import Synchronization
import Testing
@testable import ChakraDaemon

/// The whole daemon on the headless output with its control socket,
/// driven over the socket: settings at run time, events, reload, idle
/// timers with a backlight made of files.
@Suite("Daemon over its control socket", .serialized)
struct ControlSocketDaemonTests {
    final class Running: @unchecked Sendable {
        let daemon: Daemon
        let directory: String
        var socket: String { directory + "/run/control.sock" }
        let finished = DispatchSemaphore(value: 0)

        init(_ configure: (inout DaemonConfiguration, String) throws -> Void) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("chakra-daemon-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var configuration = DaemonConfiguration()
            configuration.output = .headless
            configuration.outputOptions.headlessWidth = 64
            configuration.outputOptions.headlessHeight = 36
            configuration.terminal = .none
            configuration.fps = 30
            var control = ChakraConfig.Control()
            control.socket = directory + "/run/control.sock"
            configuration.control = control
            try configure(&configuration, directory)
            daemon = try Daemon(configuration: configuration, logger: Logger(label: "test"))
            Thread { [daemon, finished] in
                try? daemon.run()
                finished.signal()
            }.start()
            // Until a client can connect: the file is there from bind(2),
            // a moment before the daemon listens (connect is refused then).
            _ = eventually { (try? SocketClient(path: socket)) != nil }
        }

        func client() throws -> SocketClient { try SocketClient(path: socket) }

        func stop() {
            daemon.control.send(.stop)
            _ = finished.wait(timeout: .now() + 20)
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// The frame shown, once there is one.
    private func snapshot(_ client: SocketClient) throws -> PNGImage.RGB {
        var png: [UInt8]?
        _ = eventually {
            // No frame yet: ask again.
            let reply = client.request(#"{"cmd":"snapshot"}"#, timeout: 20)
            png = reply?["result"]?["png"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
            return png != nil
        }
        guard let png else { throw DaemonCommandError.noFrameYet }
        return try PNGImage.decode(png)
    }

    @Test func settingsChangeAtRunTimeAndEventsFollow() throws {
        let running = try Running { _, _ in }
        defer { running.stop() }
        let subscriber = try running.client(), client = try running.client()
        #expect(subscriber.request(#"{"cmd":"subscribe","events":["settings_changed","scene_changed","playback_changed"]}"#)?["ok"] == true)
        let first = try snapshot(client)
        #expect(first.width == 64 && first.height == 36)

        let set = client.request(#"{"id":1,"cmd":"set","key":"reduce-motion","value":true}"#)
        #expect(set?["result"]?["reduce_motion"] == true)
        let event = try #require(subscriber.readLine().flatMap { try? JSONValue.parse(Array($0.utf8)).get() })
        #expect(event["event"] == "settings_changed" && event["reduce_motion"] == true)
        #expect(try EventPayload(kind: .settingsChanged, json: event) == .settingsChanged(SettingsState(reduceMotion: true)))
        // The status already shows it when the event arrives; the scene is still.
        #expect(eventually { client.request(#"{"cmd":"status"}"#)?["result"]?["still"] == true })
        // Read as chakractl reads it: every field there, of its type.
        let status = try StatusReply(json: #require(client.request(#"{"cmd":"status"}"#)?["result"]))
        #expect(status.settings.reduceMotion && status.scene == "heart" && status.output == "headless")
        #expect(status.mode == "64x36" && status.rotation == 0 && status.clients == 2)
        #expect(status.frameTimes.samples >= 1)
        #expect(status.frameTimes.median > 0)
        #expect(status.fps.target == 30)
        #expect(status.errors.keys.sorted() == ErrorKind.allCases.map(\.rawValue).sorted())
        #expect(try snapshot(client) == snapshot(client), "still frames are the same")
        #expect(client.request(#"{"cmd":"get","key":"reduce_motion"}"#)?["result"]?["value"] == true)

        #expect(client.request(#"{"cmd":"switch","scene":"heart","transition":"cut"}"#)?["result"]?["previous"] == "heart")
        let switched = subscriber.readLine().flatMap { try? JSONValue.parse(Array($0.utf8)).get() }
        #expect(switched?["event"] == "scene_changed" && switched?["transition"] == "cut")
        #expect(client.request(#"{"cmd":"pause"}"#)?["result"]?["paused"] == true)
        #expect(subscriber.readLine()?.contains("playback_changed") == true)

        #expect(client.request(#"{"cmd":"set","key":"low-power","value":true}"#)?["result"]?["low_power"] == true)
        #expect(client.request(#"{"cmd":"status"}"#)?["result"]?["fps"]?["target"]?.doubleValue == 20)
        #expect(client.request(#"{"cmd":"set","key":"language","value":"de"}"#)?["result"]?["language"] == "de")
        #expect(client.request(#"{"cmd":"set","key":"language","value":"German"}"#)?["error"]?["code"] == "bad_argument")
        #expect(client.request(#"{"cmd":"get","key":"text.language"}"#)?["result"]?["value"] == "de")
        #expect(client.request(#"{"cmd":"set","key":"brightness","value":50}"#)?["error"]?["code"] == "not_supported")
        #expect(client.request(#"{"cmd":"switch","scene":"hart"}"#)?["error"]?["message"] == .string("no scene named 'hart'; scenes: heart, drift, calm, spiral"))
        #expect(client.request(#"{"cmd":"spiral","action":"path"}"#)?["error"]?["code"] == "not_supported")
        #expect(client.request(#"{"cmd":"get","key":"low_power.fsp"}"#)?["error"]?["message"]?.stringValue?.contains("did you mean low_power.fps?") == true)
    }

    @Test func reloadKeepsTheOldSettingsWhenTheFileIsInvalid() throws {
        var configPath = ""
        var base = ""
        let running = try Running { configuration, directory in
            configPath = directory + "/chakra.toml"
            base = """
                [display]
                output = "headless"
                vt = "none"
                backlight = "none"
                [control]
                socket = "\(directory)/run/control.sock"

                """
            try (base + "[low_power]\nfps = 15\n").write(toFile: configPath, atomically: false, encoding: .utf8)
            let loaded = try ConfigParser.load(path: configPath)
            configuration = DaemonConfiguration(file: loaded.config, source: ConfigSource(path: configPath, required: true))
            configuration.outputOptions.headlessWidth = 64
            configuration.outputOptions.headlessHeight = 36
        }
        defer { running.stop() }
        let client = try running.client()
        #expect(client.request(#"{"cmd":"get","key":"low_power.fps"}"#)?["result"]?["value"]?.doubleValue == 15)

        try (base + "[low_power]\nfps = \"fast\"\n").write(toFile: configPath, atomically: false, encoding: .utf8)
        let refused = client.request(#"{"cmd":"reload"}"#)
        #expect(refused?["error"]?["code"] == "config_invalid")
        #expect(refused?["error"]?["message"] == .string("\(configPath):8: low_power.fps: must be a number in 1...1000 (got the string \"fast\")"))
        #expect(client.request(#"{"cmd":"get","key":"low_power.fps"}"#)?["result"]?["value"]?.doubleValue == 15)

        // A file TOMLKit's toml++ used to abort the whole daemon on (an
        // assertion): refused like any other, the daemon runs on.
        try (base + "[[[\n").write(toFile: configPath, atomically: false, encoding: .utf8)
        let aborting = client.request(#"{"cmd":"reload"}"#)
        #expect(aborting?["error"]?["code"] == "config_invalid")
        #expect(aborting?["error"]?["message"]?.stringValue?.hasPrefix("\(configPath):7: column 3: expected a key") == true)
        #expect(client.request(#"{"cmd":"get","key":"low_power.fps"}"#)?["result"]?["value"]?.doubleValue == 15)

        let changed = base.replacingOccurrences(of: "output = \"headless\"", with: "output = \"drm\"\nfsp = 1") + "[low_power]\nfps = 12\n"
        try changed.write(toFile: configPath, atomically: false, encoding: .utf8)
        let reloaded = try #require(client.request(#"{"cmd":"reload"}"#)?["result"])
        #expect(reloaded["changed"] == ["display.output", "low_power.fps"])
        #expect(reloaded["restart_needed"] == ["display.output"])
        #expect(reloaded["warnings"]?.arrayValue?.count == 1)
        #expect(client.request(#"{"cmd":"get","key":"low_power.fps"}"#)?["result"]?["value"]?.doubleValue == 12)
        #expect(client.request(#"{"cmd":"get","key":"display.output"}"#)?["result"]?["value"] == "headless")
    }

    @Test func reloadOfAFIFORefusesAtOnceAndTheDaemonAnswers() throws {
        var configPath = ""
        let running = try Running { configuration, directory in
            configPath = directory + "/chakra.toml"
            try "[display]\nbacklight = \"none\"\n[low_power]\nfps = 15\n".write(toFile: configPath, atomically: false, encoding: .utf8)
            let loaded = try ConfigParser.load(path: configPath)
            let control = configuration.control
            configuration = DaemonConfiguration(file: loaded.config, source: ConfigSource(path: configPath, required: true))
            (configuration.output, configuration.terminal, configuration.control) = (.headless, .none, control)
            configuration.outputOptions.headlessWidth = 64
            configuration.outputOptions.headlessHeight = 36
        }
        defer {
            // Before the fix the server's thread waited in open(2) for a
            // writer: be one, so that the daemon can stop.
            let fd = open(configPath, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
            running.stop()
        }
        let client = try running.client(), other = try running.client()
        #expect(eventually { (client.request(#"{"cmd":"status"}"#)?["result"]?["frames"]?.intValue ?? 0) >= 1 })
        unlink(configPath)
        #expect(mkfifo(configPath, 0o644) == 0)
        let asked = Date()
        let refused = client.request(#"{"cmd":"reload"}"#, timeout: 5)
        #expect(Date().timeIntervalSince(asked) < 2)
        #expect(refused?["error"]?["code"] == "config_invalid")
        #expect(refused?["error"]?["message"] == .string("\(configPath): cannot read the file: not a regular file (a FIFO)"))
        #expect(other.request(#"{"cmd":"ping"}"#, timeout: 2)?["result"]?["pong"] == true)
        let status = try #require(other.request(#"{"cmd":"status"}"#, timeout: 2)?["result"])
        #expect(status["errors"]?["config_reload"] == 1)
        #expect(client.request(#"{"cmd":"get","key":"low_power.fps"}"#)?["result"]?["value"]?.doubleValue == 15)
    }

    /// `spiral start` from an ambient scene shows the exercise at Idle,
    /// `spiral path` gives its path (the head at its start), `cancel` goes
    /// back to the scene it came from; subscribers hear of it.
    @Test func spiralStartPathCancel() throws {
        let running = try Running { configuration, _ in
            configuration.catalogDirectory = "/nonexistent"   // built-in English
        }
        defer { running.stop() }
        let subscriber = try running.client(), client = try running.client()
        #expect(subscriber.request(#"{"cmd":"subscribe","events":["scene_changed"]}"#)?["ok"] == true)
        _ = try snapshot(client)
        let started = try #require(client.request(#"{"cmd":"spiral","action":"start"}"#)?["result"])
        #expect(started["state"] == "idle")
        #expect(started["progress"]?.doubleValue == 0)
        #expect(subscriber.readLine().map { $0.contains("\"scene\":\"spiral\"") && $0.contains("\"previous\":\"heart\"") } == true)
        let status = try #require(client.request(#"{"cmd":"status"}"#)?["result"])
        #expect(status["scene"] == "spiral")
        #expect(status["spiral"]?["state"] == "idle")
        let path = try #require(client.request(#"{"cmd":"spiral","action":"path"}"#)?["result"])
        guard case .array(let points)? = path["points"], let first = points.first, case .array(let xy) = first else {
            Issue.record("no points in \(path)")
            return
        }
        #expect(points.count > 100)
        // At Idle the head sits at the path's start; both inside the 64x36 frame.
        #expect(xy[0].doubleValue == path["head"]?["x"]?.doubleValue && xy[1].doubleValue == path["head"]?["y"]?.doubleValue)
        #expect((0...64).contains(xy[0].doubleValue ?? -1) && (0...36).contains(xy[1].doubleValue ?? -1))
        #expect(client.request(#"{"cmd":"spiral","action":"cancel"}"#)?["result"]?["state"] == "idle")
        #expect(subscriber.readLine().map { $0.contains("\"scene\":\"heart\"") && $0.contains("\"previous\":\"spiral\"") } == true)
        #expect(client.request(#"{"cmd":"status"}"#)?["result"]?["spiral"] == .null)
    }

    /// A second daemon for the same socket stops before it touches the
    /// output (chakrad run: exit 75); the first one goes on answering.
    @Test func aSecondDaemonOnTheSameSocketDoesNotStart() throws {
        let running = try Running { _, _ in }
        defer { running.stop() }
        let client = try running.client()
        #expect(client.request(#"{"cmd":"ping"}"#)?["ok"] == true)
        var configuration = running.daemon.configuration
        configuration.output = .headless
        let second = try Daemon(configuration: configuration, logger: Logger(label: "second"))
        #expect(throws: DaemonStartError.socketInUse("control socket '\(running.socket)': another process is listening there (another chakrad?)")) {
            try second.run()
        }
        #expect(client.request(#"{"cmd":"ping"}"#)?["ok"] == true)
        #expect(try running.client().request(#"{"cmd":"ping"}"#)?["ok"] == true)
    }

    /// Clients flooding requests, sending garbage, or never reading their
    /// events: frames keep coming at the cap.
    @Test func floodsDoNotDelayFrames() throws {
        // Frames presented without drawing: what is measured is the loop's
        // timing, not how fast a debug build renders on a busy machine.
        let running = try Running { configuration, _ in
            configuration.fps = 30
            configuration.presentOnly = true
        }
        defer { running.stop() }
        let probe = try running.client()
        #expect(eventually { (probe.request(#"{"cmd":"status"}"#)?["result"]?["frames"]?.intValue ?? 0) > 0 })
        let sleeper = try running.client()
        _ = sleeper.request(#"{"cmd":"subscribe"}"#)   // and never reads again
        let stop = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        let flooders = 12
        for index in 0..<flooders {
            let client = try running.client()
            Thread {
                let lines = ["{\"cmd\":\"status\"}\n", "garbage\n", "{\"cmd\":\"get\",\"key\":\"display\"}\n",
                             "{\"cmd\":\"set\",\"key\":\"language\",\"value\":\"de\"}\n"]
                var n = index
                while !stop.load(ordering: .relaxed) {
                    _ = client.request(String(lines[n % lines.count].dropLast()), timeout: 5)
                    n += 1
                }
                done.signal()
            }.start()
        }
        // The frame rate under the flood, as the daemon counts it: frames
        // and uptime from two status replies at least 2 s of its uptime
        // apart, both taken once every flooder is connected.
        func status() -> JSONValue? { probe.request(#"{"cmd":"status"}"#)?["result"] }
        #expect(eventually { status()?["clients"]?.intValue == flooders + 2 })
        let before = try #require(status())
        let start = before["uptime"]?.doubleValue ?? 0
        var after = before
        #expect(eventually {
            after = status() ?? before
            return (after["uptime"]?.doubleValue ?? 0) - start >= 2
        })
        stop.store(true, ordering: .relaxed)
        for _ in 0..<flooders { _ = done.wait(timeout: .now() + 10) }
        let frames = (after["frames"]?.intValue ?? 0) - (before["frames"]?.intValue ?? 0)
        let fps = Double(frames) / ((after["uptime"]?.doubleValue ?? 0) - start)
        // The cap is 30. A busy machine may cost a few frames; a loop held
        // up by the control thread would lose most of them.
        #expect(fps >= 20, "\(fps) fps under the flood (\(frames) frames)")
        #expect(after["clients"]?.intValue == flooders + 2)
    }

    /// Low power with idle timers: dim, then blank (black frame, backlight
    /// off); a command brings the screen back at the brightness asked for.
    @Test func idleTimersDimAndBlankAndActivityWakes() throws {
        let running = try Running { configuration, directory in
            let panel = directory + "/backlight/panel"
            try FileManager.default.createDirectory(atPath: panel, withIntermediateDirectories: true)
            try "100\n".write(toFile: panel + "/max_brightness", atomically: false, encoding: .utf8)
            try "80\n".write(toFile: panel + "/brightness", atomically: false, encoding: .utf8)
            configuration.backlight = .auto
            configuration.backlightRoot = directory + "/backlight"
            configuration.settings.lowPower = true
            configuration.config.lowPower.dimAfter = 2
            configuration.config.lowPower.blankAfter = 3.5
            configuration.config.lowPower.dimLevel = 50
        }
        defer { running.stop() }
        let level = { (try? String(contentsOfFile: running.directory + "/backlight/panel/brightness", encoding: .utf8)) ?? "" }
        let client = try running.client()
        #expect(client.request(#"{"cmd":"subscribe","events":["power_changed"]}"#)?["ok"] == true)
        // The timers start again now: on a busy machine the daemon may have
        // dimmed before the subscription was in (its own timing is not what
        // this checks). A screen dimmed or blank already comes back first.
        let woken = client.request(#"{"cmd":"wake"}"#)?["result"]?["power"]
        #expect(woken == "normal")
        var line = client.readLine(timeout: 20)
        if line == #"{"event":"power_changed","power":"normal"}"# { line = client.readLine(timeout: 20) }
        #expect(line == #"{"event":"power_changed","power":"dimmed"}"#)
        #expect(level() == "40\n")   // 50% of 80%
        #expect(client.readLine(timeout: 20) == #"{"event":"power_changed","power":"blanked"}"#)
        #expect(level() == "0\n")
        let status = try #require(client.request(#"{"cmd":"status"}"#)?["result"])
        #expect(status["power"] == "blanked" && status["brightness"] == 80 && status["backlight"] == "panel")
        // The black frame comes with the next frame slot.
        #expect(eventually { ((try? snapshot(client))?.bytes.allSatisfy { $0 == 0 }) == true })

        #expect(client.request(#"{"id":"w","cmd":"wake"}"#)?["result"]?["power"] == "normal")
        #expect(client.readLine(timeout: 20) == #"{"event":"power_changed","power":"normal"}"#)
        #expect(level() == "80\n")
        #expect(eventually { ((try? snapshot(client))?.bytes.contains { $0 != 0 }) == true })

        #expect(client.request(#"{"cmd":"set","key":"brightness","value":30}"#)?["result"]?["brightness"] == 30)
        #expect(level() == "30\n")
    }
}

/// A blocking line client for the daemon's socket.
final class SocketClient: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        fd = try connectUnixSocket(path)
    }

    deinit { close(fd) }

    func readLine(timeout: Double = 10) -> String? {
        let deadline = Deadline(seconds: timeout)
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                defer { buffer.removeFirst(newline + 1) }
                return String(decoding: buffer[..<newline], as: UTF8.self)
            }
            guard waitUntilReadable(fd, by: deadline) else { return nil }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// Sends a request and returns its reply (events before it are skipped).
    func request(_ json: String, timeout: Double = 10) -> JSONValue? {
        let line = Array((json + "\n").utf8)
        _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        while let text = readLine(timeout: timeout) {
            guard let value = try? JSONValue.parse(Array(text.utf8)).get() else { return nil }
            if value["event"] == nil { return value }
        }
        return nil
    }
}
