import ChakraControl
import ChakraSchedule
import ChakraSessions
import Testing
@testable import ChakraDaemon
@testable import chakractl

/// `chakractl stats` minutes: chakrad's reply, as it goes over the socket,
/// read as a person reads it. Rounded once, in chakractl, to a tenth,
/// halves up.
@Suite("chakractl stats: minutes breathed")
struct StatsMinutesTests {
    /// The total's minutes shown for sessions that breathed `seconds` each
    /// (whole milliseconds, as the records hold them).
    func shown(_ seconds: Double...) throws -> String {
        var history = SessionHistory()
        for (index, breathed) in seconds.enumerated() {
            history.add(SessionRecord(startedAt: 1_773_480_612 + Double(index) * 600, duration: breathed + 20, outcome: .completed,
                                      ending: "completed", pattern: "6-4-8", furthestState: "completed",
                                      breathedSeconds: breathed, holdSeconds: 0, lifts: 0), in: FixedOffsetZone())
        }
        let reply = ControlService.statsCounts(history.report().totals).json.encoded
        let parsed = try StatsReply.Counts(json: JSONValue.parse(Array(reply.utf8)).get())
        return Stats.minutes(parsed.minutesBreathed)
    }

    @Test("0.446 minutes is 0.4, not 0.5 (rounded to 0.45 by chakrad, then again by chakractl)")
    func roundedOnce() throws {
        #expect(try shown(26.76) == "0.4")            // 0.446 min
        #expect(try shown(20.0, 6.76) == "0.4")       // the same over two sessions
        #expect(try shown(26.97) == "0.4")            // 0.4495: 0.45 twice-rounded was 0.5
        #expect(try shown(29.999) == "0.5")           // 0.49998
        #expect(try shown(747.6) == "12.5")
    }

    @Test("halves of a tenth go up, and a hair under one goes down: 0.05 and 0.95 minutes")
    func boundaries() throws {
        #expect(try shown(3) == "0.1")                // 0.05 min
        #expect(try shown(2.999) == "0.0")            // 0.04998
        #expect(try shown(57) == "1.0")               // 0.95
        #expect(try shown(56.999) == "0.9")           // 0.94998
        #expect(try shown(63) == "1.1")               // 1.05
        #expect(try shown(1.5, 1.5) == "0.1")         // 0.05 from two halves
        #expect(try shown(0) == "0.0")
        #expect(try shown(0.001) == "0.0")            // a millisecond: 1.6666666666666667e-05 on the wire
        #expect(try shown(35_999_997) == "600000.0")  // 599999.95 min
    }

    @Test("values that are not minutes show as -, and a reply whose minutes are no number is refused")
    func notMinutes() throws {
        #expect(Stats.minutes(nil) == "-")
        #expect(Stats.minutes(-1) == "-")
        #expect(Stats.minutes(.infinity) == "-")
        let reply = try JSONValue.parse(Array(#"{"started":1,"completed":1,"abandoned":0,"minutes_breathed":"1"}"#.utf8)).get()
        #expect(throws: ReplyDecodingError(path: "minutes_breathed", "expected a number, got a string")) { try StatsReply.Counts(json: reply) }
    }
}
