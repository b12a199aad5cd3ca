/// Which line of a TOML document each key is on.
///
/// TOML.parse reports positions for syntax errors; values carry none, so a
/// value with the wrong type or range is placed by this scan: it follows
/// `[table]` headers and records the line of every `key = value` as
/// "table.key" (dotted and quoted keys included); the n-th `[[array]]`
/// table's keys as "array.n.key" (from 0), and the first one's as
/// "array.key" too. It runs
/// only on documents TOML.parse has already read, so it can be simple:
/// multi-line strings are skipped, and a key inside an inline table or a
/// multi-line array is not seen — `line(of:)` then falls back to the
/// nearest enclosing key or table that was.
public struct SourceLines: Sendable, Equatable {
    public private(set) var lines: [String: Int] = [:]

    public init(_ text: String) {
        var table: [String] = []
        var closing: Substring?   // the delimiter of an open multi-line string
        var arrayCounts: [String: Int] = [:]   // [[x]] tables seen so far, by path
        var unindexed: [String]?               // in [[x]]: x, for "x.key" (the first element's)
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
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
            let value = line[line.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            for delimiter in ["\"\"\"", "'''"] where value.hasPrefix(delimiter) {
                if value.dropFirst(3).firstRange(of: delimiter) == nil { closing = Substring(delimiter) }
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
