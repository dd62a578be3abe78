import Glibc

/// The names this machine answers to on the LAN without any configuration: its hostname
/// and, for mDNS (Avahi), `hostname.local`. Accepted in `Host` by access control.
enum MachineNames {
    static func current() -> [String] {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return [] }
        let name = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard !name.isEmpty else { return [] }
        // A fully qualified hostname also answers to its first label under .local.
        let shortName = name.split(separator: ".").first.map(String.init) ?? name
        return Array(Set([name, shortName, shortName + ".local"])).sorted()
    }
}
