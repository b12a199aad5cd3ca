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
}
