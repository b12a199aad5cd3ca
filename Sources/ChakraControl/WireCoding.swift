/// A value as the protocol carries it: written as JSON by one end (the
/// daemon, for replies and events), read back by the other (chakractl,
/// tests). Replies and events (Replies.swift, Events.swift) conform, and
/// so do the scalars, optionals, arrays and string-keyed dictionaries
/// they are made of.
public protocol JSONConvertible: Sendable, Equatable {
    var json: JSONValue { get }
    /// Reads the value back, refusing what does not fit (a missing field,
    /// a string where a number goes) with the place and the reason.
    init(json: JSONValue) throws(ReplyDecodingError)
}

/// Why a reply or an event could not be read as its type: where, and what
/// was wrong. A newer daemon's extra fields are not a reason: they are
/// ignored.
public struct ReplyDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field: "fps.actual", "days[2].date"; empty for the value itself.
    public var path: String
    public var problem: String

    public init(path: String = "", _ problem: String) {
        (self.path, self.problem) = (path, problem)
    }

    public var description: String { path.isEmpty ? problem : "'\(path)': \(problem)" }

    static func expected(_ what: String, got value: JSONValue) -> ReplyDecodingError {
        ReplyDecodingError(value == .null ? "expected \(what), got null" : "expected \(what), got \(value.kind)")
    }

    /// The same error, one level further out: under `key`.
    func inside(_ key: String) -> ReplyDecodingError {
        ReplyDecodingError(path: path.isEmpty ? key : path.hasPrefix("[") ? key + path : key + "." + path, problem)
    }
}

/// Builds one JSON object from typed fields, each key named by a case of
/// the type's `Key` enum: the one place the key is spelled.
public struct FieldWriter<Key: RawRepresentable> where Key.RawValue == String {
    public private(set) var fields: [String: JSONValue] = [:]

    public init() {}

    /// `value` under `key`; an optional's nil is written as null.
    public mutating func set(_ key: Key, _ value: some JSONConvertible) {
        fields[key.rawValue] = value.json
    }

    /// `value` under `key`, or no `key` at all when it is nil.
    public mutating func set<Value: JSONConvertible>(_ key: Key, ifPresent value: Value?) {
        if let value { fields[key.rawValue] = value.json }
    }

    /// Another object's fields, flat beside these (`status` carries the
    /// settings' and the display's this way); its keys win.
    public mutating func merge(_ value: some JSONConvertible) {
        if case .object(let other) = value.json { fields.merge(other) { _, new in new } }
    }

    public var json: JSONValue { .object(fields) }
}

/// Reads one JSON object's typed fields, each key named by a case of the
/// type's `Key` enum. A missing field is an optional's nil, and refused
/// for anything else.
public struct FieldReader<Key: RawRepresentable> where Key.RawValue == String {
    public let fields: [String: JSONValue]

    public init(_ json: JSONValue) throws(ReplyDecodingError) {
        guard case .object(let fields) = json else { throw .expected("an object", got: json) }
        self.fields = fields
    }

    public func callAsFunction<Value: JSONConvertible>(_ key: Key) throws(ReplyDecodingError) -> Value {
        guard let value = fields[key.rawValue] else {
            guard Value.self is any MissingMeansNil.Type else { throw ReplyDecodingError(path: key.rawValue, "missing") }
            return try Value(json: .null)
        }
        do throws(ReplyDecodingError) {
            return try Value(json: value)
        } catch {
            throw error.inside(key.rawValue)
        }
    }
}

// MARK: the values replies are made of

extension JSONValue: JSONConvertible {
    public var json: JSONValue { self }
    public init(json: JSONValue) { self = json }
}

extension String: JSONConvertible {
    public var json: JSONValue { .string(self) }
    public init(json: JSONValue) throws(ReplyDecodingError) {
        guard case .string(let text) = json else { throw .expected("a string", got: json) }
        self = text
    }
}

extension Bool: JSONConvertible {
    public var json: JSONValue { .bool(self) }
    public init(json: JSONValue) throws(ReplyDecodingError) {
        guard case .bool(let value) = json else { throw .expected("true or false", got: json) }
        self = value
    }
}

extension Int: JSONConvertible {
    public var json: JSONValue { .int(self) }
    public init(json: JSONValue) throws(ReplyDecodingError) {
        switch json {
        case .int(let value): self = value
        case .double(let value) where value == value.rounded() && abs(value) < 9_007_199_254_740_992: self = Int(value)
        default: throw .expected("a whole number", got: json)
        }
    }
}

/// Written as a number with a fraction ("30.0"); read from any number
/// (the parser gives a whole one as an integer).
extension Double: JSONConvertible {
    public var json: JSONValue { .double(self) }
    public init(json: JSONValue) throws(ReplyDecodingError) {
        guard let value = json.doubleValue else { throw .expected("a number", got: json) }
        self = value
    }
}

/// Optionals: a missing field reads as nil (anything else missing is refused).
protocol MissingMeansNil {}
extension Optional: MissingMeansNil {}

/// nil is null (or a missing field).
extension Optional: JSONConvertible where Wrapped: JSONConvertible {
    public var json: JSONValue { self?.json ?? .null }
    public init(json: JSONValue) throws(ReplyDecodingError) {
        self = json == .null ? nil : try Wrapped(json: json)
    }
}

extension Array: JSONConvertible where Element: JSONConvertible {
    public var json: JSONValue {
        var items: [JSONValue] = []
        items.reserveCapacity(count)
        for element in self { items.append(element.json) }
        return .array(items)
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        guard case .array(let items) = json else { throw .expected("an array", got: json) }
        var elements: [Element] = []
        elements.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            do throws(ReplyDecodingError) {
                elements.append(try Element(json: item))
            } catch {
                throw error.inside("[\(index)]")
            }
        }
        self = elements
    }
}

/// An object of like values: `errors` by kind, `patterns` by name.
extension Dictionary: JSONConvertible where Key == String, Value: JSONConvertible {
    public var json: JSONValue {
        var fields: [String: JSONValue] = [:]
        for (key, value) in self { fields[key] = value.json }
        return .object(fields)
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        guard case .object(let fields) = json else { throw .expected("an object", got: json) }
        var values: [String: Value] = [:]
        for (key, item) in fields {
            do throws(ReplyDecodingError) {
                values[key] = try Value(json: item)
            } catch {
                throw error.inside(key)
            }
        }
        self = values
    }
}
