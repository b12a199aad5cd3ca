import Glibc

/// CLOCK_MONOTONIC in seconds: the clock DRM stamps flip events with
/// (DRM_CAP_TIMESTAMP_MONOTONIC), so scene time and vblank times compare.
public enum MonotonicClock {
    @inline(__always)
    public static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
