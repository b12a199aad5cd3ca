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

    func human(_ r: StatsReply) -> String {
        var lines: [String] = []
        if !r.recording {
            lines.append("sessions are not recorded ([sessions] file is empty)")
        } else if let problem = r.problem {
            lines.append("the session records cannot be used: \(problem)")
        }
        if let since = r.since {
            lines.append("sessions since \(since): \(Self.summary(r.total))")
        } else if let first = r.firstDay {
            lines.append("sessions since \(first) (every record kept): \(Self.summary(r.total))")
        } else {
            lines.append("no sessions recorded yet")
        }
        if !r.days.isEmpty {
            lines.append("")
            lines.append("date        started  completed  rate  minutes")
            for day in r.days {
                let counts = day.counts
                lines.append(Self.pad(day.date, 10) + Self.right("\(counts.started)", 9)
                    + Self.right("\(counts.completed)", 11) + Self.right(Self.percent(counts.completionRate), 6)
                    + Self.right(Self.minutes(counts.minutesBreathed), 9))
            }
        }
        if !r.patterns.isEmpty {
            let parts = r.patterns.keys.sorted().map { "\($0) \(r.patterns[$0]!)" }
            lines.append("")
            lines.append("patterns: " + parts.joined(separator: ", "))
        }
        if r.damaged > 0 {
            lines.append("\(r.damaged) damaged line\(r.damaged == 1 ? "" : "s") skipped in \(plain(r.file))")
        }
        return lines.joined(separator: "\n")
    }

    /// "12 started, 9 completed (75%), 3 abandoned, 31.5 minutes breathed".
    static func summary(_ total: StatsReply.Counts) -> String {
        "\(total.started) started, \(total.completed) completed (\(percent(total.completionRate))), \(total.abandoned) abandoned, "
            + "\(minutes(total.minutesBreathed)) minutes breathed"
    }

    static func percent(_ rate: Double?) -> String {
        guard let rate else { return "-" }
        return "\(Int((rate * 100).rounded()))%"
    }

    /// Minutes to a tenth, rounded once here (chakrad sends them
    /// unrounded), halves up: 0.446 is "0.4", 0.05 (3 s) "0.1". Counted
    /// in tenths of the whole milliseconds the records hold (a tenth of a
    /// minute is 6 s), so a half is exactly a half, not a float a hair
    /// either side of it.
    static func minutes(_ value: Double?) -> String {
        guard let m = value, m.isFinite, m >= 0, m < 1e12 else { return "-" }
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

    func human(_ reply: TouchReply) -> String { "" }
}
