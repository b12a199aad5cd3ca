// libFuzzer target: bytes as the state record a passed "state" descriptor
// holds (`ContinuationRecordCodec.decode`). Built and run by
// tests/fuzz/run.sh.
import ChakraContinuity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContinuation(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    check(bytes)
    // Random bytes almost never carry their right checksum, so the fields
    // would hardly be reached: the input is read again as a record's lines
    // (the header added when missing) signed with its CRC-32.
    // Each version read, by the first byte's last bit.
    var body = bytes
    let header = Array("chakra-continuation v\(1 + Int(bytes.first ?? 0) % 2)\n".utf8)
    if !body.starts(with: header) { body = header + body }
    if body.last != UInt8(ascii: "\n") { body.append(UInt8(ascii: "\n")) }
    check(body + Array("crc32=".utf8) + hex(crc32(body)) + [UInt8(ascii: "\n")])
    return 0
}

/// Decoding returns or throws, never traps; a record read writes back as
/// exactly its bytes, reads back as itself, and continues its scene time
/// without going backwards.
private func check(_ bytes: [UInt8]) {
    let record: ContinuationRecord
    do {
        record = try ContinuationRecordCodec.decode(bytes)
    } catch {
        guard !"\(error)".isEmpty else { fatalError("an error without words") }
        return
    }
    // Written back in the version it was read in.
    let version = bytes.starts(with: Array("chakra-continuation v1\n".utf8)) ? 1 : ContinuationRecordCodec.version
    guard let written = try? ContinuationRecordCodec.encode(record, version: version) else { fatalError("a record read is not writable: \(record)") }
    guard written == bytes else { fatalError("a record does not write back as its bytes") }
    guard (try? ContinuationRecordCodec.decode(written)) == record else { fatalError("not read back as itself") }
    let later = record.sceneTime(continuingAt: record.takenAt + 1)
    guard later >= record.sceneTime, later.isFinite else { fatalError("scene time went backwards or away: \(later)") }
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
