import ChakraSystem

/// The continuation record kept where the next process finds it: a memory
/// file in systemd's file descriptor store under "state", rewritten in
/// place each time the record changes. systemd holds a duplicate of the
/// descriptor, so a rewrite is one pwrite and no message, and a crash
/// leaves the last record written for the process systemd starts next.
/// The I/O is this thin layer; the record and its text are pure
/// (`ContinuationRecord`, `ContinuationRecordCodec`).
public final class ContinuationStore {
    /// The memory file; owned, closed on deinit.
    public let fd: Int32
    private let notifier: SystemdNotifier

    /// Keeps the record in `passed` (the "state" descriptor the previous
    /// process left, which systemd still holds: sending it again is
    /// harmless) or in a new memory file, and hands it to the store.
    public init(notifier: SystemdNotifier, reusing passed: Int32? = nil) throws(ContinuationStoreError) {
        if let passed {
            fd = passed
        } else {
            do throws(SystemError) { fd = try MemoryFile.create(name: "chakra-\(StoredDescriptors.state)") } catch { throw .system(error) }
        }
        self.notifier = notifier
        do throws(DescriptorStoreError) {
            try notifier.store([fd], as: StoredDescriptors.state, poll: false)
        } catch {
            Descriptor.close(fd)
            throw .store(error)
        }
    }

    deinit { Descriptor.close(fd) }

    /// Makes `record` the one the next process reads.
    public func save(_ record: ContinuationRecord) throws(ContinuationStoreError) {
        let bytes: [UInt8]
        do throws(ContinuationRecordError) { bytes = try ContinuationRecordCodec.encode(record) } catch { throw .record(error) }
        do throws(SystemError) { try MemoryFile.replaceContents(of: fd, with: bytes) } catch { throw .system(error) }
    }

    /// A stop for good: the record leaves the store (systemd closes its
    /// copy), so the next start is a fresh one.
    public func withdraw() throws(ContinuationStoreError) {
        do throws(DescriptorStoreError) { try notifier.removeStored(StoredDescriptors.state) } catch { throw .store(error) }
    }

    /// The record in a passed "state" descriptor. The descriptor stays the
    /// caller's (to reuse, or to close).
    public static func read(from fd: Int32) throws(ContinuationStoreError) -> ContinuationRecord {
        let bytes: [UInt8]
        do throws(MemoryFileError) { bytes = try MemoryFile.contents(of: fd, limit: ContinuationRecordCodec.maxBytes) } catch { throw .file(error) }
        do throws(ContinuationRecordError) { return try ContinuationRecordCodec.decode(bytes) } catch { throw .record(error) }
    }
}

/// Why the record was not kept or not read back.
public enum ContinuationStoreError: Error, Equatable, CustomStringConvertible {
    case record(ContinuationRecordError)
    case file(MemoryFileError)
    case system(SystemError)
    case store(DescriptorStoreError)

    public var description: String {
        switch self {
        case .record(let error): "\(error)"
        case .file(let error): "the state descriptor: \(error)"
        case .system(let error): "the state memory file: \(error)"
        case .store(let error): "\(error)"
        }
    }
}
