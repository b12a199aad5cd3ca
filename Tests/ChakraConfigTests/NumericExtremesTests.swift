import Testing
@testable import ChakraConfig

/// Every key of chakra.toml given the numbers that break conversions and
/// comparisons (issue 27: ±inf, nan, 1e300, -0, 2^63 and its neighbours):
/// each is refused with its line, or accepted as a finite value that reads
/// back as itself. Nothing traps, and no infinity or NaN gets in.
@Suite("Configuration: extreme numbers")
struct NumericExtremesTests {
    static let extremes = [
        "inf", "+inf", "-inf", "nan", "+nan", "-nan", "1e300", "-1e300", "1e400", "-0", "-0.0", "+0.0", "5e-324",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "18446744073709551616", "9.223372036854775807e18", "0x7fffffffffffffff", "1e15", "4294967296",
    ]

    /// "key = value" in its table, the value on line 2.
    private func document(_ path: String, _ value: String) -> String {
        let parts = path.split(separator: ".")
        guard parts.count > 1 else { return "\n\(path) = \(value)\n" }
        return "[\(parts.dropLast().joined(separator: "."))]\n\(parts.last!) = \(value)\n"
    }

    private func isFinite(_ value: ConfigValue) -> Bool {
        switch value {
        case .double(let d): d.isFinite
        case .array(let items): items.allSatisfy(isFinite)
        default: true
        }
    }

    private func check(_ text: String, key: ConfigKey?, _ what: String) {
        do {
            let loaded = try ConfigParser.parse(text, file: "extreme.toml")
            for key in ConfigKeys.all {
                #expect(isFinite(key.value(in: loaded.config)), "\(what): \(key.path) holds \(key.value(in: loaded.config))")
            }
            if let key {
                // What was accepted reads back as itself.
                let again = try ConfigParser.parse(document(key.path, key.value(in: loaded.config).description), file: "again.toml")
                #expect(key.value(in: again.config) == key.value(in: loaded.config), "\(what) does not read back")
            }
        } catch {
            #expect(!error.issues.isEmpty, "\(what): refused without a reason")
            #expect(error.issues.allSatisfy { $0.line == 2 }, "\(what): \(error.issues)")
        }
    }

    @Test(arguments: ConfigKeys.all.map(\.path))
    func everyKeyTakesOrRefusesEveryExtreme(path: String) {
        let key = ConfigKeys.all.first { $0.path == path }
        for value in Self.extremes {
            check(document(path, value), key: key, "\(path) = \(value)")
            check(document(path, "[\(value), \(value)]"), key: key, "\(path) = [\(value), \(value)]")
        }
    }

    /// The keys that take arrays of numbers, each element extreme in turn.
    @Test func arraysOfNumbers() {
        for value in Self.extremes {
            for index in 0..<6 {
                var matrix = ["1", "0", "0", "0", "1", "0"]
                matrix[index] = value
                let text = "[input]\ncalibration = [\(matrix.joined(separator: ", "))]\n"
                check(text, key: ConfigKeys.all.first { $0.path == "input.calibration" }, "calibration \(matrix)")
            }
            let pattern = "[spiral.patterns.x]\nphases = [{ kind = \"in\", seconds = \(value) }, { kind = \"out\", seconds = 4 }]\n"
            do {
                let loaded = try ConfigParser.parse(pattern, file: "extreme.toml")
                let seconds = loaded.config.spiral.customPatterns.flatMap { $0.phases.map(\.seconds) }
                #expect(seconds.allSatisfy { $0.isFinite && $0 >= 0 }, "phases = \(value): \(seconds)")
            } catch {
                #expect(!error.issues.isEmpty)
            }
        }
    }
}
