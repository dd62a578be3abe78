import FiledropCore
import FiledropSystemd
import Glibc

// filedrop [options] | filedrop passwd | filedrop reload | --help | --version. Exit codes: 0 done,
// 1 failed while running, 2 invalid configuration or usage (as systemd's LSB convention).
// `filedrop send|get|ls` are the client (Sources/filedrop-client), with their own exit codes.
if let code = ClientLauncher.execIfRequested(CommandLine.arguments) {
    exit(code)
}

let command: Command
do {
    command = try ConfigurationLoader.parse(
        arguments: Array(CommandLine.arguments.dropFirst()),
        environment: ProcessEnvironment.current(),
        readFile: readTextFile,
        fileExists: { access($0, F_OK) == 0 })
} catch {
    writeStandardError("filedrop: \(error)\n")
    exit(StartupError.invalidConfiguration)
}

switch command {
case .help(let text):
    print(text)
case .version(let text):
    print(text)
case .passwd:
    exit(PasswdCommand.run())
case .reload(let controlSocket):
    exit(ReloadCommand.run(controlSocket: controlSocket))
case .run(let configuration):
    exit(Daemon(configuration: configuration).run())
}
