import FiledropHTTP

/// Renaming (WebDAV MOVE), new folders (WebDAV MKCOL) and the multi-select ZIP download: the
/// page's file operations, each an ordinary request curl can make too. Access (`AccessPolicy`)
/// and the Origin check have passed before any of these runs; the file-system work itself
/// (rename, mkdir, the syncs after them) is blocking work for a worker.
extension FiledropApp {
    /// `MOVE /files/a.txt` with `Destination: /files/b.txt` (RFC 4918 §9.9): only with
    /// allow-delete, never replacing (412 when the destination exists, whatever `Overwrite`
    /// says), 201 with the new URL in `Location`.
    func move(_ source: StoragePath, destinationField: String?, head: RequestHead) throws(HTTPError) -> RouteDecision {
        guard configuration.allowDelete else {
            throw .methodNotAllowed(allowed: StoredFileRoute.allowedMethods)
        }
        try writable()
        guard !source.isRoot else { throw .forbidden("The save directory itself cannot be renamed.") }
        let destination = try store.names.storagePath(
            fromURLPath: Self.destinationURLPath(destinationField, host: head.headers[.host]))
        guard !destination.isRoot else {
            throw .badRequest("The Destination must name a file or folder below /files/, such as /files/new-name.txt.")
        }
        // RFC 4918 §9.9.4: 403 when source and destination are the same resource.
        guard destination != source else { throw .forbidden("The new name is the same as the old one: nothing to rename.") }
        guard !destination.components.starts(with: source.components) else {
            throw StorageError.movedIntoItself.httpError
        }
        let durable = store.policy.durable
        return .blocking(
            "move", skippableWhenAbandoned: false,
            { [storage] () -> Result<FileMetadata.Kind, HTTPError> in
                Self.carryOutMove(source, to: destination, durable: durable, in: storage)
            }
        ) { outcome in
            switch outcome {
            case .success(let kind):
                let location = Self.url(of: destination, isDirectory: kind == .directory)
                return .respond(
                    Response(
                        status: .created,
                        headers: [.location: location.description, .contentType: ResponseFormat.text.contentType],
                        body: .bytes(Array("Renamed to \(location)\n".utf8))))
            case .failure(let error):
                return .respond(.error(error, format: ResponseFormat(head: head), text: languages.text(for: head)))
            }
        }
    }

    /// What `OPTIONS` on a stored file's or folder's URL says it takes (RFC 9110 §9.3.7): the
    /// methods this configuration accepts there, whether or not the name exists yet (finding
    /// out would take a file-system call on the loop). PUT only to a file URL; MKCOL, and
    /// with allow-delete DELETE and MOVE, unless the server is read-only.
    func allowedMethods(isDirectoryURL: Bool) -> [HTTPMethod] {
        var methods: [HTTPMethod] = [.get, .head]
        if configuration.access != .readOnly {
            if !isDirectoryURL { methods.append(.put) }
            methods.append(.mkcol)
            if configuration.allowDelete { methods += [.delete, .move] }
        }
        return methods + [.options]
    }

    /// `MKCOL /files/new/folder/` (RFC 4918 §9.3): 201; 405 when the name exists; 409 when
    /// the parent folder does not; 415 with a body (MKCOL bodies are not understood).
    func makeFolder(_ path: StoragePath, hasBody: Bool, head: RequestHead) throws(HTTPError) -> RouteDecision {
        try writable()
        guard !hasBody else {
            throw .unsupportedMediaType("MKCOL takes no body: send it empty to make a folder.")
        }
        guard let name = path.name else {
            throw .methodNotAllowedBecause("The save directory already exists.", allowed: [.get, .head])
        }
        let durable = store.policy.durable
        return .blocking(
            "make folder", skippableWhenAbandoned: false,
            { [storage] () -> StorageError? in
                do throws(StorageError) {
                    try storage.makeDirectory(path, durable: durable)
                    return nil
                } catch {
                    return error
                }
            }
        ) { failure in
            let error: HTTPError
            switch failure {
            case nil:
                let location = Self.url(of: path, isDirectory: true)
                return .respond(
                    Response(
                        status: .created,
                        headers: [.location: location.description, .contentType: ResponseFormat.text.contentType],
                        body: .bytes(Array("Made \(location)\n".utf8))))
            case .exists?:
                error = .methodNotAllowedBecause(
                    "\(FileNamePolicy.quotedForMessage(name)) already exists.",
                    allowed: StoredFileRoute.allowedMethods)
            case .notFound?:
                error = .conflict(
                    "The folder to make it in, \(FileNamePolicy.quotedForMessage("/" + path.parent.description)), does not exist; make that first."
                )
            case .notADirectory?:
                error = .conflict("A file is in the way: part of that path is a file, not a folder.")
            case let other?:
                error = other.httpError
            }
            return .respond(.error(error, format: ResponseFormat(head: head), text: languages.text(for: head)))
        }
    }

    /// `GET /files/<folder>/?zip&select=a.txt&select=sub/`: the names, checked before the
    /// archive starts (400 for an illegal name; 404, from `DirectoryRead`, for a missing one).
    /// Each value is one entry of the folder; a folder may be written with its trailing `/`.
    func selectedNames(_ values: [String]) throws(HTTPError) -> Set<String> {
        var names = Set<String>()
        for value in values {
            let name = value.hasSuffix("/") ? String(value.dropLast()) : value
            guard !name.isEmpty else {
                throw .badRequest(
                    "Each select parameter needs the name of a file or folder in this folder, such as select=photo.jpg.")
            }
            guard !name.contains("/") else {
                throw .badRequest(
                    "select=\(FileNamePolicy.quotedForMessage(value)) is a path: name an entry of this folder itself, or open the subfolder and select there."
                )
            }
            let checked = try store.names.storagePath(fromComponents: [name])
            if let checkedName = checked.name { names.insert(checkedName) }
        }
        return names
    }

    /// RFC 4918 §10.3: `Destination` is an absolute URI (what WebDAV clients send) or an
    /// absolute path (what people type into curl); either way a path under `/files/` on this
    /// server, returned still percent-encoded for `FileNamePolicy`.
    static func destinationURLPath(_ field: String?, host: String?) throws(HTTPError) -> Substring {
        guard let value = field?.trimmingOWS(), !value.isEmpty else {
            throw .badRequest("A MOVE needs a Destination header with the new path, such as Destination: /files/new-name.txt.")
        }
        var path = Substring(value)
        if let schemeEnd = value.firstRange(of: "://") {
            let afterScheme = value[schemeEnd.upperBound...]
            let authorityEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
            guard OriginCheck.matches(origin: String(value[..<authorityEnd]), host: host) else {
                throw .badGateway("The Destination is on another server; filedrop renames only within its own files.")
            }
            path = value[authorityEnd...]
        }
        guard !path.contains("?"), !path.contains("#") else {
            throw .badRequest("The Destination must be a plain path, without ? or #.")
        }
        guard path.hasASCIIPrefix(Route.filesPrefix) else {
            throw .badRequest("The Destination must be below /files/, such as /files/new-name.txt.")
        }
        return path.dropFirst(Route.filesPrefix.utf8.count)
    }

    /// Blocking. The checks that give a refusal its own sentence (the source is missing, the
    /// destination's folder is), then the rename, whose EEXIST is the one that counts.
    private static func carryOutMove(
        _ source: StoragePath, to destination: StoragePath, durable: Bool,
        in storage: any Storage
    ) -> Result<FileMetadata.Kind, HTTPError> {
        do throws(StorageError) {
            guard let found = try storage.metadata(source) else {
                return .failure(
                    .notFoundBecause(
                        "There is no file or folder \(FileNamePolicy.quotedForMessage("/" + source.description)) to rename."))
            }
            switch try storage.metadata(destination.parent)?.kind {
            case .directory?:
                break
            case .file?:
                return .failure(
                    .conflict(
                        "\(FileNamePolicy.quotedForMessage("/" + destination.parent.description)) is a file, so nothing can be moved into it."
                    ))
            case nil:
                return .failure(
                    .conflict(
                        "The folder to move it into, \(FileNamePolicy.quotedForMessage("/" + destination.parent.description)), does not exist; make that first."
                    ))
            }
            try storage.move(source, to: destination, durable: durable)
            return .success(found.kind)
        } catch .exists {
            return .failure(
                .preconditionFailed(
                    "\(FileNamePolicy.quotedForMessage("/" + destination.description)) already exists; filedrop never replaces a file by renaming. Choose another name, or delete that one first."
                ))
        } catch .notFound {
            return .failure(
                .notFoundBecause(
                    "There is no file or folder \(FileNamePolicy.quotedForMessage("/" + source.description)) to rename."))
        } catch {
            return .failure(error.httpError)
        }
    }

    /// `/files/a/b` (with a final `/` for a folder), percent-encoded: what `Location` says.
    static func url(of path: StoragePath, isDirectory: Bool) -> LocationPath {
        LocationPath(components: CollectionOfOne(Route.filesFolder) + path.components, isFolder: isDirectory)
    }
}
