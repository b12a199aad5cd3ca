import Glibc

/// Log lines to standard error (or output), each written whole by one
/// write(2) through the funnel.
///
/// Under systemd, standard error is usually a stream to journald, which
/// stores a line as "info" unless it begins with a syslog priority such as
/// `<4>` (sd-daemon(3)). systemd says which stream is the journal in
/// JOURNAL_STREAM ("device:inode", systemd.exec(5)); when the descriptor is
/// that stream, each line carries its level's prefix and nothing the
/// journal records itself (time, the program's name). Otherwise a person
/// reads it: "2026-11-27T11:42:29+0100 warning chakrad: message".
///
/// A failed write drops the line: a log reader that went away (EPIPE, with
/// SIGPIPE ignored; `BrokenPipes`) must cost the line, not the daemon.
public struct StreamLog: LogSink {
    public let level: Logger.Level
    public let descriptor: Int32
    /// The descriptor is the journal's stream: priority prefixes, no time.
    public let toJournal: Bool

    public init(descriptor: Int32, level: Logger.Level, toJournal: Bool) {
        (self.descriptor, self.level, self.toJournal) = (descriptor, level, toJournal)
    }

    public static func standardError(level: Logger.Level) -> StreamLog {
        StreamLog(descriptor: STDERR_FILENO, level: level, toJournal: isJournal(STDERR_FILENO, journalStream: environment("JOURNAL_STREAM")))
    }

    public static func standardOutput(level: Logger.Level) -> StreamLog {
        StreamLog(descriptor: STDOUT_FILENO, level: level, toJournal: isJournal(STDOUT_FILENO, journalStream: environment("JOURNAL_STREAM")))
    }

    /// Whether `descriptor` is the stream JOURNAL_STREAM names. A service's
    /// children inherit the variable with descriptors that may have been
    /// redirected since, hence the comparison rather than the variable alone.
    public static func isJournal(_ descriptor: Int32, journalStream: String?) -> Bool {
        guard let journalStream else { return false }
        let parts = journalStream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard (try? Syscall.check("fstat(fd \(descriptor))", { fstat(descriptor, &status) })) != nil else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    public func write(level: Logger.Level, label: String, message: String) {
        let text = toJournal ? Self.journalLines(level: level, message: message)
                             : "\(Self.timestamp()) \(level.rawValue) \(label): \(message)\n"
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { raw in
            try? Descriptor.writeAll(descriptor, raw.baseAddress!, count: raw.count, file: "log")
        }
    }

    /// Each line of the message with the level's prefix: journald reads a
    /// prefix per line, and a line without one would be stored as info.
    static func journalLines(level: Logger.Level, message: String) -> String {
        let prefix = "<\(level.syslogPriority)>"
        var text = ""
        for line in message.split(separator: "\n", omittingEmptySubsequences: false) {
            text += prefix
            text += line
            text += "\n"
        }
        return text
    }

    /// Local time to the second with the offset, as swift-log's stream
    /// handler wrote it.
    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
