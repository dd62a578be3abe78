/// `/trust`: how to make a device trust this server's HTTPS, in plain words, device by
/// device. With filedrop's own CA (`tls = auto`) it shows the fingerprint to compare and
/// links to `/ca.crt` and `/ca.mobileconfig`; with the operator's certificate (`tls = files`)
/// it says nothing needs installing. Built here like the folder listing, with the page's
/// stylesheet and no script; everything from configuration or the request is escaped.
struct TrustPage {
    let title: String
    let authority: TrustAnchor?
    /// The upload page over HTTPS, nil when the request named no host.
    let https: HTTPSURL?

    func response() -> Response {
        Response(status: .ok,
                 headers: [.contentType: ResponseFormat.html.contentType, .cacheControl: "no-cache",
                           .contentSecurityPolicy: SecurityPolicy.trustPage.contentSecurityPolicy],
                 body: .bytes(Array(html.utf8)))
    }

    var html: String {
        let name = title.htmlEscaped
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>Trust this server · \(name)</title>
            <link rel="icon" href="data:,">
            <link rel="stylesheet" href="/style.css">
            </head>
            <body>
            <header class="masthead">
            <h1>Trust this server</h1>
            <p class="tagline">\(name): sending files over an encrypted connection.</p>
            </header>
            <main class="trust">
            \(authority.map(instructions) ?? operatorCertificate)
            </main>
            </body>
            </html>

            """
    }

    private var uploadPageLink: String {
        guard let https else { return "" }
        return "<p><a href=\"\(https.root.htmlEscaped)\">Open the upload page over HTTPS</a></p>"
    }

    /// `tls = files`: a certificate from a public or an organisation's authority.
    private var operatorCertificate: String {
        """
        <section class="panel" aria-labelledby="nothing-heading">
        <h2 id="nothing-heading">Nothing to install</h2>
        <p>This server's certificate comes from the person who runs it: from a public certificate authority, or from one
        your organisation set up. Devices that trust that authority trust this server already, so there is nothing to install here.</p>
        <p>If your browser warns about the certificate all the same, do not click through: ask the person who runs the server.</p>
        \(uploadPageLink)
        </section>
        """
    }

    /// `tls = auto`: the CA to install, why, and how on each kind of device.
    private func instructions(_ anchor: TrustAnchor) -> String {
        let fingerprint = anchor.fingerprintSHA256.htmlEscaped
        let caName = anchor.commonName.htmlEscaped
        return """
            <section class="panel" aria-labelledby="why-heading">
            <h2 id="why-heading">Why install a certificate?</h2>
            <p>This server encrypts everything it sends and receives, so nobody else on the network can read your files or your password.
            It proves who it is with a certificate from its own small certificate authority, <strong>\(caName)</strong>, made on the computer
            that runs it. Your devices do not know that authority yet, so browsers warn about the connection.</p>
            <p>Install the authority's certificate once on each device, as described below. From then on the connection is trusted, and the
            warnings stop.</p>
            <p class="trust-downloads">
            <a class="button primary" href="/ca.crt" download>Download the certificate</a>
            <a class="button secondary" href="/ca.mobileconfig">Download the profile for iPhone, iPad and Mac</a>
            </p>
            </section>

            <section class="panel" aria-labelledby="fingerprint-heading">
            <h2 id="fingerprint-heading">Check the fingerprint</h2>
            <p>The fingerprint identifies this certificate. Anyone on the network could hand you a certificate that looks the same,
            but nobody can make one with the same fingerprint. This is the SHA-256 fingerprint of the certificate on this page:</p>
            <p class="fingerprint"><code>\(fingerprint)</code></p>
            <p>Before you install it, compare it with the fingerprint where the server runs: filedrop prints it in its log when it
            starts, and <code>systemctl status filedrop</code> shows it. Your device shows the fingerprint of the file it is about
            to install in the certificate's details. If they differ, do not install it. Once the certificate is installed, the
            upload page shows the fingerprint at the bottom, over a connection you can trust.</p>
            </section>

            <section class="panel" aria-labelledby="android-heading">
            <h2 id="android-heading">Android</h2>
            <ol>
            <li>Tap <a href="/ca.crt" download>Download the certificate</a>. The file <code>\(CertificateDownload.fileName)</code> goes to your downloads.</li>
            <li>Open Settings and search for <em>CA certificate</em>. It is usually under Security &amp; privacy &gt; More security settings
            &gt; Encryption &amp; credentials &gt; Install a certificate &gt; CA certificate.</li>
            <li>Tap <em>Install anyway</em>, choose <code>\(CertificateDownload.fileName)</code>, and confirm with your screen lock.</li>
            </ol>
            <p>Chrome trusts the server from then on. Android may say the network may be monitored: that refers to this certificate.
            Firefox for Android uses its own list: in Firefox, open Settings &gt; About Firefox, tap the Firefox logo five times, then
            go back to Settings &gt; Secret Settings and switch on <em>Use third party CA certificates</em>.</p>
            </section>

            <section class="panel" aria-labelledby="ios-heading">
            <h2 id="ios-heading">iPhone and iPad</h2>
            <p>This takes two steps; the certificate is not trusted until both are done.</p>
            <ol>
            <li>Open this page in Safari and tap <a href="/ca.mobileconfig">Download the profile</a>, then <em>Allow</em>.</li>
            <li>Open Settings and tap <em>Profile Downloaded</em> near the top (or go to Settings &gt; General &gt; VPN &amp; Device
            Management and tap the filedrop profile). Tap <em>Install</em> and enter your passcode. iOS calls the profile
            <em>Not Verified</em>: that is expected for an authority of your own. Under More Details you can check its fingerprint.</li>
            <li>Then go to Settings &gt; General &gt; About &gt; Certificate Trust Settings and switch on full trust for
            <strong>\(caName)</strong>.</li>
            </ol>
            </section>

            <section class="panel" aria-labelledby="windows-heading">
            <h2 id="windows-heading">Windows</h2>
            <ol>
            <li><a href="/ca.crt" download>Download the certificate</a> and open <code>\(CertificateDownload.fileName)</code>.</li>
            <li>Click <em>Install Certificate…</em>, choose <em>Current User</em>, and click Next.</li>
            <li>Choose <em>Place all certificates in the following store</em>, click Browse, pick <em>Trusted Root Certification
            Authorities</em>, then OK, Next and Finish.</li>
            <li>Windows warns that it cannot check where the certificate comes from: click Yes. (The thumbprint it shows is a SHA-1
            one, a different number from the fingerprint above; <code>certutil -hashfile \(CertificateDownload.fileName) SHA256</code>
            prints the SHA-256 one.)</li>
            </ol>
            <p>Edge and Chrome use this store. In a terminal the same is <code>certutil -user -addstore Root \(CertificateDownload.fileName)</code>.</p>
            </section>

            <section class="panel" aria-labelledby="macos-heading">
            <h2 id="macos-heading">Mac</h2>
            <ol>
            <li><a href="/ca.crt" download>Download the certificate</a> and double-click <code>\(CertificateDownload.fileName)</code>.
            Keychain Access opens and adds it to your login keychain.</li>
            <li>In Keychain Access, double-click <strong>\(caName)</strong>, open <em>Trust</em>, and set <em>When using this
            certificate</em> to <em>Always Trust</em>. Close the window and confirm with your password.</li>
            </ol>
            <p>Safari and Chrome use the keychain. The profile for iPhone and iPad works on a Mac too: open it, then install it in
            System Settings &gt; General &gt; Device Management. In a terminal:
            <code>sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain \(CertificateDownload.fileName)</code>.</p>
            </section>

            <section class="panel" aria-labelledby="linux-heading">
            <h2 id="linux-heading">Linux</h2>
            <p><a href="/ca.crt" download>Download the certificate</a>, then, in a terminal in the folder it went to, on Debian and Ubuntu:</p>
            <pre tabindex="0"><code>openssl x509 -inform DER -in \(CertificateDownload.fileName) -out filedrop-ca.pem
            openssl x509 -in filedrop-ca.pem -noout -fingerprint -sha256
            sudo cp filedrop-ca.pem /usr/local/share/ca-certificates/filedrop-ca.crt
            sudo update-ca-certificates</code></pre>
            <p>The second line prints the fingerprint to compare. On Fedora and Arch, <code>sudo trust anchor --store \(CertificateDownload.fileName)</code>
            does the same. curl, wget and most programs use this list. Chrome and Chromium keep their own:
            <code>certutil -d sql:$HOME/.pki/nssdb -A -t C,, -n filedrop -i \(CertificateDownload.fileName)</code>
            (from the <code>libnss3-tools</code> package).</p>
            </section>

            <section class="panel" aria-labelledby="firefox-heading">
            <h2 id="firefox-heading">Firefox</h2>
            <p>Firefox keeps a certificate list of its own on every system: open Settings &gt; Privacy &amp; Security, scroll to
            Certificates, click <em>View Certificates…</em>, open <em>Authorities</em>, click <em>Import…</em>, choose
            <code>\(CertificateDownload.fileName)</code>, and tick <em>Trust this CA to identify websites</em>.</p>
            </section>

            <section class="panel" aria-labelledby="done-heading">
            <h2 id="done-heading">Done</h2>
            <p>To stop trusting the server later, remove <strong>\(caName)</strong> from the same place you installed it.</p>
            \(uploadPageLink)
            </section>
            """
    }
}
