import ArgumentParser
import ChakraControl
import Testing
@testable import chakractl

/// The command line as parsed (parseAsRoot), and the requests it makes.
@Suite("chakractl command line")
struct ChakractlParsingTests {
    private func parse(_ arguments: [String]) throws -> ParsableCommand {
        try Chakractl.parseAsRoot(arguments)
    }

    private func request(_ arguments: [String]) throws -> ControlCommand {
        let command = try parse(arguments)
        return try #require(command as? any ClientCommand).request()
    }

    @Test func everyCommandMakesItsRequest() throws {
        #expect(try request(["ping"]) == .ping)
        #expect(try request(["version"]) == .version)
        #expect(try request(["status"]) == .status)
        #expect(try request(["scenes"]) == .scenes)
        #expect(try request(["switch", "heart"]) == .switchScene(SceneSwitch(scene: "heart")))
        #expect(try request(["switch", "drift", "--transition", "crossfade", "--duration", "1.5"])
            == .switchScene(SceneSwitch(scene: "drift", transition: .crossfade, duration: 1.5)))
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
        #expect(try parse(["events", "scene_changed", "power-changed"]) is Events)
    }

    /// --socket, --json and --timeout work before or after the command.
    @Test func connectionOptionsBeforeOrAfterTheCommand() throws {
        let before = try #require(try parse(["--socket", "/tmp/a.sock", "--json", "status"]) as? Status)
        #expect(before.options.socket == "/tmp/a.sock" && before.options.json)
        let after = try #require(try parse(["status", "--socket", "/tmp/b.sock", "--timeout", "3"]) as? Status)
        #expect(after.options.socket == "/tmp/b.sock" && !after.options.json && after.options.timeout == 3)
        let both = try #require(try parse(["--socket", "/tmp/outer.sock", "ping", "--socket", "/tmp/inner.sock"]) as? Ping)
        #expect(both.options.socket == "/tmp/inner.sock")
    }

    @Test func socketFromOptionThenEnvironmentThenDefault() throws {
        let given = try #require(try parse(["ping", "--socket", "/tmp/x.sock"]) as? Ping).options
        #expect(given.socketPath(environment: ["CHAKRA_SOCKET": "/tmp/env.sock"]) == "/tmp/x.sock")
        let plain = try #require(try parse(["ping"]) as? Ping).options
        #expect(plain.socketPath(environment: ["CHAKRA_SOCKET": "/tmp/env.sock"]) == "/tmp/env.sock")
        #expect(plain.socketPath(environment: [:]) == "/run/chakra/control.sock")
        #expect(plain.socketPath(environment: ["CHAKRA_SOCKET": ""]) == "/run/chakra/control.sock")
    }

    @Test(arguments: [
        ["bogus"], ["set", "brightness", "101"], ["set", "brightness", "dim"], ["set", "reduce-motion", "maybe"],
        ["set", "volume", "3"], ["set", "language", "en us"], ["switch"], ["switch", "heart", "--duration", "61"],
        ["switch", "heart", "--transition", "wipe"], ["spiral", "jump"], ["events", "weather"], ["get"],
        ["snapshot"], ["status", "--timeout", "0"], ["ping", "extra"],
    ])
    func usageErrors(arguments: [String]) {
        do {
            _ = try parse(arguments)
            Issue.record("accepted \(arguments)")
        } catch {
            // main() turns this into exit status 2.
            #expect(Chakractl.exitCode(for: error) == .validationFailure, "\(arguments): \(Chakractl.message(for: error))")
        }
    }
}
