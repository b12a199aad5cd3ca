import ChakraControl
import Foundation
import Testing
@testable import ChakraConfig

/// The toml-test suite (github.com/toml-lang/toml-test: valid documents
/// with their values as tagged JSON, invalid documents) against TOML.parse.
/// tests/toml/conformance.sh fetches the suite and runs this with
/// CHAKRA_TOML_TEST set to its `tests` directory; without it the test is
/// skipped (reported as such).
@Suite("TOML conformance")
struct TOMLConformanceTests {
    static let suite = ProcessInfo.processInfo.environment["CHAKRA_TOML_TEST"]

    /// Valid documents whose nesting passes TOMLReader.maximumNesting on
    /// purpose (a bound on hostile input, far above any Chakra file).
    static let nestedPastTheBound: Set<String> = ["qa-array-inline-nested-1000.toml", "qa-table-inline-nested-1000.toml"]

    @Test(.enabled(if: suite != nil)) func validDocumentsReadAsTheirJSON() throws {
        let root = try #require(Self.suite)
        var checked = 0
        for path in try files(under: root + "/valid", ending: ".toml") {
            let name = String(path.split(separator: "/").last!)
            if Self.nestedPastTheBound.contains(name) { continue }
            let expectedPath = String(path.dropLast(5)) + ".json"
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let table: TOML.Table
            do {
                table = try TOML.parse(text)
            } catch {
                Issue.record("\(path): refused: \(error)")
                continue
            }
            checked += 1
            // Some suites give no JSON for a document: then reading it is the test.
            guard FileManager.default.fileExists(atPath: expectedPath) else { continue }
            let expected = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: expectedPath)))).get()
            #expect(Self.matches(.table(table), expected), "\(path): read as \(table)")
        }
        #expect(checked > 50, "only \(checked) valid documents found under \(root)")
    }

    @Test(.enabled(if: suite != nil)) func invalidDocumentsAreRefused() throws {
        let root = try #require(Self.suite)
        var checked = 0
        for path in try files(under: root + "/invalid", ending: ".toml") {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            // Invalid UTF-8 is refused before TOML.parse (ConfigParser.load).
            guard let text = String(validating: bytes, as: UTF8.self) else { continue }
            #expect(throws: TOML.SyntaxError.self, "\(path) was read") { try TOML.parse(text) }
            checked += 1
        }
        #expect(checked > 50, "only \(checked) invalid documents found under \(root)")
    }

    private func files(under directory: String, ending suffix: String) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(suffix) }.sorted().map { directory + "/" + $0 }
    }

    /// toml-test's tagged JSON: tables as objects, arrays as arrays (or,
    /// in older versions, {"type": "array", "value": [...]}), and every
    /// other value as {"type": ..., "value": "<as text>"}.
    static func matches(_ value: TOML.Value, _ json: JSONValue) -> Bool {
        switch (value, json) {
        case (.table(let table), .object(let fields)):
            if fields.count == 2, case .string(let type)? = fields["type"], fields["value"] != nil, type != "table" {
                // A tagged value where a table was read.
                guard table.keys.count == 2 else { return false }
            }
            guard Set(table.keys) == Set(fields.keys) else { return false }
            return table.keys.allSatisfy { matches(table[$0]!, fields[$0]!) }
        case (.array(let values), .array(let elements)):
            return values.count == elements.count && zip(values, elements).allSatisfy(matches)
        case (.array, .object(let fields)) where fields["type"] == .string("array"):
            return matches(value, fields["value"] ?? .null)
        case (_, .object(let fields)):
            guard case .string(let type)? = fields["type"], case .string(let text)? = fields["value"] else { return false }
            return scalar(value, matches: type, text)
        default:
            return false
        }
    }

    private static func scalar(_ value: TOML.Value, matches type: String, _ text: String) -> Bool {
        switch value {
        case .string(let s): return type == "string" && s == text
        case .integer(let i): return type == "integer" && Int64(text) == i
        case .boolean(let b): return type == "bool" && text == String(b)
        case .float(let d):
            guard type == "float" else { return false }
            switch text {
            case "nan", "+nan", "-nan": return d.isNaN
            case "inf", "+inf": return d == .infinity
            case "-inf": return d == -.infinity
            default: return Double(text) == d
            }
        case .dateTime(let kind, let written):
            let expectedKind: TOML.DateTimeKind? = switch type {
            case "datetime": .offsetDateTime
            case "datetime-local": .localDateTime
            case "date-local", "date": .localDate
            case "time-local", "time": .localTime
            default: nil
            }
            guard kind == expectedKind else { return false }
            let normal = { (s: String) in s.uppercased().replacing(" ", with: "T").prefix(19) }
            // Fractions are written with more or fewer digits in the JSON
            // than in the document: the common part up to the second.
            let (a, b) = (normal(written), normal(text))
            let common = min(a.count, b.count)
            return common >= 8 && a.prefix(common) == b.prefix(common)
        case .array, .table:
            return false
        }
    }
}
