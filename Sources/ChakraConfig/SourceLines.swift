/// Which line of a TOML document each key is on.
///
/// TOML.parse reports positions for syntax errors; values carry none, so a
/// value with the wrong type or range is placed by this scan: it follows
/// `[table]` headers and records the line of every `key = value` as
/// "table.key" (dotted and quoted keys included); the n-th `[[array]]`
/// table's keys as "array.n.key" (from 0), and the first one's as
/// "array.key" too; and the n-th inline table of an array value as
/// "key.n", at the line it opens on (`phases = [` with a table a line). It
/// runs only on documents TOML.parse has already read, so it can be simple:
/// multi-line strings are skipped, and a key inside an inline table or a
/// multi-line array is not seen — `line(of:)` then falls back to the
/// nearest enclosing key, array element or table that was.
public struct SourceLines: Sendable, Equatable {
    public private(set) var lines: [String: Int] = [:]

    public init(_ text: String) {
        var table: [String] = []
        var closing: Substring?   // the delimiter of an open multi-line string
        var arrayCounts: [String: Int] = [:]   // [[x]] tables seen so far, by path
        var unindexed: [String]?               // in [[x]]: x, for "x.key" (the first element's)
        var value: ValueScan?                  // an array or inline table value still open
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            if var open = value {
                open.scan(raw[...], line: number) { record($0, $1) }
                value = open.isOpen ? open : nil
                continue
            }
            if let delimiter = closing {
                if raw.firstRange(of: delimiter) != nil { closing = nil }
                continue
            }
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty || line.first == "#" { continue }
            if line.hasPrefix("[") {
                let isArray = line.hasPrefix("[[")
                let body = line.dropFirst(isArray ? 2 : 1).prefix { $0 != "]" }
                table = Self.keyParts(body)
                record(table.joined(separator: "."), number)
                unindexed = isArray ? table : nil
                if isArray {
                    // Each [[x]] is element n of x: its keys are "x.n.key".
                    let path = table.joined(separator: ".")
                    let index = arrayCounts[path, default: 0]
                    arrayCounts[path] = index + 1
                    table.append("\(index)")
                    record(table.joined(separator: "."), number)
                }
                continue
            }
            guard let equals = Self.assignment(in: line) else { continue }
            let parts = Self.keyParts(line[..<equals])
            record((table + parts).joined(separator: "."), number)
            if let unindexed { record((unindexed + parts).joined(separator: "."), number) }
            let rest = line[line.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            for delimiter in ["\"\"\"", "'''"] where rest.hasPrefix(delimiter) {
                if rest.dropFirst(3).firstRange(of: delimiter) == nil { closing = Substring(delimiter) }
            }
            if rest.first == "[" || rest.first == "{" {
                var open = ValueScan(path: (table + parts).joined(separator: "."), isArray: rest.first == "[")
                open.scan(rest, line: number) { record($0, $1) }
                if open.isOpen { value = open }
            }
        }
    }

    /// An array or inline table value, followed across lines to its end:
    /// strings and comments skipped, brackets counted, and each inline
    /// table directly in an array recorded as "key.n" at its line.
    private struct ValueScan {
        let path: String
        let isArray: Bool
        var depth = 0
        var element = 0
        /// Inside a string: its closing delimiter.
        var quote: [Character]?

        init(path: String, isArray: Bool) { (self.path, self.isArray) = (path, isArray) }

        var isOpen: Bool { depth > 0 || quote != nil }

        mutating func scan(_ text: Substring, line: Int, record: (String, Int) -> Void) {
            let chars = Array(text)
            func starts(_ delimiter: [Character], at i: Int) -> Bool {
                i + delimiter.count <= chars.count && Array(chars[i..<i + delimiter.count]) == delimiter
            }
            var i = 0
            while i < chars.count {
                let c = chars[i]
                if let q = quote {
                    if q == ["\""], c == "\\" {   // an escape in a basic string
                        i += 2
                    } else if starts(q, at: i) {
                        quote = nil
                        i += q.count
                    } else {
                        i += 1
                    }
                    continue
                }
                switch c {
                case "\"", "'":
                    let triple = [c, c, c]
                    quote = starts(triple, at: i) ? triple : [c]
                    i += quote!.count
                    continue
                case "#":
                    return
                case "[", "{":
                    if c == "{", isArray, depth == 1 {
                        record("\(path).\(element)", line)
                        element += 1
                    }
                    depth += 1
                case "]", "}":
                    depth -= 1
                    if depth <= 0 {
                        depth = 0
                        return
                    }
                default:
                    break
                }
                i += 1
            }
        }
    }

    private mutating func record(_ key: String, _ line: Int) {
        if lines[key] == nil { lines[key] = line }
    }

    /// The line of `key` ("display.fps"), else of its closest enclosing key
    /// or table; nil when none is in the document.
    public func line(of key: String) -> Int? {
        var parts = key.split(separator: ".").map(String.init)
        while !parts.isEmpty {
            if let line = lines[parts.joined(separator: ".")] { return line }
            parts.removeLast()
        }
        return nil
    }

    /// The `=` of a `key = value` line (outside a quoted key).
    private static func assignment(in line: Substring) -> Substring.Index? {
        var quote: Character?
        for index in line.indices {
            let c = line[index]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "=" {
                return index
            }
        }
        return nil
    }

    /// `a."b.c" . d` → ["a", "b.c", "d"].
    static func keyParts(_ text: Substring) -> [String] {
        var parts: [String] = []
        var current = ""
        var quote: Character?
        for c in text {
            if let q = quote {
                if c == q { quote = nil } else { current.append(c) }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "." {
                parts.append(current)
                current = ""
            } else if c != " " && c != "\t" {
                current.append(c)
            }
        }
        parts.append(current)
        return parts
    }
}
