import FiledropCore
import Glibc

/// Open descriptors and resident memory of this process, from `/proc/self` (what
/// Prometheus' own client libraries report as `process_open_fds` and
/// `process_resident_memory_bytes`). Reading /proc is quick but is file I/O: on a worker.
public struct ProcSelfProbe: ProcessProbe {
    public init() {}

    /// Entries of /proc/self/fd, less the one the listing itself holds open.
    public func openFileDescriptors() -> Int? {
        guard let stream = opendir("/proc/self/fd") else { return nil }
        defer { closedir(stream) }
        var count = 0
        while let entry = readdir(stream) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
            if !isDot { count += 1 }
        }
        return max(0, count - 1)
    }

    /// The second field of /proc/self/statm (resident pages), in bytes.
    public func residentBytes() -> UInt64? {
        let descriptor = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let fields = buffer[0..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = UInt64(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
    }
}
