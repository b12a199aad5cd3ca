/// What a refusal quotes of what a client sent: enough to recognise it,
/// never the whole of it. A request line may be a megabyte (`[control]
/// max_line`), and echoing a megabyte key or id back, escaped, cost the
/// control thread 80–200 ms per request.
public enum Excerpt {
    /// Unicode scalars quoted at most (not characters: one character can
    /// hold a megabyte of combining marks).
    public static let limit = 64

    /// `text`'s first `limit` scalars, and "…" when there were more.
    public static func text(_ text: String) -> String {
        var kept = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit { return String(kept) + "…" }
            kept.append(scalar)
            count += 1
        }
        return text
    }

    /// A value as it would be written in JSON, cut: a string as `text`
    /// does, an array or object by its size.
    public static func value(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): JSONValue.string(text(s)).encoded
        case .array(let items): "an array of \(items.count)"
        case .object(let fields): "an object of \(fields.count) fields"
        default: value.encoded
        }
    }

    /// Names in a list, at most `count` of them, each cut: "'a', 'b' and 7 more".
    public static func names(_ names: [String], count: Int = 5) -> String {
        let shown = names.prefix(count).map { "'\(text($0))'" }.joined(separator: ", ")
        return names.count > count ? "\(shown) and \(names.count - count) more" : shown
    }
}
