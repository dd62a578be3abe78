import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// AccessPolicy's table, over `Route`: who needs the password for what, in every mode.
@Suite struct AccessPolicyTests {
    typealias R = RouteTests

    static let pageLike: [Route] = [.page(name: "index.html"), .config, .qrCode, .trust(.page), .uploadForm]
    /// MKCOL is here: its answer (201 or 405) says whether a name exists.
    static let reading: [Route] = [
        R.stored("a", .download(attachment: false)), R.stored("", .listing(zip: true), directory: true),
        R.stored("", .zipSelection(names: ["a"]), directory: true),
        R.stored("new/", .makeFolder(hasBody: false), directory: true), .filesRedirect,
    ]
    static let uploading: [Route] = [
        .uploadForm, R.stored("a", .upload), R.stored("a", .options), .tus(.options), .tus(.creation),
        .tus(.upload(id: "abc", .status)), .tus(.upload(id: "abc", .append)),
        .tus(.upload(id: "abc", .terminate)),
    ]
    /// MOVE is here: a rename removes the old name.
    static let deleting: [Route] = [
        R.stored("a", .delete), .methodRefused(.delete, on: .config),
        R.stored("a", .move(destination: "/files/b")), .methodRefused(.move, on: .config),
    ]

    static func requirements(_ policy: AccessPolicy, _ routes: [Route]) -> Set<AccessPolicy.Requirement> {
        Set(routes.map(policy.requirement(for:)))
    }

    @Test(arguments: [AccessMode.open, .readOnly])
    func openAndReadOnlyNeedThePasswordOnlyToDelete(mode: AccessMode) {
        for hasPassword in [false, true] {
            let policy = AccessPolicy(mode: mode, hasPassword: hasPassword)
            #expect(Self.requirements(policy, Self.pageLike + Self.reading + Self.uploading) == [.anyone])
            #expect(Self.requirements(policy, Self.deleting) == [hasPassword ? .password : .anyone])
        }
    }

    @Test func dropTakesUploadsAndGuardsReadsAndDeletes() {
        let policy = AccessPolicy(mode: .drop, hasPassword: true)
        #expect(Self.requirements(policy, Self.pageLike + Self.uploading) == [.anyone])
        #expect(Self.requirements(policy, Self.reading + Self.deleting) == [.password])
        // Refused under /files/: as a read, except the methods the drop box takes elsewhere.
        #expect(policy.requirement(for: R.stored("a", .methodRefused(.patch, allowed: [.get, .head, .put]))) == .password)
        #expect(policy.requirement(for: R.stored("a", .methodRefused(.post, allowed: [.get, .head, .put]))) == .anyone)
        #expect(
            policy.requirement(for: R.stored("d/", .methodRefused(.put, allowed: [.get, .head]), directory: true)) == .anyone)
        #expect(policy.requirement(for: .methodRefused(.put, on: .config)) == .anyone)
    }

    @Test func privateGuardsEverythingButTheTrustRoutesWithHTTPS() {
        let trust: [Route] = [
            .trust(.certificate), .trust(.profile), .trust(.page), .page(name: "style.css"),
            .methodRefused(.post, on: .trust(.page)),
        ]
        let others = [Route.page(name: "index.html"), .config, .qrCode] + Self.reading + Self.uploading + Self.deleting
        let withHTTPS = AccessPolicy(mode: .private, hasPassword: true, publishesTrustRoutes: true)
        #expect(Self.requirements(withHTTPS, trust) == [.anyone])
        #expect(Self.requirements(withHTTPS, others) == [.password])
        #expect(Self.requirements(AccessPolicy(mode: .private, hasPassword: true), trust + others) == [.password])
    }
}

extension AccessPolicy {
    /// The requirement for `method` on `target` as the app parses it (tus on).
    func requirement(parsing method: HTTPMethod, _ target: String) -> Requirement {
        requirement(for: RouteTests.route(method, target))
    }
}
