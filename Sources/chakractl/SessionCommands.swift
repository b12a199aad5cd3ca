import ChakraControl
import Glibc

struct Stats: ClientCommand {
    static let spec = CommandSpec(
        name: "stats",
        abstract: "How often and how long people breathed with the spiral: counts, completion rate, minutes, per day.",
        discussion: "From chakrad's session records ([sessions] file). A session is an exercise someone began by touching "
            + "the light; it is completed or abandoned. Minutes breathed count only time with a finger on the light. "
            + "Days are local days on chakrad's clock.",
        arguments: [.option("since", value: "date", help: "Only days from this one on, as YYYY-MM-DD.")]
    )

    let since: StatsQuery.Day?

    init(since: StatsQuery.Day?) { self.since = since }

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let text = arguments.value("since") else {
            since = nil
            return
        }
        guard let day = StatsQuery.Day(text) else { throw UsageError("--since takes a date as YYYY-MM-DD, such as 2026-11-01 (got '\(text)')") }
        since = day
    }

    func request() -> ControlCommand { .stats(StatsQuery(since: since)) }

    func human(_ r: JSONValue) -> String {
        var lines: [String] = []
        if r["recording"] == false {
            lines.append("sessions are not recorded ([sessions] file is empty)")
        } else if let problem = r["problem"]?.stringValue {
            lines.append("the session records cannot be used: \(problem)")
        }
        let total = r["total"] ?? .null
        if let since = r["since"]?.stringValue {
            lines.append("sessions since \(since): \(Self.summary(total))")
        } else if let first = r["first_day"]?.stringValue {
            lines.append("sessions since \(first) (every record kept): \(Self.summary(total))")
        } else {
            lines.append("no sessions recorded yet")
        }
        let days = r["days"]?.arrayValue ?? []
        if !days.isEmpty {
            lines.append("")
            lines.append("date        started  completed  rate  minutes")
            for day in days {
                lines.append(Self.pad(plain(day["date"] ?? .null), 10) + Self.right(plain(day["started"] ?? .null), 9)
                    + Self.right(plain(day["completed"] ?? .null), 11) + Self.right(Self.percent(day["completion_rate"]), 6)
                    + Self.right(Self.minutes(day["minutes_breathed"]), 9))
            }
        }
        if case .object(let patterns)? = r["patterns"], !patterns.isEmpty {
            let parts = patterns.keys.sorted().map { "\($0) \(plain(patterns[$0]!))" }
            lines.append("")
            lines.append("patterns: " + parts.joined(separator: ", "))
        }
        if let damaged = r["damaged"]?.intValue, damaged > 0 {
            lines.append("\(damaged) damaged line\(damaged == 1 ? "" : "s") skipped in \(plain(r["file"] ?? .null))")
        }
        return lines.joined(separator: "\n")
    }

    /// "12 started, 9 completed (75%), 3 abandoned, 31.5 minutes breathed".
    static func summary(_ total: JSONValue) -> String {
        "\(plain(total["started"] ?? .null)) started, \(plain(total["completed"] ?? .null)) completed "
            + "(\(percent(total["completion_rate"]))), \(plain(total["abandoned"] ?? .null)) abandoned, "
            + "\(minutes(total["minutes_breathed"])) minutes breathed"
    }

    static func percent(_ value: JSONValue?) -> String {
        guard let rate = value?.doubleValue else { return "-" }
        return "\(Int((rate * 100).rounded()))%"
    }

    /// Minutes to a tenth, rounded once here (chakrad sends them
    /// unrounded), halves up: 0.446 is "0.4", 0.05 (3 s) "0.1". Counted
    /// in tenths of the whole milliseconds the records hold (a tenth of a
    /// minute is 6 s), so a half is exactly a half, not a float a hair
    /// either side of it.
    static func minutes(_ value: JSONValue?) -> String {
        guard let m = value?.doubleValue, m.isFinite, m >= 0, m < 1e12 else { return "-" }
        let milliseconds = (m * 60_000).rounded()
        let tenths = Int((milliseconds / 6000).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    private static func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
    private static func right(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
}

struct Touch: ClientCommand {
    static let spec = CommandSpec(
        name: "touch",
        abstract: "Touch the screen from here: a finger down, moved or lifted at x y (pixels of the picture as seen).",
        discussion: "For tools, tests and demonstrations: chakrad takes it as a touchscreen contact (the spiral follows it; "
            + "a dark screen wakes as for a real touch). down and move need x and y; the coordinates of the path are "
            + "what 'spiral path' prints.",
        arguments: [
            .positional("phase", help: "What the finger does.", choices: TouchRequest.Phase.allCases.map(\.rawValue)),
            .positional("coordinate", help: "x and y in pixels (down and move).", repeating: true),
            .option("contact", value: "n", help: "Which finger, 0-\(TouchRequest.maxContacts - 1) (default 0)."),
        ]
    )

    let touch: TouchRequest

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let phase = TouchRequest.Phase(rawValue: arguments.positional("phase")) else { throw UsageError("unknown touch phase") }
        var touch = TouchRequest(phase: phase)
        if let text = arguments.value("contact") {
            guard let n = Int(text), (0..<TouchRequest.maxContacts).contains(n) else {
                throw UsageError("--contact takes 0-\(TouchRequest.maxContacts - 1) (got '\(text)')")
            }
            touch.contact = n
        }
        let words = arguments.words("coordinate")
        let needsPoint = phase == .down || phase == .move
        if needsPoint || !words.isEmpty {
            guard words.count == 2, let x = Double(words[0]), let y = Double(words[1]), x.isFinite, y.isFinite else {
                throw UsageError("touch \(phase.rawValue) takes x and y in pixels, such as: touch \(phase.rawValue) 400 300")
            }
            // The daemon's bound, checked here: a usage error, not a refusal.
            guard abs(x) <= TouchRequest.maxCoordinate, abs(y) <= TouchRequest.maxCoordinate else {
                throw UsageError("touch \(phase.rawValue): x and y must be within ±\(Int(TouchRequest.maxCoordinate)) pixels (got \(words[0]) \(words[1]))")
            }
            (touch.x, touch.y) = (x, y)
        }
        self.touch = touch
    }

    func request() -> ControlCommand { .touch(touch) }

    func human(_ result: JSONValue) -> String { "" }
}
