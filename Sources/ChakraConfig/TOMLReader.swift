/// The TOML 1.0 grammar (https://toml.io/en/v1.0.0) over a document's
/// UTF-8 bytes, one pass, no recursion deeper than `maximumNesting`.
///
/// Tables are built as `TableBuilder` objects while the document is read,
/// because TOML's rules about which table may be extended depend on how
/// each one came to be: a `[header]` defines a table once; the tables a
/// header names on its way (`a` in `[a.b]`) may be defined later; tables
/// made by dotted keys (`a.b = 1`) take more dotted keys but no header of
/// their own; inline tables and arrays written as values take nothing.
struct TOMLReader {
    /// Arrays and inline tables nested deeper than this are refused: no
    /// Chakra file nests more than two, and the bound keeps hostile input
    /// from exhausting the stack.
    static let maximumNesting = 64

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0

    /// Where each key is written, when asked for (`TOML.read`); nil, and no
    /// paths built, for `TOML.parse`.
    private(set) var keyLines: TOML.KeyLines?
    /// The keys' table: [a.b] → a.b, [[x]] → x.n; and for [[x]], x alone
    /// (its first table's keys are noted as "x.key" too).
    private var tablePath: [String] = []
    private var unindexedTablePath: [String]?
    /// The path of the value being read: its key's, or an array element's
    /// ("phases.1").
    private var valuePath: [String] = []

    init(_ bytes: [UInt8], notingLines: Bool = false) {
        self.bytes = bytes
        if notingLines { keyLines = TOML.KeyLines() }
    }

    // MARK: - Document structure

    mutating func document() throws(TOML.SyntaxError) -> TOML.Table {
        let root = TableBuilder(origin: .header)
        var current = root
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3; lineStart = 3 }
        while true {
            skipWhitespace()
            guard let byte = peek() else { break }
            switch byte {
            case UInt8(ascii: "#"), UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                break
            case UInt8(ascii: "["):
                current = try header(root: root)
            default:
                let start = position
                let key = try dottedKey()
                try expect(UInt8(ascii: "="), "'=' after the key")
                skipWhitespace()
                if keyLines != nil {
                    valuePath = tablePath + key
                    note(valuePath, line: start.line)
                    if let unindexedTablePath { note(unindexedTablePath + key, line: start.line) }
                }
                let value = try self.value()
                try current.insert(key, value, at: start)
            }
            try endOfLine()
        }
        return root.table
    }

    /// `[a.b]` or `[[a.b]]`: the table that the following keys go into.
    private mutating func header(root: TableBuilder) throws(TOML.SyntaxError) -> TableBuilder {
        let start = position
        index += 1
        let isArray = peek() == UInt8(ascii: "[")
        if isArray { index += 1 }
        skipWhitespace()
        let key = try dottedKey()
        try expect(UInt8(ascii: "]"), isArray ? "']]' to close the table header" : "']' to close the table header")
        if isArray {
            guard peek() == UInt8(ascii: "]") else { throw error("']]' to close the array-of-tables header", expected: true) }
            index += 1
        }
        let name = key.joined(separator: ".")
        var table = root
        for part in key.dropLast() {
            table = try table.descendForHeader(part, fullName: name, at: start)
        }
        let last = key[key.count - 1]
        let builder = try isArray
            ? table.appendTable(last, fullName: name, at: start)
            : table.defineTable(last, fullName: name, at: start)
        if keyLines != nil {
            note(key, line: start.line)
            tablePath = key
            unindexedTablePath = isArray ? key : nil
            if isArray {
                tablePath.append(String(table.tableCount(last) - 1))
                note(tablePath, line: start.line)
            }
        }
        return builder
    }

    /// After a key/value pair or a header: blanks, a comment, then the end
    /// of the line or of the document.
    private mutating func endOfLine() throws(TOML.SyntaxError) {
        skipWhitespace()
        if peek() == UInt8(ascii: "#") { try comment() }
        guard let byte = peek() else { return }
        if byte == UInt8(ascii: "\n") {
            newline()
        } else if byte == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") {
            index += 1
            newline()
        } else {
            throw error("the end of the line (one key = value or [table] per line)", expected: true)
        }
    }

    private mutating func comment() throws(TOML.SyntaxError) {
        index += 1
        while let byte = peek(), byte != UInt8(ascii: "\n") {
            if byte == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") { return }
            if Self.isControl(byte) { throw error("\(describe(byte)) in a comment") }
            index += 1
        }
    }

    // MARK: - Keys

    /// `a`, `"a b"`, `'a'`, `a . "b" . c`.
    private mutating func dottedKey() throws(TOML.SyntaxError) -> [String] {
        var parts: [String] = []
        while true {
            parts.append(try simpleKey())
            skipWhitespace()
            guard peek() == UInt8(ascii: ".") else { return parts }
            index += 1
            skipWhitespace()
        }
    }

    private mutating func simpleKey() throws(TOML.SyntaxError) -> String {
        guard let byte = peek() else { throw error("a key", expected: true) }
        switch byte {
        case UInt8(ascii: "\""):
            if peek(1) == UInt8(ascii: "\""), peek(2) == UInt8(ascii: "\"") { throw error("a multi-line string cannot be a key") }
            return try basicString()
        case UInt8(ascii: "'"):
            if peek(1) == UInt8(ascii: "'"), peek(2) == UInt8(ascii: "'") { throw error("a multi-line string cannot be a key") }
            return try literalString()
        default:
            let start = index
            while let c = peek(), Self.isBareKeyByte(c) { index += 1 }
            guard index > start else { throw error("a key (letters, digits, _ or -, or a quoted key)", expected: true) }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
    }

    // MARK: - Values

    private mutating func value() throws(TOML.SyntaxError) -> TOML.Value {
        guard let byte = peek() else { throw error("a value", expected: true) }
        switch byte {
        case UInt8(ascii: "\""):
            if peek(1) == UInt8(ascii: "\""), peek(2) == UInt8(ascii: "\"") { return .string(try multiLineBasicString()) }
            return .string(try basicString())
        case UInt8(ascii: "'"):
            if peek(1) == UInt8(ascii: "'"), peek(2) == UInt8(ascii: "'") { return .string(try multiLineLiteralString()) }
            return .string(try literalString())
        case UInt8(ascii: "["):
            return try array()
        case UInt8(ascii: "{"):
            return try inlineTable()
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            if matches("true") { index += 4; return .boolean(true) }
            if matches("false") { index += 5; return .boolean(false) }
            return try scalar()
        default:
            return try scalar()
        }
    }

    private mutating func array() throws(TOML.SyntaxError) -> TOML.Value {
        try enterNesting()
        index += 1
        var elements: [TOML.Value] = []
        while true {
            try skipBlanksInArray()
            guard let byte = peek() else { throw error("']' to close the array", expected: true) }
            if byte == UInt8(ascii: "]") { break }
            if keyLines != nil { valuePath.append(String(elements.count)) }
            elements.append(try value())
            if keyLines != nil { valuePath.removeLast() }
            try skipBlanksInArray()
            if peek() == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard peek() == UInt8(ascii: "]") else { throw error("',' or ']' in the array", expected: true) }
            break
        }
        index += 1
        depth -= 1
        return .array(elements)
    }

    /// Whitespace, newlines and comments: all allowed between array elements.
    private mutating func skipBlanksInArray() throws(TOML.SyntaxError) {
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"): index += 1
            case UInt8(ascii: "\n"): newline()
            case UInt8(ascii: "\r") where peek(1) == UInt8(ascii: "\n"): index += 1; newline()
            case UInt8(ascii: "#"): try comment()
            default: return
            }
        }
    }

    /// `{ a = 1, b.c = 2 }`: on one line, no trailing comma, and closed to
    /// any later addition.
    private mutating func inlineTable() throws(TOML.SyntaxError) -> TOML.Value {
        try enterNesting()
        note(valuePath, line: line)
        index += 1
        let table = TableBuilder(origin: .inline)
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                let start = position
                let key = try dottedKey()
                try expect(UInt8(ascii: "="), "'=' after the key")
                skipWhitespace()
                if keyLines != nil {
                    valuePath += key
                    note(valuePath, line: start.line)
                }
                try table.insert(key, try value(), at: start)
                if keyLines != nil { valuePath.removeLast(key.count) }
                skipWhitespace()
                guard let byte = peek() else { throw error("'}' to close the inline table", expected: true) }
                index += 1
                if byte == UInt8(ascii: "}") { break }
                guard byte == UInt8(ascii: ",") else {
                    index -= 1
                    throw error("',' or '}' in the inline table (it stays on one line)", expected: true)
                }
            }
        }
        depth -= 1
        // From here on a value: nothing can add to it.
        return .table(table.table)
    }

    private mutating func enterNesting() throws(TOML.SyntaxError) {
        depth += 1
        if depth > Self.maximumNesting {
            throw error("arrays and inline tables nested more than \(Self.maximumNesting) deep")
        }
    }

    /// A number, date, time, boolean or special float: the bytes up to the
    /// next delimiter, then checked against each form.
    private mutating func scalar() throws(TOML.SyntaxError) -> TOML.Value {
        let start = index
        while let c = peek(), Self.isScalarByte(c) { index += 1 }
        // A date and a time may be separated by one space: "1979-05-27 07:32:00".
        if index - start == 10, peek() == UInt8(ascii: " "), let d0 = peek(1), let d1 = peek(2), peek(3) == UInt8(ascii: ":"),
           Self.isDigit(d0), Self.isDigit(d1), TOMLScalars.date(bytes[start..<index]) != nil
        {
            index += 1
            while let c = peek(), Self.isScalarByte(c) { index += 1 }
        }
        guard index > start else {
            throw error("a value (a string, number, boolean, date, array or inline table), not \(describe(bytes[start]))")
        }
        let token = bytes[start..<index]
        if let value = TOMLScalars.value(token) { return value }
        let text = String(decoding: token, as: UTF8.self)
        index = start
        throw error("'\(text)' is not a TOML value (a number, boolean or date as TOML writes them; strings need quotes)")
    }

    // MARK: - Strings

    private mutating func basicString() throws(TOML.SyntaxError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        while true {
            guard let byte = peek() else { throw error("the closing '\"' of the string", expected: true) }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                scalars.append(try escape())
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw error("the closing '\"' before the end of the line (a string on several lines needs \"\"\")", expected: true)
            default:
                if Self.isControl(byte) { throw error("\(describe(byte)) in a string; write it as an escape") }
                scalars.append(nextScalar())
            }
        }
    }

    private mutating func multiLineBasicString() throws(TOML.SyntaxError) -> String {
        index += 3
        skipNewlineAfterOpening()
        var scalars = String.UnicodeScalarView()
        while true {
            guard let byte = peek() else { throw error("the closing '\"\"\"' of the string", expected: true) }
            switch byte {
            case UInt8(ascii: "\""):
                if let closing = closingQuotes(UInt8(ascii: "\"")) {
                    for _ in 0..<closing { scalars.append("\"") }
                    return String(scalars)
                }
                scalars.append("\"")
                index += 1
            case UInt8(ascii: "\\"):
                if lineEndingBackslash() {
                    try skipToNextNonBlank()
                } else {
                    scalars.append(try escape())
                }
            case UInt8(ascii: "\n"):
                scalars.append("\n")
                newline()
            case UInt8(ascii: "\r") where peek(1) == UInt8(ascii: "\n"):
                scalars.append("\n")
                index += 1
                newline()
            default:
                if Self.isControl(byte) { throw error("\(describe(byte)) in a string; write it as an escape") }
                scalars.append(nextScalar())
            }
        }
    }

    private mutating func literalString() throws(TOML.SyntaxError) -> String {
        index += 1
        let start = index
        while true {
            guard let byte = peek() else { throw error("the closing \"'\" of the string", expected: true) }
            if byte == UInt8(ascii: "'") { break }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                throw error("the closing \"'\" before the end of the line (a string on several lines needs ''')", expected: true)
            }
            if Self.isControl(byte) { throw error("\(describe(byte)) in a literal string") }
            index += 1
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        index += 1
        return text
    }

    private mutating func multiLineLiteralString() throws(TOML.SyntaxError) -> String {
        index += 3
        skipNewlineAfterOpening()
        var text: [UInt8] = []
        while true {
            guard let byte = peek() else { throw error("the closing \"'''\" of the string", expected: true) }
            switch byte {
            case UInt8(ascii: "'"):
                if let closing = closingQuotes(UInt8(ascii: "'")) {
                    text += repeatElement(UInt8(ascii: "'"), count: closing)
                    return String(decoding: text, as: UTF8.self)
                }
                text.append(byte)
                index += 1
            case UInt8(ascii: "\n"):
                text.append(byte)
                newline()
            case UInt8(ascii: "\r") where peek(1) == UInt8(ascii: "\n"):
                text.append(UInt8(ascii: "\n"))
                index += 1
                newline()
            default:
                if Self.isControl(byte) { throw error("\(describe(byte)) in a literal string") }
                text.append(byte)
                index += 1
            }
        }
    }

    /// At a quote inside a multi-line string: when three or more quotes
    /// close it, how many of them (up to two) still belong to the content,
    /// with `index` moved past them all.
    private mutating func closingQuotes(_ quote: UInt8) -> Int? {
        var count = 0
        while peek(count) == quote { count += 1 }
        guard count >= 3 else { return nil }
        // Five at most: two of content, three to close; a sixth is an error
        // the caller finds as a stray quote after the string.
        let content = min(count - 3, 2)
        index += content + 3
        return content
    }

    /// A newline right after `"""` or `'''` is not part of the string.
    private mutating func skipNewlineAfterOpening() {
        if peek() == UInt8(ascii: "\n") {
            newline()
        } else if peek() == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") {
            index += 1
            newline()
        }
    }

    /// A backslash with only blanks after it on its line.
    private func lineEndingBackslash() -> Bool {
        var offset = 1
        while let c = peek(offset), c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") { offset += 1 }
        return peek(offset) == UInt8(ascii: "\n") || (peek(offset) == UInt8(ascii: "\r") && peek(offset + 1) == UInt8(ascii: "\n"))
    }

    private mutating func skipToNextNonBlank() throws(TOML.SyntaxError) {
        index += 1
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"): index += 1
            case UInt8(ascii: "\n"): newline()
            case UInt8(ascii: "\r") where peek(1) == UInt8(ascii: "\n"): index += 1; newline()
            default: return
            }
        }
    }

    private mutating func escape() throws(TOML.SyntaxError) -> Unicode.Scalar {
        index += 1
        guard let byte = peek() else { throw error("an escape after '\\'", expected: true) }
        index += 1
        switch byte {
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let count = byte == UInt8(ascii: "u") ? 4 : 8
            var value: UInt32 = 0
            for _ in 0..<count {
                guard let c = peek(), let digit = Self.hexValue(c) else {
                    throw error("\(count) hexadecimal digits after '\\\(Character(Unicode.Scalar(byte)))'", expected: true)
                }
                value = value << 4 | digit
                index += 1
            }
            guard let scalar = Unicode.Scalar(value) else {
                index -= count + 2
                throw error("'\\\(Character(Unicode.Scalar(byte)))\(String(decoding: bytes[(index + 2)..<(index + 2 + count)], as: UTF8.self))' is not a Unicode scalar value")
            }
            return scalar
        default:
            index -= 1
            let what = describe(byte)
            index -= 1
            throw error("'\\' followed by \(what) is no escape (\\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)")
        }
    }

    /// The scalar starting at `index` (the text is valid UTF-8: it came
    /// from a String).
    private mutating func nextScalar() -> Unicode.Scalar {
        let lead = bytes[index]
        let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        var value = length == 1 ? UInt32(lead) : UInt32(lead) & (0xFF >> (length + 1))
        for offset in 1..<max(length, 1) { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
        index += length
        return Unicode.Scalar(value) ?? "\u{FFFD}"
    }

    // MARK: - Bytes and positions

    private func peek(_ offset: Int = 0) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    private func matches(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for k in 0..<count where bytes[index + k] != word.utf8Start[k] { return false }
        // "true" must not run on into more of a token ("truex").
        if let next = peek(count), Self.isScalarByte(next) { return false }
        return true
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(TOML.SyntaxError) {
        skipWhitespace()
        guard peek() == byte else { throw error(what, expected: true) }
        index += 1
    }

    private mutating func note(_ path: [String], line: Int) {
        keyLines?.note(path, line: line)
    }

    private mutating func newline() {
        index += 1
        line += 1
        lineStart = index
    }

    struct Position {
        var line: Int
        var column: Int
    }

    private var position: Position {
        Position(line: line, column: String(decoding: bytes[lineStart..<index], as: UTF8.self).unicodeScalars.count + 1)
    }

    /// "expected X, found Y" when `expected`, else the message as it is,
    /// at the current position.
    private func error(_ message: String, expected: Bool = false) -> TOML.SyntaxError {
        let text = expected ? "expected \(message), found \(peek().map(describe) ?? "the end of the file")" : message
        return TOML.SyntaxError(line: position.line, column: position.column, message: text)
    }

    private func describe(_ byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: "\n"): "the end of the line"
        case UInt8(ascii: "\r"): "a carriage return (U+000D) without a line feed"
        case UInt8(ascii: "\t"): "a tab"
        case 0x00..<0x20, 0x7F: "the control character U+" + String(repeating: "0", count: byte < 0x10 ? 3 : 2) + String(byte, radix: 16, uppercase: true)
        case 0x80...: "'\(Character(nextScalarForMessage()))'"
        default: "'\(Character(Unicode.Scalar(byte)))'"
        }
    }

    private func nextScalarForMessage() -> Unicode.Scalar {
        var copy = self
        return copy.nextScalar()
    }

    static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    static func isBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "-"): true
        default: false
        }
    }

    /// What a number, date or time may contain.
    static func isScalarByte(_ byte: UInt8) -> Bool {
        isBareKeyByte(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}

/// A table while its document is read: its entries, and how it came to be
/// (which decides what may still be added to it).
final class TableBuilder {
    enum Origin {
        /// Named by a `[header]` (or the root).
        case header
        /// Named only on the way to a header (`a` in `[a.b]`): a header may
        /// still define it, once.
        case implicit
        /// Made by a dotted key (`a.b = 1`): more dotted keys may add to it.
        case dotted
        /// Written as `{ ... }`: dotted keys inside it may add to it until
        /// its `}`; then it is a value, closed.
        case inline
    }

    enum Entry {
        case value(TOML.Value)
        case table(TableBuilder)
        /// `[[name]]`: one table per header (a box, so appending does not
        /// copy the array).
        case tables(TableArray)
    }

    var origin: Origin
    private var keys: [String] = []
    private var entries: [String: Entry] = [:]

    init(origin: Origin) {
        self.origin = origin
    }

    var table: TOML.Table {
        var table = TOML.Table()
        for key in keys {
            switch entries[key]! {
            case .value(let value): table[key] = value
            case .table(let builder): table[key] = .table(builder.table)
            case .tables(let array): table[key] = .array(array.tables.map { .table($0.table) })
            }
        }
        return table
    }

    /// How many `[[key]]` tables this table holds so far.
    func tableCount(_ key: String) -> Int {
        if case .tables(let array) = entries[key] { array.tables.count } else { 0 }
    }

    private func set(_ key: String, _ entry: Entry) {
        if entries[key] == nil { keys.append(key) }
        entries[key] = entry
    }

    /// `a.b.c = value` into this table.
    func insert(_ key: [String], _ value: TOML.Value, at position: TOMLReader.Position) throws(TOML.SyntaxError) {
        let name = key.joined(separator: ".")
        var table = self
        for part in key.dropLast() {
            switch table.entries[part] {
            case nil:
                let child = TableBuilder(origin: .dotted)
                table.set(part, .table(child))
                table = child
            case .table(let child) where child.origin == .dotted:
                table = child
            case .table:
                throw Self.error(position, "'\(name)': the table '\(part)' is defined elsewhere; a dotted key cannot add to it here")
            case .value(.table):
                throw Self.error(position, "'\(name)': '\(part)' is an inline table, closed to additions")
            case .tables, .value:
                throw Self.error(position, "'\(name)': '\(part)' already holds a value, not a table to add keys to")
            }
        }
        let last = key[key.count - 1]
        guard table.entries[last] == nil else {
            throw Self.error(position, "'\(name)' is defined twice")
        }
        table.set(last, .value(value))
    }

    /// A part of a header's name before its last: into the table, creating
    /// it if it does not exist.
    func descendForHeader(_ key: String, fullName: String, at position: TOMLReader.Position) throws(TOML.SyntaxError) -> TableBuilder {
        switch entries[key] {
        case nil:
            let child = TableBuilder(origin: .implicit)
            set(key, .table(child))
            return child
        case .table(let child):
            return child
        case .tables(let array):
            return array.tables[array.tables.count - 1]
        case .value(.table):
            throw Self.error(position, "[\(fullName)]: '\(key)' is an inline table, closed to additions")
        case .value:
            throw Self.error(position, "[\(fullName)]: '\(key)' already holds a value, not a table")
        }
    }

    /// The last part of `[name]`.
    func defineTable(_ key: String, fullName: String, at position: TOMLReader.Position) throws(TOML.SyntaxError) -> TableBuilder {
        switch entries[key] {
        case nil:
            let child = TableBuilder(origin: .header)
            set(key, .table(child))
            return child
        case .table(let child) where child.origin == .implicit:
            child.origin = .header
            return child
        case .table(let child):
            let how = child.origin == .dotted ? "by dotted keys" : "by an earlier [\(fullName)]"
            throw Self.error(position, "[\(fullName)] is defined twice (already \(how))")
        case .value(.table):
            throw Self.error(position, "[\(fullName)] is defined twice (already as an inline table)")
        case .tables:
            throw Self.error(position, "[\(fullName)] is an array of tables ([[\(fullName)]]), not a table")
        case .value:
            throw Self.error(position, "[\(fullName)]: '\(key)' already holds a value, not a table")
        }
    }

    /// The last part of `[[name]]`: a new table at the end of its array.
    func appendTable(_ key: String, fullName: String, at position: TOMLReader.Position) throws(TOML.SyntaxError) -> TableBuilder {
        let child = TableBuilder(origin: .header)
        switch entries[key] {
        case nil:
            set(key, .tables(TableArray(child)))
        case .tables(let array):
            array.tables.append(child)
        case .table:
            throw Self.error(position, "[[\(fullName)]]: '\(fullName)' is a table, not an array of tables")
        case .value:
            throw Self.error(position, "[[\(fullName)]]: '\(key)' already holds a value (an array written inline cannot take [[...]] tables)")
        }
        return child
    }

    private static func error(_ position: TOMLReader.Position, _ message: String) -> TOML.SyntaxError {
        TOML.SyntaxError(line: position.line, column: position.column, message: message)
    }
}

final class TableArray {
    var tables: [TableBuilder]
    init(_ first: TableBuilder) { tables = [first] }
}
