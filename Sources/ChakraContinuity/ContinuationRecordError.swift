/// Why there is no record to continue from. Every case means the same to
/// chakrad: log it and start the scene fresh; none is a crash.
public enum ContinuationRecordError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case tooLarge(bytes: Int)
    /// Not a continuation record at all (it does not start with the magic).
    case notARecord
    /// A record of a version this chakrad does not read: "v2" (written by
    /// a newer chakrad, before a downgrade) or one no release wrote.
    case unsupportedVersion(String)
    /// It ends before its checksum line (cut short).
    case truncated
    /// Bytes after the checksum line: an older, longer record's tail, left
    /// by a crash between writing the new one and cutting the file.
    case trailingBytes(Int)
    /// The bytes are not those written (a damaged or torn record).
    case checksumMismatch(stored: UInt32, computed: UInt32)
    /// A field is missing, out of place, or its value is not one this
    /// version writes.
    case badField(String, String)
    /// Every field reads, but not written as this version writes it.
    case notCanonical
    /// Encoding: a field cannot be written (a name with a space, a time
    /// that is not finite).
    case unwritable(field: String, reason: String)

    public var description: String {
        switch self {
        case .empty: "the state record is empty"
        case .tooLarge(let bytes): "the state record is \(bytes) bytes, more than \(ContinuationRecordCodec.maxBytes)"
        case .notARecord: "the state descriptor holds no continuation record"
        case .unsupportedVersion(let version):
            "the state record is version '\(version)'; this chakrad reads "
                + ContinuationRecordCodec.versionsRead.map { "v\($0)" }.joined(separator: " and ")
        case .truncated: "the state record is cut short"
        case .trailingBytes(let count): "the state record has \(count) bytes after its end (torn rewrite)"
        case .checksumMismatch(let stored, let computed):
            "the state record is damaged (crc32 \(String(stored, radix: 16)) stored, \(String(computed, radix: 16)) computed)"
        case .badField(let field, let reason): "the state record's \(field): \(reason)"
        case .notCanonical: "the state record is not written as this version writes it"
        case .unwritable(let field, let reason): "cannot write the state record's \(field): \(reason)"
        }
    }
}
