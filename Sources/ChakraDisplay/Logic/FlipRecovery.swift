import Glibc

/// What to do when a page flip or a modeset fails, by errno. A failure never
/// stops the daemon: the frame is dropped and the output recovers, so the
/// screen cannot stay frozen on an old frame.
public enum FlipRecovery: Equatable, Sendable {
    /// EBUSY: the previous commit is still in flight; try the next frame a
    /// refresh later.
    case retryLater
    /// EACCES/EPERM: another process is DRM master (a VT switch we were not
    /// told about, a display server); retake master, then re-set the mode.
    case regainMaster
    /// EINVAL/ENOENT/ENOSPC and the rest: the configuration is no longer
    /// valid (connector gone, mode changed, CRTC taken): probe the
    /// connectors again and do a full modeset.
    case reprobe

    public init(errno code: Int32) {
        switch code {
        case EBUSY, EAGAIN: self = .retryLater
        case EACCES, EPERM: self = .regainMaster
        default: self = .reprobe
        }
    }

    /// A flip failure that means the driver cannot flip at all: it says so
    /// (EOPNOTSUPP), or says EINVAL to the first flip after a modeset that
    /// worked (so the configuration itself is fine), and again after the
    /// reprobe and modeset that follow (once could be a display unplugged
    /// between the two).
    public static func flipsUnsupported(errno code: Int32, rejectionsAfterGoodModeset: Int) -> Bool {
        code == EOPNOTSUPP || (code == EINVAL && rejectionsAfterGoodModeset >= 2)
    }

    /// Seconds before trying again.
    public func delay(refreshInterval: Double) -> Double {
        switch self {
        case .retryLater: refreshInterval
        case .regainMaster: 1
        case .reprobe: 0.25
        }
    }
}

/// Rate-limits the log of a failure that may repeat every frame: the 1st,
/// 10th, 100th... occurrence is logged, and the count is told on recovery.
public struct FailureCounter: Sendable, Equatable {
    public private(set) var count = 0

    public init() {}

    /// Counts a failure; true when this one should be logged.
    public mutating func record() -> Bool {
        count += 1
        var n = count
        while n % 10 == 0 { n /= 10 }
        return n == 1
    }

    /// Success: returns how many failures there were, and starts over.
    public mutating func reset() -> Int {
        defer { count = 0 }
        return count
    }
}
