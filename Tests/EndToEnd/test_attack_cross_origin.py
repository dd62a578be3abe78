"""Cross-site requests against the real daemon: a website a LAN user visits must not be able
to make their browser upload, overwrite, delete or read on filedrop. Headers first (what
`OriginCheck` decides from `Origin` and `Sec-Fetch-Site`), then headless Chromium on a page
served from another port of the same address, which is same-site but not same-origin, the
closest a hostile page gets. An honest client on another address is served throughout.
"""

from __future__ import annotations

import http.client
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from attack_support import LegitClient, multipart
from http_raw import fetch


def stored_names(daemon) -> set[str]:
    return {str(path.relative_to(daemon.save_dir)) for path in daemon.save_dir.rglob("*") if path.is_file()}


def upload_body(name: str, content: bytes) -> tuple[dict[str, str], bytes]:
    headers, body = multipart([("file", name, content)])
    del headers["Accept"]
    return headers, body


# What the headers say

@pytest.mark.parametrize("hostile", [
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},
    {"Origin": "http://evil.example"},
    {"Origin": "null"},
    {"Sec-Fetch-Site": "cross-site", "Origin": "http://evil.example"},
])
def test_cross_site_writes_are_refused(daemon, hostile):
    headers, body = upload_body("csrf.txt", b"planted")
    with LegitClient(daemon):
        refused = fetch(daemon.url + "/upload", "POST", headers={**headers, **hostile}, body=body)
        assert refused.status == 403
        assert b"another website" in refused.body
        assert fetch(daemon.url + "/files/csrf.txt", "PUT", headers=hostile, body=b"planted").status == 403
        assert fetch(daemon.url + "/files/plain.txt", "PUT", headers=hostile, body=b"overwritten").status == 403
    assert "csrf.txt" not in stored_names(daemon)
    assert (daemon.save_dir / "plain.txt").read_bytes() == b"hello, filedrop\n"


def https_put(daemon, path: str, headers: dict[str, str]) -> tuple[int, bytes]:
    context = ssl.create_default_context(cafile=str(daemon.ca))
    connection = http.client.HTTPSConnection("127.0.0.1", daemon.https_port, context=context, timeout=10)
    try:
        connection.request("PUT", path, body=b"scheme", headers=headers)
        reply = connection.getresponse()
        return reply.status, reply.read()
    finally:
        connection.close()


def test_an_origin_with_the_other_scheme_is_another_website(https_daemon):
    # RFC 6454: scheme, host and port make an origin. `serve` lets the plain port take
    # uploads, so the Origin check alone decides there.
    daemon = https_daemon("--http-mode", "serve")
    plain, secure = f"127.0.0.1:{daemon.port}", f"127.0.0.1:{daemon.https_port}"
    status, body = https_put(daemon, "/files/over-https.txt", {"Origin": f"http://{secure}"})
    assert status == 403 and b"another website" in body, body
    refused = fetch(daemon.url + "/files/over-http.txt", "PUT", headers={"Origin": f"https://{plain}"}, body=b"scheme")
    assert refused.status == 403 and b"another website" in refused.body, refused
    assert not (daemon.save_dir / "over-https.txt").exists() and not (daemon.save_dir / "over-http.txt").exists()
    # Each port's own origin is still same-origin.
    assert https_put(daemon, "/files/over-https.txt", {"Origin": f"https://{secure}"})[0] == 201
    assert fetch(daemon.url + "/files/over-http.txt", "PUT", headers={"Origin": f"http://{plain}"}, body=b"scheme").status == 201


def test_cross_site_deletes_and_tus_requests_are_refused(daemon_factory):
    daemon = daemon_factory("--allow-delete")
    hostile = {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}
    with LegitClient(daemon):
        assert fetch(daemon.url + "/files/plain.txt", "DELETE", headers=hostile).status == 403
        created = fetch(daemon.url + "/files/", "POST", headers={**hostile, "Tus-Resumable": "1.0.0", "Upload-Length": "7",
                                                                 "Content-Type": "application/offset+octet-stream"},
                        body=b"planted")
        assert created.status == 403, created
    assert (daemon.save_dir / "plain.txt").exists()


def test_our_own_page_and_plain_clients_may_write(daemon):
    headers, body = upload_body("same-origin.txt", b"ok")
    own = {"Origin": daemon.url, "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}
    assert fetch(daemon.url + "/upload", "POST", headers={**headers, **own}, body=body).status == 201
    curl = subprocess.run(["curl", "--silent", "--max-time", "20", "-o", "/dev/null", "-w", "%{http_code}",
                           "-F", "file=@-;filename=by-curl.txt", daemon.url + "/upload"],
                          input=b"curl body", capture_output=True, timeout=30)
    assert curl.stdout == b"201"
    assert {"same-origin.txt", "by-curl.txt"} <= stored_names(daemon)


def test_no_cors_headers_are_ever_sent(daemon):
    for path in ("/", "/files/", "/files/plain.txt", "/config.json", "/nothing"):
        response = fetch(daemon.url + path, headers={"Origin": "http://evil.example"})
        assert not any(name.lower().startswith("access-control-") for name, _ in response.headers), path
    preflight = fetch(daemon.url + "/upload", "OPTIONS", headers={
        "Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
    assert preflight.header("Access-Control-Allow-Origin") is None


# A real browser on a hostile page

EVIL_PAGE = """<!doctype html><html><body>
<form id="multipart" method="post" enctype="multipart/form-data" action="{target}/upload" target="sink1">
 <input type="hidden" name="x" value="1"></form>
<form id="plain" method="post" enctype="text/plain" action="{target}/upload?name=planted-text.txt" target="sink2">
 <input type="hidden" name="x" value="planted"></form>
<form id="urlencoded" method="post" action="{target}/upload?name=planted-form.txt" target="sink3">
 <input type="hidden" name="x" value="planted"></form>
<iframe name="sink1"></iframe><iframe name="sink2"></iframe><iframe name="sink3"></iframe>
<script>
const data = new FormData();
data.append('file', new Blob(['planted by a website']), 'planted-fetch.txt');
const attempts = [
  fetch('{target}/upload', {{method: 'POST', mode: 'no-cors', body: data}}),
  fetch('{target}/files/planted-put.txt', {{method: 'PUT', mode: 'no-cors', body: 'planted'}}),
  fetch('{target}/files/plain.txt', {{method: 'PUT', body: 'overwritten'}}),
  fetch('{target}/files/plain.txt', {{method: 'DELETE'}}),
  fetch('{target}/files/', {{method: 'POST', headers: {{'Tus-Resumable': '1.0.0', 'Upload-Length': '7'}}}}),
];
window.readResult = 'pending';
fetch('{target}/files/?format=json').then(r => r.text())
  .then(text => {{ window.readResult = 'read: ' + text; }}, () => {{ window.readResult = 'blocked'; }});
Promise.allSettled(attempts).then(() => {{ document.title = 'sent'; }});
for (const id of ['multipart', 'plain', 'urlencoded']) document.getElementById(id).submit();
</script></body></html>"""


def serve_page(html: str) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            payload = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_a_website_in_the_browser_cannot_write_or_read(daemon_factory):
    sync_api = pytest.importorskip("playwright.sync_api")
    from conftest import CHROMIUM
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    daemon = daemon_factory("--allow-delete")
    before = stored_names(daemon)
    # Another port of the same address: same-site for the browser, but not our origin.
    evil = serve_page(EVIL_PAGE.format(target=daemon.url))
    try:
        with LegitClient(daemon), sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            try:
                page = browser.new_page()
                page.goto(f"http://127.0.0.1:{evil.server_address[1]}/")
                page.wait_for_function("document.title === 'sent' && window.readResult !== 'pending'", timeout=15_000)
                page.wait_for_timeout(1000)
                read_result = page.evaluate("window.readResult")
                # The same browser on our own page can still upload: the refusal is about the origin.
                page.goto(daemon.url + "/")
                page.evaluate("""async () => {
                    const data = new FormData();
                    data.append('file', new Blob(['from our own page']), 'own-page.txt');
                    await fetch('/upload', {method: 'POST', body: data});
                }""")
            finally:
                browser.close()
    finally:
        evil.shutdown()
    assert read_result == "blocked", f"the website read the listing: {read_result[:200]}"
    after = stored_names(daemon)
    assert "own-page.txt" in after
    assert after - before == {"own-page.txt"}, f"the website planted {after - before - {'own-page.txt'}}"
    assert (daemon.save_dir / "plain.txt").read_bytes() == b"hello, filedrop\n"
    daemon.flush_access_log()
    log = daemon.stderr_text()
    assert "POST /upload 403" in log, "the website's requests must have reached the daemon and been refused"
