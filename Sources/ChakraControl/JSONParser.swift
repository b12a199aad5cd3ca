/// Reads one JSON text (RFC 8259) into a `JSONValue`, strictly: no comments,
/// no trailing commas, no single quotes, no bare control characters or
/// invalid UTF-8 in strings, no lone surrogates, nothing after the value.
///
/// Written here rather than taken from Foundation's JSONDecoder: that
/// decoder is the only reason chakractl would link FoundationEssentials,
/// about 7.5 MB of a static binary meant for small boards, and a request
/// line needs nothing it offers beyond this.
///
/// Every failure is a `JSONParseFailure` naming what was wrong and the byte
/// offset; nothing traps, whatever the bytes (the parser is fuzzed).
struct JSONParser {
    /// Arrays and objects nested deeper than this are refused: the parser
    /// recurses, and a line of a million `[` must not exhaust the stack.
    static let maxDepth = 64

    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The value of the whole text.
    mutating func parseDocument() throws(JSONParseFailure) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if position < bytes.count { throw failure("unexpected \(describe(bytes[position])) after the value") }
        return value
    }

    // MARK: Values

    private mutating func parseValue() throws(JSONParseFailure) -> JSONValue {
        guard position < bytes.count else { throw failure("the text ends where a value should be") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected \(describe(bytes[position])) where a value should be")
        }
    }

    private mutating func parseObject() throws(JSONParseFailure) -> JSONValue {
        try enterContainer()
        position += 1  // {
        var fields: [String: JSONValue] = [:]
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            position += 1
            depth -= 1
            return .object(fields)
        }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw failure("an object's key must be a string") }
            let key = try parseString()
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw failure("expected ':' after the key \"\(key)\"") }
            position += 1
            skipWhitespace()
            // A repeated key: the last one counts, as most readers do.
            fields[key] = try parseValue()
            skipWhitespace()
            if peek(UInt8(ascii: ",")) { position += 1; continue }
            if peek(UInt8(ascii: "}")) { position += 1; break }
            throw failure(position < bytes.count ? "expected ',' or '}' in an object" : "the text ends inside an object")
        }
        depth -= 1
        return .object(fields)
    }

    private mutating func parseArray() throws(JSONParseFailure) -> JSONValue {
        try enterContainer()
        position += 1  // [
        var items: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            position += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            if peek(UInt8(ascii: ",")) { position += 1; continue }
            if peek(UInt8(ascii: "]")) { position += 1; break }
            throw failure(position < bytes.count ? "expected ',' or ']' in an array" : "the text ends inside an array")
        }
        depth -= 1
        return .array(items)
    }

    private mutating func enterContainer() throws(JSONParseFailure) {
        depth += 1
        if depth > Self.maxDepth { throw failure("nested deeper than \(Self.maxDepth) levels") }
    }

    private mutating func expectLiteral(_ word: String) throws(JSONParseFailure) {
        let expected = word.utf8
        guard bytes.count - position >= expected.count, bytes[position..<position + expected.count].elementsEqual(expected) else {
            throw failure("unexpected \(describe(bytes[position])) where a value should be")
        }
        position += expected.count
    }

    // MARK: Numbers

    /// -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
    /// Integers that fit an Int stay integers; the rest are Doubles, and a
    /// Double with an integral value below 2^53 reads as an integer (20.0
    /// and 2e1 are the number 20, as a reader comparing values expects).
    private mutating func parseNumber() throws(JSONParseFailure) -> JSONValue {
        let start = position
        if peek(UInt8(ascii: "-")) { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw failure("a number needs a digit after '-'") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) { throw failure("a number may not start with 0") }
        } else {
            skipDigits()
        }
        var isInteger = true
        if peek(UInt8(ascii: ".")) {
            isInteger = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw failure("a number needs digits after '.'") }
            skipDigits()
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            isInteger = false
            position += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { throw failure("a number needs digits in its exponent") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger, let integer = Int(text) { return .int(integer) }
        guard let number = Double(text), number.isFinite else {
            throw JSONParseFailure(reason: "the number \(text.prefix(40)) is out of range (at byte \(start))")
        }
        if number == number.rounded(), abs(number) < 9_007_199_254_740_992 { return .int(Int(number)) }
        return .double(number)
    }

    private mutating func skipDigits() {
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    // MARK: Strings

    /// A string from its opening quote: escapes decoded, UTF-8 checked.
    /// Runs of plain ASCII are copied in one go (a snapshot reply carries
    /// megabytes of base64).
    private mutating func parseString() throws(JSONParseFailure) -> String {
        position += 1  // "
        var utf8: [UInt8] = []
        while true {
            let runStart = position
            while position < bytes.count, bytes[position] >= 0x20, bytes[position] < 0x80,
                  bytes[position] != UInt8(ascii: "\""), bytes[position] != UInt8(ascii: "\\") {
                position += 1
            }
            utf8.append(contentsOf: bytes[runStart..<position])
            guard position < bytes.count else { throw failure("the text ends inside a string") }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                position += 1
                utf8.append(contentsOf: UTF8.encode(try parseEscape())!)
            case 0..<0x20:
                throw failure("a control character (\(describe(byte))) inside a string must be escaped")
            default:
                let start = position
                _ = try parseUTF8Sequence()
                utf8.append(contentsOf: bytes[start..<position])
            }
        }
    }

    private mutating func parseEscape() throws(JSONParseFailure) -> Unicode.Scalar {
        guard position < bytes.count else { throw failure("the text ends inside an escape") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try parseHex4()
            switch first {
            case 0xD800..<0xDC00:
                // A high surrogate must be followed by \u and a low one.
                guard peek(UInt8(ascii: "\\")), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                    throw failure("a lone surrogate \\u\(hex(first)) in a string")
                }
                position += 2
                let second = try parseHex4()
                guard (0xDC00..<0xE000).contains(second) else { throw failure("a lone surrogate \\u\(hex(first)) in a string") }
                return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
            case 0xDC00..<0xE000:
                throw failure("a lone surrogate \\u\(hex(first)) in a string")
            default:
                return Unicode.Scalar(first)!
            }
        default:
            position -= 1
            throw failure("an unknown escape \\\(describe(byte, quoted: false)) in a string")
        }
    }

    private mutating func parseHex4() throws(JSONParseFailure) -> UInt32 {
        guard bytes.count - position >= 4 else { throw failure("\\u needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("\\u needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// One UTF-8 encoded scalar of two to four bytes, in its shortest form,
    /// not a surrogate, at most U+10FFFF (RFC 3629).
    private mutating func parseUTF8Sequence() throws(JSONParseFailure) -> Unicode.Scalar {
        let lead = bytes[position]
        let length: Int
        let minimum: UInt32
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: length = 2; minimum = 0x80; value = UInt32(lead & 0x1F)
        case 0xE0...0xEF: length = 3; minimum = 0x800; value = UInt32(lead & 0x0F)
        case 0xF0...0xF4: length = 4; minimum = 0x10000; value = UInt32(lead & 0x07)
        default: throw failure("invalid UTF-8 (\(describe(lead))) in a string")
        }
        guard bytes.count - position >= length else { throw failure("invalid UTF-8: the text ends inside a character") }
        for offset in 1..<length {
            let continuation = bytes[position + offset]
            guard continuation & 0xC0 == 0x80 else { throw failure("invalid UTF-8 (\(describe(continuation))) in a string") }
            value = value << 6 | UInt32(continuation & 0x3F)
        }
        guard value >= minimum, value <= 0x10FFFF, !(0xD800..<0xE000).contains(value), let scalar = Unicode.Scalar(value) else {
            throw failure("invalid UTF-8 (an overlong form, a surrogate or past U+10FFFF) in a string")
        }
        position += length
        return scalar
    }

    // MARK: Helpers

    private func peek(_ byte: UInt8) -> Bool { position < bytes.count && bytes[position] == byte }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): position += 1
            default: return
            }
        }
    }

    private func failure(_ what: String) -> JSONParseFailure {
        JSONParseFailure(reason: "\(what) (at byte \(position))")
    }

    /// 'x' for printable ASCII, else the byte in hex.
    private func describe(_ byte: UInt8, quoted: Bool = true) -> String {
        if byte > 0x20 && byte < 0x7F {
            let character = String(Unicode.Scalar(byte))
            return quoted ? "'\(character)'" : character
        }
        return "byte 0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
