import FiledropIO
import Glibc

/// `filedrop passwd`: reads a password and prints its hash for `password-hash`. On a
/// terminal it asks twice without echo; otherwise it reads the first line of standard
/// input (`echo secret | filedrop passwd`). Exit codes: 0 printed, 1 hashing failed,
/// 2 no usable password.
enum PasswdCommand {
    static func run() -> Int32 {
        let password: [UInt8]
        if isatty(STDIN_FILENO) == 1 {
            guard let first = promptWithoutEcho("Password: "), let second = promptWithoutEcho("Again: ") else {
                writeStandardError("filedrop passwd: no password read\n")
                return 2
            }
            guard first == second else {
                writeStandardError("filedrop passwd: the two passwords differ\n")
                return 2
            }
            password = first
        } else {
            guard let line = readLine(strippingNewline: true) else {
                writeStandardError("filedrop passwd: no password on standard input\n")
                return 2
            }
            password = Array(line.utf8)
        }
        do {
            print(try CryptPassword.hash(password: password))
            return 0
        } catch .emptyPassword {
            writeStandardError("filedrop passwd: the password is empty\n")
            return 2
        } catch {
            writeStandardError("filedrop passwd: \(error)\n")
            return 1
        }
    }

    /// Reads one line from the terminal with echo switched off (termios(3)), restoring it after.
    private static func promptWithoutEcho(_ prompt: String) -> [UInt8]? {
        writeStandardError(prompt)
        var saved = termios()
        let haveTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
        if haveTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        }
        defer {
            if haveTerminal { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
            writeStandardError("\n")
        }
        return readLine(strippingNewline: true).map { Array($0.utf8) }
    }
}
