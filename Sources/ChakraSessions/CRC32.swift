/// CRC-32 (IEEE 802.3, the one zlib, gzip and PNG use: reflected
/// polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF), by table.
/// It catches every change of one byte, and every burst of up to 32 bits,
/// in a line: what a torn write or a bad sector leaves. It is no defence
/// against someone who edits a line and fixes the sum; nothing here needs one.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        return value
    }

    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = (crc >> 8) ^ table[Int((crc ^ UInt32(byte)) & 0xFF)] }
        return crc ^ 0xFFFF_FFFF
    }
}
