import ChakraSystem
/// The continuation record as lines of text, one field a line, in this
/// order, each once, then the CRC-32 of every byte before it:
///
///     chakra-continuation v2
///     taken=81234.567891
///     scene=spiral
///     scene-time=1234.5678
///     paused=no
///     reduce-motion=-
///     low-power=yes
///     language=de
///     brightness=-
///     configured-reduce-motion=-
///     configured-low-power=no
///     configured-language=en
///     display-mode=auto
///     display=on
///     spiral=hold progress=0.5 held=12.25 pattern=box
///     crc32=5f0e3a1c
///
/// "-" is a setting not changed at run time, and no exercise. The
/// `configured-` lines (new in v2) are what the configuration said of each
/// setting changed at run time ("-" for the others), so that the next
/// process lets a configuration changed in between win, as a reload does;
/// v1 is v2 without them, and is still read (and written back as v1). Numbers as
/// Swift writes a Double (the shortest digits that read back as the same
/// value: the scene goes on exactly where it was); yes and no; names are
/// identifiers (`ContinuationRecord.nameProblem`).
///
/// The version rule: the first line is "chakra-continuation v<N>" in every
/// version there will ever be. A reader reads the versions it knows, and
/// refuses any other with `.unsupportedVersion` before looking further
/// (a later version may lay out the rest differently); the caller then
/// starts fresh. A new field, or a field read differently, is a new
/// version, and the reader of the new version keeps reading the old one
/// (an upgrade is a restart: the old process writes, the new one reads).
/// Downgrades start fresh.
///
/// There is one way to write each record and the reader accepts only that
/// way: a record read writes back byte for byte as it was, which is what
/// the fuzzer checks.
public enum ContinuationRecordCodec {
    public static let magic = "chakra-continuation"
    /// The version written.
    public static let version = 2
    /// The versions read.
    public static let versionsRead = 1...2
    /// No record is longer (a full one is about 300 bytes): a larger file is
    /// refused before it is read.
    public static let maxBytes = 4096

    public static func encode(_ record: ContinuationRecord) throws(ContinuationRecordError) -> [UInt8] {
        try encode(record, version: version)
    }

    /// `record` as `version` writes it (a v1 record read is checked by
    /// writing it again as v1).
    public static func encode(_ record: ContinuationRecord, version: Int) throws(ContinuationRecordError) -> [UInt8] {
        if let problem = record.problem { throw .unwritable(field: problem.field, reason: problem.reason) }
        var text = "\(magic) v\(version)\n"
        func line(_ key: String, _ value: String) { text += "\(key)=\(value)\n" }
        line("taken", number(record.takenAt))
        line("scene", record.scene)
        line("scene-time", number(record.sceneTime))
        line("paused", flag(record.paused))
        line("reduce-motion", record.settings.reduceMotion.map(flag) ?? unset)
        line("low-power", record.settings.lowPower.map(flag) ?? unset)
        line("language", record.settings.language ?? unset)
        line("brightness", record.settings.brightness.map { String($0) } ?? unset)
        if version >= 2 {
            // Only for a setting that is set: one way to write each record.
            let settings = record.settings, configured = settings.configured
            line("configured-reduce-motion", settings.reduceMotion == nil ? unset : configured.reduceMotion.map(flag) ?? unset)
            line("configured-low-power", settings.lowPower == nil ? unset : configured.lowPower.map(flag) ?? unset)
            line("configured-language", settings.language == nil ? unset : configured.language ?? unset)
        }
        line("display-mode", record.displayMode.rawValue)
        line("display", record.display.rawValue)
        if let spiral = record.spiral {
            line("spiral", "\(spiral.state.rawValue) progress=\(number(spiral.progress)) held=\(number(spiral.holdElapsed)) pattern=\(spiral.pattern)")
        } else {
            line("spiral", unset)
        }
        var bytes = Array(text.utf8)
        bytes += Array("\(checksumKey)=".utf8) + CRC32.hexDigits(CRC32.checksum(bytes)) + [newline]
        return bytes
    }

    /// The record in `bytes`, or why there is none.
    public static func decode(_ bytes: [UInt8]) throws(ContinuationRecordError) -> ContinuationRecord {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= maxBytes else { throw .tooLarge(bytes: bytes.count) }
        // The first line, by the rule every version keeps.
        let magicBytes = Array("\(magic) v".utf8)
        guard let firstNewline = bytes.firstIndex(of: newline) else {
            throw magicBytes.starts(with: bytes) || bytes.starts(with: magicBytes) ? .truncated : .notARecord
        }
        guard bytes.starts(with: magicBytes) else { throw .notARecord }
        let versionText = String(decoding: bytes[magicBytes.count..<firstNewline], as: UTF8.self)
        guard let readVersion = versionsRead.first(where: { String($0) == versionText }) else {
            throw .unsupportedVersion("v" + versionText.prefix(20))
        }

        // The checksum line: the first line starting "crc32=" (no field's
        // key is "crc32"); bytes after it are an older record's tail.
        let tag = Array("\n\(checksumKey)=".utf8)
        guard let tagStart = firstRange(of: tag, in: bytes, from: firstNewline) else { throw .truncated }
        let sumStart = tagStart + tag.count
        guard bytes.count >= sumStart + 9 else { throw .truncated }
        guard let stored = CRC32.parseHex(bytes[sumStart..<sumStart + 8]), bytes[sumStart + 8] == newline else {
            throw .badField(checksumKey, "not eight hex digits and a newline")
        }
        let end = sumStart + 9
        guard end == bytes.count else { throw .trailingBytes(bytes.count - end) }
        let body = bytes[..<(tagStart + 1)]
        let computed = CRC32.checksum(body)
        guard computed == stored else { throw .checksumMismatch(stored: stored, computed: computed) }

        var lines = FieldLines(bytes[(firstNewline + 1)..<(tagStart + 1)])
        let takenAt = try lines.number("taken")
        let scene = try lines.name("scene")
        let sceneTime = try lines.number("scene-time")
        let paused = try lines.flag("paused")
        var settings = ContinuationRecord.RuntimeSettings()
        settings.reduceMotion = try lines.optional("reduce-motion") { (text) throws(ContinuationRecordError) in try FieldLines.flag("reduce-motion", text) }
        settings.lowPower = try lines.optional("low-power") { (text) throws(ContinuationRecordError) in try FieldLines.flag("low-power", text) }
        settings.language = try lines.optional("language") { (text) throws(ContinuationRecordError) in try FieldLines.name("language", text) }
        settings.brightness = try lines.optional("brightness") { (text) throws(ContinuationRecordError) in try FieldLines.integer("brightness", text) }
        if readVersion >= 2 {
            settings.configured.reduceMotion = try lines.optional("configured-reduce-motion") { (text) throws(ContinuationRecordError) in
                try FieldLines.flag("configured-reduce-motion", text)
            }
            settings.configured.lowPower = try lines.optional("configured-low-power") { (text) throws(ContinuationRecordError) in
                try FieldLines.flag("configured-low-power", text)
            }
            settings.configured.language = try lines.optional("configured-language") { (text) throws(ContinuationRecordError) in
                try FieldLines.name("configured-language", text)
            }
        }
        let displayMode = try lines.word("display-mode", as: ContinuationRecord.DisplayMode.self)
        let display = try lines.word("display", as: ContinuationRecord.DisplayPower.self)
        let spiral = try lines.optional("spiral") { (text) throws(ContinuationRecordError) in try spiralProgress(text) }
        guard lines.atEnd else { throw .badField(lines.nextKey ?? "?", "not a field of v\(readVersion) here") }

        let record = ContinuationRecord(takenAt: takenAt, scene: scene, sceneTime: sceneTime, paused: paused, settings: settings,
                                        displayMode: displayMode, display: display, spiral: spiral)
        if let problem = record.problem { throw .badField(problem.field, problem.reason) }
        // One way to write a record: "1.50" for 1.5, "+1" for 1, "007" for 7
        // read as numbers, but are not what this version writes.
        guard try encode(record, version: readVersion) == bytes else { throw .notCanonical }
        return record
    }

    /// "hold progress=0.5 held=12.25 pattern=box".
    private static func spiralProgress(_ value: Substring) throws(ContinuationRecordError) -> ContinuationRecord.SpiralProgress {
        let parts = value.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 4, let state = ContinuationRecord.SpiralProgress.State(rawValue: String(parts[0])),
              parts[1].hasPrefix("progress="), parts[2].hasPrefix("held="), parts[3].hasPrefix("pattern="),
              let progress = FieldLines.parseNumber(parts[1].dropFirst("progress=".count)),
              let held = FieldLines.parseNumber(parts[2].dropFirst("held=".count)) else {
            throw .badField("spiral", "not '<state> progress=<0..1> held=<seconds> pattern=<name>': '\(value.prefix(80))'")
        }
        let pattern = String(parts[3].dropFirst("pattern=".count))
        if let reason = ContinuationRecord.nameProblem(pattern) { throw .badField("spiral", "pattern: \(reason)") }
        return ContinuationRecord.SpiralProgress(state: state, progress: progress, holdElapsed: held, pattern: pattern)
    }

    static let checksumKey = "crc32"
    static let unset = "-"
    static let newline = UInt8(ascii: "\n")
    static func number(_ value: Double) -> String { "\(value)" }
    static func flag(_ on: Bool) -> String { on ? "yes" : "no" }

    private static func firstRange(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0], bytes[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

/// The record's field lines, read in order: each read takes the next line,
/// which must be `key=value`.
private struct FieldLines {
    private var rest: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { rest = bytes }

    var atEnd: Bool { rest.isEmpty }

    /// The key of the line not read, for an error.
    var nextKey: String? {
        guard !rest.isEmpty else { return nil }
        return String(decoding: rest.prefix { $0 != UInt8(ascii: "=") && $0 != UInt8(ascii: "\n") }.prefix(40), as: UTF8.self)
    }

    /// The value of the next line, which must be `key`'s.
    mutating func value(_ key: String) throws(ContinuationRecordError) -> Substring {
        let prefix = Array("\(key)=".utf8)
        guard rest.starts(with: prefix) else {
            throw .badField(key, nextKey.map { "missing (found '\($0)' in its place)" } ?? "missing")
        }
        guard let end = rest.firstIndex(of: UInt8(ascii: "\n")) else { throw .truncated }
        let value = rest[(rest.startIndex + prefix.count)..<end]
        rest = rest[(end + 1)...]
        guard value.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { throw .badField(key, "not printable ASCII") }
        return Substring(String(decoding: value, as: UTF8.self))
    }

    /// A field that may be "-": nil then, else `read` of its value.
    mutating func optional<T>(_ key: String, _ read: (Substring) throws(ContinuationRecordError) -> T) throws(ContinuationRecordError) -> T? {
        let text = try value(key)
        return text == Substring(ContinuationRecordCodec.unset) ? nil : try read(text)
    }

    mutating func number(_ key: String) throws(ContinuationRecordError) -> Double {
        let text = try value(key)
        guard let value = Self.parseNumber(text) else { throw .badField(key, "not a number: '\(text.prefix(40))'") }
        return value
    }

    mutating func name(_ key: String) throws(ContinuationRecordError) -> String {
        try Self.name(key, value(key))
    }

    static func name(_ key: String, _ text: Substring) throws(ContinuationRecordError) -> String {
        if let reason = ContinuationRecord.nameProblem(String(text)) { throw .badField(key, reason) }
        return String(text)
    }

    mutating func flag(_ key: String) throws(ContinuationRecordError) -> Bool {
        try Self.flag(key, value(key))
    }

    static func flag(_ key: String, _ text: Substring) throws(ContinuationRecordError) -> Bool {
        switch text {
        case "yes": return true
        case "no": return false
        default: throw .badField(key, "not yes or no: '\(text.prefix(40))'")
        }
    }

    static func integer(_ key: String, _ text: Substring) throws(ContinuationRecordError) -> Int {
        guard (1...3).contains(text.utf8.count), text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let value = Int(text) else {
            throw .badField(key, "not a whole number from 0 to 100: '\(text.prefix(40))'")
        }
        return value
    }

    mutating func word<Word: RawRepresentable & CaseIterable>(_ key: String, as: Word.Type) throws(ContinuationRecordError) -> Word where Word.RawValue == String {
        let text = try value(key)
        guard let word = Word(rawValue: String(text)) else {
            throw .badField(key, "not one of \(Word.allCases.map(\.rawValue).joined(separator: ", ")): '\(text.prefix(40))'")
        }
        return word
    }

    /// A finite number in the characters Swift writes one with; the form
    /// is checked by writing the record again.
    static func parseNumber(_ text: Substring) -> Double? {
        guard (1...32).contains(text.utf8.count),
              text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+") }),
              let value = Double(text), value.isFinite else { return nil }
        return value
    }
}
