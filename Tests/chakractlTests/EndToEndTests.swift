import ChakraControl
import ChakraPNG
import ChakraTestSupport
import Foundation
import Glibc
import Testing

/// The real chakrad, headless, driven by the real chakractl.
@Suite("chakrad and chakractl end to end", .serialized, .enabled(if: Binaries.directory != nil, "build chakrad and chakractl first"))
struct EndToEndTests {
    private func temporaryDirectory() -> String {
        var template = Array("/tmp/chakra-e2e-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    private func json(_ text: String) -> JSONValue? {
        try? JSONValue.parse(Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)).get()
    }

    @Test func drivesTheHeadlessDaemon() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/chakra.toml"
        try "[display]\nbacklight = \"none\"\n[low_power]\nfps = 20\n".write(toFile: config, atomically: false, encoding: .utf8)
        let socket = directory + "/run/control.sock"
        let daemon = try DaemonProcess(["run", "--config", config, "--output", "headless", "--headless-size", "320x180",
                                        "--vt", "none", "--socket", socket], log: directory + "/chakrad.log")
        #expect(daemon.waitUntilAnswering(socket: socket), "chakrad did not answer:\n\(daemon.output)")

        let switched = try Binaries.ctl(socket, "switch", "heart")
        #expect(switched.status == 0 && switched.output == "heart (was heart; crossfade)\n", "\(switched)")

        let set = try Binaries.ctl(socket, "set", "reduce-motion", "on")
        #expect(set.status == 0 && set.output == "reduce-motion on\n")
        let status = json(try Binaries.ctl(socket, "--json", "status").output)?["result"]
        #expect(status?["reduce_motion"] == true && status?["still"] == true && status?["scene"] == "heart")
        #expect(status?["mode"] == "320x180" && status?["output"] == "headless")
        let human = try Binaries.ctl(socket, "status").output
        #expect(human.contains("scene          heart (still)\n") && human.contains("reduce motion  on\n"), "\(human)")

        let png = directory + "/shot.png"
        let snapshot = try Binaries.ctl(socket, "snapshot", png)
        #expect(snapshot.status == 0 && snapshot.output == "wrote \(png) (320x180)\n", "\(snapshot)")
        let image = try PNGImage.read(from: png)
        #expect(image.width == 320 && image.height == 180)
        #expect(Set(image.bytes).count > 16, "a real frame, not a flat one")

        #expect(try Binaries.ctl(socket, "get", "low_power.fps").output == "low_power.fps = 20\n")
        #expect(try Binaries.ctl(socket, "get", "reduce_motion").output == "reduce_motion = true\n")

        // The daemon says no: exit 1, the message and code on stderr.
        let refused = try Binaries.ctl(socket, "switch", "hart")
        #expect(refused.status == 1)
        #expect(refused.error == "chakractl: no scene named 'hart'; scenes: heart, drift, calm, spiral (unknown_scene)\n")
        let refusedJSON = try Binaries.ctl(socket, "--json", "get", "nope")
        #expect(refusedJSON.status == 1 && json(refusedJSON.output)?["error"]?["code"] == "unknown_key")
        // Not on screen: cancel and path are refused.
        #expect(try Binaries.ctl(socket, "spiral", "cancel").status == 1)
        // Usage errors: exit 2, nothing sent.
        #expect(try Binaries.ctl(socket, "bogus").status == 2)
        #expect(try Binaries.ctl(socket, "set", "brightness", "150").status == 2)

        // SIGHUP reads the file again.
        try "[display]\nbacklight = \"none\"\n[low_power]\nfps = 15\n".write(toFile: config, atomically: false, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        #expect(eventually { (try? Binaries.ctl(socket, "get", "low_power.fps").output) == "low_power.fps = 15\n" })
        // An invalid file on `chakractl reload`: exit 1, old settings kept.
        try "[low_power]\nfps = \"fast\"\n".write(toFile: config, atomically: false, encoding: .utf8)
        let reload = try Binaries.ctl(socket, "reload")
        #expect(reload.status == 1 && reload.error.contains("\(config):2: low_power.fps: must be a number") && reload.error.contains("(config_invalid)"))
        #expect(try Binaries.ctl(socket, "get", "low_power.fps").output == "low_power.fps = 15\n")

        #expect(daemon.stop() == 0)
        #expect(access(socket, F_OK) != 0, "the socket file is removed at exit")
        let gone = try Binaries.ctl(socket, "ping")
        #expect(gone.status == 3)
        #expect(gone.error.hasPrefix("chakractl: cannot reach chakrad at \(socket): No such file or directory"))
    }

    @Test func eventsStreamUntilInterrupted() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/control.sock"
        let daemon = try DaemonProcess(["run", "--config", "/dev/null", "--output", "headless", "--headless-size", "64x36",
                                        "--vt", "none", "--socket", socket], log: directory + "/chakrad.log")
        defer { _ = daemon.stop() }
        #expect(daemon.waitUntilAnswering(socket: socket))
        let events = Process()
        events.executableURL = URL(fileURLWithPath: Binaries.chakractl)
        events.arguments = ["--socket", socket, "events", "--json", "settings_changed", "playback_changed"]
        // Into a file, read while it runs: the last event may reach
        // chakractl after `resume` has answered, so the test waits for it
        // (up to 30 s) before interrupting.
        let output = directory + "/events.jsonl"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        events.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        func written() -> [String] {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        try events.run()
        // Subscribed once the daemon counts two clients at a status.
        #expect(eventually { json((try? Binaries.ctl(socket, "--json", "status"))?.output ?? "")?["result"]?["clients"] == 2 })
        #expect(try Binaries.ctl(socket, "set", "low-power", "on").status == 0)
        #expect(try Binaries.ctl(socket, "pause").status == 0)
        #expect(try Binaries.ctl(socket, "switch", "heart").status == 0)   // not subscribed to scene_changed
        #expect(try Binaries.ctl(socket, "resume").status == 0)
        // (A scene_changed, were it let through, would come before the
        // resume's event and show up among these three lines.)
        _ = eventually { written().count >= 3 }
        events.interrupt()
        events.waitUntilExit()
        #expect(written() == [
            #"{"event":"settings_changed","brightness":null,"language":"en","low_power":true,"reduce_motion":false}"#,
            #"{"event":"playback_changed","paused":true}"#,
            #"{"event":"playback_changed","paused":false}"#,
        ])
    }

    @Test func noDaemonIsExitThreeNamingTheSocket() throws {
        let missing = try Binaries.run(Binaries.chakractl, ["status"], environment: ["CHAKRA_SOCKET": "/nonexistent/chakra.sock"])
        #expect(missing.status == 3)
        #expect(missing.error == "chakractl: cannot reach chakrad at /nonexistent/chakra.sock: No such file or directory "
            + "(is chakrad running? --socket or CHAKRA_SOCKET name another socket)\n")
        // A socket file nobody listens on.
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stale = directory + "/stale.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in stale.utf8.enumerated() { raw[i] = b } }
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        close(fd)
        let refused = try Binaries.ctl(stale, "ping")
        #expect(refused.status == 3 && refused.error.contains("Connection refused"))
    }

    /// Two daemons for one socket: the second says why and exits 75
    /// (EX_TEMPFAIL) before it touches a screen; the first runs on.
    @Test func aSecondDaemonOnTheSameSocketExits75() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/control.sock"
        let arguments = ["run", "--config", "/dev/null", "--output", "headless", "--headless-size", "64x36", "--vt", "none", "--socket", socket]
        let first = try DaemonProcess(arguments, log: directory + "/first.log")
        defer { _ = first.stop() }
        #expect(first.waitUntilAnswering(socket: socket), "chakrad did not answer:\n\(first.output)")
        let second = try Binaries.run(Binaries.chakrad, arguments)
        #expect(second.status == 75)
        #expect(second.error.contains("control socket '\(socket)': another process is listening there (another chakrad?); not starting a second daemon"), "\(second.error)")
        // It stopped before it touched the session log, which is the first's.
        #expect(!(second.output + second.error).contains("sessions:"), "\(second.error)")
        #expect(try Binaries.ctl(socket, "ping").status == 0)
    }

    /// Its log on a pipe whose reader goes away (`chakrad run 2>&1 | head
    /// -c1` under a supervisor that leaves SIGPIPE as it is): the next log
    /// lines fail with EPIPE and the daemon runs on. It was killed by
    /// SIGPIPE at the first of them, its socket file left behind.
    @Test func aLogReaderThatGoesAwayDoesNotStopTheDaemon() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/control.sock"
        // Close-on-exec: no other child of this test process may hold the
        // read end open (pipe2 is _GNU_SOURCE, hidden from Swift).
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: Binaries.chakrad)
        daemon.arguments = ["run", "--config", "/dev/null", "--output", "headless", "--headless-size", "64x36", "--vt", "none", "--socket", socket]
        let writeEnd = FileHandle(fileDescriptor: ends[1], closeOnDealloc: false)
        (daemon.standardOutput, daemon.standardError) = (writeEnd, writeEnd)
        try daemon.run()
        close(ends[1])
        defer { if daemon.isRunning { daemon.terminate() }; daemon.waitUntilExit() }
        // Up; its first lines wait in the pipe, unread.
        #expect(eventually { (try? Binaries.ctl(socket, "ping"))?.status == 0 }, "chakrad did not answer")
        close(ends[0])   // the reader goes away
        // Requests that log a line each.
        #expect(try Binaries.ctl(socket, "reload").status == 0)
        #expect(try Binaries.ctl(socket, "switch", "calm", "--transition", "cut").status == 0)
        #expect(try Binaries.ctl(socket, "set", "language", "de").status == 0)
        #expect(try Binaries.ctl(socket, "ping").status == 0)
        #expect(daemon.isRunning, "chakrad died: \(daemon.terminationReason == .uncaughtSignal ? "signal" : "status") \(daemon.terminationStatus)")
        // It stops as usual (logging as it goes) and removes its socket.
        daemon.terminate()
        daemon.waitUntilExit()
        #expect(daemon.terminationReason == .exit && daemon.terminationStatus == 0,
                "\(daemon.terminationReason == .uncaughtSignal ? "signal" : "status") \(daemon.terminationStatus)")
        #expect(access(socket, F_OK) != 0, "the socket file is removed at exit")
    }

    @Test func anInvalidConfigurationStopsTheStartWithKeyAndLine() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/bad.toml"
        try "# kiosk\n[display]\nrotation = 45\n".write(toFile: config, atomically: false, encoding: .utf8)
        let outcome = try Binaries.run(Binaries.chakrad, ["run", "--config", config, "--output", "headless", "--vt", "none"])
        #expect(outcome.status == 78)
        #expect(outcome.error.contains("\(config):3: display.rotation: must be one of 0, 90, 180, 270 (got the integer 45)"), "\(outcome.error)")
        try "[scene]\ndefault = \"hart\"\n".write(toFile: config, atomically: false, encoding: .utf8)
        let unknown = try Binaries.run(Binaries.chakrad, ["run", "--config", config, "--output", "headless", "--vt", "none"])
        #expect(unknown.status == 78 && unknown.error.contains("\(config):2: scene.default: no scene named 'hart'"), "\(unknown.error)")
    }

    /// systemd socket activation: fd 3 listening, $LISTEN_PID our pid.
    /// Python stands in for systemd (binds, then execs chakrad in place).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["PATH"]?.contains("python") == true))
    func socketActivation() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/activated.sock"
        let script = """
            import os, socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(sys.argv[1]); s.listen(8)
            os.dup2(s.fileno(), 3); os.set_inheritable(3, True)
            os.environ["LISTEN_FDS"] = "1"; os.environ["LISTEN_PID"] = str(os.getpid())
            os.execv(sys.argv[2], [sys.argv[2]] + sys.argv[3:])
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, socket, Binaries.chakrad, "run", "--config", "/dev/null", "--output", "headless",
                             "--headless-size", "64x36", "--vt", "none", "--socket", directory + "/not-this-one.sock"]
        let log = Pipe()
        (process.standardOutput, process.standardError) = (log, log)
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        #expect(eventually { (try? Binaries.ctl(socket, "ping"))?.status == 0 })
        #expect(access(directory + "/not-this-one.sock", F_OK) != 0, "the activated socket is used, --socket is not bound")
        process.terminate()
        process.waitUntilExit()
        #expect(access(socket, F_OK) == 0, "systemd's socket is never removed by chakrad")
        let text = String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.contains("control: listening on \(socket) (from systemd)"), "\(text)")
    }

    /// A finger from chakractl (`touch`) begins the spiral; `spiral cancel`
    /// ends it; `stats` reads the record back, and after a restart too. A
    /// log that cannot be opened: stats says why, nothing else breaks.
    @Test func sessionsThroughTouchAndStats() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/chakra.toml"
        try """
            [display]
            backlight = "none"
            [scene]
            default = "spiral"
            [sessions]
            file = "\(directory)/state/sessions.log"
            """.write(toFile: config, atomically: false, encoding: .utf8)
        let socket = directory + "/control.sock"
        let arguments = ["run", "--config", config, "--output", "headless", "--headless-size", "320x240", "--vt", "none", "--socket", socket]
        var daemon = try DaemonProcess(arguments, log: directory + "/chakrad.log")
        #expect(daemon.waitUntilAnswering(socket: socket), "chakrad did not answer:\n\(daemon.output)")
        let path = try Binaries.ctl(socket, "spiral", "path").output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        try #require(path.count > 20)
        #expect(try Binaries.ctl(socket, "touch", "down", path[0][0], path[0][1]).status == 0)
        for point in path[1...10] { _ = try Binaries.ctl(socket, "touch", "move", point[0], point[1]) }
        #expect(try Binaries.ctl(socket, "spiral", "path").output.isEmpty == false)
        let state = json(try Binaries.ctl(socket, "--json", "spiral", "path").output)?["result"]?["state"]
        #expect(state == "inhale", "the touches began the exercise: \(String(describing: state))")
        #expect(try Binaries.ctl(socket, "touch", "up").status == 0)
        #expect(try Binaries.ctl(socket, "spiral", "cancel").status == 0)
        #expect(eventually { (try? Binaries.ctl(socket, "stats").output)?.contains(": 1 started, 0 completed (0%), 1 abandoned,") == true })
        let stats = json(try Binaries.ctl(socket, "--json", "stats").output)?["result"]
        #expect(stats?["patterns"]?["6-4-8"] == 1 && stats?["damaged"] == 0 && stats?["problem"] == .null)
        let log = try String(contentsOfFile: directory + "/state/sessions.log", encoding: .utf8)
        #expect(log.hasPrefix("v1 start=") && log.contains(" outcome=abandoned ending=cancelled pattern=6-4-8 furthest=inhale "), "\(log)")
        #expect(daemon.stop() == 0)

        // Again on the same file: the record is read back.
        daemon = try DaemonProcess(arguments, log: directory + "/chakrad-2.log")
        #expect(daemon.waitUntilAnswering(socket: socket))
        #expect(eventually { (try? Binaries.ctl(socket, "stats").output)?.contains(": 1 started, 0 completed") == true })
        #expect(daemon.stop() == 0)

        // A directory where the log should be: a clear problem, the daemon runs on.
        try FileManager.default.removeItem(atPath: directory + "/state/sessions.log")
        try FileManager.default.createDirectory(atPath: directory + "/state/sessions.log", withIntermediateDirectories: false)
        daemon = try DaemonProcess(arguments, log: directory + "/chakrad-3.log")
        #expect(daemon.waitUntilAnswering(socket: socket))
        #expect(eventually { (try? Binaries.ctl(socket, "stats").output)?.contains("the session records cannot be used: ") == true })
        #expect(try Binaries.ctl(socket, "ping").status == 0)
        #expect(daemon.stop() == 0)
    }
}
