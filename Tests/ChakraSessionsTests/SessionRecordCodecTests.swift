@testable import ChakraSessions
import ChakraSystem
import Testing

@Suite("Session records as lines")
struct SessionRecordCodecTests {
    let box = SessionRecord(startedAt: 1_773_480_612.345, duration: 95.25, outcome: .completed, ending: "completed", pattern: "box",
                            furthestState: "completed", breathedSeconds: 80.125, holdSeconds: 60, lifts: 2)

    func line(_ record: SessionRecord) throws -> String {
        String(decoding: try SessionRecordCodec.encode(record), as: UTF8.self)
    }

    func decode(_ text: String) -> SessionRecord? {
        SessionRecordCodec.decode(ArraySlice(text.utf8))
    }

    /// `body` with its CRC-32 and newline: a line whose checksum matches,
    /// to test what the fields themselves may be.
    func signed(_ body: String) -> String {
        let sum = String(CRC32.checksum(Array(body.utf8)), radix: 16)
        return body + " crc32=" + String(repeating: "0", count: 8 - sum.count) + sum + "\n"
    }

    @Test("CRC-32 is the IEEE one (the check value of \"123456789\")")
    func checkValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test("the line: version, fields in order, times to the millisecond in UTC, checksum, newline")
    func format() throws {
        let text = try line(box)
        let body = "v1 start=2026-03-14T09:30:12.345Z duration=95.250 outcome=completed ending=completed pattern=box "
            + "furthest=completed breathed=80.125 hold=60.000 lifts=2"
        #expect(text == signed(body))
        #expect(text.utf8.count < 200)
    }

    @Test("encode then decode gives the record back, times rounded to the millisecond")
    func roundTrip() throws {
        for index in 0..<500 {
            let record = sampleRecord(index)
            let bytes = try SessionRecordCodec.encode(record)
            #expect(SessionRecordCodec.decode(bytes[...]) == record.asWritten)
            #expect(try SessionRecordCodec.encode(record.asWritten) == bytes, "one way to write each record")
        }
        var odd = box
        odd.startedAt = 1_700_000_000.123_456_7
        odd.duration = 0.000_4
        odd.breathedSeconds = 0.000_5
        let back = try #require(decode(try line(odd)))
        #expect(back.startedAt == 1_700_000_000.123 && back.duration == 0 && back.breathedSeconds == 0.001)
    }

    @Test("the ends of every range are written and read")
    func extremes() throws {
        var low = box
        (low.startedAt, low.duration, low.breathedSeconds, low.holdSeconds, low.lifts) = (0, 0, 0, 0, 0)
        (low.ending, low.pattern, low.furthestState) = ("a", "Z", "0")
        #expect(try line(low).hasPrefix("v1 start=1970-01-01T00:00:00.000Z duration=0.000 "))
        var high = box
        (high.startedAt, high.duration, high.breathedSeconds, high.holdSeconds, high.lifts) = (4_102_444_799.999, 86400, 86400, 86400, 1_000_000)
        let name = String(repeating: "x", count: 32)
        (high.ending, high.pattern, high.furthestState) = (name, "A-z_0.9" + String(repeating: "-", count: 25), name)
        #expect(try line(high).hasPrefix("v1 start=2099-12-31T23:59:59.999Z duration=86400.000 "))
        for record in [low, high] {
            #expect(decode(try line(record)) == record)
            #expect(try line(record).utf8.count <= SessionRecordCodec.maxLineBytes)
        }
    }

    @Test("each field's bounds: a record outside them is refused when written")
    func bounds() {
        func refused(_ change: (inout SessionRecord) -> Void) -> Bool {
            var record = box
            change(&record)
            do {
                _ = try SessionRecordCodec.encode(record)
                return false
            } catch {
                guard case .invalidRecord = error else { return false }
                return true
            }
        }
        #expect(refused { $0.startedAt = -0.001 })
        #expect(refused { $0.startedAt = 4_102_444_800 })
        #expect(refused { $0.startedAt = 4_102_444_799.9996 }, "rounds up to 2100")
        #expect(refused { $0.startedAt = .nan })
        #expect(refused { $0.startedAt = .infinity })
        for field in [\SessionRecord.duration, \.breathedSeconds, \.holdSeconds] {
            #expect(refused { $0[keyPath: field] = -0.001 })
            #expect(refused { $0[keyPath: field] = 86400.001 })
            #expect(refused { $0[keyPath: field] = .nan })
            #expect(refused { $0[keyPath: field] = -.infinity })
            #expect(!refused { $0[keyPath: field] = -0.0004 }, "rounds to 0")
        }
        #expect(refused { $0.lifts = -1 })
        #expect(refused { $0.lifts = 1_000_001 })
        for field in [\SessionRecord.ending, \.pattern, \.furthestState] {
            for bad in ["", String(repeating: "a", count: 33), "two words", "a=b", "tab\t", "line\n", "é", "box\u{0}", "crc32=0"] {
                #expect(refused { $0[keyPath: field] = bad }, "\(bad.debugDescription)")
            }
        }
    }

    @Test("decoding takes only the one way each record is written")
    func strictDecoding() throws {
        let fields = "duration=95.250 outcome=completed ending=completed pattern=box furthest=completed breathed=80.125 hold=60.000 lifts=2"
        #expect(decode(signed("v1 start=2026-03-14T09:30:12.345Z " + fields)) == box)
        let wrong = [
            "v1 start=2026-03-14T09:30:12.345Z " + fields.replacingOccurrences("95.250", "95.25"),       // two decimals
            "v1 start=2026-03-14T09:30:12.345Z " + fields.replacingOccurrences("95.250", "095.250"),     // a leading zero
            "v1 start=2026-03-14T09:30:12.345Z " + fields.replacingOccurrences("95.250", "+95.250"),
            "v1 start=2026-03-14T09:30:12.345Z " + fields.replacingOccurrences("lifts=2", "lifts=02"),
            "v1 start=2026-03-14T09:30:12.345Z " + fields.replacingOccurrences("lifts=2", "lifts=-0"),
            "v1 start=2026-03-14T09:30:12.345Z " + fields.replacingOccurrences("hold=60.000", "hold=86400.001"),
            "v1 start=2026-03-14T09:30:12.345Z " + fields.replacingOccurrences("outcome=completed", "outcome=done"),
            "v1 start=2026-03-14T09:30:12.345Z " + fields.replacingOccurrences("pattern=box", "pattern="),
            "v1 start=2026-03-14T09:30:12.345Z " + fields + " extra=1",                                  // a field too many
            "v1 start=2026-03-14T09:30:12.345Z  " + fields,                                               // two spaces
            "v1 start=2026-03-14T09:30:12.345Z " + fields.replacingOccurrences(" hold=60.000", ""),       // one missing
            "v1 " + fields + " start=2026-03-14T09:30:12.345Z",                                           // out of order
            "v1 start=2026-02-30T09:30:12.345Z " + fields,                                                // no such day
            "v1 start=2026-03-14T24:00:00.000Z " + fields,
            "v1 start=2026-03-14T09:60:00.000Z " + fields,
            "v1 start=2026-03-14T09:30:60.000Z " + fields,                                                // a leap second
            "v1 start=2026-03-14T09:30:12.345+01:00 " + fields,
            "v1 start=2026-03-14 09:30:12.345Z " + fields,
            "v1 start=2100-01-01T00:00:00.000Z " + fields,
            "v2 start=2026-03-14T09:30:12.345Z " + fields,                                                // a later format
            "V1 start=2026-03-14T09:30:12.345Z " + fields,
        ]
        for body in wrong { #expect(decode(signed(body)) == nil, "\(body)") }
        let good = try line(box)
        #expect(decode(String(good.dropLast())) == nil, "no newline")
        #expect(decode(String(good.dropLast()) + "\r\n") == nil, "CRLF")
        #expect(decode(good.uppercased().replacingOccurrences("V1", "v1")) == nil, "upper-case hex and fields")
        #expect(decode(" " + good) == nil)
        #expect(decode(String(good.dropLast()) + " \n") == nil)
        #expect(decode("v1 crc32=00000000\n") == nil)
        #expect(decode("\n") == nil && decode("") == nil)
        let long = signed("v1 start=2026-03-14T09:30:12.345Z " + fields + String(repeating: " ", count: 600))
        #expect(decode(long) == nil)
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
