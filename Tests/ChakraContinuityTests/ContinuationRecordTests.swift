import Testing
@testable import ChakraContinuity
import ChakraSystem

/// A record with every field set away from its default.
let fullRecord = ContinuationRecord(
    takenAt: 81234.567891, scene: "spiral", sceneTime: 1234.5678, paused: true,
    settings: .init(reduceMotion: true, lowPower: false, language: "pt-BR", brightness: 42,
                    configured: .init(reduceMotion: false, lowPower: true, language: "de")),
    displayMode: .off, display: .dimmed,
    spiral: .init(state: .hold, progress: 0.5, holdElapsed: 12.25, pattern: "4-7-8"))

private func text(_ record: ContinuationRecord) throws -> String {
    String(decoding: try ContinuationRecordCodec.encode(record), as: UTF8.self)
}

/// `body` (the lines before the checksum, each ending in "\n") with its right checksum.
func signed(_ body: String) -> [UInt8] {
    let bytes = Array(body.utf8)
    return bytes + Array("crc32=\(hex8(CRC32.checksum(bytes)))\n".utf8)
}

func hex8(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
}

private func decodeError(_ bytes: [UInt8]) -> ContinuationRecordError? {
    do {
        _ = try ContinuationRecordCodec.decode(bytes)
        return nil
    } catch {
        return error
    }
}

@Suite("The continuation record")
struct ContinuationRecordTests {
    @Test func writesTheDocumentedText() throws {
        let written = try text(fullRecord)
        let body = """
            chakra-continuation v2
            taken=81234.567891
            scene=spiral
            scene-time=1234.5678
            paused=yes
            reduce-motion=yes
            low-power=no
            language=pt-BR
            brightness=42
            configured-reduce-motion=no
            configured-low-power=yes
            configured-language=de
            display-mode=off
            display=dimmed
            spiral=hold progress=0.5 held=12.25 pattern=4-7-8

            """
        #expect(written == String(decoding: signed(body), as: UTF8.self))
    }

    @Test("a v1 record (the last version's, before an upgrade) still reads, and writes back as it was")
    func readsVersion1() throws {
        let body = """
            chakra-continuation v1
            taken=81234.567891
            scene=spiral
            scene-time=1234.5678
            paused=yes
            reduce-motion=yes
            low-power=no
            language=pt-BR
            brightness=42
            display-mode=off
            display=dimmed
            spiral=hold progress=0.5 held=12.25 pattern=4-7-8

            """
        var expected = fullRecord
        expected.settings.configured = .init()
        #expect(try ContinuationRecordCodec.decode(signed(body)) == expected)
        #expect(try ContinuationRecordCodec.encode(expected, version: 1) == signed(body))
        // v1 has no configured- lines.
        let withThem = body.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0 == "brightness=42" ? "brightness=42\nconfigured-reduce-motion=no" : String($0) }.joined(separator: "\n")
        #expect(decodeError(signed(withThem)) == .badField("display-mode", "missing (found 'configured-reduce-motion' in its place)"))
    }

    @Test("a configured value is written for a setting that is set, and only then")
    func configuredOnlyForSetSettings() throws {
        var record = ContinuationRecord(takenAt: 1, scene: "heart", sceneTime: 2)
        record.settings.configured = .init(reduceMotion: true, lowPower: false, language: "de")
        let back = try ContinuationRecordCodec.decode(ContinuationRecordCodec.encode(record))
        #expect(back.settings.configured == .init())
        // Set without one known (a record from v1 carried on): "-".
        record.settings = .init(language: "de")
        #expect(try text(record).contains("\nlanguage=de\n"))
        #expect(try text(record).contains("\nconfigured-language=-\n"))
        #expect(try ContinuationRecordCodec.decode(ContinuationRecordCodec.encode(record)) == record)
    }

    @Test("run-time settings laid over a configuration: what it changed since yields to it, as after a reload")
    func laidOverAConfiguration() {
        let settings = ContinuationRecord.RuntimeSettings(reduceMotion: true, lowPower: true, language: "de", brightness: 40,
                                                          configured: .init(reduceMotion: false, lowPower: false, language: "en"))
        // Nothing changed: everything stays.
        var (laid, dropped) = settings.laid(over: .init(reduceMotion: false, lowPower: false, language: "en"))
        #expect(laid == settings && dropped.isEmpty)
        // Each changed alone.
        (laid, dropped) = settings.laid(over: .init(reduceMotion: true, lowPower: false, language: "en"))
        #expect(laid.reduceMotion == nil && laid.configured.reduceMotion == nil && laid.lowPower == true && laid.language == "de")
        #expect(dropped == ["reduce_motion"])
        (laid, dropped) = settings.laid(over: .init(reduceMotion: false, lowPower: true, language: "en"))
        #expect(laid.lowPower == nil && laid.reduceMotion == true && dropped == ["low_power.enabled"])
        (laid, dropped) = settings.laid(over: .init(reduceMotion: false, lowPower: false, language: "pt-BR"))
        #expect(laid.language == nil && laid.lowPower == true && dropped == ["text.language"])
        // The backlight has no key: it always stays.
        (laid, dropped) = settings.laid(over: .init(reduceMotion: true, lowPower: true, language: "fr"))
        #expect(laid == ContinuationRecord.RuntimeSettings(brightness: 40) && dropped.count == 3)
        // A record that knows no configured value (v1) keeps its settings.
        let v1 = ContinuationRecord.RuntimeSettings(reduceMotion: true, language: "de")
        (laid, dropped) = v1.laid(over: .init(reduceMotion: true, lowPower: true, language: "fr"))
        #expect(laid == v1 && dropped.isEmpty)
    }

    @Test func everyFieldReadsBack() throws {
        #expect(try ContinuationRecordCodec.decode(ContinuationRecordCodec.encode(fullRecord)) == fullRecord)
        // Each field alone away from the defaults, so none is read from another's line.
        let base = ContinuationRecord(takenAt: 0, scene: "heart", sceneTime: 0)
        var variants: [ContinuationRecord] = [base]
        func vary(_ change: (inout ContinuationRecord) -> Void) { var record = base; change(&record); variants.append(record) }
        vary { $0.takenAt = 5e-324 }
        vary { $0.takenAt = 1e15 }
        vary { $0.scene = "calm" }
        vary { $0.sceneTime = 0.1 + 0.2 }   // not a short decimal: the exact double comes back
        vary { $0.sceneTime = 999_999_999.999 }
        vary { $0.paused = true }
        vary { $0.settings.reduceMotion = false }
        vary { $0.settings.reduceMotion = true }
        vary { $0.settings.lowPower = true }
        vary { $0.settings.lowPower = false }
        vary { $0.settings.language = "de" }
        vary { $0.settings.brightness = 0 }
        vary { $0.settings.brightness = 100 }
        vary { $0.settings.reduceMotion = true; $0.settings.configured.reduceMotion = false }
        vary { $0.settings.lowPower = false; $0.settings.configured.lowPower = true }
        vary { $0.settings.language = "de"; $0.settings.configured.language = "pt-BR" }
        for mode in ContinuationRecord.DisplayMode.allCases where mode != .auto { vary { $0.displayMode = mode } }
        for power in ContinuationRecord.DisplayPower.allCases where power != .on { vary { $0.display = power } }
        for state in ContinuationRecord.SpiralProgress.State.allCases {
            vary { $0.spiral = .init(state: state, progress: 1.0 / 3.0, holdElapsed: 0, pattern: "box") }
        }
        vary { $0.spiral = .init(state: .completed, progress: 1, holdElapsed: 60.000001, pattern: "a.b_c-1") }
        for record in variants {
            let bytes = try ContinuationRecordCodec.encode(record)
            let back = try ContinuationRecordCodec.decode(bytes)
            #expect(back == record)
            #expect(back.sceneTime.bitPattern == record.sceneTime.bitPattern)
            #expect(back.takenAt.bitPattern == record.takenAt.bitPattern)
            #expect(try ContinuationRecordCodec.encode(back) == bytes)
        }
        #expect(Set(try variants.map { try text($0) }).count == variants.count)
    }

    @Test func sceneTimeContinuesOverTheGap() {
        var record = ContinuationRecord(takenAt: 100, scene: "heart", sceneTime: 40)
        #expect(record.sceneTime(continuingAt: 102.5) == 42.5)
        #expect(record.sceneTime(continuingAt: 99) == 40)   // no time before the record
        record.paused = true
        #expect(record.sceneTime(continuingAt: 200) == 40)
    }

    @Test func otherVersionsAreRefusedByTheirFirstLine() throws {
        var newer = "chakra-continuation v3\n" + String(try text(fullRecord).dropFirst("chakra-continuation v2\n".count))
        #expect(decodeError(Array(newer.utf8)) == .unsupportedVersion("v3"))
        // Refused by its version even with its own checksum right: a later
        // version may lay the rest out differently.
        newer = "chakra-continuation v3\nsomething=else\n"
        #expect(decodeError(signed(newer)) == .unsupportedVersion("v3"))
        #expect(decodeError(signed("chakra-continuation v0\n")) == .unsupportedVersion("v0"))
        #expect(decodeError(signed("chakra-continuation v01\n")) == .unsupportedVersion("v01"))
        #expect(decodeError(Array("chakra-continuation v\n".utf8)) == .unsupportedVersion("v"))
    }

    @Test func somethingElseIsNotARecord() {
        #expect(decodeError([]) == .empty)
        #expect(decodeError(Array("READY=1\n".utf8)) == .notARecord)
        #expect(decodeError(Array("hello".utf8)) == .notARecord)
        #expect(decodeError([0, 0, 0, 0]) == .notARecord)
        #expect(decodeError([UInt8](repeating: 0x41, count: ContinuationRecordCodec.maxBytes + 1)) == .tooLarge(bytes: ContinuationRecordCodec.maxBytes + 1))
    }

    @Test func everyCutIsRefused() throws {
        let bytes = try ContinuationRecordCodec.encode(fullRecord)
        for length in 1..<bytes.count {
            let error = decodeError(Array(bytes.prefix(length)))
            #expect(error == .truncated || error == .badField("crc32", "not eight hex digits and a newline"), "cut at \(length): \(String(describing: error))")
        }
    }

    @Test func everyFlippedByteIsRefused() throws {
        let bytes = try ContinuationRecordCodec.encode(fullRecord)
        for index in bytes.indices {
            var damaged = bytes
            damaged[index] ^= 0x04
            #expect(decodeError(damaged) != nil, "byte \(index)")
        }
        // In a field's value: the checksum says so.
        var damaged = bytes
        let needle = Array("scene=spiral".utf8)
        let index = try #require(bytes.indices.first { bytes[$0...].starts(with: needle) }) + 7
        damaged[index] = UInt8(ascii: "S")
        guard case .checksumMismatch? = decodeError(damaged) else {
            Issue.record("expected a checksum mismatch, got \(String(describing: decodeError(damaged)))")
            return
        }
    }

    @Test func anOlderRecordsTailIsRefused() throws {
        let long = try ContinuationRecordCodec.encode(fullRecord)
        let short = try ContinuationRecordCodec.encode(ContinuationRecord(takenAt: 1, scene: "heart", sceneTime: 2))
        #expect(long.count > short.count)
        // What a crash between the write and the cut leaves.
        let torn = short + long[short.count...]
        #expect(decodeError(torn) == .trailingBytes(long.count - short.count))
    }

    @Test func fieldsAreCheckedByName() {
        let head = "chakra-continuation v1\n"
        let good = ["taken=1", "scene=heart", "scene-time=2.5", "paused=no", "reduce-motion=-", "low-power=-", "language=-",
                    "brightness=-", "display-mode=auto", "display=on", "spiral=-"]
        func body(_ lines: [String]) -> String { head + lines.map { $0 + "\n" }.joined() }
        // The hand-written good record reads (with "taken=1.0", as Swift writes 1).
        var lines = good
        lines[0] = "taken=1.0"
        #expect(decodeError(signed(body(lines))) == nil)
        #expect(decodeError(signed(body(good))) == .notCanonical)   // "1" is not how 1.0 is written

        func refused(_ index: Int, _ line: String) -> ContinuationRecordError? {
            var lines = good
            lines[0] = "taken=1.0"
            lines[index] = line
            return decodeError(signed(body(lines)))
        }
        #expect(refused(1, "scene=he art") == .badField("scene", "not a name (letters, digits, '.', '_', '-'): 'he art'"))
        #expect(refused(1, "scene=") == .badField("scene", "empty"))
        #expect(refused(1, "scene=-") == .badField("scene", "not a name (letters, digits, '.', '_', '-'): '-'"))
        #expect(refused(2, "scene-time=soon") == .badField("scene-time", "not a number: 'soon'"))
        #expect(refused(2, "scene-time=inf") == .badField("scene-time", "not a number: 'inf'"))
        #expect(refused(2, "scene-time=-1.0") == .badField("scene-time", "not 0 to 1000000000.0 s: -1.0"))
        #expect(refused(2, "scene-time=2.50") == .notCanonical)
        #expect(refused(3, "paused=maybe") == .badField("paused", "not yes or no: 'maybe'"))
        #expect(refused(4, "reduce-motion=1") == .badField("reduce-motion", "not yes or no: '1'"))
        #expect(refused(7, "brightness=101") == .badField("brightness", "not 0 to 100: 101"))
        #expect(refused(7, "brightness=-5") == .badField("brightness", "not a whole number from 0 to 100: '-5'"))
        #expect(refused(7, "brightness=007") == .notCanonical)
        #expect(refused(8, "display-mode=sometimes") == .badField("display-mode", "not one of auto, on, off: 'sometimes'"))
        #expect(refused(9, "display=bright") == .badField("display", "not one of on, dimmed, off: 'bright'"))
        #expect(refused(10, "spiral=hold") == .badField("spiral", "not '<state> progress=<0..1> held=<seconds> pattern=<name>': 'hold'"))
        #expect(refused(10, "spiral=hold progress=1.5 held=0.0 pattern=box") == .badField("spiral", "progress not 0 to 1: 1.5"))
        #expect(refused(10, "spiral=breathe progress=0.5 held=0.0 pattern=box")
            == .badField("spiral", "not '<state> progress=<0..1> held=<seconds> pattern=<name>': 'breathe progress=0.5 held=0.0 pattern=box'"))
        #expect(refused(3, "reduce-motion=-") == .badField("paused", "missing (found 'reduce-motion' in its place)"))
        #expect(refused(1, "scene=h\u{7f}") == .badField("scene", "not printable ASCII"))

        var missing = good
        missing[0] = "taken=1.0"
        missing.removeLast()
        #expect(decodeError(signed(body(missing))) == .badField("spiral", "missing"))
        var extra = good
        extra[0] = "taken=1.0"
        extra.append("colour=blue")
        #expect(decodeError(signed(body(extra))) == .badField("colour", "not a field of v1 here"))
    }

    @Test func configuredFieldsAreChecked() {
        let head = "chakra-continuation v2\n"
        let good = ["taken=1.0", "scene=heart", "scene-time=2.5", "paused=no", "reduce-motion=yes", "low-power=-", "language=de",
                    "brightness=-", "configured-reduce-motion=no", "configured-low-power=-", "configured-language=en",
                    "display-mode=auto", "display=on", "spiral=-"]
        func body(_ lines: [String]) -> String { head + lines.map { $0 + "\n" }.joined() }
        #expect(decodeError(signed(body(good))) == nil)
        func refused(_ index: Int, _ line: String) -> ContinuationRecordError? {
            var lines = good
            lines[index] = line
            return decodeError(signed(body(lines)))
        }
        #expect(refused(8, "configured-reduce-motion=1") == .badField("configured-reduce-motion", "not yes or no: '1'"))
        #expect(refused(10, "configured-language=e n") == .badField("configured-language", "not a name (letters, digits, '.', '_', '-'): 'e n'"))
        // A configured value for a setting that is not set is not how a
        // record is written.
        #expect(refused(9, "configured-low-power=yes") == .notCanonical)
        var missing = good
        missing.remove(at: 9)
        #expect(decodeError(signed(body(missing))) == .badField("configured-low-power", "missing (found 'configured-language' in its place)"))
    }

    @Test func unwritableRecordsAreRefusedWhenWritten() {
        func problem(_ change: (inout ContinuationRecord) -> Void) -> ContinuationRecordError? {
            var record = fullRecord
            change(&record)
            do {
                _ = try ContinuationRecordCodec.encode(record)
                return nil
            } catch {
                return error
            }
        }
        #expect(problem { $0.scene = "two words" } == .unwritable(field: "scene", reason: "not a name (letters, digits, '.', '_', '-'): 'two words'"))
        #expect(problem { $0.scene = "line\nbreak" } != nil)
        #expect(problem { $0.scene = String(repeating: "a", count: 65) } == .unwritable(field: "scene", reason: "longer than 64 bytes"))
        #expect(problem { $0.sceneTime = .nan } != nil)
        #expect(problem { $0.sceneTime = -0.5 } != nil)
        #expect(problem { $0.takenAt = .infinity } != nil)
        #expect(problem { $0.settings.brightness = 101 } == .unwritable(field: "brightness", reason: "not 0 to 100: 101"))
        #expect(problem { $0.settings.language = "" } == .unwritable(field: "language", reason: "empty"))
        #expect(problem { $0.spiral?.progress = -0.1 } != nil)
        #expect(problem { $0.spiral?.holdElapsed = .infinity } != nil)
        #expect(problem { $0.spiral?.pattern = "a b" } != nil)
    }

    @Test func errorsSayWhatHappened() {
        #expect("\(ContinuationRecordError.unsupportedVersion("v3"))" == "the state record is version 'v3'; this chakrad reads v1 and v2")
        #expect("\(ContinuationRecordError.checksumMismatch(stored: 0xabc, computed: 0x12))" == "the state record is damaged (crc32 abc stored, 12 computed)")
        #expect("\(ContinuationRecordError.trailingBytes(5))" == "the state record has 5 bytes after its end (torn rewrite)")
    }

    @Test func checksumIsIEEE() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }
}
