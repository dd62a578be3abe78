/// The sentences of errors a browser's visitor meets on the server's pages, in their language.
/// Only errors whose sentence is fixed have a key (`error.<case>`); a sentence built from
/// details (a refusal's reason) stays the English one the API sends, as JSON and text do.
extension HTTPError {
    func pageMessage(_ text: PageText) -> String? {
        switch self {
        case .notFound: text.known("error.notFound")
        case .methodNotAllowed: text.known("error.methodNotAllowed")
        case .rangeNotSatisfiable: text.known("error.rangeNotSatisfiable")
        case .contentTooLarge(let limit): text.known("error.contentTooLarge").map { _ in text("error.contentTooLarge", ["limit": text.size(limit)]) }
        case .unauthorized: text.known("error.unauthorized")
        case .tooManyRequests: text.known("error.tooManyRequests")
        default: nil
        }
    }
}
