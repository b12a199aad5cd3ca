/// Base64 (RFC 4648, the standard alphabet, padded), as chakrad sends a
/// snapshot's PNG. Strict: a character outside the alphabet, a wrong
/// length or misplaced padding is nil, never a guess.
enum Base64 {
    /// The value of each ASCII byte in the alphabet, 0xFF for the rest.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(byte)] = UInt8(value)
        }
        return table
    }()

    static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var padding = 0
        if input.last == UInt8(ascii: "=") { padding += 1 }
        if input.count >= 2, input[input.count - 2] == UInt8(ascii: "=") { padding += 1 }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            var quad: UInt32 = 0
            for offset in 0..<4 {
                let byte = input[index + offset]
                let value: UInt8
                if isLast && offset >= 4 - padding {
                    value = 0  // the padding itself
                } else {
                    value = values[Int(byte)]
                    guard value != 0xFF else { return nil }
                }
                quad = quad << 6 | UInt32(value)
            }
            output.append(UInt8(truncatingIfNeeded: quad >> 16))
            if !isLast || padding < 2 { output.append(UInt8(truncatingIfNeeded: quad >> 8)) }
            if !isLast || padding < 1 { output.append(UInt8(truncatingIfNeeded: quad)) }
            index += 4
        }
        return output
    }
}
