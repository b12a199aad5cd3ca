import Foundation
import ChakraSystem
import Synchronization
import Testing
@testable import ChakraText

/// What a Logger was told, for tests that count the lines.
final class LogRecords: Sendable {
    private let records = Mutex<[String]>([])

    func append(_ line: String) { records.withLock { $0.append(line) } }

    /// "LEVEL MESSAGE", in order.
    var lines: [String] { records.withLock { $0 } }

    /// A logger that records here, every level.
    static func logger() -> (Logger, LogRecords) {
        let records = LogRecords()
        return (Logger(label: "catalog-test", sink: RecordingLog(records: records)), records)
    }
}

struct RecordingLog: LogSink {
    let records: LogRecords
    let level = Logger.Level.trace

    func write(level: Logger.Level, label: String, message: String) { records.append("\(level) \(message)") }
}

/// What a kiosk's log says about its catalogs: a line for each problem,
/// never a line per key for a file that is not there, never an error
/// value's dump.
@Suite("String catalogs: what is logged")
struct CatalogLogTests {
    /// A directory of its own, with these files.
    final class Directory {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chakra-lang-\(UUID().uuidString)").path
        init(_ files: [String: String]) throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for (name, text) in files { try text.write(toFile: path + "/" + name, atomically: false, encoding: .utf8) }
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Every text asked for, as a scene does when it is made.
    private func everyText(_ catalog: StringCatalog) -> [String] { TextKey.allCases.map(catalog.string) }

    private var builtIn: [String] { TextKey.allCases.map { StringCatalog.builtInEnglish[$0]! } }

    @Test("no catalog directory: one warning, whatever the language, and the built-in English")
    func missingDirectory() {
        let missing = "/nonexistent/chakra-lang-\(getpid())"
        for language in ["en", "de"] {
            let (logger, handler) = LogRecords.logger()
            let catalog = StringCatalog(directory: missing, language: language, logger: logger)
            #expect(everyText(catalog) == builtIn)
            #expect(handler.lines == ["warning text: no language catalogs in \(missing) (no such directory); "
                + (language == "en" ? "" : "no 'de' texts, ") + "using the built-in English texts"])
        }
    }

    @Test("a directory without the language's file: one warning naming the file")
    func missingFile() throws {
        let empty = try Directory([:])
        let (logger, handler) = LogRecords.logger()
        #expect(everyText(StringCatalog(directory: empty.path, language: "en", logger: logger)) == builtIn)
        #expect(handler.lines == ["warning text: no 'en' catalog \(empty.path)/en.toml (no such file); using the built-in English texts"])

        let english = try Directory(["en.toml": "well_done = \"Nicely done\"\n"])
        let (frLogger, frHandler) = LogRecords.logger()
        let french = StringCatalog(directory: english.path, language: "fr", logger: frLogger)
        #expect(french.string(.wellDone) == "Nicely done" && french.string(.breatheIn) == "Breathe in slowly")
        _ = everyText(french)
        #expect(frHandler.lines == ["warning text: no 'fr' catalog \(english.path)/fr.toml (no such file); using English"])
    }

    @Test("a malformed catalog: one error naming the file and the line, then English")
    func malformed() throws {
        let directory = try Directory(["en.toml": "well_done = \"Well done\"\n", "de.toml": "# Deutsch\nbreathe_in = \"Langsam\n"])
        let (logger, handler) = LogRecords.logger()
        let catalog = StringCatalog(directory: directory.path, language: "de", logger: logger)
        #expect(everyText(catalog) == builtIn)
        #expect(handler.lines.count == 1, "\(handler.lines)")
        let line = try #require(handler.lines.first)
        #expect(line.hasPrefix("error text: the 'de' catalog \(directory.path)/de.toml cannot be used: not TOML: line 2, column "), "\(line)")
        #expect(line.hasSuffix("; using English"))
        #expect(!line.contains("Error(") && !line.contains("userInfo"))

        // English itself broken, under another language that is whole: said once, as an error.
        let german = try String(contentsOfFile: catalogDirectory + "/de.toml", encoding: .utf8)
        let brokenEnglish = try Directory(["en.toml": "x = [\n", "de.toml": german])
        let (deLogger, deHandler) = LogRecords.logger()
        #expect(StringCatalog(directory: brokenEnglish.path, language: "de", logger: deLogger).string(.breatheIn) == "Langsam einatmen")
        #expect(deHandler.lines.count == 1 && deHandler.lines[0].hasPrefix("error text: the 'en' catalog \(brokenEnglish.path)/en.toml cannot be used: not TOML: line "))
        // Not UTF-8: said so, not dumped.
        let binary = try Directory([:])
        try Data([0x6b, 0x20, 0x3d, 0x20, 0x22, 0xff, 0x22]).write(to: URL(fileURLWithPath: binary.path + "/en.toml"))
        let (binLogger, binHandler) = LogRecords.logger()
        _ = everyText(StringCatalog(directory: binary.path, language: "en", logger: binLogger))
        #expect(binHandler.lines == ["error text: the 'en' catalog \(binary.path)/en.toml cannot be used: not UTF-8 text; using the built-in English texts"])
    }

    @Test("a catalog read that lacks keys: each missing key is still said, once")
    func lackingKeys() throws {
        let directory = try Directory(["en.toml": "well_done = \"Well done\"\n", "fr.toml": "breathe_in = \"Inspirez lentement\"\n"])
        let (logger, handler) = LogRecords.logger()
        let catalog = StringCatalog(directory: directory.path, language: "fr", logger: logger)
        _ = everyText(catalog) + everyText(catalog)
        #expect(handler.lines.count == TextKey.allCases.count - 1)
        #expect(handler.lines.contains("warning text: 'hold_breath' is missing from the 'fr' catalog; using the built-in English"))
        #expect(handler.lines.contains("warning text: 'well_done' is missing from the 'fr' catalog; using English"))
    }

    @Test("the shipped catalogs: nothing to say")
    func shipped() {
        for language in ["en", "de"] {
            let (logger, handler) = LogRecords.logger()
            _ = everyText(StringCatalog(directory: catalogDirectory, language: language, logger: logger))
            #expect(handler.lines.isEmpty, "\(handler.lines)")
        }
    }
}
