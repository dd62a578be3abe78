import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A folder of the drop as `GET /files/DIR/?format=json` describes it:
/// `{"path":"dir/","entries":[{"name","type","size","mtime","url"}]}`. The wire format is
/// declared by `Tests/Fixtures/json/listing.json`, which the server's tests produce and
/// the client's decode.
public struct Listing: Sendable, Equatable, Decodable {
    public struct Entry: Sendable, Equatable, Decodable {
        public enum Kind: String, Sendable, Decodable {
            case file, directory
        }

        public var name: String
        public var type: Kind
        /// Bytes; nil for folders.
        public var size: Int64?
        /// ISO 8601 modification time, as the server sent it.
        public var mtime: String
        /// The entry's path on the server, percent-encoded (`/files/a%20b.txt`).
        public var url: String
        /// The file's recorded SHA-256 (lowercase hex), when the server has one.
        public var sha256: String? = nil
    }

    /// The folder, relative to the drop, with a trailing slash ("" for the top).
    public var path: String
    public var entries: [Entry]
}

extension FiledropClient {
    /// The entries of `directory` ("" for the top of the drop, `a/b` for a subfolder).
    public func list(_ directory: String = "") async throws(FiledropClientError) -> Listing {
        let trimmed = directory.split(separator: "/").joined(separator: "/")
        let path = "/files/" + (trimmed.isEmpty ? "" : Self.percentEncodedPath(trimmed) + "/") + "?format=json"
        var request = makeRequest(path: path)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let result = try await send(request)
        do {
            return try JSONDecoder().decode(Listing.self, from: result.body)
        } catch {
            throw .invalidResponse("the listing is not the expected JSON: \(error)")
        }
    }
}
