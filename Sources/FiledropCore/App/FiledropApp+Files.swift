import FiledropHTTP

/// `/files/`: a stored file (or a folder's listing), with its validators and ranges.
extension FiledropApp {
    func storedFile(
        _ file: StoredFileRoute, head: RequestHead, context: RequestContext,
        compression: ResponseCompression
    ) throws(HTTPError) -> RouteDecision {
        let path = try store.names.storagePath(fromURLPath: file.urlPath)
        switch file.operation {
        case .download(let attachment):
            return try download(path, head: head, attachment: attachment, compression: compression)
        case .sha256:
            // Reading the xattr opens the file: a worker does it, as for a listing.
            return .blocking("sha256", { [storage] in storage.recordedSHA256(path) }) { sha256 in
                .respond(SHA256Answer(name: path.name ?? "", sha256: sha256).response(format: ResponseFormat(head: head)))
            }
        case .listing(let zip):
            if !zip, let answer = LanguageSwitch.answer(head, back: Self.url(of: path, isDirectory: true)) {
                return .respond(answer)
            }
            return listing(path, head: head, zip: zip, compression: compression)
        case .zipSelection(let names):
            let selection = try selectedNames(names)
            return listing(path, head: head, zip: true, selection: selection, compression: compression)
        case .upload:
            guard let name = path.name else { throw .methodNotAllowed(allowed: [.get, .head]) }
            return try claimingUploadSlot(head, context: context) { admission throws(HTTPError) in
                try rawUpload(head, directory: path.parent, name: name, context: context, admission: admission)
            }
        case .delete:
            guard configuration.allowDelete else {
                throw .methodNotAllowed(allowed: StoredFileRoute.allowedMethods)
            }
            try writable()
            // unlink(2) of a big file frees its blocks, which takes a while: a worker does it.
            return .blocking(
                "delete", skippableWhenAbandoned: false,
                { [storage, store] () -> StorageError? in
                    do throws(StorageError) {
                        try storage.remove(path)
                        store.monitor.deleted(path: path, client: context.client)
                        return nil
                    } catch {
                        return error
                    }
                }
            ) { failure in
                guard let failure else { return .respond(Response(status: .noContent)) }
                return .respond(.error(failure.httpError, format: ResponseFormat(head: head), text: languages.text(for: head)))
            }
        case .move(let destination):
            return try move(path, destinationField: destination, head: head)
        case .makeFolder(let hasBody):
            return try makeFolder(path, hasBody: hasBody, head: head)
        case .options:
            return .respond(
                Response(
                    status: .noContent,
                    headers: [
                        .allow: allowedMethods(isDirectoryURL: file.isDirectoryURL)
                            .map(\.description).joined(separator: ", ")
                    ]))
        case .methodRefused(_, let allowed):
            throw .methodNotAllowed(allowed: allowed)
        }
    }

    func download(
        _ path: StoragePath, head: RequestHead, attachment: Bool,
        compression: ResponseCompression
    ) throws(HTTPError) -> RouteDecision {
        // Open first: a file (the common case) costs one lookup; only a directory needs more.
        do {
            let file = try storage.open(path)
            return .respond(
                FileDownload.response(
                    file, head: head, forceDownload: attachment, compression: compression, cache: downloadHeaders))
        } catch .isADirectory {
            return .respond(redirect(to: Self.url(of: path, isDirectory: true)))
        } catch {
            throw error.httpError
        }
    }

    /// A directory is read, and its listing built and compressed, by a worker: a folder of
    /// 100,000 files takes a second.
    func listing(
        _ path: StoragePath, head: RequestHead, zip: Bool, selection: Set<String>? = nil,
        compression: ResponseCompression
    ) -> RouteDecision {
        let listing = DirectoryRead(path: path, zip: zip, selection: selection, head: head, app: self, compression: compression)
        return .blocking("listing", { listing.response() }) { .respond($0) }
    }
}
