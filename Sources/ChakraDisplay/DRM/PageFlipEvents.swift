import CDRM

/// Reads page-flip completion events from the DRM descriptor with
/// drmHandleEvent (libdrm reads into a stack buffer: nothing is allocated).
/// The flip's user data is this object, unretained: the owner (DRMOutput)
/// keeps it alive for as long as the descriptor can deliver events.
final class PageFlipEvents {
    private let context: UnsafeMutablePointer<drmEventContext>
    /// Set by the handler during `dispatch`.
    private(set) var completed = false
    private(set) var timestamp = 0.0
    private(set) var sequence: UInt32 = 0

    init() {
        context = .allocate(capacity: 1)
        context.initialize(to: drmEventContext())
        context.pointee.version = 2
        context.pointee.page_flip_handler = { _, sequence, seconds, microseconds, userData in
            guard let userData else { return }
            let sink = Unmanaged<PageFlipEvents>.fromOpaque(userData).takeUnretainedValue()
            sink.completed = true
            sink.sequence = sequence
            sink.timestamp = Double(seconds) + Double(microseconds) / 1e6
        }
    }

    deinit { context.deallocate() }

    var userData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Handles whatever events are readable; true when a flip completed.
    func dispatch(fd: Int32) -> Bool {
        completed = false
        _ = drmHandleEvent(fd, context)
        return completed
    }
}
