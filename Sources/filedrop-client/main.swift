import Foundation
import Glibc

// `filedrop send|get|ls`: the daemon's executable execs this one for those commands, so
// the daemon itself never loads Foundation, libcurl or ICU (about 15 MiB of RSS).
let arguments = Array(CommandLine.arguments.dropFirst())
guard let code = ClientCommandLine.runIfRequested(arguments: arguments, environment: ProcessInfo.processInfo.environment) else {
    writeStandardError("usage: filedrop send FILE... | filedrop get NAME | filedrop ls\n")
    exit(2)
}
exit(code)

func writeStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
}
