/// CRC-32 (IEEE 802.3, the one zlib, gzip and PNG use: reflected
/// polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF), by table.
/// It catches every change of one byte, and every burst of up to 32 bits:
/// what a torn write or a bad sector leaves. It is no defence against
/// someone who edits the text and fixes the sum; nothing here needs one.
/// The session log's lines and the continuation record carry it as eight
/// lowercase hex digits (`hexDigits`, `parseHex`).
public enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        return value
    }

    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = (crc >> 8) ^ table[Int((crc ^ UInt32(byte)) & 0xFF)] }
        return crc ^ 0xFFFF_FFFF
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// `value` as eight lowercase hex digits.
    public static func hexDigits(_ value: UInt32) -> [UInt8] {
        stride(from: 28, through: 0, by: -4).map { digits[Int((value >> UInt32($0)) & 0xF)] }
    }

    /// Eight lowercase hex digits, exactly; nil for anything else.
    public static func parseHex(_ text: ArraySlice<UInt8>) -> UInt32? {
        guard text.count == 8 else { return nil }
        var value: UInt32 = 0
        for byte in text {
            guard let digit = digits.firstIndex(of: byte) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
