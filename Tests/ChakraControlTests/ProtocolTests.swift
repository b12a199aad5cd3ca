import Foundation
import Testing
@testable import ChakraControl

/// Requests, replies and events on the wire (docs/protocol.md).
@Suite("Control protocol")
struct ProtocolTests {
    private func parse(_ line: String) -> Result<ControlRequest, RequestFailure> {
        ControlRequest.parse(Array(line.utf8))
    }

    private func failure(_ line: String) -> RequestFailure? {
        if case .failure(let failure) = parse(line) { return failure }
        Issue.record("accepted: \(line)")
        return nil
    }

    @Test(arguments: [
        (#"{"id": 1, "cmd": "ping"}"#, ControlRequest(id: 1, .ping)),
        (#"{"cmd":"version"}"#, ControlRequest(.version)),
        (#"{"id":"a-b","cmd":"status"}"#, ControlRequest(id: "a-b", .status)),
        (#"{"id": 2.0, "cmd": "scenes"}"#, ControlRequest(id: 2, .scenes)),
        (#"{"id": null, "cmd": "reload"}"#, ControlRequest(.reload)),
        (#"{"id": 7, "cmd": "switch", "scene": "heart", "transition": "crossfade", "duration": 1.2}"#,
         ControlRequest(id: 7, .switchScene(SceneSwitch(scene: "heart", transition: .crossfade, duration: 1.2)))),
        (#"{"cmd": "switch", "scene": "drift", "duration": 0}"#, ControlRequest(.switchScene(SceneSwitch(scene: "drift", duration: 0)))),
        (#"{"cmd": "switch", "scene": "calm", "transition": null}"#, ControlRequest(.switchScene(SceneSwitch(scene: "calm")))),
        (#"{"cmd": "set", "key": "reduce-motion", "value": true}"#, ControlRequest(.set(.reduceMotion(true)))),
        (#"{"cmd": "set", "key": "reduce_motion", "value": false}"#, ControlRequest(.set(.reduceMotion(false)))),
        (#"{"cmd": "set", "key": "low-power", "value": true}"#, ControlRequest(.set(.lowPower(true)))),
        (#"{"cmd": "set", "key": "language", "value": "de"}"#, ControlRequest(.set(.language("de")))),
        (#"{"cmd": "set", "key": "brightness", "value": 40}"#, ControlRequest(.set(.brightness(40)))),
        (#"{"cmd": "set", "key": "brightness", "value": 100.0}"#, ControlRequest(.set(.brightness(100)))),
        (#"{"cmd": "get", "key": "low_power.fps"}"#, ControlRequest(.get(key: "low_power.fps"))),
        (#"{"cmd": "pause"}"#, ControlRequest(.pause)),
        (#"{"cmd": "resume"}"#, ControlRequest(.resume)),
        (#"{"cmd": "snapshot"}"#, ControlRequest(.snapshot)),
        (#"{"cmd": "wake"}"#, ControlRequest(.wake)),
        (#"{"cmd": "spiral", "action": "start"}"#, ControlRequest(.spiral(.start))),
        (#"{"cmd": "spiral", "action": "cancel"}"#, ControlRequest(.spiral(.cancel))),
        (#"{"cmd": "spiral", "action": "start", "pattern": "box"}"#, ControlRequest(.spiral(.start, pattern: "box"))),
        (#"{"cmd": "spiral", "action": "start", "pattern": null}"#, ControlRequest(.spiral(.start))),
        (#"{"cmd": "subscribe"}"#, ControlRequest(.subscribe(events: nil))),
        (#"{"cmd": "subscribe", "events": ["scene_changed", "power_changed", "scene_changed"]}"#,
         ControlRequest(.subscribe(events: [.sceneChanged, .powerChanged]))),
        (#"{"cmd": "unsubscribe"}"#, ControlRequest(.unsubscribe)),
        (#"{"cmd": "touch", "phase": "down", "x": 12.5, "y": 300}"#, ControlRequest(.touch(TouchRequest(phase: .down, x: 12.5, y: 300)))),
        (#"{"cmd": "touch", "phase": "move", "x": -3, "y": 4, "contact": 9}"#,
         ControlRequest(.touch(TouchRequest(phase: .move, contact: 9, x: -3, y: 4)))),
        (#"{"cmd": "touch", "phase": "up"}"#, ControlRequest(.touch(TouchRequest(phase: .up)))),
        (#"{"cmd": "stats"}"#, ControlRequest(.stats(StatsQuery()))),
        (#"{"cmd": "stats", "since": "2024-02-29"}"#, ControlRequest(.stats(StatsQuery(since: StatsQuery.Day(year: 2024, month: 2, day: 29))))),
    ])
    func requestsAreRead(line: String, expected: ControlRequest) throws {
        #expect(try parse(line).get() == expected)
        // What chakractl sends reads back as the same request.
        let sent = expected.line
        #expect(sent.hasSuffix("\n") && !sent.dropLast().contains("\n"))
        #expect(try parse(String(sent.dropLast())).get() == expected)
    }

    @Test("spiral start carries a breathing pattern only when one is given")
    func spiralPatternOnTheWire() {
        #expect(ControlRequest(.spiral(.start, pattern: "box")).json == ["cmd": "spiral", "action": "start", "pattern": "box"])
        #expect(ControlRequest(.spiral(.start)).json == ["cmd": "spiral", "action": "start"])
        #expect(failure(#"{"cmd": "spiral", "action": "path", "pattern": "box"}"#)?.error.message == "'pattern' goes with the action start only (got 'path')")
    }

    @Test func everyCommandIsListedWithItsArguments() {
        #expect(ControlCommand.names == ["ping", "version", "status", "scenes", "switch", "set", "get", "reload", "pause",
                                         "resume", "snapshot", "wake", "spiral", "display", "schedule", "health", "touch", "stats",
                                         "subscribe", "unsubscribe"])
    }

    @Test(arguments: [
        ("{\"cmd\": \"ping\"", ErrorCode.badJSON),
        ("hello", .badJSON),
        ("{\"cmd\": 'ping'}", .badJSON),
        (String(repeating: "[", count: 5000), .badJSON),
        ("[1, 2]", .badRequest),
        ("\"ping\"", .badRequest),
        ("{}", .badRequest),
        ("{\"id\": 1}", .badRequest),
        ("{\"cmd\": 3}", .badRequest),
        ("{\"id\": {\"a\": 1}, \"cmd\": \"ping\"}", .badRequest),
        ("{\"id\": 1.5, \"cmd\": \"ping\"}", .badRequest),
        ("{\"cmd\": \"dance\"}", .unknownCommand),
        ("{\"cmd\": \"ping\", \"loud\": true}", .unknownArgument),
        ("{\"cmd\": \"switch\", \"scene\": \"heart\", \"speed\": 2, \"wipe\": 1}", .unknownArgument),
        ("{\"cmd\": \"switch\"}", .missingArgument),
        ("{\"cmd\": \"set\", \"key\": \"brightness\"}", .missingArgument),
        ("{\"cmd\": \"set\", \"value\": true}", .missingArgument),
        ("{\"cmd\": \"get\"}", .missingArgument),
        ("{\"cmd\": \"spiral\"}", .missingArgument),
        ("{\"cmd\": \"switch\", \"scene\": 5}", .badArgument),
        ("{\"cmd\": \"switch\", \"scene\": \"\"}", .badArgument),
        ("{\"cmd\": \"switch\", \"scene\": \"heart\", \"transition\": \"wipe\"}", .badArgument),
        ("{\"cmd\": \"switch\", \"scene\": \"heart\", \"duration\": \"1s\"}", .badArgument),
        ("{\"cmd\": \"switch\", \"scene\": \"heart\", \"duration\": -1}", .badArgument),
        ("{\"cmd\": \"switch\", \"scene\": \"heart\", \"duration\": 61}", .badArgument),
        ("{\"cmd\": \"set\", \"key\": \"reduce-motion\", \"value\": \"on\"}", .badArgument),
        ("{\"cmd\": \"set\", \"key\": \"low-power\", \"value\": 1}", .badArgument),
        ("{\"cmd\": \"set\", \"key\": \"brightness\", \"value\": 101}", .badArgument),
        ("{\"cmd\": \"set\", \"key\": \"brightness\", \"value\": 50.5}", .badArgument),
        ("{\"cmd\": \"set\", \"key\": \"brightness\", \"value\": true}", .badArgument),
        ("{\"cmd\": \"set\", \"key\": \"language\", \"value\": 7}", .badArgument),
        ("{\"cmd\": \"set\", \"key\": \"volume\", \"value\": 7}", .badArgument),
        ("{\"cmd\": \"get\", \"key\": \"\"}", .badArgument),
        ("{\"cmd\": \"spiral\", \"action\": \"jump\"}", .badArgument),
        ("{\"cmd\": \"spiral\", \"action\": \"cancel\", \"pattern\": \"box\"}", .badArgument),
        ("{\"cmd\": \"spiral\", \"action\": \"start\", \"pattern\": 4}", .badArgument),
        ("{\"cmd\": \"spiral\", \"action\": \"start\", \"pattern\": \"\"}", .badArgument),
        ("{\"cmd\": \"spiral\", \"action\": \"start\", \"breath\": \"box\"}", .unknownArgument),
        ("{\"cmd\": \"subscribe\", \"events\": \"scene_changed\"}", .badArgument),
        ("{\"cmd\": \"subscribe\", \"events\": [\"weather\"]}", .badArgument),
        ("{\"cmd\": \"touch\"}", .missingArgument),
        ("{\"cmd\": \"touch\", \"phase\": \"down\", \"x\": 1}", .missingArgument),
        ("{\"cmd\": \"touch\", \"phase\": \"tap\", \"x\": 1, \"y\": 2}", .badArgument),
        ("{\"cmd\": \"touch\", \"phase\": \"down\", \"x\": \"1\", \"y\": 2}", .badArgument),
        ("{\"cmd\": \"touch\", \"phase\": \"down\", \"x\": 1e9, \"y\": 2}", .badArgument),
        ("{\"cmd\": \"touch\", \"phase\": \"up\", \"contact\": 10}", .badArgument),
        ("{\"cmd\": \"touch\", \"phase\": \"up\", \"contact\": 1.5}", .badArgument),
        ("{\"cmd\": \"touch\", \"phase\": \"up\", \"contact\": -1}", .badArgument),
        ("{\"cmd\": \"stats\", \"since\": \"2023-02-29\"}", .badArgument),
        ("{\"cmd\": \"stats\", \"since\": \"2026-1-5\"}", .badArgument),
        ("{\"cmd\": \"stats\", \"since\": 20261105}", .badArgument),
        ("{\"cmd\": \"stats\", \"since\": \"yesterday\"}", .badArgument),
    ])
    func badRequestsGetTheirCode(line: String, code: ErrorCode) {
        #expect(failure(line)?.error.code == code, "\(line): \(String(describing: failure(line)))")
    }

    @Test func refusalsNameWhatWasWrongAndKeepTheID() {
        let unknown = failure(#"{"id": 9, "cmd": "swich", "scene": "heart"}"#)
        #expect(unknown?.id == 9)
        #expect(unknown?.error.message.hasPrefix("unknown command 'swich'; commands: ping, version, status,") == true)
        let arguments = failure(#"{"id": "x", "cmd": "switch", "scene": "heart", "speed": 2, "wipe": 1}"#)
        #expect(arguments?.id == "x")
        #expect(arguments?.error.message == "unknown arguments 'speed', 'wipe' for 'switch'; it takes: scene, transition, duration")
        #expect(failure(#"{"cmd": "ping", "x": 1}"#)?.error.message == "unknown argument 'x' for 'ping'; it takes none")
        #expect(failure(#"{"cmd": "switch", "scene": "heart", "duration": 61}"#)?.error.message == "'duration' must be 0...60 seconds (got 61.0)")
        #expect(failure(#"{"cmd": "set", "key": "volume", "value": 7}"#)?.error.message
            == "'key' must be one of reduce-motion, low-power, language, brightness (got 'volume')")
        // An id of the wrong type cannot be echoed.
        #expect(failure(#"{"id": [1], "cmd": "ping"}"#)?.id == nil)
        #expect(failure("{\"cmd\": ")?.error.message.hasPrefix("not valid JSON: ") == true)
    }

    @Test func invalidUTF8IsBadJSON() {
        var bytes = Array(#"{"cmd": "ping", "x": ""#.utf8)
        bytes += [0xFF, 0xFE]
        bytes += Array("\"}".utf8)
        if case .failure(let failure) = ControlRequest.parse(bytes) {
            #expect(failure.error.code == .badJSON)
        } else {
            Issue.record("invalid UTF-8 accepted")
        }
    }

    @Test func repliesAndEventsAreOneLineEach() {
        #expect(ControlReply.success(id: 7, ["scene": "heart", "previous": "drift"]).line
            == #"{"id":7,"ok":true,"result":{"previous":"drift","scene":"heart"}}"# + "\n")
        #expect(ControlReply.failure(id: nil, ControlError(.unknownScene, "no scene named 'hart'")).line
            == #"{"id":null,"ok":false,"error":{"code":"unknown_scene","message":"no scene named 'hart'"}}"# + "\n")
        #expect(ControlReply.success(id: "a", .null).line == #"{"id":"a","ok":true,"result":null}"# + "\n")
        #expect(ControlEvent(.sceneChanged, ["scene": "heart", "previous": .null]).line
            == #"{"event":"scene_changed","previous":null,"scene":"heart"}"# + "\n")
    }

    @Test func jsonEncodingEscapesAndKeepsTypes() throws {
        let value: JSONValue = [
            "text": "line\nbreak \"quoted\" back\\slash \u{1} tab\t ü 🌸 \u{2028}",
            "numbers": [1, -2, 0.5, 20.0, 1e-7, .double(.infinity)],
            "flags": [true, false, nil],
        ]
        let text = value.encoded
        #expect(!text.contains("\n"))
        #expect(text.contains(#""line\nbreak \"quoted\" back\\slash \u0001 tab\t ü 🌸 \u2028""#))
        #expect(text.contains("[1,-2,0.5,20.0,1e-07,null]"))
        var expected = value
        if case .object(var fields) = expected {
            // 20.0 reads back as an integer: numbers are compared by value.
            fields["numbers"] = [1, -2, 0.5, 20, 1e-7, nil]
            expected = .object(fields)
        }
        #expect(try JSONValue.parse(Array(text.utf8)).get() == expected)
    }

    @Test func clientsReadRepliesAndEvents() {
        #expect(ControlMessage.parse(Array(#"{"id":7,"ok":true,"result":{"pong":true}}"#.utf8)) == .reply(id: 7, .success(["pong": true])))
        #expect(ControlMessage.parse(Array(#"{"id":null,"ok":false,"error":{"code":"future_code","message":"m"}}"#.utf8))
            == .reply(id: nil, .failure(RemoteError(code: "future_code", message: "m"))))
        #expect(ControlMessage.parse(Array(#"{"event":"power_changed","dimmed":true}"#.utf8))
            == .event(name: "power_changed", ["event": "power_changed", "dimmed": true]))
        #expect(ControlMessage.parse(Array("{\"hello\": 1}".utf8)) == nil)
        #expect(ControlMessage.parse(Array("not json".utf8)) == nil)
    }

    /// docs/protocol.md documents every error code, command and event.
    @Test func documentationNamesEveryCodeCommandAndEvent() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        for code in ErrorCode.allCases { #expect(doc.contains("`\(code.rawValue)`"), "\(code.rawValue) is not in docs/protocol.md") }
        for command in ControlCommand.names { #expect(doc.contains("### \(command)"), "\(command) is not in docs/protocol.md") }
        for event in EventKind.allCases { #expect(doc.contains("`\(event.rawValue)`"), "\(event.rawValue) is not in docs/protocol.md") }
        #expect(doc.contains("Protocol version \(ControlProtocol.version)"))
        #expect(doc.contains("\(ControlProtocol.defaultMaxLine)"))
    }
}
