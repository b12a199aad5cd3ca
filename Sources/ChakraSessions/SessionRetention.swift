import ChakraSystem

/// What the log may keep, and which records a compaction keeps: pure, on
/// a "now" the caller gives (the wall clock in the daemon, any time in tests).
public struct SessionRetention: Sendable, Equatable {
    /// Records that started longer ago than this many days are dropped.
    public var retentionDays: Int
    /// Past this many bytes the file is compacted, down to three quarters
    /// of it (so a full log is not rewritten at every append).
    public var maxBytes: Int

    /// The smallest bound: room for a few records even at the longest.
    public static let minimumBytes = 4 * SessionRecordCodec.maxLineBytes

    /// Values out of range are brought into it: at least a day, at least
    /// `minimumBytes`, at most a century (the configuration narrows both).
    public init(retentionDays: Int = 365, maxBytes: Int = 4 << 20) {
        self.retentionDays = min(max(retentionDays, 1), 36_500)
        self.maxBytes = max(maxBytes, Self.minimumBytes)
    }

    /// Records that started before this are past retention.
    public func cutoff(now: Double) -> Double { now - Double(retentionDays) * 86400 }

    /// The size a compaction brings a file down to, at most.
    public var compactedBytes: Int { maxBytes / 4 * 3 }

    /// Whether a file of `bytes` whose oldest record started at `oldest`
    /// should be compacted now.
    public func isDue(bytes: Int, oldest: Double?, now: Double) -> Bool {
        bytes > maxBytes || (oldest.map { $0 < cutoff(now: now) } ?? false)
    }

    /// The lines a compaction keeps, in file order: the records within
    /// retention, then, while they are more than `compactedBytes`, without
    /// the oldest written. Damaged lines are never kept.
    public func kept(_ lines: [SessionLogLine], now: Double) -> [SessionLogLine] {
        let cutoff = cutoff(now: now)
        var kept = lines.filter { $0.record.map { $0.startedAt >= cutoff } ?? false }
        var bytes = kept.reduce(0) { $0 + $1.range.count }
        var first = 0
        while bytes > compactedBytes, first < kept.count {
            bytes -= kept[first].range.count
            first += 1
        }
        kept.removeFirst(first)
        return kept
    }
}

/// What a compaction did, for a log line and for the daemon's history
/// (rebuilt from `kept`).
public struct SessionCompaction: Sendable, Equatable, CustomStringConvertible {
    /// The records in the file now, in file order.
    public var kept: [SessionRecord]
    public var droppedByRetention: Int
    public var droppedBySize: Int
    public var damagedLinesDropped: Int
    public var bytesBefore: Int
    public var bytesAfter: Int
    /// The new file is in place, but the directory's fsync failed: until a
    /// later one succeeds (tried at the next append), a power cut may
    /// bring back the old file. Whole either way.
    public var directoryNotSynced: SystemError?

    public var description: String {
        var text = "compacted \(bytesBefore) to \(bytesAfter) bytes: \(kept.count) records kept, "
            + "\(droppedByRetention) past retention and \(droppedBySize) oldest over the size bound dropped"
        if damagedLinesDropped > 0 { text += ", \(damagedLinesDropped) damaged lines dropped" }
        if let directoryNotSynced { text += " (the directory's fsync failed: \(directoryNotSynced))" }
        return text
    }
}
