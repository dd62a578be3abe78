/// IMF-fixdate (RFC 9110 §5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`, from and to seconds
/// since 1970. Pure arithmetic (civil-from-days), so the core needs no C library.
public enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The names again as one literal each, three bytes a name, for `format`.
    private static let weekdayBytes: StaticString = "ThuFriSatSunMonTueWed"
    private static let monthBytes: StaticString = "JanFebMarAprMayJunJulAugSepOctNovDec"

    /// Written straight into the String's storage from literals: every file response carries
    /// a Last-Modified.
    public static func format(_ secondsSince1970: Int64) -> String {
        let days = floorDivide(secondsSince1970, 86_400)
        let secondOfDay = Int(secondsSince1970 - days * 86_400)
        let (year, month, day) = civil(fromDays: days)
        let weekday = Int(((days % 7) + 7) % 7)
        return String(unsafeUninitializedCapacity: 48) { buffer in
            var count = 0
            func put(_ byte: UInt8) {
                buffer[count] = byte
                count += 1
            }
            func putName(_ names: StaticString, _ index: Int) {
                for offset in 0..<3 { put(names.utf8Start[index * 3 + offset]) }
            }
            func putTwoDigits(_ value: Int) {
                put(0x30 + UInt8(value / 10))
                put(0x30 + UInt8(value % 10))
            }
            putName(weekdayBytes, weekday)
            put(UInt8(ascii: ","))
            put(UInt8(ascii: " "))
            putTwoDigits(day)
            put(UInt8(ascii: " "))
            putName(monthBytes, month - 1)
            put(UInt8(ascii: " "))
            if (1000...9999).contains(year) {
                putTwoDigits(year / 100)
                putTwoDigits(year % 100)
            } else {
                for byte in String(year).utf8 { put(byte) }
            }
            put(UInt8(ascii: " "))
            putTwoDigits(secondOfDay / 3600)
            put(UInt8(ascii: ":"))
            putTwoDigits(secondOfDay / 60 % 60)
            put(UInt8(ascii: ":"))
            putTwoDigits(secondOfDay % 60)
            for byte in " GMT".utf8 { put(byte) }
            return count
        }
    }

    /// ISO 8601 in UTC (`2026-11-30T07:00:00Z`), for JSON.
    public static func iso8601(_ secondsSince1970: Int64) -> String {
        var bytes: [UInt8] = []
        appendISO8601(secondsSince1970, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `iso8601` written onto `bytes`, with `separator` between date and time and `zone`
    /// after it (the HTML listing says `2026-11-30 07:00:00 UTC`): a listing writes one per
    /// entry, so no String is made for it.
    public static func appendISO8601(
        _ secondsSince1970: Int64, to bytes: inout [UInt8], separator: UInt8 = UInt8(ascii: "T"),
        zone: StaticString = "Z"
    ) {
        let days = floorDivide(secondsSince1970, 86_400)
        let secondOfDay = Int(secondsSince1970 - days * 86_400)
        let (year, month, day) = civil(fromDays: days)
        func putTwoDigits(_ value: Int) {
            bytes.append(0x30 + UInt8(value / 10))
            bytes.append(0x30 + UInt8(value % 10))
        }
        if (1000...9999).contains(year) {
            putTwoDigits(year / 100)
            putTwoDigits(year % 100)
        } else {
            bytes.append(contentsOf: String(year).utf8)
        }
        bytes.append(UInt8(ascii: "-"))
        putTwoDigits(month)
        bytes.append(UInt8(ascii: "-"))
        putTwoDigits(day)
        bytes.append(separator)
        putTwoDigits(secondOfDay / 3600)
        bytes.append(UInt8(ascii: ":"))
        putTwoDigits(secondOfDay / 60 % 60)
        bytes.append(UInt8(ascii: ":"))
        putTwoDigits(secondOfDay % 60)
        bytes.append(contentsOf: UnsafeBufferPointer(start: zone.utf8Start, count: zone.utf8CodeUnitCount))
    }

    /// Parses IMF-fixdate only (the obsolete forms are rare enough to treat as absent).
    public static func parse(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", parts[0].count == 4, parts[0].hasSuffix(","),
            let day = Int(parts[1]), let monthIndex = months.firstIndex(of: String(parts[2])),
            let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let h = Int(clock[0]), let m = Int(clock[1]), let s = Int(clock[2]),
            (1...31).contains(day), (0..<24).contains(h), (0..<60).contains(m), (0...60).contains(s)
        else { return nil }
        return days(fromCivil: year, month: monthIndex + 1, day: day) * 86_400 + Int64(h * 3600 + m * 60 + s)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : (a - b + 1) / b }

    // Howard Hinnant's days-from-civil algorithms.
    private static func civil(fromDays z0: Int64) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = floorDivide(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (Int(yoe + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }

    private static func days(fromCivil year0: Int, month: Int, day: Int) -> Int64 {
        let year = Int64(month <= 2 ? year0 - 1 : year0)
        let era = floorDivide(year, 400)
        let yoe = year - era * 400
        let mp = Int64(month > 2 ? month - 3 : month + 9)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
