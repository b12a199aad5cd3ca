/// A TOML 1.0 document as values: what chakra.toml and the string
/// catalogues are read into.
///
/// Chakra reads TOML itself (TOMLReader) rather than through TOMLKit and its
/// vendored toml++: fuzzing found that pair aborting the process on a
/// mistyped table header, running into undefined behaviour on non-ASCII
/// text, overflowing the stack on deep nesting, and leaking every document
/// it parsed (TOMLKit frees none of toml++'s nodes), which a daemon
/// reloading its configuration for months cannot have. docs/robustness.md
/// has the findings.
public enum TOML {
    /// A value. Dates and times are kept as written: Chakra has no key
    /// that takes one, so they only need to be told apart in messages.
    public indirect enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int64)
        case float(Double)
        case boolean(Bool)
        case dateTime(DateTimeKind, String)
        case array([Value])
        case table(Table)

        public var string: String? {
            if case .string(let s) = self { s } else { nil }
        }

        public var table: Table? {
            if case .table(let t) = self { t } else { nil }
        }
    }

    public enum DateTimeKind: Sendable, Equatable {
        case offsetDateTime, localDateTime, localDate, localTime
    }

    /// Keys and values in the order the document first names them.
    public struct Table: Sendable, Equatable {
        public private(set) var keys: [String] = []
        private var values: [String: Value] = [:]

        public init() {}

        public subscript(key: String) -> Value? {
            get { values[key] }
            set {
                if values[key] == nil, newValue != nil { keys.append(key) }
                if newValue == nil { keys.removeAll { $0 == key } }
                values[key] = newValue
            }
        }

        /// Equal when the same keys hold the same values, in any order.
        public static func == (a: Table, b: Table) -> Bool { a.values == b.values }
    }

    /// Why a document is not TOML, and where (1-based; the column counts
    /// characters, not bytes).
    public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        public let line: Int
        public let column: Int
        public let message: String

        public var description: String { "line \(line), column \(column): \(message)" }
    }

    /// Reads a whole document.
    public static func parse(_ text: String) throws(SyntaxError) -> Table {
        var reader = TOMLReader(Array(text.utf8))
        return try reader.document()
    }

    /// A document and the line of each of its keys.
    public struct Document: Sendable, Equatable {
        public let table: Table
        public let lines: KeyLines
    }

    /// Reads a whole document, noting where each key and table is written:
    /// what a message about a value names, since values carry no position.
    public static func read(_ text: String) throws(SyntaxError) -> Document {
        var reader = TOMLReader(Array(text.utf8), notingLines: true)
        let table = try reader.document()
        return Document(table: table, lines: reader.keyLines ?? KeyLines())
    }

    /// The line each key and table of a document is written on, by dotted
    /// path, as the reader met them: "display.fps"; a `[table]` at its
    /// header; the n-th `[[array]]` table as "array.n" (from 0), its keys as
    /// "array.n.key" and, for the first table that has it, "array.key" too;
    /// an inline table in an array value at the line it opens on
    /// ("phases.1"), its keys as "phases.1.seconds". The first place a path
    /// is met is kept. Dotted keys (`a.b = 1`) and headers name only their
    /// whole path: the tables they make on the way have no line of their own.
    public struct KeyLines: Sendable, Equatable {
        public private(set) var lines: [String: Int] = [:]

        public init() {}

        mutating func note(_ path: [String], line: Int) {
            let key = path.joined(separator: ".")
            if lines[key] == nil { lines[key] = line }
        }

        /// The line of `key` ("display.fps"), else of its closest enclosing
        /// key or table; nil when none is in the document.
        public func line(of key: String) -> Int? {
            var parts = key.split(separator: ".").map(String.init)
            while !parts.isEmpty {
                if let line = lines[parts.joined(separator: ".")] { return line }
                parts.removeLast()
            }
            return nil
        }
    }
}
