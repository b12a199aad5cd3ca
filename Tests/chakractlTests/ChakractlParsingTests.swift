import ChakraControl
import Testing
@testable import chakractl

/// The command line as parsed, and the requests it makes.
@Suite("chakractl command line")
struct ChakractlParsingTests {
    private func invocation(_ arguments: [String]) throws -> (any Subcommand, ConnectionOptions) {
        guard case .run(let command, let options) = try Chakractl.invocation(arguments) else {
            throw UsageError("\(arguments) printed instead of running")
        }
        return (command, options)
    }

    private func request(_ arguments: [String]) throws -> ControlCommand {
        try #require(try invocation(arguments).0 as? any ClientCommand).request()
    }

    private func options(_ arguments: [String]) throws -> ConnectionOptions {
        try invocation(arguments).1
    }

    private func printed(_ arguments: [String]) throws -> String {
        guard case .print(let text) = try Chakractl.invocation(arguments) else { throw UsageError("\(arguments) ran") }
        return text
    }

    @Test func everyCommandMakesItsRequest() throws {
        #expect(try request(["ping"]) == .ping)
        #expect(try request(["version"]) == .version)
        #expect(try request(["status"]) == .status)
        #expect(try request(["scenes"]) == .scenes)
        #expect(try request(["switch", "heart"]) == .switchScene(SceneSwitch(scene: "heart")))
        #expect(try request(["switch", "drift", "--transition", "crossfade", "--duration", "1.5"])
            == .switchScene(SceneSwitch(scene: "drift", transition: .crossfade, duration: 1.5)))
        #expect(try request(["switch", "--transition=cut", "calm", "--duration=0"])
            == .switchScene(SceneSwitch(scene: "calm", transition: .cut, duration: 0)))
        #expect(try request(["set", "reduce-motion", "on"]) == .set(.reduceMotion(true)))
        #expect(try request(["set", "reduce-motion", "off"]) == .set(.reduceMotion(false)))
        #expect(try request(["set", "low-power", "true"]) == .set(.lowPower(true)))
        #expect(try request(["set", "language", "pt-BR"]) == .set(.language("pt-BR")))
        #expect(try request(["set", "brightness", "40"]) == .set(.brightness(40)))
        #expect(try request(["set", "brightness", "100%"]) == .set(.brightness(100)))
        #expect(try request(["get", "low_power.fps"]) == .get(key: "low_power.fps"))
        #expect(try request(["snapshot", "out.png"]) == .snapshot)
        #expect(try request(["reload"]) == .reload)
        #expect(try request(["pause"]) == .pause)
        #expect(try request(["resume"]) == .resume)
        #expect(try request(["wake"]) == .wake)
        #expect(try request(["spiral", "start"]) == .spiral(.start))
        #expect(try request(["spiral", "cancel"]) == .spiral(.cancel))
        #expect(try request(["spiral", "path"]) == .spiral(.path))
        #expect(try request(["spiral", "start", "--pattern", "box"]) == .spiral(.start, pattern: "box"))
        #expect(try request(["spiral", "--pattern=4-7-8", "start"]) == .spiral(.start, pattern: "4-7-8"))
        #expect(try request(["stats"]) == .stats(StatsQuery()))
        #expect(try request(["stats", "--since", "2026-11-01"]) == .stats(StatsQuery(since: StatsQuery.Day(year: 2026, month: 11, day: 1))))
        #expect(try request(["touch", "down", "320", "215.5"]) == .touch(TouchRequest(phase: .down, x: 320, y: 215.5)))
        #expect(try request(["touch", "move", "1", "2", "--contact", "9"]) == .touch(TouchRequest(phase: .move, contact: 9, x: 1, y: 2)))
        #expect(try request(["touch", "up"]) == .touch(TouchRequest(phase: .up)))
        #expect(try request(["touch", "cancel", "--contact=2"]) == .touch(TouchRequest(phase: .cancel, contact: 2)))
        let events = try #require(try invocation(["events", "scene_changed", "power-changed"]).0 as? Events)
        #expect(events.kinds == [.sceneChanged, .powerChanged])
        #expect(try #require(try invocation(["events"]).0 as? Events).kinds.isEmpty)
        // After --, a word that looks like an option is a value.
        #expect(try request(["get", "--", "--odd"]) == .get(key: "--odd"))
    }

    /// --socket, --json and --timeout work before or after the command.
    @Test func connectionOptionsBeforeOrAfterTheCommand() throws {
        #expect(try options(["--socket", "/tmp/a.sock", "--json", "status"]) == ConnectionOptions(socket: "/tmp/a.sock", json: true))
        #expect(try options(["status", "--socket", "/tmp/b.sock", "--timeout", "3"]) == ConnectionOptions(socket: "/tmp/b.sock", timeout: 3))
        #expect(try options(["--socket", "/tmp/outer.sock", "ping", "--socket", "/tmp/inner.sock"]).socket == "/tmp/inner.sock")
        #expect(try options(["--timeout=0.5", "ping"]).timeout == 0.5)
    }

    @Test func socketFromOptionThenEnvironmentThenDefault() throws {
        let given = try options(["ping", "--socket", "/tmp/x.sock"])
        #expect(given.socketPath(environment: ["CHAKRA_SOCKET": "/tmp/env.sock"]) == "/tmp/x.sock")
        let plain = try options(["ping"])
        #expect(plain.socketPath(environment: ["CHAKRA_SOCKET": "/tmp/env.sock"]) == "/tmp/env.sock")
        #expect(plain.socketPath(environment: [:]) == "/run/chakra/control.sock")
        #expect(plain.socketPath(environment: ["CHAKRA_SOCKET": ""]) == "/run/chakra/control.sock")
    }

    @Test(arguments: [
        ["bogus"], ["set", "brightness", "101"], ["set", "brightness", "dim"], ["set", "reduce-motion", "maybe"],
        ["set", "volume", "3"], ["set", "language", "en us"], ["switch"], ["switch", "heart", "--duration", "61"],
        ["switch", "heart", "--duration", "soon"], ["switch", "heart", "--transition", "wipe"], ["switch", "heart", "--duration"],
        ["spiral", "jump"], ["spiral", "cancel", "--pattern", "box"], ["spiral", "start", "--pattern", ""], ["spiral", "start", "--pattern"],
        ["stats", "--since", "yesterday"], ["stats", "--since", "2026-02-30"], ["stats", "--since"],
        ["touch"], ["touch", "tap", "1", "2"], ["touch", "down"], ["touch", "down", "1"], ["touch", "move", "1", "y"],
        ["touch", "down", "1", "2", "3"], ["touch", "down", "inf", "2"], ["touch", "up", "--contact", "10"],
        ["events", "weather"], ["get"], ["snapshot"], ["snapshot", ""], ["status", "--timeout", "0"],
        ["status", "--timeout", "nan"], ["ping", "extra"], ["ping", "--jsn"], ["ping", "--json=yes"], ["ping", "-x"],
        ["--socket", "", "ping"], ["help", "bogus"], ["--transition", "cut", "switch", "heart"],
    ])
    func usageErrors(arguments: [String]) {
        do {
            let outcome = try Chakractl.invocation(arguments)
            Issue.record("accepted \(arguments): \(outcome)")
        } catch {
            // main() turns this into exit status 2, with this message.
            #expect(!error.description.isEmpty)
            #expect(Chakractl.usageMessage(error).hasPrefix("chakractl: \(error.description)\nUsage: chakractl"))
        }
    }

    /// What a person reads from `stats`: totals, a row per day, patterns.
    @Test func statsAsAPersonReadsThem() throws {
        let reply = try JSONValue.parse(Array("""
            {"file": "/var/lib/chakra/sessions.log", "recording": true, "problem": null, "since": null, "first_day": "2026-11-24",
             "damaged": 1, "total": {"started": 4, "completed": 3, "abandoned": 1, "completion_rate": 0.75, "minutes_breathed": 12.46},
             "days": [{"date": "2026-11-24", "started": 1, "completed": 0, "abandoned": 1, "completion_rate": 0, "minutes_breathed": 0.2},
                      {"date": "2026-11-26", "started": 3, "completed": 3, "abandoned": 0, "completion_rate": 1, "minutes_breathed": 12.26}],
             "patterns": {"box": 1, "6-4-8": 3}}
            """.utf8)).get()
        let text = Stats(since: nil).human(try StatsReply(json: reply))
        #expect(text == """
            sessions since 2026-11-24 (every record kept): 4 started, 3 completed (75%), 1 abandoned, 12.5 minutes breathed

            date        started  completed  rate  minutes
            2026-11-24        1          0    0%      0.2
            2026-11-26        3          3  100%     12.3

            patterns: 6-4-8 3, box 1
            1 damaged line skipped in /var/lib/chakra/sessions.log
            """, "\(text)")
        let none = try JSONValue.parse(Array("""
            {"file": null, "recording": false, "problem": null, "since": null, "first_day": null, "damaged": 0,
             "total": {"started": 0, "completed": 0, "abandoned": 0, "completion_rate": null, "minutes_breathed": 0}, "days": [], "patterns": {}}
            """.utf8)).get()
        #expect(Stats(since: nil).human(try StatsReply(json: none)) == "sessions are not recorded ([sessions] file is empty)\nno sessions recorded yet")
    }

    /// A reply that does not fit its type (a daemon of another protocol, a
    /// bug) is a failure that names the field: exit 3, no trap.
    @Test func aReplyThatDoesNotFitIsAClearFailure() throws {
        let wrong: JSONValue = ["healthy": "yes", "reason": "r"]
        let failure = #expect(throws: ClientFailure.self) { _ = try Health.reply(wrong) }
        #expect(failure?.status == .unreachable)
        #expect(failure?.description == "chakrad's reply to health cannot be read: 'healthy': expected true or false, got a string")
        let missing = #expect(throws: ClientFailure.self) { _ = try Status.reply(["scene": "heart"]) }
        #expect(missing?.description == "chakrad's reply to status cannot be read: 'paused': missing")
        #expect(try Health().human(Health.reply(["healthy": true, "reason": "r", "newer": 1])) == "healthy: r")
    }

    @Test("status shows how chakrad started, with the reason when the picture was not kept")
    func statusStarted() throws {
        var reply = StatusReply()
        #expect(Status().human(reply).contains("\nstarted        fresh\n"))
        reply.start = StartReport(kind: .restartedWithoutPicture, reason: "no drm descriptor passed")
        #expect(Status().human(reply).contains("\nstarted        restarted-without-picture (no drm descriptor passed)\n"))
        // An unknown kind is a reply that cannot be read, not a guess.
        var json = reply.json
        if case .object(var fields) = json { fields["start"] = "resumed"; json = .object(fields) }
        let failure = #expect(throws: ReplyDecodingError.self) { _ = try StatusReply(json: json) }
        #expect(failure?.path == "start")
    }

    @Test func helpVersionAndNothing() throws {
        let root = try printed(["--help"])
        #expect(root.hasPrefix("OVERVIEW: Control a running chakrad."))
        for command in Chakractl.parser.commands { #expect(root.contains("\n  \(command.name) "), "\(command.name) missing from --help") }
        #expect(try printed([]) == root)
        #expect(try printed(["help"]) == root)
        let switchHelp = try printed(["switch", "--help"])
        #expect(switchHelp.contains("USAGE: chakractl switch <scene> [--transition <transition>] [--duration <seconds>]"))
        #expect(switchHelp.contains("(values: cut, crossfade)"))
        #expect(try printed(["help", "switch"]) == switchHelp)
        #expect(try printed(["switch", "heart", "-h"]) == switchHelp)
        #expect(try printed(["--version"]) == "chakractl \(ChakraVersion.current) (protocol \(ControlProtocol.version))")
        // No help line runs past 80 columns.
        for line in (root + switchHelp).split(separator: "\n") where !line.hasPrefix("USAGE:") {
            #expect(line.count <= HelpText.width, "\(line)")
        }
    }

    /// The man page's source: ToolInfo JSON with every command and its arguments.
    @Test func dumpHelpDescribesEveryCommand() throws {
        let info = try JSONValue.parse(Array(try printed(["--experimental-dump-help"]).utf8)).get()
        #expect(info["serializationVersion"] == 0)
        let command = try #require(info["command"])
        #expect(command["commandName"] == "chakractl")
        let subcommands = try #require(command["subcommands"]?.arrayValue)
        #expect(subcommands.compactMap { $0["commandName"]?.stringValue } == Chakractl.parser.commands.map(\.name))
        let switchInfo = try #require(subcommands.first { $0["commandName"] == "switch" })
        let arguments = try #require(switchInfo["arguments"]?.arrayValue)
        let transition = try #require(arguments.first { $0["preferredName"]?["name"] == "transition" })
        #expect(transition["kind"] == "option" && transition["valueName"] == "transition")
        #expect(transition["allValues"] == ["cut", "crossfade"])
        #expect(arguments.first?["kind"] == "positional" && arguments.first?["isOptional"] == false)
        // The connection options are every command's too.
        #expect(arguments.contains { $0["preferredName"]?["name"] == "socket" })
    }

    @Test func helpTextWrapsAtWordBoundaries() {
        let text = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
        let wrapped = HelpText.wrap(text, indent: 30, first: 70)
        let lines = wrapped.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3)
        #expect(lines[0] == "one two")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(String(repeating: " ", count: 30)) && $0.dropFirst(30).first != " " })
        #expect(lines.dropFirst().allSatisfy { $0.count <= HelpText.width })
        #expect(lines.map { $0.split(separator: " ") }.joined().joined(separator: " ") == text)
        #expect(70 + lines[0].count <= HelpText.width)
    }
}

@Suite("base64")
struct Base64Tests {
    @Test func decodesTheRFC4648Vectors() {
        let vectors = ["": "", "Zg==": "f", "Zm8=": "fo", "Zm9v": "foo", "Zm9vYg==": "foob", "Zm9vYmE=": "fooba", "Zm9vYmFy": "foobar"]
        for (encoded, plain) in vectors {
            #expect(Base64.decode(encoded) == Array(plain.utf8), "\(encoded)")
        }
        #expect(Base64.decode("+/+/") == [0xFB, 0xFF, 0xBF])
        #expect(Base64.decode("iVBORw0KGgo=") == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    @Test(arguments: ["Zg=", "Zg", "Z===", "=Zg=", "Zg==Zg==", "Zm9v\n", "Zm-v", "Zm_v", "Zm9ü", "Z=9v", "===="])
    func refusesWhatIsNotBase64(text: String) {
        #expect(Base64.decode(text) == nil, "\(text)")
    }
}
