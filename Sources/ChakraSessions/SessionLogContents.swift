/// One line of a session log as read: its bytes' place in the file ("\n"
/// included; the last line may lack it), and its record if it is one.
public struct SessionLogLine: Sendable, Equatable {
    public var range: Range<Int>
    /// nil: damaged (torn, garbled, or not a v1 record).
    public var record: SessionRecord?
}

/// What a session log file holds: the records on its whole, valid lines,
/// in file order, and how many lines are not records. Reading never
/// stops at damage: the next line is read from the next newline on.
public struct SessionLogContents: Sendable, Equatable {
    public var records: [SessionRecord] = []
    /// Lines that are not records, an unterminated last line included.
    public var damagedLines = 0
    /// Where the last record's line ends (0: no record): what remains of
    /// the file once a torn tail is cut.
    public var validLength = 0
    /// The file's length.
    public var length = 0

    public init() {}

    /// Reads `bytes` as a log file's content.
    public init(scanning bytes: [UInt8]) {
        length = bytes.count
        Self.forEachLine(of: bytes) { range, record in
            if let record {
                records.append(record)
                validLength = range.upperBound
            } else {
                damagedLines += 1
            }
        }
    }

    /// Bytes after the last record: a record torn by a power cut, or
    /// damage. 0 for a file that ends cleanly.
    public var tail: Int { length - validLength }

    /// Every line of `bytes`, in order: their ranges cover the bytes
    /// exactly, each ends with "\n" but possibly the last.
    public static func lines(of bytes: [UInt8]) -> [SessionLogLine] {
        var lines: [SessionLogLine] = []
        forEachLine(of: bytes) { lines.append(SessionLogLine(range: $0, record: $1)) }
        return lines
    }

    static func forEachLine(of bytes: [UInt8], _ body: (Range<Int>, SessionRecord?) -> Void) {
        var start = 0
        while start < bytes.count {
            let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
            let end = newline.map { $0 + 1 } ?? bytes.count
            // An unterminated line is never a record: the newline is written
            // last, in the same write, so without it the write was torn.
            let record = newline == nil ? nil : SessionRecordCodec.decode(bytes[start..<end])
            body(start..<end, record)
            start = end
        }
    }
}
