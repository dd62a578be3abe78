import FiledropHTTP

/// `/trust`: how to make a device trust this server's HTTPS, in plain words, device by
/// device, in the reader's language (`LanguageChoice`, the catalogues' `trust.` texts). With
/// filedrop's own CA (`tls = auto`) it shows the fingerprint to compare and links to `/ca.crt`
/// and `/ca.mobileconfig`; with the operator's certificate (`tls = files`) it says nothing
/// needs installing. Built here like the folder listing, with the page's stylesheet;
/// everything from configuration or the request is escaped.
///
/// Over plain HTTP it is also a browser's first visit (`FirstVisit`): it says what HTTPS
/// gives, links on to the secure page, and runs one small script that goes there at once when
/// this device trusts the certificate already.
struct TrustPage {
    let title: String
    let authority: TrustAnchor?
    /// The upload page over HTTPS, nil when the request named no host.
    let https: HTTPSURL?
    let text: PageText
    /// Set for a plain-HTTP visit: where the secure page is, and whether the page may probe it.
    var firstVisit: FirstVisit? = nil

    func response() -> Response {
        let policy = firstVisit?.policy ?? SecurityPolicy.trustPage.contentSecurityPolicy
        var headers: HTTPHeaders = [
            .contentType: ResponseFormat.html.contentType, .cacheControl: "no-cache",
            .contentSecurityPolicy: policy,
        ]
        for field in PageText.varyFields { headers.addVary(field) }
        return Response(status: .ok, headers: headers, body: .bytes(Array(html.utf8)))
    }

    var html: String {
        let heading = text.html("trust.title")
        return """
            <!doctype html>
            <html lang="\(text.language.tag)" dir="\(text.language.direction)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(heading) · \(title.htmlEscaped)</title>
            <link rel="icon" href="data:,">
            <link rel="stylesheet" href="/style.css">
            \(firstVisit?.probes == true ? "<script src=\"/\(FirstVisit.scriptName)\" defer></script>" : "")
            </head>
            <body>
            <header class="masthead">
            <h1>\(heading)</h1>
            <p class="tagline">\(text.html("trust.tagline", ["name": title]))</p>
            </header>
            <main class="trust">
            \(firstVisit.map(firstVisitPanel) ?? "")
            \(authority.map(instructions) ?? operatorCertificate)
            </main>
            </body>
            </html>

            """
    }

    /// What HTTPS gives, before the steps, and the way on; the link is what the script
    /// follows (`first-visit.js`), and what a person follows without script.
    private func firstVisitPanel(_ visit: FirstVisit) -> String {
        """
        <section class="panel" aria-labelledby="first-visit-heading">
        <h2 id="first-visit-heading">\(text.html("trust.firstVisitHeading"))</h2>
        <p>\(text.html("trust.firstVisitBody"))</p>
        <p>\(text.html("trust.firstVisitSteps"))</p>
        <p><a id="continue" class="button primary" href="\(visit.secureURL.htmlEscaped)">\(text.html("trust.continueSecure"))</a></p>
        \(visit.probes ? "<p>\(text.html("trust.firstVisitTrusted"))</p>" : "")
        </section>
        """
    }

    private var uploadPageLink: String {
        guard let https else { return "" }
        return "<p><a href=\"\(https.root.htmlEscaped)\">\(text.html("trust.openUploadPage"))</a></p>"
    }

    /// `tls = files`: a certificate from a public or an organisation's authority.
    private var operatorCertificate: String {
        """
        <section class="panel" aria-labelledby="nothing-heading">
        <h2 id="nothing-heading">\(text.html("trust.nothingHeading"))</h2>
        <p>\(text.html("trust.nothingBody"))</p>
        <p>\(text.html("trust.nothingWarning"))</p>
        \(uploadPageLink)
        </section>
        """
    }

    /// `tls = auto`: the CA to install, why, and how on each kind of device. The sentences
    /// are the catalogue's; what is the same in every language (commands, file names, the
    /// names of systems and browsers) is markup filled into them.
    private func instructions(_ anchor: TrustAnchor) -> String {
        let file = CertificateDownload.fileName
        let markup = [
            "ca": "<strong>\(anchor.commonName.htmlEscaped)</strong>",
            "file": "<code>\(file)</code>",
            "download": "<a href=\"/ca.crt\" download>\(text.html("trust.downloadCertificate"))</a>",
            "profile": "<a href=\"/ca.mobileconfig\">\(text.html("trust.downloadProfileShort"))</a>",
        ]
        func sentence(_ key: String, _ extra: [String: String] = [:]) -> String {
            text.htmlEmphasising(key, markup: markup.merging(extra) { _, new in new })
        }
        func command(_ line: String) -> [String: String] { ["command": "<code>\(line)</code>"] }
        let linuxCommands = [
            "command": "<code>sudo trust anchor --store \(file)</code>",
            "nssCommand": "<code>certutil -d sql:$HOME/.pki/nssdb -A -t C,, -n filedrop -i \(file)</code>",
            "package": "<code>libnss3-tools</code>",
        ]
        return """
            <section class="panel" aria-labelledby="why-heading">
            <h2 id="why-heading">\(text.html("trust.whyHeading"))</h2>
            <p>\(sentence("trust.whyBody"))</p>
            <p>\(sentence("trust.whyOnce"))</p>
            <p class="trust-downloads">
            <a class="button primary" href="/ca.crt" download>\(text.html("trust.downloadCertificate"))</a>
            <a class="button secondary" href="/ca.mobileconfig">\(text.html("trust.downloadProfile"))</a>
            </p>
            </section>

            <section class="panel" aria-labelledby="fingerprint-heading">
            <h2 id="fingerprint-heading">\(text.html("trust.fingerprintHeading"))</h2>
            <p>\(sentence("trust.fingerprintWhat"))</p>
            <p class="fingerprint"><code>\(anchor.fingerprintSHA256.htmlEscaped)</code></p>
            <p>\(sentence("trust.fingerprintCompare", command("systemctl status filedrop")))</p>
            </section>

            <section class="panel" aria-labelledby="android-heading">
            <h2 id="android-heading">Android</h2>
            <ol>
            <li>\(sentence("trust.androidDownload"))</li>
            <li>\(sentence("trust.androidSettings"))</li>
            <li>\(sentence("trust.androidInstall"))</li>
            </ol>
            <p>\(sentence("trust.androidAfter"))</p>
            </section>

            <section class="panel" aria-labelledby="ios-heading">
            <h2 id="ios-heading">\(text.html("trust.iosHeading"))</h2>
            <p>\(sentence("trust.iosSteps"))</p>
            <ol>
            <li>\(sentence("trust.iosDownload"))</li>
            <li>\(sentence("trust.iosInstall"))</li>
            <li>\(sentence("trust.iosTrust"))</li>
            </ol>
            </section>

            <section class="panel" aria-labelledby="windows-heading">
            <h2 id="windows-heading">Windows</h2>
            <ol>
            <li>\(sentence("trust.windowsOpen"))</li>
            <li>\(sentence("trust.windowsInstall"))</li>
            <li>\(sentence("trust.windowsStore"))</li>
            <li>\(sentence("trust.windowsWarning", command("certutil -hashfile \(file) SHA256")))</li>
            </ol>
            <p>\(sentence("trust.windowsAfter", command("certutil -user -addstore Root \(file)")))</p>
            </section>

            <section class="panel" aria-labelledby="macos-heading">
            <h2 id="macos-heading">Mac</h2>
            <ol>
            <li>\(sentence("trust.macOpen"))</li>
            <li>\(sentence("trust.macTrust"))</li>
            </ol>
            <p>\(sentence("trust.macAfter", command("sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain \(file)")))</p>
            </section>

            <section class="panel" aria-labelledby="linux-heading">
            <h2 id="linux-heading">Linux</h2>
            <p>\(sentence("trust.linuxDownload"))</p>
            <pre tabindex="0"><code>openssl x509 -inform DER -in \(file) -out filedrop-ca.pem
            openssl x509 -in filedrop-ca.pem -noout -fingerprint -sha256
            sudo cp filedrop-ca.pem /usr/local/share/ca-certificates/filedrop-ca.crt
            sudo update-ca-certificates</code></pre>
            <p>\(sentence("trust.linuxAfter", linuxCommands))</p>
            </section>

            <section class="panel" aria-labelledby="firefox-heading">
            <h2 id="firefox-heading">Firefox</h2>
            <p>\(sentence("trust.firefoxBody"))</p>
            </section>

            <section class="panel" aria-labelledby="done-heading">
            <h2 id="done-heading">\(text.html("trust.doneHeading"))</h2>
            <p>\(sentence("trust.doneBody"))</p>
            \(uploadPageLink)
            </section>
            """
    }
}
