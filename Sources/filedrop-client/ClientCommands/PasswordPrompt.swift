import Glibc

/// Asks for a password on the controlling terminal with echo off (termios(3)), as `ssh`
/// and `sudo` do; nil when there is no terminal (a script), so it never blocks a pipeline.
enum PasswordPrompt {
    static func read(_ prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        let terminal = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard terminal >= 0 else { return nil }
        defer { close(terminal) }
        var saved = termios()
        guard tcgetattr(terminal, &saved) == 0 else { return nil }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        _ = tcsetattr(terminal, TCSAFLUSH, &silent)
        defer {
            _ = tcsetattr(terminal, TCSAFLUSH, &saved)
            _ = write(terminal, "\n", 1)
        }
        _ = prompt.withCString { write(terminal, $0, strlen($0)) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(terminal, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            bytes.append(byte)
        }
        let password = String(decoding: bytes, as: UTF8.self)
        return password.isEmpty ? nil : password
    }
}
