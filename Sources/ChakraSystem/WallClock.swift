import CLinuxKernel
import Glibc

/// CLOCK_REALTIME in seconds since 1970 (UTC): what a schedule follows.
public enum WallClock {
    public static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// A descriptor that turns readable when the wall clock is set (an NTP
/// step, `date -s`, timedatectl, a resume from suspend): a timerfd on
/// CLOCK_REALTIME armed far ahead with TFD_TIMER_CANCEL_ON_SET, which the
/// kernel cancels whenever the clock is set. A daemon asleep in poll(2)
/// until its next scheduled change hears of it at once instead of waking
/// at the wrong hour. Owns the descriptor until deinit.
public final class WallClockSteps {
    public let descriptor: Int32

    public init() throws(SystemError) {
        descriptor = try Syscall.check("timerfd_create(CLOCK_REALTIME)", {
            timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        })
        do {
            try arm()
        } catch {
            Glibc.close(descriptor)
            throw error
        }
    }

    deinit { Glibc.close(descriptor) }

    /// Armed for a time that never comes (the year 2200): only a set clock
    /// makes it readable.
    private func arm() throws(SystemError) {
        var spec = itimerspec()
        spec.it_value.tv_sec = 7_258_118_400
        try Syscall.check("timerfd_settime(CANCEL_ON_SET)", {
            timerfd_settime(descriptor, Int32(TFD_TIMER_ABSTIME) | CLinux_TFD_TIMER_CANCEL_ON_SET(), &spec, nil)
        })
    }

    /// After the descriptor turned readable: true when the clock was set
    /// (the read fails with ECANCELED); the timer is armed again.
    public func acknowledge() -> Bool {
        var expirations: UInt64 = 0
        let count = read(descriptor, &expirations, 8)
        let wasSet = count < 0 && errno == ECANCELED
        try? arm()
        return wasSet
    }
}
