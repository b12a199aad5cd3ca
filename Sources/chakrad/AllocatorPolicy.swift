import CAllocator

/// How the C allocator (glibc's malloc, under Swift's allocations) keeps
/// the daemon's memory. Frames, crossfade frames, scene surfaces and
/// snapshot copies are blocks of megabytes made when a scene is built, a
/// crossfade starts or a snapshot is taken, and freed afterwards (never
/// per frame). By default glibc raises its mmap threshold each time such a
/// block is freed, so the next ones come from the heap, and the heap of
/// each thread's arena keeps what was freed: at 1920x1080, crossfades and
/// snapshots took the daemon from 27 MB at start to 108-112 MB resident. A fixed
/// threshold maps every big block on its own and unmaps it when freed, and
/// two arenas keep the encoder and render threads from holding heaps of
/// their own: 49-50 MB resident in the same run (docs/bench.md).
enum AllocatorPolicy {
    /// Blocks this big and bigger are mapped on their own.
    static let mapThreshold: Int32 = 256 * 1024
    static let arenas: Int32 = 2

    /// Before anything big is allocated. False if glibc refused.
    static func apply() -> Bool {
        mallopt(M_MMAP_THRESHOLD, mapThreshold) == 1 && mallopt(M_ARENA_MAX, arenas) == 1
    }
}
