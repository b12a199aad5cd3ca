/// A configuration value as the file writes it: what a TOML value becomes
/// before a key reads it, and what `get` and the reload report show. Keeping
/// the keys' readers on this type (not on TOML's) makes them testable
/// without a TOML document.
public enum ConfigValue: Sendable, Equatable, CustomStringConvertible {
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([ConfigValue])
    /// A table, date or time where a key wants a plain value.
    case other(String)

    /// As in TOML: `true`, `20`, `0.5`, `"heart"`, `[1.0, 0.0]`.
    public var description: String {
        switch self {
        case .bool(let b): "\(b)"
        case .int(let i): "\(i)"
        case .double(let d): d == d.rounded() && abs(d) < 1e15 ? "\(Int(d)).0" : "\(d)"
        case .string(let s): "\"" + s.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
        case .array(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .other(let kind): kind
        }
    }

    /// "a boolean", "the string \"yes\"": for error messages.
    var kindAndValue: String {
        switch self {
        case .bool: "the boolean \(self)"
        case .int: "the integer \(self)"
        case .double: "the number \(self)"
        case .string: "the string \(self)"
        case .array: "an array"
        case .other(let kind): kind
        }
    }

    /// Integers count as numbers where a number is wanted (`fps = 30`).
    var number: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
}
