import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// The refusals' detail sentences on a browser's page: each sentence the code writes is found
/// among the English catalogue's `refusal.` templates and shown in the reader's language,
/// names and numbers carried over; JSON and text keep the English sentence.
@Suite struct RefusalSentencesTests {
    static let languages = PageLanguages(reading: CatalogueFilesTests.read)

    /// Sentences as the code writes them, taken from the code itself where it can be called.
    static var codeSentences: [HTTPError] {
        var errors: [HTTPError] = [HTTPError.readOnlyServer, StoragePolicy.tooFullToStart, PendingUpload.digestMismatch]
        let storageErrors: [StorageError] = [
            .exists, .notADirectory, .isADirectory, .notEmpty, .noSpace, .readOnly,
            .permissionDenied, .nameTooLong, .notAllowed, .crossDevice, .movedIntoItself,
        ]
        errors += storageErrors.map(\.httpError)
        let names = FileNamePolicy()
        for bad in ["a\u{0}b", "", "dir/", "..", " . "] {
            do throws(HTTPError) {
                _ = try names.storedName(from: bad)
                Issue.record("\(bad.debugDescription) was accepted as a file name")
            } catch {
                errors.append(error)
            }
        }
        for bad in [
            "a/../b", "a//b", "/etc/passwd", ".hidden", "a\u{1}b", ".filedrop-x", ".tus",
            String(repeating: "x", count: 300),
        ] {
            do throws(HTTPError) {
                _ = try names.storagePath(fromRelative: bad)
                Issue.record("\(bad.debugDescription) was accepted")
            } catch {
                errors.append(error)
            }
        }
        for (field, value) in [(HTTPFieldName.secFetchSite, "cross-site"), (HTTPFieldName.origin, "http://evil.example")] {
            do throws(HTTPError) {
                try OriginCheck.check(InMemoryServer.head(.post, "/upload", [field: value]))
                Issue.record("a cross-site POST (\(value)) was accepted")
            } catch {
                errors.append(error)
            }
        }
        return errors
    }

    @Test(arguments: [PageLanguage.german, .chinese, .french, .spanish])
    func everySentenceTheCodeWritesIsTranslated(language: PageLanguage) {
        let text = Self.languages.text(language)
        for error in Self.codeSentences {
            let translated = error.pageMessage(text)
            #expect(translated != nil && translated != error.message, "\(language): \(error.message)")
            let left = Catalogue.placeholders(in: translated ?? "").subtracting(Catalogue.placeholders(in: error.message))
            #expect(left.isEmpty, "\(language): \(error.message) left \(left) in \(translated ?? "")")
        }
    }

    @Test func englishReadsTheSentenceItself() {
        let text = Self.languages.text(.english)
        for error in Self.codeSentences {
            #expect(error.pageMessage(text) == error.message)
        }
    }

    @Test func placeholdersCarryTheNameOver() {
        let german = Self.languages.text(.german)
        #expect(
            german.refusal("The name \"a\u{1}b\" contains a control character.")
                == "Der Name \"a\u{1}b\" enthält ein Steuerzeichen.")
        #expect(german.refusal("\"x.txt\" already exists.") == "\"x.txt\" gibt es bereits.")
        // The more specific template wins over "{name} already exists.".
        #expect(german.refusal("A file with this name already exists.") == "Eine Datei mit diesem Namen gibt es bereits.")
        #expect(german.refusal("Something nobody wrote a template for.") == nil)
        #expect(PageText.match("ab", template: "a{x}b") == nil)
        #expect(PageText.match("a1b2c", template: "a{x}b{y}c")?.values == ["x": "1", "y": "2"])
    }

    /// The page in the reader's language; curl (text) and scripts (JSON) keep English.
    @Test func onlyThePageIsTranslated() {
        let server = InMemoryServer(
            configuration: {
                var c = Configuration()
                c.access = .readOnly
                return c
            }(),
            languages: Self.languages)
        let page = server.answer(InMemoryServer.head(.put, "/files/a.txt", ["Accept": "text/html", "Accept-Language": "fr"]))
        #expect(InMemoryServer.text(page).contains("Ce serveur est en lecture seule\u{A0}: les envois sont désactivés."))
        let curl = server.answer(InMemoryServer.head(.put, "/files/a.txt", ["Accept": "*/*", "Accept-Language": "fr"]))
        #expect(InMemoryServer.text(curl) == "403 Forbidden: This server is read-only: uploads are switched off.\n")
        let json = server.answer(
            InMemoryServer.head(.put, "/files/a.txt", ["Accept": "application/json", "Accept-Language": "fr"]))
        #expect(InMemoryServer.text(json).contains("\"This server is read-only: uploads are switched off.\""))
    }
}
