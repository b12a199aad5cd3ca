/// A display mode asked for on the command line: "1920x1080" or
/// "1920x1080@60" (refresh in Hz, decimals allowed: "1920x1080@59.94").
public struct ModeRequest: Equatable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    /// Refresh in Hz, or nil for "any refresh, the best one".
    public var refresh: Double?

    public init(width: Int, height: Int, refresh: Double? = nil) {
        (self.width, self.height, self.refresh) = (width, height, refresh)
    }

    /// Parses "WxH" or "WxH@HZ"; the error says what is wrong.
    public init(parsing text: String) throws(DisplayError) {
        let bad = { (why: String) in DisplayError.invalidArgument("mode '\(text)': \(why) (expected WIDTHxHEIGHT or WIDTHxHEIGHT@HZ, e.g. 1920x1080@60)") }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw bad("more than one '@'") }
        let size = parts[0].lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let w = Int(size[0]), let h = Int(size[1]) else { throw bad("the size is not WIDTHxHEIGHT") }
        guard (1...16384).contains(w), (1...16384).contains(h) else { throw bad("width and height must be 1...16384") }
        var refresh: Double?
        if parts.count == 2 {
            guard let hz = Double(parts[1]), hz.isFinite, hz > 0, hz <= 1000 else { throw bad("the refresh must be a number of Hz in (0, 1000]") }
            refresh = hz
        }
        self.init(width: w, height: h, refresh: refresh)
    }

    public var description: String {
        guard let refresh else { return "\(width)x\(height)" }
        return "\(width)x\(height)@\(DisplayMode.format(hz: refresh))"
    }
}

/// Errors of the display layer that are the user's to fix (bad option,
/// missing device, unknown connector), as opposed to `SystemError`s.
public enum DisplayError: Error, CustomStringConvertible, Equatable {
    case invalidArgument(String)
    case unavailable(String)

    public var description: String {
        switch self {
        case .invalidArgument(let message), .unavailable(let message): message
        }
    }
}
