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
