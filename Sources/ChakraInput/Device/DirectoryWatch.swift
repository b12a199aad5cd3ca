import ChakraDisplay
import ChakraSystem
import Glibc

/// What happened to the nodes of the input directory.
public enum InputNodeChange: Equatable, Sendable {
    /// A node to look at (again).
    case appeared(String)
    case vanished(String)
    /// Events were lost (IN_Q_OVERFLOW) or the directory itself came or
    /// went: look at everything again.
    case rescan
}

/// inotify on the input directory (/dev/input): event nodes appearing
/// (IN_CREATE; IN_ATTRIB when udev sets their owner and mode afterwards,
/// which is when an unprivileged daemon can first open them; IN_MOVED_TO)
/// and vanishing (IN_DELETE). Where the directory does not exist yet (no
/// input device since boot), its parent is watched until it appears.
/// Owns the inotify descriptor and its read buffer until deinit.
final class DirectoryWatch {
    typealias Change = InputNodeChange

    let descriptor: Int32
    let directory: String
    private var watch: Int32 = -1
    private var parentWatch: Int32 = -1
    private let buffer: UnsafeMutableRawBufferPointer

    static let nodeMask = UInt32(IN_CREATE | IN_ATTRIB | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM)

    init(directory: String) throws(SystemError) {
        self.directory = directory
        descriptor = try Syscall.check("inotify_init1", { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) })
        // Room for many events of NAME_MAX names: one read per burst.
        buffer = .allocate(byteCount: 16 * (MemoryLayout<inotify_event>.size + Int(NAME_MAX) + 1), alignment: 8)
        watchDirectory()
    }

    deinit {
        Descriptor.close(descriptor)
        buffer.deallocate()
    }

    /// Whether the directory itself is watched (false: only its parent).
    var isWatching: Bool { watch >= 0 }

    /// Watches the directory, or, while it does not exist, its parent.
    @discardableResult
    private func watchDirectory() -> Bool {
        watch = (try? Syscall.check("inotify_add_watch(\(directory))") { inotify_add_watch(descriptor, directory, Self.nodeMask | UInt32(IN_ONLYDIR)) }) ?? -1
        if watch >= 0 {
            if parentWatch >= 0 { _ = try? Syscall.check("inotify_rm_watch") { inotify_rm_watch(descriptor, parentWatch) } }
            parentWatch = -1
            return true
        }
        if parentWatch < 0 {
            let parent = directory.split(separator: "/").dropLast().joined(separator: "/")
            parentWatch = (try? Syscall.check("inotify_add_watch(/\(parent))") {
                inotify_add_watch(descriptor, "/" + parent, UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR))
            }) ?? -1
        }
        return false
    }

    /// Reads every queued event; calls `handle` with what changed.
    func drain(_ handle: (Change) -> Void) {
        while true {
            // EAGAIN: all read (the descriptor is non-blocking).
            guard let count = try? Descriptor.read(descriptor, into: buffer.baseAddress!, count: buffer.count), count > 0 else { return }
            InotifyRecords.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { record in
                self.handle(record, handle)
            }
        }
    }

    private func handle(_ record: InotifyRecords.Record, _ report: (Change) -> Void) {
        if record.mask & UInt32(IN_Q_OVERFLOW) != 0 {
            report(.rescan)
        } else if record.watch == parentWatch, parentWatch >= 0 {
            // Something appeared in the parent: is it the directory?
            if watchDirectory() { report(.rescan) }
        } else if record.watch == watch {
            if record.mask & UInt32(IN_IGNORED) != 0 {
                // The directory was deleted: wait for it to come back.
                watch = -1
                watchDirectory()
                report(.rescan)
                return
            }
            guard let name = record.name, name.hasPrefix("event") else { return }
            let path = directory + "/" + name
            if record.mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
                report(.vanished(path))
            } else {
                report(.appeared(path))
            }
        }
    }
}

/// struct inotify_event records, back to back in what read() returned:
/// wd, mask, cookie, len, then `len` bytes of NUL-padded name.
enum InotifyRecords {
    struct Record {
        var watch: Int32
        var mask: UInt32
        var name: String?
    }

    static let headerSize = 16

    static func parse(_ bytes: UnsafeRawBufferPointer, _ body: (Record) -> Void) {
        var offset = 0
        while offset + headerSize <= bytes.count {
            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let end = min(offset + headerSize + length, bytes.count)
            let nameBytes = bytes[(offset + headerSize)..<end].prefix { $0 != 0 }
            body(Record(watch: watch, mask: mask, name: nameBytes.isEmpty ? nil : String(decoding: nameBytes, as: UTF8.self)))
            offset = end
        }
    }
}
