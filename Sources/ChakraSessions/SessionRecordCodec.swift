import ChakraSchedule
import ChakraSystem

/// One record as one line of text, greppable and checked:
///
///     v1 start=2026-03-14T09:30:12.345Z duration=95.250 outcome=completed ending=completed pattern=box furthest=completed breathed=80.125 hold=60.000 lifts=2 crc32=5f0e3a1c
///
/// The version first (a later format gets another tag, and this reader
/// skips its lines); the fields in this order, each once; times in
/// seconds with exactly three decimals; the start in UTC; then the CRC-32
/// of every byte before " crc32=", as eight lowercase hex digits; then
/// "\n". There is one way to write each record, and the reader accepts
/// only that way, so a line read back writes out byte for byte as it was.
public enum SessionRecordCodec {
    public static let version = "v1"
    /// No record's line is longer (the longest is about 250 bytes); a
    /// longer line is damage, refused before it is parsed.
    public static let maxLineBytes = 512

    /// The record's line, "\n" included.
    public static func encode(_ record: SessionRecord) throws(SessionLogError) -> [UInt8] {
        if let problem = record.problem { throw .invalidRecord(problem) }
        var line: [UInt8] = []
        line.reserveCapacity(256)
        func append(_ text: String) { line.append(contentsOf: text.utf8) }
        append("\(version) start=")
        appendTimestamp(Milliseconds.rounded(record.startedAt), to: &line)
        append(" duration="); appendSeconds(Milliseconds.rounded(record.duration), to: &line)
        append(" outcome=\(record.outcome.rawValue)")
        append(" ending=\(record.ending)")
        append(" pattern=\(record.pattern)")
        append(" furthest=\(record.furthestState)")
        append(" breathed="); appendSeconds(Milliseconds.rounded(record.breathedSeconds), to: &line)
        append(" hold="); appendSeconds(Milliseconds.rounded(record.holdSeconds), to: &line)
        append(" lifts=\(record.lifts)")
        let sum = CRC32.checksum(line)
        append(" crc32=")
        line += CRC32.hexDigits(sum)
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// The record on `line` (its "\n" included), or nil when the line is
    /// anything but a whole, intact v1 record: unterminated, too long, a
    /// checksum that does not match, a field missing, extra, out of order,
    /// written another way, or out of range.
    public static func decode(_ line: ArraySlice<UInt8>) -> SessionRecord? {
        guard line.count <= maxLineBytes, line.last == UInt8(ascii: "\n") else { return nil }
        // " crc32=" and eight digits before the newline.
        let sumStart = line.endIndex - 1 - 8
        let tagStart = sumStart - crcTag.count
        guard tagStart > line.startIndex, line[tagStart..<sumStart].elementsEqual(crcTag),
              let sum = CRC32.parseHex(line[sumStart..<line.endIndex - 1]),
              CRC32.checksum(line[line.startIndex..<tagStart]) == sum else { return nil }
        var fields = LineCursor(line[line.startIndex..<tagStart])
        guard fields.take("\(version) start="), let start = fields.timestamp(),
              fields.take(" duration="), let duration = fields.seconds(),
              fields.take(" outcome="), let outcomeName = fields.identifier(), let outcome = SessionRecord.Outcome(rawValue: outcomeName),
              fields.take(" ending="), let ending = fields.identifier(),
              fields.take(" pattern="), let pattern = fields.identifier(),
              fields.take(" furthest="), let furthest = fields.identifier(),
              fields.take(" breathed="), let breathed = fields.seconds(),
              fields.take(" hold="), let hold = fields.seconds(),
              fields.take(" lifts="), let lifts = fields.integer(maxDigits: 7),
              fields.atEnd else { return nil }
        let record = SessionRecord(startedAt: start.seconds, duration: duration.seconds, outcome: outcome, ending: ending,
                                   pattern: pattern, furthestState: furthest, breathedSeconds: breathed.seconds,
                                   holdSeconds: hold.seconds, lifts: lifts)
        return record.problem == nil ? record : nil
    }

    private static let crcTag = Array(" crc32=".utf8)

    /// "2026-03-14T09:30:12.345Z".
    static func appendTimestamp(_ time: Milliseconds, to line: inout [UInt8]) {
        let milliseconds = Int(time.value)
        let seconds = milliseconds / 1000
        let date = CalendarDate(dayNumber: seconds / 86400)
        let secondOfDay = seconds % 86400
        appendDigits(date.year, 4, to: &line); line.append(UInt8(ascii: "-"))
        appendDigits(date.month, 2, to: &line); line.append(UInt8(ascii: "-"))
        appendDigits(date.day, 2, to: &line); line.append(UInt8(ascii: "T"))
        appendDigits(secondOfDay / 3600, 2, to: &line); line.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay / 60 % 60, 2, to: &line); line.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, 2, to: &line); line.append(UInt8(ascii: "."))
        appendDigits(milliseconds % 1000, 3, to: &line); line.append(UInt8(ascii: "Z"))
    }

    /// "95.250": whole seconds without leading zeros, three decimals.
    static func appendSeconds(_ time: Milliseconds, to line: inout [UInt8]) {
        line.append(contentsOf: String(time.value / 1000).utf8)
        line.append(UInt8(ascii: "."))
        appendDigits(Int(time.value % 1000), 3, to: &line)
    }

    private static func appendDigits(_ value: Int, _ width: Int, to line: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            line.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}

/// Reads a line's fields from left to right; every read either takes
/// exactly the form the encoder writes or fails.
private struct LineCursor {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    var atEnd: Bool { bytes.isEmpty }

    mutating func take(_ literal: String) -> Bool {
        guard bytes.starts(with: literal.utf8) else { return false }
        bytes.removeFirst(literal.utf8.count)
        return true
    }

    /// Exactly `count` decimal digits.
    mutating func digits(_ count: Int) -> Int? {
        guard bytes.count >= count else { return nil }
        var value = 0
        for byte in bytes.prefix(count) {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        bytes.removeFirst(count)
        return value
    }

    /// A whole number as the encoder writes it: "0", or digits without a
    /// leading zero, at most `maxDigits` of them.
    mutating func integer(maxDigits: Int) -> Int? {
        let count = bytes.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.count
        guard (1...maxDigits).contains(count), count == 1 || bytes.first != UInt8(ascii: "0") else { return nil }
        return digits(count)
    }

    /// "95.250".
    mutating func seconds() -> Milliseconds? {
        guard let whole = integer(maxDigits: 6), take("."), let fraction = digits(3) else { return nil }
        return Milliseconds(value: Int64(whole) * 1000 + Int64(fraction))
    }

    /// "2026-03-14T09:30:12.345Z", a date that exists and a time of day
    /// (no leap second: the kernel's clock has none).
    mutating func timestamp() -> Milliseconds? {
        guard let year = digits(4), take("-"), let month = digits(2), take("-"), let day = digits(2), take("T"),
              let hour = digits(2), take(":"), let minute = digits(2), take(":"), let second = digits(2), take("."),
              let millisecond = digits(3), take("Z"),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60 else { return nil }
        // A day that does not exist (02-30) comes back from its number as another.
        let date = CalendarDate(year: year, month: month, day: day)
        guard CalendarDate(dayNumber: date.dayNumber) == date else { return nil }
        let seconds = Int64(date.dayNumber) * 86400
            + Int64(hour * 3600 + minute * 60 + second)
        return Milliseconds(value: seconds * 1000 + Int64(millisecond))
    }

    /// A `SessionRecord.isIdentifier` name, up to the next space.
    mutating func identifier() -> String? {
        let name = bytes.prefix { SessionRecord.isIdentifierByte($0) }
        guard SessionRecord.Bounds.identifierLength.contains(name.count) else { return nil }
        bytes.removeFirst(name.count)
        return String(decoding: name, as: UTF8.self)
    }
}
