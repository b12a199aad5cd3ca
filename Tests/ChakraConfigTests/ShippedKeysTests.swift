import Foundation
import Testing
@testable import ChakraConfig

/// Every key any release has shipped (Fixtures/shipped-keys.toml) still
/// loads: a kiosk's chakra.toml outlives the release it was written for,
/// and after an upgrade nobody may be there to edit it.
@Suite("Keys of every release")
struct ShippedKeysTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/shipped-keys.toml").path

    /// One key of the fixture, and a file that sets it alone.
    struct Unit: CustomStringConvertible {
        var key: String
        var text: String
        var description: String { key }
    }

    static func text() throws -> String { try String(contentsOfFile: fixture, encoding: .utf8) }

    /// The fixture cut into its keys: a line of an ordinary table under its
    /// header, or a whole table that is one key ([schedule] with its
    /// windows and dates, a [spiral.patterns.NAME]).
    static func units(_ text: String) -> [Unit] {
        enum Place { case top, table(header: String, line: String), whole }
        var units: [Unit] = []
        var place = Place.top
        for line in text.split(separator: "\n").map(String.init) {
            let bare = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0].trimmingCharacters(in: .whitespaces)
            if bare.isEmpty { continue }
            if bare.hasPrefix("[") {
                let name = bare.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
                let whole = name == "schedule" || name.hasPrefix("schedule.") ? "schedule"
                    : name.hasPrefix(PatternConfig.section + ".") ? name : nil
                guard let whole else {
                    place = .table(header: name, line: line)
                    continue
                }
                if case .whole = place, units.last?.key == whole {
                    units[units.count - 1].text += line + "\n"
                } else {
                    units.append(Unit(key: whole, text: line + "\n"))
                }
                place = .whole
                continue
            }
            let key = bare.split(separator: "=", maxSplits: 1)[0].trimmingCharacters(in: .whitespaces)
            switch place {
            case .top: units.append(Unit(key: key, text: line + "\n"))
            case .table(let header, let headerLine): units.append(Unit(key: "\(header).\(key)", text: headerLine + "\n" + line + "\n"))
            case .whole: units[units.count - 1].text += line + "\n"
            }
        }
        return units
    }

    @Test("the fixture holds every key the current release reads")
    func everyCurrentKeyIsThere() throws {
        let keys = Set(Self.units(try Self.text()).map(\.key))
        for key in ConfigKeys.all.map(\.path) where key != PatternConfig.section {
            #expect(keys.contains(key), "\(key) is missing from Fixtures/shipped-keys.toml: add it with its release")
        }
        #expect(keys.contains { $0.hasPrefix(PatternConfig.section + ".") }, "no [spiral.patterns.NAME] in the fixture")
        // The cutting itself: a top-level key, a retired one, a table that is one key.
        #expect(keys.contains("reduce_motion") && keys.contains("spiral.hold_cycle_up_duration") && keys.contains("schedule"))
    }

    @Test("each key alone loads: a current key as itself, a retired one with one warning that is not 'unknown key'",
          arguments: units(try! text()))
    func eachKeyAlone(_ unit: Unit) throws {
        let loaded: LoadedConfig
        do {
            loaded = try ConfigParser.parse(unit.text, file: "\(unit.key).toml")
        } catch {
            Issue.record("a file setting only \(unit.key) is refused:\n\(unit.text)\(error)")
            return
        }
        if ConfigKeys.key(unit.key) != nil {
            #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
            #expect(loaded.keysSet == [unit.key])
        } else {
            // Retired: not dropped as unknown, but read as what replaced it, or ignored, with a word.
            #expect(RetiredKeys.isRetired(unit.key), "\(unit.key) is no longer read and not in RetiredKeys: translate it or retire it there")
            #expect(loaded.warnings.count == 1, "\(loaded.warnings)")
            #expect(loaded.warnings.first?.key == unit.key)
            #expect(loaded.warnings.first?.line == 2)
            #expect(loaded.warnings.first?.message.contains("unknown key") == false)
        }
    }

    @Test("a file with every key of every release at once loads; the retired ones give a warning each, the new keys win")
    func everyKeyAtOnce() throws {
        let loaded = try ConfigParser.parse(try Self.text(), file: "shipped-keys.toml")
        #expect(loaded.warnings.map { $0.key ?? "" } == ["spiral.hold_cycle_duration", "spiral.hold_cycle_up_duration"])
        #expect(loaded.warnings.allSatisfy { RetiredKeys.isRetired($0.key ?? "") })
        // spiral.pattern is set too: the hold cycle's keys are ignored for it.
        #expect(loaded.config.spiral.pattern == "box")
        #expect(loaded.config.spiral.customPatterns.map(\.name) == ["calm"])
        #expect(loaded.config.control.maxClients == 16 && loaded.config.spiral.maxBreathHold == 8)
        #expect(loaded.config.schedule?.windows.count == 2)
    }
}
