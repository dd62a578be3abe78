import Glibc

/// A modification time in the two forms a ZIP entry carries it: MS-DOS date and time
/// fields (APPNOTE 4.4.6, two-second resolution, 1980 to 2107, no time zone: we write UTC)
/// and 32-bit UNIX seconds for the extended timestamp extra.
struct ZipTimestamp {
    let dosTime: UInt16
    let dosDate: UInt16
    let unixSeconds: UInt32

    init(nanosecondsSince1970 nanoseconds: Int64) {
        // The DOS fields cannot say anything before 1980-01-01 or after 2107; the UNIX
        // field is unsigned 32-bit here: clamp both rather than wrap.
        let seconds = min(max(nanoseconds / 1_000_000_000, 315_532_800), 4_354_819_199)
        unixSeconds = UInt32(min(seconds, Int64(UInt32.max)))
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        dosDate = UInt16((Int(parts.tm_year) - 80) << 9 | (Int(parts.tm_mon) + 1) << 5 | Int(parts.tm_mday))
        dosTime = UInt16(Int(parts.tm_hour) << 11 | Int(parts.tm_min) << 5 | Int(parts.tm_sec) / 2)
    }
}
