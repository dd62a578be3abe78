@testable import FiledropCore
@testable import FiledropHTTP

/// Plays the connection for an app in memory: routes a head, feeds the body in `pieces`,
/// runs any blocking work inline (where a live server hands it to a worker), and returns the
/// final response. Pauses are honoured as the state machine does: the bytes a consumer did
/// not take are offered again after its work and `then`.
enum RequestDriver {
    static func send(_ decision: RouteDecision, body: [UInt8] = [], pieces: Int = 1) -> Response {
        switch decision.resolvedInline() {
        case .respond(let response):
            return response
        case .readBody(let consumer):
            let size = max(1, (body.count + pieces - 1) / pieces)
            var offset = 0
            while offset < body.count {
                let end = min(body.count, offset + size)
                if let failure = offer(Array(body[offset..<end]), to: consumer) {
                    consumer.abort()
                    return .error(failure, format: .text)
                }
                offset = end
            }
            return consumer.finish(trailers: HTTPHeaders()).resolvedInline()
        case .after:
            preconditionFailure("resolvedInline leaves no step")
        }
    }

    /// Offers `bytes` until all are taken; the error that ended the body, if any.
    static func offer(_ bytes: [UInt8], to consumer: any RequestBodyConsumer) -> HTTPError? {
        var rest = bytes[...]
        while !rest.isEmpty {
            let intake: Result<BodyIntake, HTTPError> = rest.withUnsafeBytes { raw in
                do throws(HTTPError) { return .success(try consumer.consume(raw)) } catch { return .failure(error) }
            }
            switch intake {
            case .failure(let error):
                return error
            case .success(.accepted):
                return nil
            case .success(.paused(let accepted, let work, let then)):
                work.run()
                do throws(HTTPError) { try then() } catch { return error }
                rest = rest.dropFirst(accepted)
            }
        }
        return nil
    }
}
