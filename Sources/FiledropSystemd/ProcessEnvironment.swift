import Glibc

/// The process environment as a dictionary, for the parts of filedrop that take their
/// environment as a value (the configuration loader, the notifier, the log sink chooser).
public enum ProcessEnvironment {
    public static func current() -> [String: String] {
        var environment: [String: String] = [:]
        var entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        while let pointer = entry?.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry = entry?.successor()
        }
        return environment
    }
}

/// CLOCK_MONOTONIC, the clock systemd's MONOTONIC_USEC= and timers are measured on.
public enum MonotonicClock {
    public static func now() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    public static func microseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000 + UInt64(time.tv_nsec) / 1000
    }
}
