import FoundationEssentials
import Logging
import ChakraConfig
import Synchronization

/// Every user-facing string of the daemon, by key. The catalogs under
/// etc/chakra/lang/ (installed in /etc/chakra/lang) give one value per key
/// and language.
public enum TextKey: String, CaseIterable, Sendable {
    /// Idle: the pulsing orb at the spiral's start.
    case touchToBegin = "touch_to_begin"
    /// Inhale: trace the first part of the spiral.
    case traceToInhale = "trace_to_inhale"
    /// Hold: the finger rests on the orb while the countdown runs.
    case holdFinger = "hold_finger"
    /// The phases of the hold's breathing pattern (docs/spiral.md), one
    /// per kind: in, hold-in, out, hold-out.
    case breatheIn = "breathe_in"
    case holdBreath = "hold_breath"
    case breatheOut = "breathe_out"
    case holdEmpty = "hold_empty"
    /// Exhale: trace the rest of the spiral.
    case traceToExhale = "trace_to_exhale"
    /// Inhale or Exhale after the finger lifted or strayed off the head.
    case resume = "resume"
    /// Hold after the finger lifted (the countdown is paused).
    case resumeHold = "resume_hold"
    /// Completed.
    case wellDone = "well_done"
    /// The hold countdown; "{n}" stands for the whole seconds left.
    case seconds = "seconds"
}

/// The strings of one language, falling back to English key by key.
///
/// A catalog is a TOML file `<language>.toml` of `key = "value"` lines. A
/// key missing from the chosen language is taken from English and logged
/// once (per catalog and key); a key missing from English too uses the
/// built-in English below, so the exercise never shows a raw key.
///
/// Ownership: a value the scene reads at setup; immutable but for the
/// record of keys already reported (behind a mutex).
public final class StringCatalog: @unchecked Sendable {
    /// Where the daemon looks unless told: `make install` puts etc/chakra/lang there.
    public static let defaultDirectory = "/etc/chakra/lang"

    /// The English strings, also compiled in (etc/chakra/lang/en.toml holds
    /// the same; a test keeps them equal).
    public static let builtInEnglish: [TextKey: String] = [
        .touchToBegin: "Touch the light to begin",
        .traceToInhale: "Follow the spiral as you breathe in",
        .holdFinger: "Keep your finger on the light",
        .breatheIn: "Breathe in slowly",
        .holdBreath: "Hold your breath",
        .breatheOut: "Breathe out slowly",
        .holdEmpty: "Pause before breathing in",
        .traceToExhale: "Follow the spiral as you breathe out",
        .resume: "Touch the light to continue",
        .resumeHold: "Touch and hold the light to continue",
        .wellDone: "Well done",
        .seconds: "{n} s",
    ]

    public let language: String
    /// The chosen language's values, then English's.
    let chosen: [String: String]
    let english: [String: String]
    let logger: Logger
    private let reported = Mutex<Set<TextKey>>([])

    /// Loads `<directory>/<language>.toml` and `<directory>/en.toml`. A
    /// missing or unreadable file is logged and treated as empty.
    public init(directory: String = StringCatalog.defaultDirectory, language: String,
                logger: Logger = Logger(label: "chakra.text")) {
        self.language = language
        self.logger = logger
        english = Self.load(directory: directory, language: "en", logger: logger)
        chosen = language == "en" ? english : Self.load(directory: directory, language: language, logger: logger)
    }

    /// A catalog from tables already read (tests, or callers that read the files themselves).
    public init(language: String, chosen: [String: String], english: [String: String], logger: Logger = Logger(label: "chakra.text")) {
        (self.language, self.chosen, self.english, self.logger) = (language, chosen, english, logger)
    }

    /// The string for `key` in the catalog's language, else English.
    public func string(_ key: TextKey) -> String {
        if let value = chosen[key.rawValue] { return value }
        reportMissing(key)
        return english[key.rawValue] ?? Self.builtInEnglish[key]!
    }

    /// The countdown text for `seconds` whole seconds ("{n} s" → "42 s").
    public func seconds(_ seconds: Int) -> String {
        string(.seconds).replacing("{n}", with: String(seconds))
    }

    /// Keys the chosen language lacks (checked by tests and at start).
    public var missingKeys: [TextKey] { TextKey.allCases.filter { chosen[$0.rawValue] == nil } }

    private func reportMissing(_ key: TextKey) {
        let first = reported.withLock { $0.insert(key).inserted }
        guard first else { return }
        let fallback = english[key.rawValue] != nil ? "English" : "the built-in English"
        logger.warning("text: '\(key.rawValue)' is missing from the '\(language)' catalog; using \(fallback)")
    }

    /// Times a key has been reported (at most once each): for tests.
    public var reportedKeys: Set<TextKey> { reported.withLock { $0 } }

    /// Reads one catalog file: every string value at the top level.
    static func load(directory: String, language: String, logger: Logger) -> [String: String] {
        let path = directory.hasSuffix("/") ? "\(directory)\(language).toml" : "\(directory)/\(language).toml"
        do {
            return try parse(String(contentsOfFile: path, encoding: .utf8))
        } catch {
            logger.warning("text: cannot read the '\(language)' catalog \(path): \(error)")
            return [:]
        }
    }

    /// The `key = "value"` pairs of a catalog's text; non-string values are ignored.
    public static func parse(_ text: String) throws -> [String: String] {
        let table = try TOML.parse(text)
        var values: [String: String] = [:]
        for key in table.keys {
            if let value = table[key]?.string { values[key] = value }
        }
        return values
    }
}
