import FiledropHTTP

extension Route {
    /// The route's label in the request-duration histogram. `head` tells a form upload from
    /// a raw body POSTed with `?name=`, which the upload route serves too.
    func requestKind(_ head: RequestHead) -> RequestKind {
        switch self {
        case .page, .config, .qrCode, .trust, .filesRedirect:
            return .page
        case .uploadForm:
            return QueryParameters(head.query)["name"] == nil ? .formUpload : .putUpload
        case .storedFile(let file):
            switch file.operation {
            case .download, .sha256: return .download
            case .listing, .zipSelection: return .listing
            case .upload: return .putUpload
            case .delete: return .delete
            case .move, .makeFolder: return .fileOperation
            case .options, .methodRefused: return .other
            }
        case .tus(.creation), .tus(.upload(_, .append)):
            return .tusUpload
        case .tus:
            return .tusControl
        case .metrics:
            return .metrics
        case .health:
            return .health
        case .localSend(.upload):
            return .localSendUpload
        case .localSend:
            return .localSendControl
        case .methodRefused:
            return .other
        }
    }
}
