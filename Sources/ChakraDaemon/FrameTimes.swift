/// The last frames' drawing times, in a ring of fixed size: recording one
/// is a store and an increment, never an allocation (the frame loop calls
/// it every frame). The summary sorts a copy, and is taken only when the
/// status is published (every couple of seconds, or on a change).
public struct FrameTimes: Sendable {
    public static let capacity = 240   // 4 s at 60 fps, 12 s at 20 fps

    public struct Summary: Sendable, Equatable {
        /// Milliseconds.
        public var median = 0.0
        public var p99 = 0.0
        /// Frames the figures are taken over.
        public var samples = 0

        public init(median: Double = 0, p99: Double = 0, samples: Int = 0) {
            (self.median, self.p99, self.samples) = (median, p99, samples)
        }
    }

    private var ring = [Double](repeating: 0, count: FrameTimes.capacity)
    private var next = 0
    private var count = 0

    public init() {}

    /// One frame took `milliseconds`.
    @inline(__always)
    public mutating func record(_ milliseconds: Double) {
        ring[next] = milliseconds
        next = next + 1 == Self.capacity ? 0 : next + 1
        if count < Self.capacity { count += 1 }
    }

    /// Median and 99th percentile (nearest rank) of the frames recorded.
    public var summary: Summary {
        guard count > 0 else { return Summary() }
        let sorted = ring[0..<count].sorted()
        func rank(_ p: Double) -> Double { sorted[min(count - 1, Int((Double(count) * p).rounded(.up)) - 1)] }
        return Summary(median: rank(0.5), p99: rank(0.99), samples: count)
    }
}
