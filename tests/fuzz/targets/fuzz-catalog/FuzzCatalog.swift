// libFuzzer target: a string catalogue (/usr/share/chakra/strings/*.toml),
// as StringCatalog reads it. Built and run by tests/fuzz/run.sh.
import ChakraText

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCatalog(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    // The catalogue is read as UTF-8 text (invalid sequences replaced), so
    // the parser sees whatever a broken file becomes.
    let text = String(decoding: bytes, as: UTF8.self)
    guard let values = try? StringCatalog.parse(text) else { return 0 }
    // What was read, written back as a catalogue (non-ASCII as it is: the
    // preflight escapes it on the way in), reads as the same strings.
    var written = ""
    for (key, value) in values.sorted(by: { $0.key < $1.key }) {
        written += "\(quoted(key)) = \(quoted(value))\n"
    }
    guard let again = try? StringCatalog.parse(written) else { fatalError("written catalogue unreadable:\n\(written)") }
    guard again == values else { fatalError("catalogue does not round-trip:\n\(written)") }
    return 0
}

/// A TOML basic string.
private func quoted(_ string: String) -> String {
    var out = "\""
    for scalar in string.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
