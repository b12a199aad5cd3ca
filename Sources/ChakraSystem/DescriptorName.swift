/// The name a descriptor carries in systemd's file descriptor store
/// (FDNAME=) and comes back under ($LISTEN_FDNAMES): "drm", "state".
///
/// systemd's rule (fdname_is_valid): ASCII without control characters, no
/// ':' (it separates the names in $LISTEN_FDNAMES), at most 255 bytes. A
/// name systemd finds invalid is not refused but dropped: the descriptor
/// is stored as "stored", and the next process could not tell it from the
/// others. So the name is checked here, before anything is sent. The
/// empty name, which systemd allows, is refused too: a name is how the
/// next process finds its descriptor.
public struct DescriptorName: Hashable, Sendable, CustomStringConvertible {
    public static let maxLength = 255

    public let text: String

    public init(_ text: String) throws(DescriptorNameError) {
        if text.isEmpty { throw DescriptorNameError(name: text, problem: .empty) }
        if let problem = Self.problem(in: text) { throw DescriptorNameError(name: text, problem: problem) }
        self.text = text
    }

    public var description: String { text }

    /// What is wrong with `text` by systemd's rule (the empty name passes,
    /// as it does for systemd), or nil. Shared with the reading of
    /// $LISTEN_FDNAMES (`PassedDescriptors`).
    public static func problem(in text: String) -> DescriptorNameError.Problem? {
        let bytes = text.utf8
        for (offset, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: ":") { return .colon(at: offset) }
            if byte < 0x20 || byte >= 0x7F { return .notPrintableASCII(at: offset) }
        }
        if bytes.count > maxLength { return .tooLong(bytes: bytes.count) }
        return nil
    }
}

/// Why a descriptor's name would not survive systemd's store.
public struct DescriptorNameError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Problem: Equatable, Sendable {
        case empty
        case tooLong(bytes: Int)
        /// ':' separates the names in $LISTEN_FDNAMES.
        case colon(at: Int)
        /// A control character or a byte outside ASCII, at this byte offset.
        case notPrintableASCII(at: Int)
    }

    public let name: String
    public let problem: Problem

    public init(name: String, problem: Problem) { (self.name, self.problem) = (name, problem) }

    public var description: String {
        let shown = name.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined()
        let reason = switch problem {
        case .empty: "it is empty"
        case .tooLong(let bytes): "it is \(bytes) bytes long, more than \(DescriptorName.maxLength)"
        case .colon(let offset): "it has a ':' (byte \(offset)), which separates names in $LISTEN_FDNAMES"
        case .notPrintableASCII(let offset): "byte \(offset) is a control character or not ASCII"
        }
        return "invalid descriptor name '\(shown.prefix(80))': \(reason)"
    }
}
