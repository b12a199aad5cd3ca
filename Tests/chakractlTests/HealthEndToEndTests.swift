import ChakraControl
import ChakraTestSupport
import Foundation
import Glibc
import Testing

/// The real chakrad, headless, asked by the real chakractl what is true at
/// that moment: health across a freeze (SIGSTOP), frames between two
/// publications of the status, and the refused reloads it counted.
@Suite("chakrad's reports, true when asked", .serialized, .enabled(if: Binaries.directory != nil, "build chakrad and chakractl first"))
struct HealthEndToEndTests {
    /// A headless chakrad at 30 fps with its own socket, its metrics file
    /// every second and no session log. Frames are presented without
    /// drawing them: what is checked is what the daemon reports about its
    /// loop, not how fast a debug build draws on a busy machine.
    final class Kiosk {
        let directory: String
        let config: String
        let socket: String
        let metrics: String
        let daemon: DaemonProcess

        init() throws {
            var template = Array("/tmp/chakra-e2e-health-XXXXXX".utf8CString)
            directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
            (config, socket, metrics) = (directory + "/chakra.toml", directory + "/control.sock", directory + "/metrics")
            try FileManager.default.createDirectory(atPath: metrics, withIntermediateDirectories: true)
            try Self.base(metrics).write(toFile: config, atomically: false, encoding: .utf8)
            daemon = try DaemonProcess(["run", "--config", config, "--output", "headless", "--headless-size", "160x90",
                                        "--vt", "none", "--socket", socket, "--debug-present-only"], log: directory + "/chakrad.log")
        }

        static func base(_ metrics: String) -> String {
            "[display]\nbacklight = \"none\"\nfps = 30\n[metrics]\ntextfile_directory = \"\(metrics)\"\ninterval = 1.0\n[sessions]\nfile = \"\"\n"
        }

        var pid: pid_t { daemon.process.processIdentifier }

        /// `chakractl --json ARGS`: the exit status and the reply.
        func ask(_ arguments: String...) throws -> (status: Int32, reply: JSONValue?) {
            let outcome = try Binaries.run(Binaries.chakractl, ["--socket", socket, "--json"] + arguments)
            let text = outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
            return (outcome.status, try? JSONValue.parse(Array(text.utf8)).get())
        }

        /// Resumed (if frozen), stopped, and its files removed.
        func finish() -> Int32 {
            kill(pid, SIGCONT)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            return daemon.stop()
        }
    }

    @Test func healthAcrossAFreezeAndFramesBetweenPublications() throws {
        let kiosk = try Kiosk()
        defer { #expect(kiosk.finish() == 0) }
        #expect(kiosk.daemon.waitUntilAnswering(socket: kiosk.socket), "chakrad did not answer:\n\(kiosk.daemon.output)")
        let client = try LineClient(path: kiosk.socket)
        func status() -> JSONValue? { client.request(#"{"cmd":"status"}"#)?["result"] }
        #expect(eventually { (status()?["frames"]?.intValue ?? -1) > 10 }, "frames flow")

        // `frames` is counted when asked: four counts seen within less than
        // 2 s of the daemon's uptime, where the status it publishes every
        // 2 s would show at most two.
        var seen = Set<Int>()
        var uptimes: [Double] = []
        #expect(eventually {
            guard let now = status(), let frames = now["frames"]?.intValue, let uptime = now["uptime"]?.doubleValue else { return false }
            if seen.insert(frames).inserted { uptimes.append(uptime) }
            return seen.count >= 4
        })
        let span = (uptimes.last ?? 0) - (uptimes.first ?? 0)
        #expect(span < 2, "frames \(seen.sorted()) seen over \(span) s of uptime")

        // Frozen 6 s, past the 5 s allowed (a busy machine only makes the
        // freeze longer): unhealthy, from the age if asked before the
        // loop's next frame, from the stall it ended if after. (Frozen for
        // less than allowed is healthy: DaemonHealthTests' freezes, on
        // virtual time, where no busy machine can stretch 3.5 s past 5.)
        try waitUntilFramesFlow(kiosk)
        kill(kiosk.pid, SIGSTOP)
        letRealTimePass(seconds: 6)
        kill(kiosk.pid, SIGCONT)
        let long = try kiosk.ask("health")
        let reason = long.reply?["result"]?["reason"]?.stringValue ?? ""
        #expect(long.status == 1 && long.reply?["result"]?["healthy"] == false, "after 6 s: \(String(describing: long.reply))")
        // (6 s or a little more: the request comes a moment after SIGCONT.)
        #expect(reason.hasPrefix("frames stalled for ") || reason.hasPrefix("no frame for "), "\(reason)")
        // And healthy again once frames have flowed for the allowed gap.
        #expect(eventually { (try? kiosk.ask("health"))?.status == 0 })
    }

    /// Frames reach the screen, as health says when nothing is wrong.
    private func waitUntilFramesFlow(_ kiosk: Kiosk) throws {
        let flowing = eventually {
            let reason = (try? kiosk.ask("health"))?.reply?["result"]?["reason"]?.stringValue
            return reason?.hasPrefix("frames reach the screen") == true
        }
        #expect(flowing, "frames do not flow:\n\(kiosk.daemon.output)")
    }

    @Test func everyRefusedReloadIsCountedInStatusAndMetrics() throws {
        let kiosk = try Kiosk()
        defer { #expect(kiosk.finish() == 0) }
        #expect(kiosk.daemon.waitUntilAnswering(socket: kiosk.socket), "chakrad did not answer:\n\(kiosk.daemon.output)")
        func counted() -> Int? { try? kiosk.ask("status").reply?["result"]?["errors"]?["config_reload"]?.intValue }
        func exported() -> Int? {
            let text = (try? String(contentsOfFile: kiosk.metrics + "/chakra.prom", encoding: .utf8)) ?? ""
            let prefix = "chakra_errors_total{kind=\"config_reload\"} "
            return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
        }
        #expect(eventually { exported() == 0 }, "the metrics file is written")

        // A file that cannot be read: `chakractl reload` twice.
        try "[[[\n".write(toFile: kiosk.config, atomically: false, encoding: .utf8)
        for expected in 1...2 {
            let refused = try kiosk.ask("reload")
            #expect(refused.status == 1 && refused.reply?["error"]?["code"] == "config_invalid", "\(String(describing: refused.reply))")
            // The answer comes after the status that counts it.
            #expect(counted() == expected)
        }
        // One this build refuses, by the protocol's request on a socket.
        try (Kiosk.base(kiosk.metrics) + "[scene]\ndefault = \"nope\"\n").write(toFile: kiosk.config, atomically: false, encoding: .utf8)
        let client = try LineClient(path: kiosk.socket)
        #expect(client.request(#"{"id":1,"cmd":"reload"}"#)?["error"]?["code"] == "config_invalid")
        #expect(counted() == 3)
        // And by SIGHUP.
        try "[[[\n".write(toFile: kiosk.config, atomically: false, encoding: .utf8)
        kill(kiosk.pid, SIGHUP)
        #expect(eventually { counted() == 4 })
        #expect(eventually { exported() == 4 }, "chakra.prom: \(String(describing: exported()))")
        // The old settings stayed.
        #expect(try kiosk.ask("get", "scene.default").reply?["result"]?["value"] == "heart")
    }
}

/// One connection to the socket, a request and its reply at a time
/// (events skipped): answers in milliseconds, where starting chakractl
/// takes tens of them.
final class LineClient {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        fd = try connectUnixSocket(path)
    }

    deinit { close(fd) }

    func request(_ json: String, timeout: Double = 20) -> JSONValue? {
        let line = Array((json + "\n").utf8)
        _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        let deadline = Deadline(seconds: timeout)
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let text = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                guard let value = try? JSONValue.parse(text).get() else { return nil }
                if value["event"] == nil { return value }
                continue
            }
            guard waitUntilReadable(fd, by: deadline) else { return nil }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }
}
