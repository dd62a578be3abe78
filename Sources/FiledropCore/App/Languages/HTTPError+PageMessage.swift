import FiledropHTTP

/// The sentences of errors a browser's visitor meets on the server's pages, in their language.
/// A sentence the code writes with details (a refusal's reason) is found among the
/// catalogue's `refusal.` templates (`PageText.refusal`); errors whose sentence is fixed have
/// a key of their own (`error.<case>`). What neither covers stays the English one the API
/// sends, as JSON and text do.
extension HTTPError {
    func pageMessage(_ text: PageText) -> String? {
        if hasDetailSentence, let translated = text.refusal(message) { return translated }
        switch self {
        case .notFound: return text.known("error.notFound")
        case .methodNotAllowed: return text.known("error.methodNotAllowed")
        case .rangeNotSatisfiable: return text.known("error.rangeNotSatisfiable")
        case .contentTooLarge(let limit):
            return text.known("error.contentTooLarge").map { _ in text("error.contentTooLarge", ["limit": text.size(limit)]) }
        case .unauthorized: return text.known("error.unauthorized")
        case .tooManyRequests: return text.known("error.tooManyRequests")
        default: return nil
        }
    }

    /// The cases whose `message` is a sentence the caller wrote.
    private var hasDetailSentence: Bool {
        switch self {
        case .badRequest, .notFoundBecause, .methodNotAllowedBecause, .unsupportedMediaType, .conflict, .forbidden,
            .unauthorized, .tooManyRequests, .misdirectedRequest, .preconditionFailed, .insufficientStorage,
            .serviceUnavailable, .badGateway:
            true
        default:
            false
        }
    }
}
