import ChakraControl
import Testing

/// Every number a request carries, given the values that break
/// conversions (issue 27: huge, tiny, -0, 2^63 and its neighbours, and
/// what JSON cannot say: NaN, Infinity): each request is refused with a
/// reason or read as a value within its documented range. Nothing traps.
@Suite("Protocol: extreme numbers")
struct NumericExtremesTests {
    static let extremes = [
        "1e300", "-1e300", "1e400", "-1e400", "1e-400", "-0", "-0.0", "0.5", "4.9e-324", "1e15", "-1e15",
        "9007199254740993", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "18446744073709551616", "1" + String(repeating: "0", count: 400), "NaN", "Infinity", "-Infinity",
    ]

    /// The request templates: `#` is where the number goes.
    static let templates = [
        #"{"id": #, "cmd": "ping"}"#,
        #"{"cmd": "switch", "scene": "heart", "duration": #}"#,
        #"{"cmd": "set", "key": "brightness", "value": #}"#,
        #"{"cmd": "touch", "phase": "down", "x": #, "y": 10}"#,
        #"{"cmd": "touch", "phase": "move", "x": 10, "y": #}"#,
        #"{"cmd": "touch", "phase": "up", "contact": #}"#,
    ]

    @Test(arguments: templates)
    func everyNumberIsReadInRangeOrRefused(template: String) {
        for number in Self.extremes {
            let line = template.replacing("#", with: number)
            switch ControlRequest.parse(Array(line.utf8)) {
            case .failure(let failure):
                #expect([.badJSON, .badArgument, .badRequest].contains(failure.error.code), "\(line): \(failure.error)")
                // The refusal is a line of JSON too.
                #expect(!ControlReply.failure(id: failure.id, failure.error).line.isEmpty)
            case .success(let request):
                #expect(inRange(request), "\(line) read as \(request)")
                // An id is echoed as read: an exact integer (or a string), never a rounded number.
                #expect(request.id.map { if case .double = $0 { false } else { true } } ?? true, "\(line): a fractional id \(String(describing: request.id))")
            }
        }
    }

    private func inRange(_ request: ControlRequest) -> Bool {
        switch request.command {
        case .switchScene(let change): change.duration.map { $0.isFinite && (0...SceneSwitch.maxDuration).contains($0) } ?? true
        case .set(.brightness(let percent)): (0...100).contains(percent)
        case .touch(let touch):
            (0..<TouchRequest.maxContacts).contains(touch.contact)
                && [touch.x, touch.y].allSatisfy { $0.map { $0.isFinite && abs($0) <= TouchRequest.maxCoordinate } ?? true }
        default: true
        }
    }
}
