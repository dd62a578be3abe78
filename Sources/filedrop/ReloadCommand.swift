import FiledropCore
import FiledropIO

/// `filedrop reload`: asks the running daemon, through its control socket, to re-read its
/// configuration, and prints its answer. Exit codes: 0 applied, 1 not applied (the daemon
/// keeps the running configuration and says why), 3 no answer (not running, no access).
enum ReloadCommand {
    static func run(controlSocket: String) -> Int32 {
        switch ControlSocketClient.send(ControlRequest(command: "reload"), to: controlSocket) {
        case .success(let reply) where reply.ok:
            print(reply.message)
            return 0
        case .success(let reply):
            writeStandardError("filedrop reload: \(reply.message)\n")
            return 1
        case .failure(let failure):
            writeStandardError("filedrop reload: \(failure)\n")
            return 3
        }
    }
}
