import ChakraSessions
import Foundation
import Testing

/// Reading a log's bytes: what a power cut or a bad sector can leave.
@Suite("Session log contents: torn and garbled lines")
struct SessionLogContentsTests {
    let records = (0..<6).map { sampleRecord($0).asWritten }

    @Test("a file cut at every byte of its last record reads as the records before it; none half-read")
    func cutInTheLastRecord() throws {
        let whole = try encoded(records)
        let lastStart = try encoded(Array(records.dropLast())).count
        for cut in lastStart...whole.count {
            let contents = SessionLogContents(scanning: Array(whole[..<cut]))
            let complete = cut == whole.count
            #expect(contents.records == (complete ? records : Array(records.dropLast())), "cut at \(cut)")
            #expect(contents.damagedLines == (cut == lastStart || complete ? 0 : 1), "cut at \(cut)")
            #expect(contents.validLength == (complete ? whole.count : lastStart))
            #expect(contents.tail == cut - contents.validLength)
        }
    }

    @Test("a small file cut at every byte: exactly the records wholly before the cut")
    func cutAnywhere() throws {
        let small = Array(records.prefix(3))
        let whole = try encoded(small)
        var ends: [Int] = []
        for count in 1...small.count { ends.append(try encoded(Array(small.prefix(count))).count) }
        for cut in 0...whole.count {
            let contents = SessionLogContents(scanning: Array(whole[..<cut]))
            let complete = ends.filter { $0 <= cut }
            #expect(contents.records == Array(small.prefix(complete.count)), "cut at \(cut)")
            #expect(contents.validLength == (complete.last ?? 0))
            #expect(contents.damagedLines == (cut == contents.validLength ? 0 : 1))
        }
    }

    @Test("a changed byte anywhere is caught by the checksum, and reading goes on at the next line")
    func changedByte() throws {
        let whole = try encoded(Array(records.prefix(4)))
        let lines = SessionLogContents.lines(of: whole)
        for position in whole.indices {
            let line = lines.firstIndex { $0.range.contains(position) }!
            for change in [{ $0 ^ 0x01 }, { $0 ^ 0x02 }, { $0 ^ 0x04 }, { $0 ^ 0x08 }, { $0 ^ 0x10 }, { $0 ^ 0x20 }, { $0 ^ 0x40 }, { $0 ^ 0x80 },
                           { _ in UInt8(ascii: "\n") }, { _ in UInt8(ascii: " ") }, { _ in 0 }] as [(UInt8) -> UInt8] {
                var damaged = whole
                damaged[position] = change(whole[position])
                if damaged[position] == whole[position] { continue }
                let contents = SessionLogContents(scanning: damaged)
                // The changed line is lost (with the next one if its newline
                // went); every other record reads.
                let newlineLost = whole[position] == UInt8(ascii: "\n")
                var expected = Array(records.prefix(4))
                expected.removeSubrange(line...(newlineLost ? min(line + 1, 3) : line))
                #expect(contents.records == expected, "byte \(position) changed to \(damaged[position])")
                #expect(contents.records.count + contents.damagedLines == SessionLogContents.lines(of: damaged).count)
                #expect(contents.damagedLines >= 1)
            }
        }
    }

    @Test("damage in the middle: the lines around it read, the damage is counted, and only the tail counts as the tail")
    func damageInTheMiddle() throws {
        let junk: [UInt8] = Array("garbage line\n".utf8) + [0, 0, 0, 255, 10] + Array("v1 start=2026 torn\n".utf8)
        let bytes = try encoded(Array(records.prefix(2))) + junk + encoded(Array(records.suffix(2)))
        let contents = SessionLogContents(scanning: bytes)
        #expect(contents.records == Array(records.prefix(2)) + Array(records.suffix(2)))
        #expect(contents.damagedLines == 3)
        #expect(contents.tail == 0)
    }

    @Test("zeros where a record was being written (what some file systems leave) are a damaged tail")
    func zeroTail() throws {
        let bytes = try encoded(records) + [UInt8](repeating: 0, count: 180)
        let contents = SessionLogContents(scanning: bytes)
        #expect(contents.records == records && contents.damagedLines == 1 && contents.tail == 180)
    }

    @Test("lines cover the bytes exactly; empty lines and a lone newline are damage")
    func linesCoverTheBytes() throws {
        let bytes = Array("\n\n".utf8) + (try encoded([records[0]])) + Array("x".utf8)
        let lines = SessionLogContents.lines(of: bytes)
        #expect(lines.map(\.range) == [0..<1, 1..<2, 2..<(bytes.count - 1), (bytes.count - 1)..<bytes.count])
        #expect(lines.map { $0.record != nil } == [false, false, true, false])
        #expect(SessionLogContents(scanning: []) == SessionLogContents())
    }

    @Test("the fuzzer's starting corpus, written by another CRC-32 (Python's zlib), reads as its names say")
    func fuzzCorpus() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("tests/fuzz/corpus/sessions")
        func contents(_ name: String) throws -> SessionLogContents {
            SessionLogContents(scanning: [UInt8](try Data(contentsOf: corpus.appendingPathComponent(name))))
        }
        let log = try contents("log")
        #expect(log.records.count == 5 && log.damagedLines == 0 && log.tail == 0)
        #expect(log.records[0] == SessionRecord(startedAt: 1_773_480_612.345, duration: 95.25, outcome: .completed, ending: "completed",
                                                pattern: "box", furthestState: "completed", breathedSeconds: 80.125, holdSeconds: 60, lifts: 2))
        let torn = try contents("torn-tail")
        #expect(torn.records == log.records && torn.damagedLines == 1 && torn.tail == 73)
        #expect(try contents("flipped-byte").records.count == 4)
        #expect(try contents("zero-tail").records == log.records)
        #expect(try contents("crlf").records.count == 1)
        #expect(try contents("future-version").records.count == 1)
        #expect(try contents("bodies").records.isEmpty)
        #expect(try contents("damage-between").damagedLines == 2)
    }
}
