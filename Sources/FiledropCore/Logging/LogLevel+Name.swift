import FiledropHTTP

extension LogLevel: CaseIterable {
    public static let allCases: [LogLevel] = [.error, .warning, .notice, .info, .debug]

    /// The word used in configuration (`log-level`) and in text log lines.
    public var name: String {
        switch self {
        case .error: "error"
        case .warning: "warning"
        case .notice: "notice"
        case .info: "info"
        case .debug: "debug"
        }
    }

    /// Reads the words `name` produces.
    public init?(name: String) {
        guard let level = LogLevel.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }
}
