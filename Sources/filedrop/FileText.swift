import Glibc

/// Reads a whole (small) text file such as the configuration; nil when it cannot be read.
func readTextFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count > 0 { bytes += buffer[0..<count] }
        if count < buffer.count { break }
    }
    return ferror(file) == 0 ? String(decoding: bytes, as: UTF8.self) : nil
}

func writeStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
}

/// Reads a whole (small) file such as a PEM certificate or key, as bytes; nil when it
/// cannot be read, with errno telling why.
func readSmallFile(_ path: String, limit: Int = 1 << 20) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    while bytes.count <= limit {
        let count = read(descriptor, &buffer, buffer.count)
        if count < 0 {
            if errno == EINTR { continue }
            return nil
        }
        if count == 0 { return bytes }
        bytes += buffer[0..<count]
    }
    errno = EFBIG
    return nil
}
