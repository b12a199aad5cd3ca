import ChakraSystem
import Glibc

/// Something wrong (or odd) at a place in the file: "chakra.toml:12:
/// display.rotation: must be one of 0, 90, 180, 270 (got the integer 45)".
public struct ConfigIssue: Sendable, Equatable, CustomStringConvertible {
    public var file: String?
    public var line: Int?
    public var key: String?
    public var message: String

    public init(file: String? = nil, line: Int? = nil, key: String? = nil, message: String) {
        (self.file, self.line, self.key, self.message) = (file, line, key, message)
    }

    public var description: String {
        var place = file ?? "configuration"
        if let line { place += ":\(line)" }
        return place + ": " + (key.map { "\($0): " } ?? "") + message
    }
}

/// A file that cannot be used; every problem found, in file order.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var issues: [ConfigIssue]
    public init(_ issues: [ConfigIssue]) { self.issues = issues }
    public var description: String { issues.map(\.description).joined(separator: "\n") }
}

/// A file read (or a main file with its drop-ins laid over it,
/// `ConfigFiles`): the configuration, what was odd but harmless (unknown
/// keys), and where each key is (for checks made later, by the daemon).
public struct LoadedConfig: Sendable, Equatable {
    public var config: ChakraConfig
    /// What was odd but harmless, in file order: at most the first
    /// `listedWarnings`, then one line saying how many more there were
    /// (`leaveOutWarnings`). Each is a log line at start and on SIGHUP, and
    /// a line of the `reload` reply: a file of 100,000 unknown tables is
    /// not 100,000 of them.
    public var warnings: [ConfigIssue]
    /// Warnings found but not in `warnings`, and how many of those are
    /// unknown keys and tables (the rest: retired and deprecated keys).
    private var warningsLeftOut = 0, unknownLeftOut = 0
    /// Whether `warnings` ends with the line that counts them.
    private var leftOutListed = false
    /// The line of each key in the main file, as its TOML reader found
    /// them, and the main file (nil: none was read).
    public var lines: TOML.KeyLines
    public var file: String?
    /// Every file read, in the order laid: the main file, then its drop-ins.
    public var files: [String]
    /// The keys the files set, "schedule" standing for the whole [schedule]
    /// (what a later file replaces when it is laid over this one).
    public private(set) var keysSet: [String] = []
    /// The file and lines of the keys a drop-in set: an issue about such a
    /// key names the drop-in, not the main file.
    private var laidBy: [String: Origin] = [:]
    /// The retired hold cycle's keys the files set (path: seconds), laid
    /// key by key like the others until every file is read, then read as
    /// a breathing pattern (`RetiredKeys.translateHoldCycle`).
    var holdCycleKeys: [String: Double] = [:]

    private struct Origin: Sendable, Equatable {
        var file: String?
        var lines: TOML.KeyLines
    }

    public init(config: ChakraConfig, warnings: [ConfigIssue] = [], lines: TOML.KeyLines = TOML.KeyLines(), file: String? = nil) {
        (self.config, self.warnings, self.lines, self.file) = (config, warnings, lines, file)
        files = file.map { [$0] } ?? []
    }

    /// The files read after the main one.
    public var dropIns: [String] { file == nil ? files : Array(files.dropFirst()) }

    /// An issue about `key` at its line in the file that set it (a
    /// schedule's keys: the file that set [schedule]).
    public func issue(key: String, _ message: String) -> ConfigIssue {
        var parts = key.split(separator: ".")
        while !parts.isEmpty, laidBy[parts.joined(separator: ".")] == nil { parts.removeLast() }
        let origin = parts.isEmpty ? Origin(file: file, lines: lines) : laidBy[parts.joined(separator: ".")]!
        return ConfigIssue(file: origin.file, line: origin.lines.line(of: key), key: key, message: message)
    }

    mutating func noteSet(_ key: String) {
        if !keysSet.contains(key) { keysSet.append(key) }
    }

    /// `later` laid over this: each key it sets replaces the value here;
    /// [schedule] is one key, replaced whole (its windows are arrays of
    /// tables, which cannot be merged one by one in any obvious way).
    public mutating func lay(_ later: LoadedConfig) {
        for path in later.keysSet {
            guard let key = ConfigKeys.key(path) else { continue }
            key.copy(from: later.config, into: &config)
            laidBy[path] = Origin(file: later.file, lines: later.lines)
            noteSet(path)
        }
        for (path, seconds) in later.holdCycleKeys {
            holdCycleKeys[path] = seconds
            laidBy[path] = Origin(file: later.file, lines: later.lines)
        }
        warnings += later.warnings
        (warningsLeftOut, unknownLeftOut) = (warningsLeftOut + later.warningsLeftOut, unknownLeftOut + later.unknownLeftOut)
        keepListedWarnings()
        files += later.files
    }
}

/// Warnings, bounded: a load keeps the first 20 (in file order: the main
/// file's, then each drop-in's) and counts the rest.
extension LoadedConfig {
    public static let listedWarnings = 20

    /// Every warning the files gave, listed or not (`validate --strict`).
    public var warningCount: Int { warnings.count - (leftOutListed ? 1 : 0) + warningsLeftOut }

    /// Keeps the first `listedWarnings`; counts the others.
    mutating func keepListedWarnings() {
        guard warnings.count > Self.listedWarnings else { return }
        let dropped = warnings[Self.listedWarnings...]
        warningsLeftOut += dropped.count
        unknownLeftOut += dropped.count(where: { $0.message.hasPrefix("unknown ") })
        warnings.removeSubrange(Self.listedWarnings...)
    }

    /// The load is whole: the warnings left out become one line at the end.
    mutating func leaveOutWarnings() {
        keepListedWarnings()
        guard warningsLeftOut > 0, !leftOutListed else { return }
        let what = unknownLeftOut == warningsLeftOut ? "unknown keys and tables, ignored" : "warnings, not listed"
        warnings.append(ConfigIssue(file: files.count == 1 ? files[0] : nil, message: "... and \(Self.grouped(warningsLeftOut)) more \(what)"))
        leftOutListed = true
    }

    /// 99980 as "99,980".
    static func grouped(_ number: Int) -> String {
        var digits = String(number)
        var index = digits.endIndex
        while digits.distance(from: digits.startIndex, to: index) > 3 {
            index = digits.index(index, offsetBy: -3)
            digits.insert(",", at: index)
        }
        return digits
    }
}

/// Reads chakra.toml: TOML syntax through TOML.read (which notes each key's
/// line), then every key through
/// `ConfigKeys`. Unknown keys and tables are warnings (a newer file on an
/// older daemon still starts); wrong types and out-of-range values are
/// errors naming the key and its line.
public enum ConfigParser {
    /// A file that is the whole configuration (no drop-ins laid over it).
    public static func load(path: String) throws(ConfigError) -> LoadedConfig {
        try checkWhole(loadPart(path: path))
    }

    /// A file that is part of a configuration (the main file or a drop-in):
    /// the checks that need every file (`checkWhole`) wait for the merge.
    static func loadPart(path: String) throws(ConfigError) -> LoadedConfig {
        let bytes: [UInt8]
        do {
            bytes = try readFile(path)
        } catch {
            throw ConfigError([ConfigIssue(file: path, message: "cannot read the file: \(error.message)")])
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError([ConfigIssue(file: path, message: "not UTF-8 text")])
        }
        return try parsePart(text, file: path)
    }

    /// A configuration file is a few hundred bytes; anything past this is not one.
    static let maximumFileSize = 1 << 20

    /// The whole file, if it is a regular file of at most 1 MiB
    /// (`InputFile`): a FIFO, a device, a directory or a socket given as
    /// the configuration is refused before it is opened, and /dev/null
    /// reads as an empty file.
    static func readFile(_ path: String) throws(ConfigProblem) -> [UInt8] {
        do {
            return try InputFile.read(path, limit: maximumFileSize)
        } catch {
            switch error.cause {
            case .tooLarge, .overran: throw ConfigProblem(error.reason + "; not a configuration file")
            case .notRegular, .system: throw ConfigProblem(error.reason)
            }
        }
    }

    /// A text that is the whole configuration.
    public static func parse(_ text: String, file: String? = nil) throws(ConfigError) -> LoadedConfig {
        try checkWhole(parsePart(text, file: file))
    }

    /// What needs every file read and merged: the retired hold cycle's
    /// keys, which may be in several files, become a breathing pattern
    /// (`RetiredKeys`); the breathing pattern chosen in one file may be
    /// defined in another, and the limit on holds set in a third
    /// (`PatternConfig.check`).
    static func checkWhole(_ loaded: LoadedConfig) throws(ConfigError) -> LoadedConfig {
        var loaded = loaded
        RetiredKeys.translateHoldCycle(&loaded)
        let issues = PatternConfig.check(loaded)
        guard issues.isEmpty else { throw ConfigError(issues) }
        loaded.leaveOutWarnings()
        return loaded
    }

    static func parsePart(_ text: String, file: String? = nil) throws(ConfigError) -> LoadedConfig {
        let document: TOML.Document
        do {
            document = try TOML.read(text)
        } catch {
            throw ConfigError([ConfigIssue(file: file, line: error.line, message: "column \(error.column): \(error.message)")])
        }
        let root = document.table
        var loaded = LoadedConfig(config: ChakraConfig(), warnings: [], lines: document.lines, file: file)
        var errors: [ConfigIssue] = []
        for name in root.keys {
            guard let node = root[name] else { continue }
            if name == "schedule" {
                ScheduleConfig.read(node, into: &loaded, errors: &errors)
                loaded.noteSet("schedule")
            } else if ConfigKeys.sections.contains(name) {
                guard let table = node.table else {
                    errors.append(loaded.issue(key: name, "must be a table ([\(name)]), not \(value(of: node).kindAndValue)"))
                    continue
                }
                for key in table.keys {
                    guard let child = table[key] else { continue }
                    if "\(name).\(key)" == PatternConfig.section {
                        PatternConfig.read(child, into: &loaded, errors: &errors)
                    } else {
                        read("\(name).\(key)", value(of: child), into: &loaded, errors: &errors)
                    }
                }
            } else {
                read(name, value(of: node), into: &loaded, errors: &errors)
            }
        }
        let byLine = { (a: ConfigIssue, b: ConfigIssue) in (a.line ?? 0, a.key ?? "") < (b.line ?? 0, b.key ?? "") }
        guard errors.isEmpty else { throw ConfigError(errors.sorted(by: byLine)) }
        loaded.warnings.sort(by: byLine)
        loaded.keepListedWarnings()
        return loaded
    }

    private static func read(_ path: String, _ value: ConfigValue, into loaded: inout LoadedConfig, errors: inout [ConfigIssue]) {
        if RetiredKeys.read(path, value, into: &loaded, errors: &errors) { return }
        guard let key = ConfigKeys.key(path) else {
            loaded.warnings.append(loaded.issue(key: path, unknownKeyMessage(path, value)))
            return
        }
        do {
            try key.read(&loaded.config, value)
            loaded.noteSet(path)
        } catch {
            errors.append(loaded.issue(key: path, error.message))
        }
    }

    private static func unknownKeyMessage(_ path: String, _ value: ConfigValue) -> String {
        if case .other("a table") = value { return "unknown table [\(path)], ignored" }
        let hint = closestKey(to: path).map { "; did you mean \($0)?" } ?? ""
        return "unknown key, ignored\(hint)"
    }

    /// A known key or section one or two edits away (a typo), if any.
    ///
    /// Costs the same for any input: a name whose length differs from a
    /// candidate's by more than two cannot be two edits from it, so a 16 KB
    /// key from a client (or 60,000 unknown keys in a file) is a length
    /// comparison per candidate, not a 16 KB table each (176 ms a key before).
    public static func closestKey(to path: String) -> String? {
        let typed = Array(path.utf8)
        var best: (name: String, distance: Int)?
        for (name, bytes) in suggestionCandidates where abs(bytes.count - typed.count) <= 2 {
            guard let distance = editDistance(bytes, typed, atMost: 2) else { continue }
            if distance < best?.distance ?? .max { best = (name, distance) }
        }
        return best?.name
    }

    /// Every key and section, as bytes once.
    private static let suggestionCandidates: [(String, [UInt8])] =
        (ConfigKeys.all.map(\.path) + ConfigKeys.sections).map { ($0, Array($0.utf8)) }

    /// The edit distance (Levenshtein) of two byte strings, or nil once it
    /// is certainly more than `limit`.
    static func editDistance(_ a: [UInt8], _ b: [UInt8], atMost limit: Int = .max) -> Int? {
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) <= limit ? max(a.count, b.count) : nil }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                rowMinimum = min(rowMinimum, current[j])
            }
            if rowMinimum > limit { return nil }   // every later row is at least this
            swap(&previous, &current)
        }
        return previous[b.count] <= limit ? previous[b.count] : nil
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        editDistance(Array(a.utf8), Array(b.utf8))!
    }

    /// A TOML value as a plain value.
    static func value(of node: TOML.Value) -> ConfigValue {
        switch node {
        case .boolean(let b): .bool(b)
        // Int is 32 bits on 32-bit boards: a larger integer is out of any key's range anyway.
        case .integer(let i): Int(exactly: i).map(ConfigValue.int) ?? .double(Double(i))
        case .float(let d): .double(d)
        case .string(let s): .string(s)
        case .array(let values): .array(values.map(value(of:)))
        case .table: .other("a table")
        case .dateTime(.localDate, _): .other("a date")
        case .dateTime(.localTime, _): .other("a time")
        case .dateTime: .other("a date-time")
        }
    }
}

extension ChakraConfig {
    /// Every key and its value, in file order (`get`, the reload report).
    public var entries: [(key: String, value: ConfigValue)] {
        ConfigKeys.all.map { ($0.path, $0.value(in: self)) }
    }

    /// The value of one key ("low_power.fps"), or of every key in a section
    /// ("low_power"); nil when there is no such key or section.
    public func values(for path: String) -> [(key: String, value: ConfigValue)]? {
        // By bytes: keys are ASCII, and a client's key may be a megabyte of
        // combining marks that String's comparison would normalise first.
        let matching = entries.filter { entry in
            entry.key.utf8.starts(with: path.utf8)
                && (entry.key.utf8.count == path.utf8.count || entry.key.utf8.dropFirst(path.utf8.count).first == UInt8(ascii: "."))
        }
        return matching.isEmpty ? nil : matching
    }

    /// Keys whose values differ between two configurations.
    public func changedKeys(from old: ChakraConfig) -> [String] {
        zip(entries, old.entries).filter { $0.value != $1.value }.map(\.0.key)
    }
}
