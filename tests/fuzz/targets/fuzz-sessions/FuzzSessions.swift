// libFuzzer target: bytes as a session log's content, read as
// `SessionLog.open` and `SessionLog.read` read a file. Built and run by
// tests/fuzz/run.sh.
import ChakraSessions

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSessions(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let lines = SessionLogContents.lines(of: bytes)
    checkLines(lines, of: bytes)
    checkContents(SessionLogContents(scanning: bytes), lines: lines, of: bytes)
    // A random line almost never carries its right checksum, so the fields
    // would hardly be reached: each line is read again with its CRC-32.
    for line in lines { checkSigned(bytes[line.range]) }
    return 0
}

/// The lines cover the bytes exactly, in order, each ending at its first
/// newline (the last may have none); a record's line is exactly the
/// record written out.
private func checkLines(_ lines: [SessionLogLine], of bytes: [UInt8]) {
    var next = 0
    for line in lines {
        guard line.range.lowerBound == next, !line.range.isEmpty else { fatalError("lines leave a gap or overlap at \(next)") }
        let text = bytes[line.range]
        if let newline = text.firstIndex(of: UInt8(ascii: "\n")), newline != line.range.upperBound - 1 {
            fatalError("a line goes past its newline")
        }
        if text.last != UInt8(ascii: "\n"), line.range.upperBound != bytes.count { fatalError("an unterminated line before the end") }
        if let record = line.record {
            guard let written = try? SessionRecordCodec.encode(record) else { fatalError("a record read is not writable: \(record)") }
            guard written[...] == text else { fatalError("a record does not write back as its line") }
        }
        next = line.range.upperBound
    }
    guard next == bytes.count else { fatalError("lines end at \(next) of \(bytes.count)") }
}

/// Every line is a record or damaged; the valid length ends the last
/// record; cut there, the file reads the same records with no tail.
private func checkContents(_ contents: SessionLogContents, lines: [SessionLogLine], of bytes: [UInt8]) {
    guard contents.records == lines.compactMap(\.record),
          contents.records.count + contents.damagedLines == lines.count,
          contents.length == bytes.count else { fatalError("the contents do not account for every line") }
    let lastRecordEnd = lines.last { $0.record != nil }?.range.upperBound ?? 0
    guard contents.validLength == lastRecordEnd, contents.tail == bytes.count - lastRecordEnd else { fatalError("wrong valid length") }
    let cut = SessionLogContents(scanning: Array(bytes[..<contents.validLength]))
    guard cut.records == contents.records, cut.tail == 0 else { fatalError("cutting the tail changed the records") }
}

/// `line` (its newline and any checksum dropped) with its right CRC-32:
/// if it reads as a record, the record writes out as exactly this line
/// and reads back as itself.
private func checkSigned(_ line: ArraySlice<UInt8>) {
    var body = Array(line)
    if body.last == UInt8(ascii: "\n") { body.removeLast() }
    let tag = Array(" crc32=".utf8)
    if body.count >= tag.count + 8, body[(body.count - 8 - tag.count)..<(body.count - 8)].elementsEqual(tag) {
        body.removeLast(tag.count + 8)
    }
    let signed = body + tag + hex(crc32(body)) + [UInt8(ascii: "\n")]
    guard let record = SessionRecordCodec.decode(signed[...]) else { return }
    guard let written = try? SessionRecordCodec.encode(record), written == signed else {
        fatalError("a record does not write back as its line: \(String(decoding: signed, as: UTF8.self))")
    }
    guard SessionRecordCodec.decode(written[...]) == record, record.asWritten == record else { fatalError("not read back as itself") }
}

/// The IEEE CRC-32, bit by bit: written apart from the codec's table so a
/// mistake in one is not checked by itself.
private func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

private func hex(_ value: UInt32) -> [UInt8] {
    let digits = Array("0123456789abcdef".utf8)
    return stride(from: 28, through: 0, by: -4).map { digits[Int((value >> UInt32($0)) & 0xF)] }
}
