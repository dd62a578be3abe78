/// Reads options: `--key VALUE`, `--key=VALUE`, and for booleans also `--key`, `--no-key`
/// and `--key yes`. There are no positional arguments.
enum CommandLineParser {
    enum Outcome {
        case help
        case version
        case settings([ConfigurationLoader.Setting])
    }

    static func parse(_ arguments: [String]) throws(ConfigurationError) -> Outcome {
        var settings: [ConfigurationLoader.Setting] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "-h", "--help": return .help
            case "-V", "--version": return .version
            default: break
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw ConfigurationError(key: argument, reason: .unexpectedArgument, location: .commandLine)
            }
            let option = argument.dropFirst(2)
            let name = String(option.prefix(while: { $0 != "=" }))
            let inlineValue = option.firstIndex(of: "=").map { String(option[option.index(after: $0)...]) }

            if ConfigKey.named(name) == nil, name.hasPrefix("no-"), inlineValue == nil,
                let key = ConfigKey.named(String(name.dropFirst(3))), key.kind == .boolean
            {
                settings.append(.init(key: key, value: "false", location: .commandLine))
                continue
            }
            guard let key = ConfigKey.named(name) else {
                throw ConfigurationError(key: "--\(name)", reason: .unknownFlag, location: .commandLine)
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if key.kind == .boolean {
                if index < arguments.endIndex, ConfigKey.parseBoolean(arguments[index]) != nil {
                    value = arguments[index]
                    index += 1
                } else {
                    value = "true"
                }
            } else if index < arguments.endIndex, !arguments[index].hasPrefix("--") {
                value = arguments[index]
                index += 1
            } else {
                throw ConfigurationError(key: key.flag, reason: .missingValue, location: .commandLine)
            }
            settings.append(.init(key: key, value: value, location: .commandLine))
        }
        return .settings(settings)
    }
}
