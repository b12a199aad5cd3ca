import Glibc

/// Splits a byte stream into lines, with a bound on a line's length.
///
/// Bytes are appended as they arrive, in any pieces; `next()` hands out
/// each complete line (without "\n", and without a "\r" before it, for
/// telnet-style clients). A line longer than `maxLine` is `.tooLong` as
/// soon as that is certain: when its newline arrives too late, or when more
/// than `maxLine` bytes are waiting with no newline yet, so a client that
/// never sends one cannot make the buffer grow past the limit. `.tooLong`
/// ends the stream: the framer does not look for the next line after it
/// (`next()` keeps answering `.tooLong`), and the server closes the
/// connection. Blank lines are skipped. Owned by one connection; not
/// thread-safe.
public struct LineFramer: Sendable {
    public enum Frame: Equatable, Sendable {
        case line([UInt8])
        case tooLong
    }

    public var maxLine: Int
    private var buffer: [UInt8] = []
    /// Bytes before this index are handed out already.
    private var start = 0
    /// Bytes before this index hold no newline.
    private var scanned = 0

    public init(maxLine: Int) {
        self.maxLine = maxLine
    }

    /// Bytes waiting for their newline.
    public var pending: Int { buffer.count - start }

    public mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        if start > 0, start >= buffer.count / 2 {
            // Drop what was handed out before the buffer grows further.
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete line, `.tooLong`, or nil until more bytes arrive.
    public mutating func next() -> Frame? {
        while true {
            guard let newline = Self.firstNewline(in: buffer, from: scanned) else {
                scanned = buffer.count
                return pending > maxLine + 1 ? .tooLong : nil   // +1: a "\r" still to come off
            }
            var end = newline
            if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let line = Array(buffer[start..<end])
            start = newline + 1
            scanned = start
            if line.count > maxLine { return .tooLong }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            return .line(line)
        }
    }

    /// memchr: a megabyte line is scanned on the control thread, and a
    /// byte-by-byte loop over it cost about a millisecond.
    private static func firstNewline(in buffer: [UInt8], from start: Int) -> Int? {
        buffer.withUnsafeBytes { raw in
            guard start < raw.count, let base = raw.baseAddress,
                  let found = memchr(base + start, Int32(UInt8(ascii: "\n")), raw.count - start) else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }

    /// At end of input: the last line if it had no newline (`printf '...' | nc -U`).
    public mutating func finish() -> Frame? {
        if let frame = next() { return frame }
        guard pending > 0 else { return nil }
        append([UInt8(ascii: "\n")])
        return next()
    }
}
