/// One spiral exercise, from its first touch to its end, as the session
/// log keeps it: times and counts, no touch positions or traces (nothing
/// that tells one person from another).
public struct SessionRecord: Sendable, Equatable {
    public enum Outcome: String, Sendable, CaseIterable {
        case completed, abandoned
    }

    /// When the first touch came: wall clock, Unix seconds (UTC). Kept to
    /// the millisecond.
    public var startedAt: Double
    /// Seconds from the first touch to the end.
    public var duration: Double
    public var outcome: Outcome
    /// How it ended: completed, cancelled, restarted, timed_out,
    /// interrupted, stopped... (a short identifier: `SessionRecord.isIdentifier`).
    public var ending: String
    /// The breathing pattern's name: "box", "6-4-8".
    public var pattern: String
    /// The furthest state reached: inhale, hold, exhale or completed.
    public var furthestState: String
    /// Seconds a finger was on the light (tracing or holding).
    public var breathedSeconds: Double
    /// Seconds of the hold actually touched.
    public var holdSeconds: Double
    /// Times the finger left the screen before the end.
    public var lifts: Int

    public init(startedAt: Double, duration: Double, outcome: Outcome, ending: String, pattern: String,
                furthestState: String, breathedSeconds: Double, holdSeconds: Double, lifts: Int) {
        (self.startedAt, self.duration, self.outcome, self.ending) = (startedAt, duration, outcome, ending)
        (self.pattern, self.furthestState) = (pattern, furthestState)
        (self.breathedSeconds, self.holdSeconds, self.lifts) = (breathedSeconds, holdSeconds, lifts)
    }
}

extension SessionRecord {
    /// What a record may hold. The ranges keep every line short (under
    /// `SessionRecordCodec.maxLineBytes`) and refuse values no exercise
    /// produces, whether from a bug upstream or from a damaged file that
    /// happened to pass its checksum.
    public enum Bounds {
        /// 1970-01-01 up to (not including) 2100-01-01: a kiosk without a
        /// real-time clock starts in 1970 until NTP sets the time, and its
        /// sessions are still worth a line; the year stays four digits.
        public static let startedAt: Range<Double> = 0..<4_102_444_800
        /// A day: longer than any exercise, even one left running.
        public static let seconds: ClosedRange<Double> = 0...86_400
        public static let lifts: ClosedRange<Int> = 0...1_000_000
        /// Bytes in `ending`, `pattern` and `furthestState`.
        public static let identifierLength: ClosedRange<Int> = 1...32
    }

    /// A short name: 1 to 32 bytes of ASCII letters, digits, '-', '_' and
    /// '.'. No spaces or '=' (they separate the line's fields), no control
    /// characters, nothing a grep or a terminal could trip on.
    public static func isIdentifier(_ text: String) -> Bool {
        Bounds.identifierLength.contains(text.utf8.count) && text.utf8.allSatisfy(isIdentifierByte)
    }

    static func isIdentifierByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."): true
        default: false
        }
    }

    /// Why this record cannot be written, or nil when it can. Times are
    /// judged as they will be written, to the millisecond.
    public var problem: String? {
        guard startedAt.isFinite, Bounds.startedAt.contains(Milliseconds.rounded(startedAt).seconds) else {
            return "startedAt \(startedAt) is outside 1970-01-01...2099-12-31"
        }
        for (name, value) in [("duration", duration), ("breathedSeconds", breathedSeconds), ("holdSeconds", holdSeconds)] {
            guard value.isFinite, Bounds.seconds.contains(Milliseconds.rounded(value).seconds) else {
                return "\(name) \(value) is outside 0...86400 seconds"
            }
        }
        guard Bounds.lifts.contains(lifts) else { return "lifts \(lifts) is outside 0...1000000" }
        for (name, value) in [("ending", ending), ("pattern", pattern), ("furthestState", furthestState)] where !Self.isIdentifier(value) {
            return "\(name) '\(value.prefix(40))' is not 1-32 of A-Z a-z 0-9 - _ ."
        }
        return nil
    }

    /// The record as it reads back from the log: its times rounded to the
    /// millisecond.
    public var asWritten: SessionRecord {
        var copy = self
        for field in [\SessionRecord.startedAt, \.duration, \.breathedSeconds, \.holdSeconds] where copy[keyPath: field].isFinite {
            copy[keyPath: field] = Milliseconds.rounded(copy[keyPath: field]).seconds
        }
        return copy
    }
}

/// A time in whole milliseconds: what the log writes, so a value reads
/// back exactly as it was written and formats without floating point.
struct Milliseconds: Equatable, Comparable {
    var value: Int64

    /// `seconds` to the nearest millisecond (finite, within ±2^53 ms).
    static func rounded(_ seconds: Double) -> Milliseconds {
        let scaled = (seconds * 1000).rounded()
        return Milliseconds(value: scaled.magnitude < 9.0e15 ? Int64(scaled) : (scaled < 0 ? -9_000_000_000_000_000 : 9_000_000_000_000_000))
    }

    var seconds: Double { Double(value) / 1000 }

    static func < (a: Milliseconds, b: Milliseconds) -> Bool { a.value < b.value }
}
