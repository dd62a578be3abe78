import FiledropClient
import FiledropCore
import FiledropHTTP
import Foundation
import Glibc
import Synchronization

/// Shows a transfer's progress on standard error: a bar redrawn in place on a terminal,
/// plain lines at every tenth (and when resuming) otherwise, so logs stay readable.
final class TerminalProgress: Sendable {
    private let label: String
    private let verb: String
    private let quiet: Bool
    private let isTerminal = isatty(STDERR_FILENO) == 1
    /// What was drawn so far; the lock also keeps two reports from interleaving their writes.
    private let drawn = Mutex(Drawn())

    private struct Drawn {
        var lastTenth = -1
        var announcedResume = false
        var drewBar = false
    }

    init(label: String, verb: String, quiet: Bool) {
        self.label = ClientOutput.escaped(label)
        self.verb = verb
        self.quiet = quiet
    }

    func show(_ progress: TransferProgress) {
        guard !quiet else { return }
        drawn.withLock { drawn in
            if progress.resumedFrom > 0, !drawn.announcedResume {
                drawn.announcedResume = true
                if drawn.drewBar { writeStandardError("\n") }
                writeStandardError("\(label): resuming at \(progress.resumedFrom) bytes\n")
            }
            if isTerminal {
                drawBar(progress, &drawn)
            } else {
                printLine(progress, &drawn)
            }
        }
    }

    /// Ends the bar's line.
    func finish() {
        drawn.withLock { drawn in
            if drawn.drewBar { writeStandardError("\n") }
            drawn.drewBar = false
        }
    }

    private func drawBar(_ progress: TransferProgress, _ drawn: inout Drawn) {
        let width = 24
        let fraction = progress.fraction ?? 0
        let filled = min(width, Int(fraction * Double(width)))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let total = progress.total.map { " / " + ByteCount.format(UInt64($0)) } ?? ""
        let rate = progress.bytesPerSecond > 0 ? "  " + ByteCount.format(UInt64(progress.bytesPerSecond)) + "/s" : ""
        let percent = progress.fraction.map { String(Int(($0 * 100).rounded(.down))) + "%" } ?? ""
        writeStandardError(
            "\r\u{1B}[2K\(verb) \(label) [\(bar)] \(percent) \(ByteCount.format(UInt64(progress.bytes)))\(total)\(rate)")
        drawn.drewBar = true
    }

    private func printLine(_ progress: TransferProgress, _ drawn: inout Drawn) {
        guard let fraction = progress.fraction else { return }
        let tenth = Int((fraction * 10).rounded(.down))
        guard tenth > drawn.lastTenth else { return }
        drawn.lastTenth = tenth
        writeStandardError("\(verb) \(label): \(tenth * 10)% (\(progress.bytes) of \(progress.total ?? 0) bytes)\n")
    }
}

/// What the client commands print: results on standard output, problems on standard error,
/// control characters in names escaped so a hostile name cannot repaint the terminal.
enum ClientOutput {
    static func line(_ text: String) {
        var text = text + "\n"
        text.withUTF8 { bytes in _ = write(STDOUT_FILENO, bytes.baseAddress, bytes.count) }
    }

    static func error(_ text: String) {
        writeStandardError(text + "\n")
    }

    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
