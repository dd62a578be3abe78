/// Turns the command line, the environment and the configuration file into a `Command`.
/// Pure: the environment and the file system come in as values and closures, so tests
/// need no disk. Precedence, highest first: flags, `FILEDROP_*` variables, the file, defaults.
/// Every value is validated, even one a higher source overrides, so a typo never hides.
public enum ConfigurationLoader {
    public static let version = "filedrop 0.1.0"
    public static let defaultConfigFile = "/etc/filedrop/filedrop.conf"
    /// The packaged service's control socket (RuntimeDirectory=filedrop), where `filedrop
    /// reload` looks when nothing else names one.
    public static let packagedControlSocket = "/run/filedrop/control.sock"

    /// One value for one key, with where it came from for error messages.
    struct Setting {
        var key: ConfigKey
        var value: String
        var location: ConfigurationError.Location
    }

    /// - Parameters:
    ///   - arguments: the command line without the program name.
    ///   - environment: the process environment.
    ///   - readFile: the contents of a file, nil when it cannot be read.
    ///   - fileExists: whether a path exists (for the default config file and credentials).
    public static func parse(
        arguments: [String],
        environment: [String: String],
        readFile: (String) -> String?,
        fileExists: (String) -> Bool
    ) throws(ConfigurationError) -> Command {
        if arguments.first == "passwd" {
            if arguments.count > 1 {
                throw ConfigurationError(key: arguments[1], reason: .unexpectedArgument, location: .commandLine)
            }
            return .passwd
        }
        if arguments.first == "reload" {
            return try reloadCommand(
                arguments: Array(arguments.dropFirst()), environment: environment,
                readFile: readFile, fileExists: fileExists)
        }
        let flagSettings: [Setting]
        switch try CommandLineParser.parse(arguments) {
        case .help: return .help(HelpText.render())
        case .version: return .version(version)
        case .settings(let settings): flagSettings = settings
        }
        let environmentSettings = try settings(fromEnvironment: environment)

        var configuration = defaults(environment: environment, fileExists: fileExists)
        let isConfigFile: (Setting) -> Bool = { $0.key.name == "config" }
        let explicitFile = flagSettings.last(where: isConfigFile) ?? environmentSettings.last(where: isConfigFile)
        let path: String? =
            if let explicitFile {
                explicitFile.value.isEmpty ? nil : explicitFile.value
            } else {
                fileExists(defaultConfigFile) ? defaultConfigFile : nil
            }
        if let path {
            guard let text = readFile(path) else {
                throw ConfigurationError(key: path, reason: .unreadableFile, location: explicitFile?.location ?? .commandLine)
            }
            try apply(settings(fromFile: text, path: path), to: &configuration)
        }
        try apply(environmentSettings, to: &configuration)
        try apply(flagSettings, to: &configuration)
        configuration.configFile = path
        return .run(configuration)
    }

    /// `filedrop reload [--control-socket PATH] [--config FILE]`: the control socket the
    /// daemon's configuration names. A configuration that does not parse (what the reload is
    /// about to report) leaves the option, FILEDROP_CONTROL_SOCKET, $RUNTIME_DIRECTORY and
    /// the packaged path, in that order.
    static func reloadCommand(
        arguments: [String], environment: [String: String], readFile: (String) -> String?,
        fileExists: (String) -> Bool
    ) throws(ConfigurationError) -> Command {
        let flags: [Setting]
        switch try CommandLineParser.parse(arguments) {
        case .help: return .help(HelpText.render())
        case .version: return .version(version)
        case .settings(let settings): flags = settings
        }
        if let other = flags.first(where: { $0.key.name != "control-socket" && $0.key.name != "config" }) {
            throw ConfigurationError(key: other.key.flag, reason: .unexpectedArgument, location: .commandLine)
        }
        if case .run(let configuration)? = try? parse(
            arguments: arguments, environment: environment, readFile: readFile, fileExists: fileExists),
            let path = configuration.controlSocket
        {
            return .reload(controlSocket: path)
        }
        let path =
            flags.last(where: { $0.key.name == "control-socket" })?.value
            ?? environment["FILEDROP_CONTROL_SOCKET"]
            ?? defaults(environment: environment, fileExists: fileExists).controlSocket
            ?? packagedControlSocket
        return .reload(controlSocket: path)
    }

    /// Defaults, with the two that depend on the machine: systemd's StateDirectory= and a
    /// packaged web root.
    static func defaults(environment: [String: String], fileExists: (String) -> Bool) -> Configuration {
        var configuration = Configuration()
        // systemd.exec(5): STATE_DIRECTORY holds the StateDirectory= paths, colon-separated.
        // The first is the save directory; a second one keeps the TLS keys out of it.
        let stateDirectories = environment["STATE_DIRECTORY"]?.split(separator: ":") ?? []
        if let saveDirectory = stateDirectories.first {
            configuration.saveDirectory = String(saveDirectory)
        }
        if stateDirectories.count > 1 {
            configuration.tlsDirectory = String(stateDirectories[1])
        }
        // systemd.exec(5) LoadCredential=: the key is readable by this process only.
        if let credentials = environment["CREDENTIALS_DIRECTORY"] {
            for (file, member) in [("tls.crt", \Configuration.tlsCertificateFile), ("tls.key", \Configuration.tlsKeyFile)]
            where fileExists(credentials + "/" + file) {
                configuration[keyPath: member] = credentials + "/" + file
            }
        }
        // systemd.exec(5): RUNTIME_DIRECTORY holds the RuntimeDirectory= paths, colon-separated.
        if let runtimeDirectory = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first {
            configuration.controlSocket = runtimeDirectory + "/control.sock"
        }
        return configuration
    }

    /// Applies one source's settings in order. A list key seen in this source replaces
    /// what lower sources gave it; its repeats within the source accumulate.
    static func apply(_ settings: [Setting], to configuration: inout Configuration) throws(ConfigurationError) {
        var listsStarted: Set<String> = []
        for setting in settings {
            if case .list = setting.key.kind, listsStarted.insert(setting.key.name).inserted {
                setting.key.clearList(&configuration)
            }
            guard setting.key.apply(&configuration, setting.value) else {
                throw ConfigurationError(
                    key: setting.key.name, value: setting.value,
                    reason: .invalidValue(expected: setting.key.expected), location: setting.location)
            }
        }
    }

    /// `FILEDROP_*` variables named by the key table; others are left alone. A list
    /// variable may hold several values separated by commas or spaces.
    static func settings(fromEnvironment environment: [String: String]) throws(ConfigurationError) -> [Setting] {
        var settings: [Setting] = []
        for key in ConfigKey.all {
            guard let value = environment[key.environmentVariable] else { continue }
            let location = ConfigurationError.Location.environment(variable: key.environmentVariable)
            if case .list = key.kind {
                let values = value.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" })
                if values.isEmpty {
                    throw ConfigurationError(
                        key: key.name, value: value, reason: .invalidValue(expected: key.expected), location: location)
                }
                settings += values.map { Setting(key: key, value: String($0), location: location) }
            } else {
                settings.append(Setting(key: key, value: value, location: location))
            }
        }
        return settings
    }

    static func settings(fromFile text: String, path: String) throws(ConfigurationError) -> [Setting] {
        try ConfigFileParser.parse(text, path: path).map { (entry) throws(ConfigurationError) -> Setting in
            let location = ConfigurationError.Location.file(path: path, line: entry.line)
            guard let key = ConfigKey.named(entry.key) else {
                throw ConfigurationError(key: entry.key, value: entry.value, reason: .unknownKey, location: location)
            }
            guard key.settableInFile else {
                throw ConfigurationError(key: entry.key, value: entry.value, reason: .notAllowedHere, location: location)
            }
            return Setting(key: key, value: entry.value, location: location)
        }
    }
}
