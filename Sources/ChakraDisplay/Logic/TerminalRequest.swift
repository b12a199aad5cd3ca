/// Which virtual terminal the daemon takes over: `--vt auto` (the one on
/// standard input, if it is one), `--vt none`, or `--vt N`.
public enum TerminalRequest: Equatable, Sendable, CustomStringConvertible {
    case auto, none, number(Int)

    public init(parsing text: String) throws(DisplayError) {
        switch text.lowercased() {
        case "auto": self = .auto
        case "none", "off": self = .none
        default:
            guard let n = Int(text), (1...63).contains(n) else {
                throw .invalidArgument("--vt '\(text)': expected auto, none, or a console number 1...63")
            }
            self = .number(n)
        }
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .none: "none"
        case .number(let n): String(n)
        }
    }

    /// The VT number of a character device: /dev/ttyN is major 4, minor N
    /// for N in 1...63 (minor 0 is tty0, "the current console"; 64 and up
    /// are serial ports). Documented in the kernel's devices.txt.
    public static func consoleNumber(major: UInt32, minor: UInt32) -> Int? {
        major == 4 && (1...63).contains(minor) ? Int(minor) : nil
    }
}
