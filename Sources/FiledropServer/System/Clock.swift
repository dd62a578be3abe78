import Glibc

/// The clocks the I/O layer passes into the core state machines.
public enum Clock {
    /// CLOCK_MONOTONIC in nanoseconds: deadlines and durations.
    public static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Wall-clock seconds since 1970: Date headers.
    public static func wallClockSeconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }

    /// Wall-clock nanoseconds since 1970: names that sort by time across restarts.
    public static func wallClockNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
