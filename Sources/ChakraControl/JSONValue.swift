/// A JSON value: what a request line decodes to before a command reads it,
/// and what replies and events are built from. Reading is JSONParser's
/// (strict RFC 8259); encoding is written out here so that lines are
/// compact, deterministic and start with the keys a person looks for
/// ("event", "id", "ok").
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var intValue: Int? { if case .int(let i) = self { return i }; return nil }
    /// Integers and numbers alike.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { return o }; return nil }

    /// "a string", "the number 3": for error messages.
    public var kind: String {
        switch self {
        case .null: "null"
        case .bool(let b): "the boolean \(b)"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue {
    /// Parses one JSON text (JSONParser: strict, bounded nesting, checked
    /// UTF-8); the error is a short reason for a reply.
    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Result<JSONValue, JSONParseFailure> {
        var parser = JSONParser(Array(bytes))
        do {
            return .success(try parser.parseDocument())
        } catch {
            return .failure(error)
        }
    }
}

public struct JSONParseFailure: Error, Sendable, Equatable {
    public let reason: String
}

extension JSONValue {
    /// Compact JSON text on one line (no newline inside, ever: strings
    /// escape theirs), UTF-8.
    public var encoded: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Keys that come first in an object, in this order; then the rest, sorted.
    static let leadingKeys = ["event", "id", "ok", "result", "error", "code", "message"]

    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += d.isFinite ? "\(d)" : "null"
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            let lead = Self.leadingKeys.filter { fields[$0] != nil }
            let rest = fields.keys.filter { !Self.leadingKeys.contains($0) }.sorted()
            for (index, key) in (lead + rest).enumerated() {
                if index > 0 { out += "," }
                Self.writeString(key, to: &out)
                out += ":"
                fields[key]!.write(to: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}": out += "\\u2028"   // line separators some readers split on
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}
