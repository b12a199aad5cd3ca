import ChakraSchedule

/// The `[schedule]` section: opening hours (ChakraSchedule). Unlike the other
/// sections it holds arrays of tables, so it is read here, not key by key
/// through `ConfigKeys`:
///
///     [schedule]                 # no window and no date: no schedule
///     outside = "off"            # what the screen does outside every window
///
///     [[schedule.window]]        # weekly
///     days = "mon-fri"           # "mon", "mon-fri", "daily", "weekdays", "weekends", or a list
///     start = "07:30"
///     end = "18:00"              # at or before start: past midnight
///     show = "heart"             # a scene, "off", "dim" or "low-power"
///
///     [[schedule.date]]          # replaces the week's windows on that date
///     date = "2026-12-25"
///     show = "off"               # start and end: optional (the whole day)
///
/// Errors name the key and the line of the window they are in.
enum ScheduleConfig {
    static func read(_ node: TOML.Value, into loaded: inout LoadedConfig, errors: inout [ConfigIssue]) {
        guard let table = node.table else {
            errors.append(loaded.issue(key: "schedule", "must be a table ([schedule])"))
            return
        }
        var schedule = Schedule()
        for key in table.keys {
            guard let value = table[key] else { continue }
            switch key {
            case "outside":
                do { schedule.outside = try action(value) } catch { errors.append(loaded.issue(key: "schedule.outside", error.message)) }
            case "window", "date":
                guard case .array(let items) = value, items.allSatisfy({ $0.table != nil }) else {
                    errors.append(loaded.issue(key: "schedule.\(key)", "must be written as [[schedule.\(key)]] tables"))
                    continue
                }
                for (index, item) in items.enumerated() {
                    let path = "schedule.\(key).\(index)"
                    do {
                        if key == "window" {
                            schedule.windows.append(try window(item.table!, path: path, loaded: &loaded))
                        } else {
                            schedule.dates.append(try dateWindow(item.table!, path: path, loaded: &loaded))
                        }
                    } catch {
                        errors.append(loaded.issue(key: error.key ?? path, error.message))
                    }
                }
            default:
                loaded.warnings.append(loaded.issue(key: "schedule.\(key)", "unknown key, ignored; [schedule] has outside, [[schedule.window]] and [[schedule.date]]"))
            }
        }
        // With no window and no date there is no schedule: the screen stays on.
        if schedule.windows.isEmpty, schedule.dates.isEmpty {
            if table["outside"] != nil {
                loaded.warnings.append(loaded.issue(key: "schedule.outside", "ignored: the schedule has no [[schedule.window]] or [[schedule.date]], so the screen is always on"))
            }
            return
        }
        loaded.config.schedule = schedule
    }

    /// A problem inside one window: the message, and the key it is about.
    struct Problem: Error {
        let message: String
        var key: String?
    }

    private static func window(_ table: TOML.Table, path: String, loaded: inout LoadedConfig) throws(Problem) -> Schedule.Window {
        known(table, ["days", "start", "end", "show"], path: path, loaded: &loaded)
        let days = try required(table, "days", path: path) { value throws(ConfigProblem) in try Self.days(value) }
        let start = try required(table, "start", path: path) { value throws(ConfigProblem) in try time(value) }
        let end = try required(table, "end", path: path) { value throws(ConfigProblem) in try time(value) }
        let show = try required(table, "show", path: path) { value throws(ConfigProblem) in try action(value) }
        return Schedule.Window(days: days, start: start, end: end, action: show)
    }

    private static func dateWindow(_ table: TOML.Table, path: String, loaded: inout LoadedConfig) throws(Problem) -> Schedule.DateWindow {
        known(table, ["date", "start", "end", "show"], path: path, loaded: &loaded)
        let date = try required(table, "date", path: path) { value throws(ConfigProblem) in try Self.date(value) }
        let show = try required(table, "show", path: path) { value throws(ConfigProblem) in try action(value) }
        switch (table["start"], table["end"]) {
        case (nil, nil):
            return Schedule.DateWindow(date: date, action: show)
        case (let start?, let end?):
            let from = try field(path, "start") { () throws(ConfigProblem) in try time(start) }
            let to = try field(path, "end") { () throws(ConfigProblem) in try time(end) }
            return Schedule.DateWindow(date: date, start: from, end: to, action: show)
        default:
            throw Problem(message: "give both start and end, or neither (the whole day)", key: path)
        }
    }

    /// Unknown keys in a window are warnings, as elsewhere.
    private static func known(_ table: TOML.Table, _ keys: [String], path: String, loaded: inout LoadedConfig) {
        for key in table.keys where !keys.contains(key) {
            loaded.warnings.append(loaded.issue(key: "\(path).\(key)", "unknown key, ignored; a window has \(keys.joined(separator: ", "))"))
        }
    }

    private static func required<T>(_ table: TOML.Table, _ key: String, path: String,
                                    _ read: (TOML.Value) throws(ConfigProblem) -> T) throws(Problem) -> T {
        guard let value = table[key] else { throw Problem(message: "missing \(key)", key: path) }
        return try field(path, key) { () throws(ConfigProblem) in try read(value) }
    }

    private static func field<T>(_ path: String, _ key: String, _ read: () throws(ConfigProblem) -> T) throws(Problem) -> T {
        do { return try read() } catch { throw Problem(message: error.message, key: "\(path).\(key)") }
    }

    /// The schedule a line a window, as `get schedule` shows it:
    /// "mon-fri 07:30-18:00 heart", "2026-12-25 off", "outside off".
    static func lines(_ schedule: Schedule) -> [String] {
        func days(_ set: Set<Weekday>) -> String {
            set.count == 7 ? "daily" : Weekday.names.filter { set.contains($0.1) }.map(\.0).joined(separator: ",")
        }
        var lines = schedule.windows.map { "\(days($0.days)) \($0.start)-\($0.end) \($0.action)" }
        lines += schedule.dates.map { $0.start == $0.end ? "\($0.date) \($0.action)" : "\($0.date) \($0.start)-\($0.end) \($0.action)" }
        return lines + ["outside \(schedule.outside)"]
    }

    // MARK: values

    static func action(_ value: TOML.Value) throws(ConfigProblem) -> ScheduleAction {
        guard let text = value.string, !text.isEmpty,
              text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw ConfigProblem("must be a scene's name, \"off\", \"dim\" or \"low-power\" (got \(ConfigParser.value(of: value).kindAndValue))")
        }
        return ScheduleAction(text)
    }

    static func days(_ value: TOML.Value) throws(ConfigProblem) -> Set<Weekday> {
        let problem = ConfigProblem("must be days as \"mon\", \"mon-fri\", \"daily\", \"weekdays\", \"weekends\" or a list of them (got \(ConfigParser.value(of: value).kindAndValue))")
        let texts: [String]
        switch value {
        case .string(let text): texts = [text]
        case .array(let items):
            texts = items.compactMap(\.string)
            guard texts.count == items.count, !texts.isEmpty else { throw problem }
        default: throw problem
        }
        var days = Set<Weekday>()
        for text in texts {
            guard let parsed = Weekday.parse(text) else { throw problem }
            days.formUnion(parsed)
        }
        return days
    }

    /// "HH:MM" (or a TOML local time, 07:30:00), 00:00 to 24:00.
    static func time(_ value: TOML.Value) throws(ConfigProblem) -> TimeOfDay {
        switch value {
        case .string(let text):
            if let time = TimeOfDay(text) { return time }
        case .dateTime(.localTime, let text):
            // HH:MM:SS[.fraction]: whole minutes only.
            let minutes = text.prefix(5), rest = text.dropFirst(5)
            if rest.allSatisfy({ $0 == ":" || $0 == "0" || $0 == "." }), let time = TimeOfDay(String(minutes)) { return time }
        default:
            break
        }
        throw ConfigProblem("must be a time \"HH:MM\", 00:00 to 24:00 (got \(ConfigParser.value(of: value).kindAndValue))")
    }

    /// "YYYY-MM-DD" (or a TOML local date), a date that exists.
    static func date(_ value: TOML.Value) throws(ConfigProblem) -> CalendarDate {
        switch value {
        case .string(let text), .dateTime(.localDate, let text):
            if let date = CalendarDate(text) { return date }
        default:
            break
        }
        throw ConfigProblem("must be a date \"YYYY-MM-DD\" that exists (got \(ConfigParser.value(of: value).kindAndValue))")
    }
}
