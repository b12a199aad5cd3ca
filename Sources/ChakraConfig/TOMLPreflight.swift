/// A pass over a TOML document before TOMLKit's parser (toml++ 3.4) reads
/// it, for the inputs that parser cannot take: on them it aborts the whole
/// process (an assertion) or runs into undefined behaviour, where a
/// configuration file must get a line and column instead. Found by fuzzing
/// toml++ with AddressSanitizer and UBSan (docs/robustness.md):
///
/// - A table header whose first key character is neither a key character
///   nor a quote (`[[[`, `[=]`, `[` at the end of a line): parse_key()
///   asserts, SIGABRT. Invalid TOML: refused here.
/// - Non-ASCII characters wherever toml++ tests them for whitespace: its
///   table reaches `__builtin_unreachable()` for U+00A0-U+0499 and
///   U+FC00-U+FEFE (so for ü, é, Cyrillic...). It tests them outside
///   strings, after a line-ending backslash in a multi-line string (`"""a \`
///   then `ü` on the next line: valid TOML) and, while it reads past a bad
///   token for its error message, inside strings and comments too. So the
///   text toml++ gets has no non-ASCII character at all: in basic strings
///   they become their `\u` escapes; a literal string holding one becomes
///   the basic string that means the same; in comments they become `?`;
///   anywhere else they are invalid TOML and refused. Every line stays
///   where it was (columns move only after such a string).
/// - `\` followed by a non-ASCII character in a basic string: no escape
///   (and escaping the character would make it one). Refused.
/// - A NUL character: TOMLKit hands the text on as a C string, so the rest
///   of the file would silently vanish. Refused.
/// - Arrays and inline tables nested deeper than `maximumNesting`: toml++
///   reads them by recursion and a long run of `[` overflows the stack.
///   No configuration or catalogue nests more than three deep. Refused.
///
/// The pass knows strings, comments and brackets, nothing more; what it
/// lets through is still for toml++ to accept or refuse.
public enum TOMLPreflight {
    /// Where and why toml++ must not read the text.
    public struct Refusal: Error, Sendable, Equatable {
        public let line: Int
        public let column: Int
        public let message: String
    }

    /// How deep arrays and inline tables may nest.
    public static let maximumNesting = 32

    /// The text to hand to toml++ (the same, or with the escapes above),
    /// or why not.
    public static func check(_ text: String) -> Result<String, Refusal> {
        guard text.utf8.contains(where: { $0 >= 0x80 || $0 == 0 || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "{") }) else { return .success(text) }
        var scanner = Scanner(Array(text.unicodeScalars))
        do {
            try scanner.scan()
        } catch {
            return .failure(error)
        }
        return .success(String(scanner.output))
    }

    /// \uXXXX or \UXXXXXXXX, as a TOML basic string reads it.
    static func escape(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        let width = scalar.value > 0xFFFF ? 8 : 4
        return (width == 8 ? "\\U" : "\\u") + String(repeating: "0", count: width - digits.count) + digits
    }

    private struct Scanner {
        let scalars: [Unicode.Scalar]
        /// The text for toml++.
        var output = String.UnicodeScalarView()
        private var index = 0
        private var line = 1
        private var lineStart = 0

        init(_ scalars: [Unicode.Scalar]) {
            self.scalars = scalars
        }

        mutating func scan() throws(Refusal) {
            // A byte order mark at the very start is allowed (toml++ skips it).
            if scalars.first == "\u{FEFF}" { index = 1; lineStart = 1 }
            var atStatementStart = true
            var inHeader = false
            var depth = 0
            while index < scalars.count {
                let c = scalars[index]
                switch c {
                case "\n":
                    newline()
                    if depth <= 0 || inHeader {
                        atStatementStart = true
                        inHeader = false
                        depth = 0
                    }
                    continue
                case " ", "\t", "\r":
                    copy()
                    continue
                case "#":
                    try comment()
                    continue
                case "\0":
                    throw refusal("a NUL character; a TOML file holds none")
                default:
                    break
                }
                if atStatementStart {
                    atStatementStart = false
                    if c == "[" {
                        inHeader = true
                        try headerStart()
                        continue
                    }
                }
                switch c {
                case "\"":
                    try basicString()
                    continue
                case "'":
                    try literalString()
                    continue
                case "[", "{":
                    if !inHeader {
                        depth += 1
                        if depth > TOMLPreflight.maximumNesting {
                            throw refusal("arrays and inline tables nested more than \(TOMLPreflight.maximumNesting) deep")
                        }
                    }
                case "]", "}":
                    if !inHeader { depth -= 1 }
                default:
                    if c.value > 0x7F {
                        throw refusal("'\(c)' outside a string or comment; TOML allows only ASCII there")
                    }
                }
                copy()
            }
        }

        /// `[` or `[[`, spaces, then a key: a bare key character or a quote
        /// (or `]`, which toml++ refuses by itself).
        private mutating func headerStart() throws(Refusal) {
            copy()
            let before = index
            while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { copy() }
            if index < scalars.count, scalars[index] == "[", index == before {
                copy()
                while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { copy() }
            }
            guard index < scalars.count else { throw refusal("the table header ends before its name") }
            let c = scalars[index]
            guard Self.isBareKeyCharacter(c) || c == "\"" || c == "'" || c == "]" else {
                throw refusal("a table header starts with its name (letters, digits, _ or -, or a quoted key), not \(Self.describe(c))")
            }
        }

        /// To the end of the line; what is not ASCII becomes '?' (a
        /// comment means nothing to the parser).
        private mutating func comment() throws(Refusal) {
            while index < scalars.count, scalars[index] != "\n" {
                let c = scalars[index]
                if c == "\0" { throw refusal("a NUL character; a TOML file holds none") }
                if c.value > 0x7F {
                    output.append("?")
                    index += 1
                } else {
                    copy()
                }
            }
        }

        /// "..." or """...""", from the opening quote to past the closing
        /// one, non-ASCII escaped. Unterminated strings end at the end of
        /// the line (single-line) or the text: toml++ says what is wrong.
        private mutating func basicString() throws(Refusal) {
            let isMultiLine = run(of: "\"", at: index) >= 3
            for _ in 0..<(isMultiLine ? 3 : 1) { copy() }
            while index < scalars.count {
                let c = scalars[index]
                switch c {
                case "\"":
                    if !isMultiLine { copy(); return }
                    let quotes = run(of: "\"", at: index)
                    // Up to two quotes before the closing three belong to the string.
                    for _ in 0..<min(quotes, 5) { copy() }
                    if quotes >= 3 { return }
                case "\n":
                    if !isMultiLine { return }
                    newline()
                case "\0":
                    throw refusal("a NUL character; a TOML file holds none")
                case "\\":
                    try escape(multiLine: isMultiLine)
                default:
                    if c.value > 0x7F {
                        output.append(contentsOf: TOMLPreflight.escape(c).unicodeScalars)
                        index += 1
                    } else {
                        copy()
                    }
                }
            }
        }

        /// A backslash in a basic string and what follows it.
        private mutating func escape(multiLine: Bool) throws(Refusal) {
            copy()
            guard index < scalars.count else { return }
            let c = scalars[index]
            if c.value > 0x7F {
                throw refusal("'\\\(c)' is no escape (\\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)")
            }
            switch c {
            case "\0": throw refusal("a NUL character; a TOML file holds none")
            // A single-line string ends at the line's end, escaped or not;
            // in a multi-line one this is a line-ending backslash.
            case "\n": if multiLine { newline() }
            default: copy()
            }
        }

        /// '...' or '''...''': as it is when all ASCII, else as the basic
        /// string with the same content.
        private mutating func literalString() throws(Refusal) {
            let isMultiLine = run(of: "'", at: index) >= 3
            let open = isMultiLine ? 3 : 1
            // Where it ends, and whether anything in it is not ASCII.
            var end = index + open
            var closing = 0
            var ascii = true
            while end < scalars.count {
                let c = scalars[end]
                if c == "'" {
                    let quotes = run(of: "'", at: end)
                    if !isMultiLine { closing = 1; break }
                    if quotes >= 3 { closing = min(quotes, 5); break }
                    end += quotes
                    continue
                }
                if c == "\n" && !isMultiLine { break }
                if c == "\0" { index = end; throw refusal("a NUL character; a TOML file holds none") }
                if c.value > 0x7F { ascii = false }
                end += 1
            }
            if ascii {
                while index < end + closing {
                    if scalars[index] == "\n" { newline() } else { copy() }
                }
                return
            }
            let quote: Unicode.Scalar = "\""
            for _ in 0..<open { output.append(quote) }
            index += open
            while index < end {
                let c = scalars[index]
                switch c {
                case "\n": newline()
                case "\\": output.append(contentsOf: "\\\\".unicodeScalars); index += 1
                case "\"": output.append(contentsOf: "\\\"".unicodeScalars); index += 1
                default:
                    if c.value > 0x7F {
                        output.append(contentsOf: TOMLPreflight.escape(c).unicodeScalars)
                        index += 1
                    } else {
                        copy()
                    }
                }
            }
            if closing > 0 {
                // Quotes before the closing three are content.
                for _ in 0..<(closing - open) { output.append("'") }
                for _ in 0..<open { output.append(quote) }
                index += closing
            }
        }

        private func run(of quote: Unicode.Scalar, at start: Int) -> Int {
            var end = start
            while end < scalars.count, scalars[end] == quote { end += 1 }
            return end - start
        }

        private mutating func copy() {
            output.append(scalars[index])
            index += 1
        }

        private mutating func newline() {
            output.append("\n")
            index += 1
            line += 1
            lineStart = index
        }

        private func refusal(_ message: String) -> Refusal {
            Refusal(line: line, column: index - lineStart + 1, message: message)
        }

        static func isBareKeyCharacter(_ c: Unicode.Scalar) -> Bool {
            switch c {
            case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
            default: false
            }
        }

        static func describe(_ c: Unicode.Scalar) -> String {
            switch c {
            case "\n": "the end of the line"
            case "\t": "a tab"
            case _ where c.value < 0x20 || c.value == 0x7F: "the control character U+" + String(c.value, radix: 16, uppercase: true)
            default: "'\(c)'"
            }
        }
    }
}
