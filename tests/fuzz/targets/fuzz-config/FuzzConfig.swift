// libFuzzer target: the configuration file, as `ConfigParser.load` reads it
// (UTF-8 checked, then preflight, toml++ and every key's checks).
// Built and run by tests/fuzz/run.sh; see docs/robustness.md.
import ChakraConfig

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    let lineCount = text.utf8.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    do {
        let loaded = try ConfigParser.parse(text, file: "fuzz.toml")
        // Every warning points into the file.
        for warning in loaded.warnings where !(1...lineCount).contains(warning.line ?? 1) {
            fatalError("warning outside the file (\(lineCount) lines): \(warning)")
        }
        // A configuration that was read reads the same again.
        guard (try? ConfigParser.parse(text, file: "fuzz.toml")) == loaded else { fatalError("two reads differ") }
    } catch {
        guard !error.issues.isEmpty else { fatalError("an error without an issue") }
        for issue in error.issues {
            guard !issue.message.isEmpty else { fatalError("an issue without a message") }
            if let line = issue.line, !(1...lineCount).contains(line) {
                fatalError("error outside the file (\(lineCount) lines): \(issue)")
            }
        }
    }
    return 0
}
