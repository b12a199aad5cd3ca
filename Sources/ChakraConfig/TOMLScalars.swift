/// The unquoted TOML values: integers, floats, dates and times, each
/// checked against its exact form in TOML 1.0 (no leading zeros, `_` only
/// between digits, a real calendar date, seconds present).
enum TOMLScalars {
    typealias Bytes = ArraySlice<UInt8>

    static func value(_ token: Bytes) -> TOML.Value? {
        if let integer = integer(token) { return .integer(integer) }
        if let float = float(token) { return .float(float) }
        if let kind = dateTime(token) { return .dateTime(kind, String(decoding: token, as: UTF8.self)) }
        return nil
    }

    // MARK: - Numbers

    /// `42`, `+17`, `-0`, `1_000`, `0xDEAD_beef`, `0o755`, `0b1101`.
    static func integer(_ token: Bytes) -> Int64? {
        var digits = token
        var negative = false
        var radix = 10
        if digits.first == UInt8(ascii: "+") || digits.first == UInt8(ascii: "-") {
            negative = digits.first == UInt8(ascii: "-")
            digits = digits.dropFirst()
        } else if digits.count > 2, digits.first == UInt8(ascii: "0") {
            switch digits[digits.startIndex + 1] {
            case UInt8(ascii: "x"): radix = 16
            case UInt8(ascii: "o"): radix = 8
            case UInt8(ascii: "b"): radix = 2
            default: break
            }
            if radix != 10 { digits = digits.dropFirst(2) }
        }
        guard let clean = separated(digits, radix: radix) else { return nil }
        // Decimal: no leading zero ("0" itself is fine).
        if radix == 10, clean.count > 1, clean.first == UInt8(ascii: "0") { return nil }
        var value: Int64 = 0
        for byte in clean {
            let digit = Int64(TOMLReader.hexValue(byte)!)
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: Int64(radix))
            // Accumulate negatively so Int64.min is reachable.
            let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
        }
        return value
    }

    /// `3.14`, `-0.01`, `5e+22`, `6.626e-34`, `1_000.5`, `inf`, `-nan`.
    static func float(_ token: Bytes) -> Double? {
        var body = token
        if body.first == UInt8(ascii: "+") || body.first == UInt8(ascii: "-") { body = body.dropFirst() }
        let sign: Double = token.first == UInt8(ascii: "-") ? -1 : 1
        if body.elementsEqual("inf".utf8) { return sign * .infinity }
        if body.elementsEqual("nan".utf8) { return sign < 0 ? -Double.nan : .nan }
        // integer part, then .fraction and/or e/E exponent.
        let exponentAt = body.firstIndex { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        let mantissa = body[..<(exponentAt ?? body.endIndex)]
        let dotAt = mantissa.firstIndex(of: UInt8(ascii: "."))
        guard dotAt != nil || exponentAt != nil else { return nil }
        guard let whole = separated(mantissa[..<(dotAt ?? mantissa.endIndex)], radix: 10) else { return nil }
        if whole.count > 1, whole.first == UInt8(ascii: "0") { return nil }
        var text = String(decoding: whole, as: UTF8.self)
        if let dotAt {
            guard let fraction = separated(mantissa[(dotAt + 1)...], radix: 10) else { return nil }
            text += "." + String(decoding: fraction, as: UTF8.self)
        }
        if let exponentAt {
            var exponent = body[(exponentAt + 1)...]
            var exponentSign = ""
            if exponent.first == UInt8(ascii: "+") || exponent.first == UInt8(ascii: "-") {
                exponentSign = exponent.first == UInt8(ascii: "-") ? "-" : ""
                exponent = exponent.dropFirst()
            }
            guard let digits = separated(exponent, radix: 10) else { return nil }
            text += "e" + exponentSign + String(decoding: digits, as: UTF8.self)
        }
        guard let value = Double(text) else { return nil }
        return sign * value
    }

    /// The digits without their `_` separators, or nil when empty, when a
    /// `_` is not between two digits, or when a byte is not a digit.
    private static func separated(_ digits: Bytes, radix: Int) -> [UInt8]? {
        guard !digits.isEmpty else { return nil }
        var clean: [UInt8] = []
        clean.reserveCapacity(digits.count)
        var previousWasDigit = false
        for byte in digits {
            if byte == UInt8(ascii: "_") {
                guard previousWasDigit else { return nil }
                previousWasDigit = false
                continue
            }
            guard let value = TOMLReader.hexValue(byte), value < radix else { return nil }
            clean.append(byte)
            previousWasDigit = true
        }
        return previousWasDigit ? clean : nil
    }

    // MARK: - Dates and times

    /// `1979-05-27T07:32:00Z` (offset), `1979-05-27 07:32:00.5` (local),
    /// `1979-05-27` (date), `07:32:00` (time).
    static func dateTime(_ token: Bytes) -> TOML.DateTimeKind? {
        if token.count == 10, date(token) != nil { return .localDate }
        if time(token) { return .localTime }
        guard token.count > 11, date(token.prefix(10)) != nil else { return nil }
        let separator = token[token.startIndex + 10]
        guard separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " ") else { return nil }
        var rest = token.dropFirst(11)
        if rest.last == UInt8(ascii: "Z") || rest.last == UInt8(ascii: "z") {
            return time(rest.dropLast()) ? .offsetDateTime : nil
        }
        if rest.count > 6 {
            let offset = rest.suffix(6)
            let sign = offset.first!
            if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                guard let hours = number(offset.dropFirst().prefix(2)), hours < 24,
                      offset[offset.startIndex + 3] == UInt8(ascii: ":"),
                      let minutes = number(offset.suffix(2)), minutes < 60
                else { return nil }
                rest = rest.dropLast(6)
                return time(rest) ? .offsetDateTime : nil
            }
        }
        return time(rest) ? .localDateTime : nil
    }

    /// `YYYY-MM-DD`, a real day of the Gregorian calendar.
    static func date(_ token: Bytes) -> (year: Int, month: Int, day: Int)? {
        guard token.count == 10,
              token[token.startIndex + 4] == UInt8(ascii: "-"), token[token.startIndex + 7] == UInt8(ascii: "-"),
              let year = number(token.prefix(4)),
              let month = number(token.dropFirst(5).prefix(2)),
              let day = number(token.suffix(2)),
              (1...12).contains(month)
        else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return nil }
        return (year, month, day)
    }

    /// `HH:MM:SS` with an optional `.fraction`; second 60 for a leap second.
    static func time(_ token: Bytes) -> Bool {
        guard token.count >= 8,
              token[token.startIndex + 2] == UInt8(ascii: ":"), token[token.startIndex + 5] == UInt8(ascii: ":"),
              let hour = number(token.prefix(2)), hour < 24,
              let minute = number(token.dropFirst(3).prefix(2)), minute < 60,
              let second = number(token.dropFirst(6).prefix(2)), second <= 60
        else { return false }
        let fraction = token.dropFirst(8)
        if fraction.isEmpty { return true }
        return fraction.first == UInt8(ascii: ".") && fraction.count > 1 && fraction.dropFirst().allSatisfy(TOMLReader.isDigit)
    }

    /// Exactly these decimal digits.
    private static func number(_ digits: Bytes) -> Int? {
        guard !digits.isEmpty, digits.allSatisfy(TOMLReader.isDigit) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
}
