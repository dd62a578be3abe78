/// Real request heads. "Captured" ones were recorded on this machine with a loopback Python
/// socket listener (curl 7.88.1, Python 3 http.client, URLSession from swift-corelibs-foundation
/// 6.3 on Linux); the browser ones are written from the shapes Chromium 120 and Firefox 121
/// send (no browser is installed here), header order and values included.
enum HTTPFixtures {
    /// Joins lines with CRLF and adds the empty line that ends a head.
    static func head(_ lines: String...) -> [UInt8] {
        Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// Captured: `curl http://127.0.0.1:18080/files/report%20final.pdf`.
    static let curlGet = head(
        "GET /files/report%20final.pdf HTTP/1.1",
        "Host: 127.0.0.1:18080",
        "User-Agent: curl/7.88.1",
        "Accept: */*"
    )

    /// Captured: `curl -F file=@small.txt http://127.0.0.1:18080/upload` (head only).
    static let curlUploadForm = head(
        "POST /upload HTTP/1.1",
        "Host: 127.0.0.1:18080",
        "User-Agent: curl/7.88.1",
        "Accept: */*",
        "Content-Length: 199",
        "Content-Type: multipart/form-data; boundary=------------------------935c90ae44464bfe"
    )

    /// Captured: `printf "first part\nsecond part\n" | curl -T - http://127.0.0.1:18080/upload/notes.txt`.
    static let curlPutChunked = head(
        "PUT /upload/notes.txt HTTP/1.1",
        "Host: 127.0.0.1:18080",
        "User-Agent: curl/7.88.1",
        "Accept: */*",
        "Transfer-Encoding: chunked",
        "Expect: 100-continue"
    )
    /// The body curl sent after `curlPutChunked`.
    static let curlChunkedBody = Array("17\r\nfirst part\nsecond part\n\r\n0\r\n\r\n".utf8)

    /// Captured: Python `http.client` `request("GET", "/list?sort=name")`.
    static let pythonGet = head(
        "GET /list?sort=name HTTP/1.1",
        "Host: 127.0.0.1:18080",
        "Accept-Encoding: identity"
    )

    /// Captured: Python `http.client` POST with `encode_chunked=True` and two body pieces.
    static let pythonPostChunked = head(
        "POST /upload/data.bin HTTP/1.1",
        "Host: 127.0.0.1:18080",
        "Accept-Encoding: identity",
        "Transfer-Encoding: chunked",
        "Content-Type: application/octet-stream"
    )
    static let pythonChunkedBody = Array("3\r\nabc\r\n7\r\ndefghij\r\n0\r\n\r\n".utf8)

    /// Captured: URLSession (FoundationNetworking on Linux, libcurl underneath) PUT of 10 bytes.
    static let urlSessionPut = head(
        "PUT /upload/photo.jpg HTTP/1.1",
        "Host: 127.0.0.1:18080",
        "Accept: */*",
        "Accept-Encoding: deflate, gzip, br, zstd",
        "Content-Type: image/jpeg",
        "Connection: keep-alive",
        "User-Agent: us (unknown version) curl/7.88.1",
        "Accept-Language: en",
        "Content-Length: 10"
    )

    /// Written from Chromium 120's shape: page load.
    static let chromiumGet = head(
        "GET / HTTP/1.1",
        "Host: 192.168.1.20:8080",
        "Connection: keep-alive",
        "Upgrade-Insecure-Requests: 1",
        "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
        "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
        "Accept-Encoding: gzip, deflate",
        "Accept-Language: en-US,en;q=0.9"
    )

    /// Written from Chromium 120's shape: `fetch` upload of a FormData.
    static let chromiumUpload = head(
        "POST /upload HTTP/1.1",
        "Host: 192.168.1.20:8080",
        "Connection: keep-alive",
        "Content-Length: 48213",
        "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
        "Content-Type: multipart/form-data; boundary=----WebKitFormBoundaryx8AHjN3qRzBp6Ycs",
        "Accept: */*",
        "Origin: http://192.168.1.20:8080",
        "Referer: http://192.168.1.20:8080/",
        "Accept-Encoding: gzip, deflate",
        "Accept-Language: en-US,en;q=0.9"
    )

    /// Written from Firefox 121's shape: revalidating a listing, with a resumed download range.
    static let firefoxGet = head(
        "GET /files/ HTTP/1.1",
        "Host: 192.168.1.20:8080",
        "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
        "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
        "Accept-Language: en-US,en;q=0.5",
        "Accept-Encoding: gzip, deflate",
        "Connection: keep-alive",
        "Upgrade-Insecure-Requests: 1",
        "If-None-Match: \"5f3a-1700000000\"",
        "Range: bytes=1024-",
        "Priority: u=1"
    )
}
