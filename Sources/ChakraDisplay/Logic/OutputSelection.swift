/// Which output backend to use. `auto` tries DRM, then fbdev, then headless
/// (docs/design.md, Display), and the log says why each earlier one was
/// passed over.
public enum OutputKind: String, CaseIterable, Sendable {
    case auto, drm, fbdev, headless

    /// The backends to try, in order.
    public var candidates: [OutputKind] {
        self == .auto ? [.drm, .fbdev, .headless] : [self]
    }

    /// The backend a device node belongs to (--device with --output auto):
    /// /dev/dri/cardN is DRM, /dev/fbN the framebuffer.
    public static func owning(device path: String) -> OutputKind? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        if path.contains("/dri/") || name.hasPrefix("card") { return .drm }
        if name.hasPrefix("fb") { return .fbdev }
        return nil
    }
}

/// A backend that was tried and passed over, and why.
public struct SkippedOutput: Equatable, Sendable, CustomStringConvertible {
    public var kind: OutputKind
    public var reason: String
    public var description: String { "\(kind.rawValue) skipped: \(reason)" }
}

public enum OutputSelection {
    /// Tries `open` on each candidate in order; the first that opens wins.
    /// With one candidate (an explicit --output), its error is the error.
    /// With `auto`, errors are collected as reasons, and the last candidate
    /// (headless, which cannot fail) ends the list.
    public static func open<Output>(_ requested: OutputKind,
                                    _ open: (OutputKind) throws -> Output) throws -> (output: Output, skipped: [SkippedOutput]) {
        let candidates = requested.candidates
        var skipped: [SkippedOutput] = []
        for (position, kind) in candidates.enumerated() {
            do {
                return (try open(kind), skipped)
            } catch {
                if candidates.count == 1 || position == candidates.count - 1 { throw error }
                skipped.append(SkippedOutput(kind: kind, reason: "\(error)"))
            }
        }
        preconditionFailure("OutputKind.candidates is never empty")
    }
}
