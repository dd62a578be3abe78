import FiledropHTTP

/// A small JSON request body, kept in memory up to `limit` bytes (413 past it) and handed
/// whole to `decide`: LocalSend's `register` and `prepare-upload`.
final class LocalSendJSONBody: RequestBodyConsumer {
    private let limit: Int
    private var bytes: [UInt8] = []
    private let decide: ([UInt8]) -> Deferred<Response>

    init(limit: Int, decide: @escaping ([UInt8]) -> Deferred<Response>) {
        self.limit = limit
        self.decide = decide
    }

    func consume(_ input: UnsafeRawBufferPointer) throws(HTTPError) -> BodyIntake {
        guard bytes.count + input.count <= limit else { throw .contentTooLarge(limit: UInt64(limit)) }
        bytes.append(contentsOf: input)
        return .accepted
    }

    func finish(trailers: HTTPHeaders) -> Deferred<Response> {
        decide(bytes)
    }

    func abort() {
        bytes = []
    }
}
