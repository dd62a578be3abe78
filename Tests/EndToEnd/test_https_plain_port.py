"""The plain-HTTP port while HTTPS is on, against the real daemon (`--tls files` with a
certificate made by the openssl CLI, and `--tls auto`): pages are redirected to HTTPS with
308, a password or a file sent over plain HTTP is refused with the HTTPS URL and never
stored, and the trust routes answer on both ports (`/ca.crt` and the profile with `auto`'s
CA, a 404 saying why with the operator's certificate). Every HTTPS client here verifies the
certificate for real.
"""

import html
import http.client
import json
import plistlib
import re
import ssl
import subprocess
import time

import pytest

from conftest import WEB_ROOT
from http_raw import fetch
from page_support import assert_accessible, assert_no_problems, browser_page  # noqa: F401 (a fixture)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A self-signed ECDSA P-256 certificate for 127.0.0.1 and localhost: (cert, key) paths."""
    directory = tmp_path_factory.mktemp("tls")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=filedrop test",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
        check=True, capture_output=True)
    return cert, key


def start(daemon_factory, certificate, *args):
    cert, key = certificate
    daemon = daemon_factory("--tls", "files", "--tls-cert", str(cert), "--tls-key", str(key),
                            "--https-listen", "127.0.0.1:0", *args, listen=["127.0.0.1:0"])
    assert daemon.https_port, daemon.notifications
    return daemon


def fetch_https(daemon, certificate, target, method="GET", headers=None, body=None):
    """One request over HTTPS, verifying the server's certificate against `certificate`."""
    context = ssl.create_default_context(cafile=str(certificate[0]))
    connection = http.client.HTTPSConnection("127.0.0.1", daemon.https_port, context=context, timeout=10)
    try:
        connection.request(method, target, body=body, headers=headers or {})
        reply = connection.getresponse()
        return reply.status, dict(reply.getheaders()), reply.read()
    finally:
        connection.close()


def curl(*args, timeout=30):
    return subprocess.run(["curl", "--silent", "--show-error", "--max-time", "20", *args],
                          capture_output=True, timeout=timeout)


@pytest.mark.parametrize("target", ["/", "/files/plain.txt?download", "/files/sub%20dir/"])
def test_pages_are_redirected_to_the_same_url_over_https(daemon_factory, certificate, target):
    daemon = start(daemon_factory, certificate)
    reply = fetch(daemon.url + target)
    assert reply.status == 308, reply
    location = reply.header("Location")
    assert location == daemon.https_url + target
    assert location in reply.body.decode()
    # The redirect must not outlive TLS being switched off.
    assert reply.header("Cache-Control") == "no-store"
    assert reply.header("Strict-Transport-Security") is None
    status, headers, _ = fetch_https(daemon, certificate, target)
    assert status == 200
    assert "Strict-Transport-Security" not in headers


def test_an_ipv6_host_keeps_its_brackets(daemon_factory, certificate):
    daemon = start(daemon_factory, certificate)
    reply = fetch(daemon.url + "/?a=1", headers={"Host": f"[::1]:{daemon.port}"})
    assert reply.status == 308
    assert reply.header("Location") == f"https://[::1]:{daemon.https_port}/?a=1"


def test_a_foreign_host_gets_421_not_a_redirect(daemon_factory, certificate):
    daemon = start(daemon_factory, certificate)
    reply = fetch(daemon.url + "/", headers={"Host": "evil.example"})
    assert reply.status == 421
    assert reply.header("Location") is None


def test_curl_with_a_password_over_plain_http_is_refused(daemon_factory, certificate):
    daemon = start(daemon_factory, certificate)
    result = curl("-u", "user:pw", "-w", "\n%{http_code}", daemon.url + "/files/")
    body, _, code = result.stdout.decode().rpartition("\n")
    assert code == "403", result
    assert "only over HTTPS" in body
    assert f"{daemon.https_url}/files/" in body


@pytest.mark.parametrize("size", [5, 3 * 1024 * 1024])
def test_curl_upload_over_plain_http_is_refused_and_nothing_is_stored(daemon_factory, certificate, tmp_path, size):
    daemon = start(daemon_factory, certificate)
    source = tmp_path / "secret.bin"
    source.write_bytes(b"s" * size)
    before = sorted(path.name for path in daemon.save_dir.rglob("*"))
    started = time.monotonic()
    result = curl("-T", str(source), "-w", "\n%{http_code}", daemon.url + "/files/secret.bin")
    body, _, code = result.stdout.decode().rpartition("\n")
    assert code == "403", result
    assert f"This server takes uploads and passwords only over HTTPS, so nobody on the network can read them: " \
           f"{daemon.https_url}/files/secret.bin" in body
    # Refused from the head: curl does not get to send 3 MB and wait on them.
    assert time.monotonic() - started < 10
    assert sorted(path.name for path in daemon.save_dir.rglob("*")) == before
    assert daemon.temp_files() == []


def test_the_same_upload_over_https_is_stored(daemon_factory, certificate, tmp_path):
    daemon = start(daemon_factory, certificate)
    status, _, _ = fetch_https(daemon, certificate, "/files/over-tls.txt", "PUT", body=b"encrypted\n")
    assert status == 201
    assert (daemon.save_dir / "over-tls.txt").read_bytes() == b"encrypted\n"


def test_ca_crt_on_both_ports_says_there_is_nothing_to_install(daemon_factory, certificate):
    daemon = start(daemon_factory, certificate)
    plain = fetch(daemon.url + "/ca.crt")
    assert plain.status == 404 and b"comes from its operator" in plain.body
    status, _, body = fetch_https(daemon, certificate, "/ca.crt")
    assert status == 404 and b"comes from its operator" in body


def test_the_trust_page_answers_on_both_ports(daemon_factory, certificate):
    daemon = start(daemon_factory, certificate)
    plain = fetch(daemon.url + "/trust", headers={"Accept": "text/html"})
    assert plain.status == 200
    assert plain.header("Content-Type") == "text/html; charset=utf-8"
    assert b"Nothing to install" in plain.body
    assert f'href="{daemon.https_url}/"'.encode() in plain.body
    # Its stylesheet too: a device that does not trust HTTPS yet still gets the page's look.
    assert fetch(daemon.url + "/style.css").status == 200
    status, _, body = fetch_https(daemon, certificate, "/trust")
    assert status == 200 and b"Nothing to install" in body


def test_serve_mode_serves_everything_over_plain_http(daemon_factory, certificate):
    daemon = start(daemon_factory, certificate, "--http-mode", "serve")
    assert fetch(daemon.url + "/").status == 200
    assert fetch(daemon.url + "/files/plain-put.txt", "PUT", body=b"clear\n").status == 201
    assert (daemon.save_dir / "plain-put.txt").read_bytes() == b"clear\n"
    config = fetch(daemon.url + "/config.json")
    assert f'"https":{{"secure":false,"port":{daemon.https_port}'.encode() in config.body


def test_the_page_over_plain_http_says_it_is_not_encrypted(chromium, daemon_factory, certificate):
    sync_api = pytest.importorskip("playwright.sync_api")
    daemon = start(daemon_factory, certificate, "--http-mode", "serve")
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(daemon.url + "/")
        note = page.locator("#connection-note")
        sync_api.expect(note).to_be_visible()
        sync_api.expect(note).to_contain_text("This connection is not encrypted")
        assert note.locator("a").get_attribute("href") == daemon.https_url + "/"
    finally:
        context.close()


def start_auto(daemon_factory, tmp_path):
    tls_dir = tmp_path / "tls-auto"
    daemon = daemon_factory("--tls", "auto", "--tls-dir", str(tls_dir), "--https-listen", "127.0.0.1:0",
                            listen=["127.0.0.1:0"])
    assert daemon.https_port, daemon.notifications
    return daemon


def ca_from_plain_http(daemon, tmp_path):
    """/ca.crt over plain HTTP, as a device fetches it before it trusts anything: (DER, PEM path, fingerprint)."""
    reply = fetch(daemon.url + "/ca.crt")
    assert reply.status == 200, reply
    der = tmp_path / "served-ca.der"
    der.write_bytes(reply.body)
    pem = tmp_path / "served-ca.pem"
    subprocess.run(["openssl", "x509", "-inform", "DER", "-in", str(der), "-out", str(pem)], check=True, capture_output=True)
    line = subprocess.run(["openssl", "x509", "-in", str(pem), "-noout", "-fingerprint", "-sha256"],
                          check=True, capture_output=True, text=True).stdout
    return reply, pem, line.strip().split("=", 1)[1]


def test_auto_serves_its_ca_over_plain_http_and_it_verifies_https(daemon_factory, tmp_path):
    daemon = start_auto(daemon_factory, tmp_path)
    reply, pem, fingerprint = ca_from_plain_http(daemon, tmp_path)
    assert reply.header("Content-Type") == "application/x-x509-ca-cert"
    assert reply.header("Content-Disposition") == 'attachment; filename="filedrop-ca.crt"'
    # The same CA as the one in tls-dir, and the one the log names.
    on_disk = subprocess.run(["openssl", "x509", "-in", str(tmp_path / "tls-auto" / "ca.crt"), "-outform", "DER"],
                             check=True, capture_output=True).stdout
    assert reply.body == on_disk
    assert fingerprint in daemon.stderr_text()
    again = fetch(daemon.url + "/ca.crt", headers={"If-None-Match": reply.header("ETag")})
    assert again.status == 304
    status, _, body = fetch_https(daemon, (pem, None), "/ca.crt")
    assert status == 200 and body == reply.body
    status, _, config = fetch_https(daemon, (pem, None), "/config.json")
    assert f'"localCA":true,"fingerprint":"{fingerprint}"'.encode() in config


def test_auto_profile_and_trust_page_carry_the_ca(daemon_factory, tmp_path):
    daemon = start_auto(daemon_factory, tmp_path)
    _, _, fingerprint = ca_from_plain_http(daemon, tmp_path)
    certificate = fetch(daemon.url + "/ca.crt").body
    profile = fetch(daemon.url + "/ca.mobileconfig")
    assert profile.status == 200
    assert profile.header("Content-Type") == "application/x-apple-aspen-config"
    plist = plistlib.loads(profile.body)
    assert plist["PayloadType"] == "Configuration"
    assert plist["PayloadDisplayName"] == "filedrop CA on 127.0.0.1"
    (root,) = plist["PayloadContent"]
    assert root["PayloadType"] == "com.apple.security.root"
    assert root["PayloadContent"] == certificate
    page = fetch(daemon.url + "/trust", headers={"Accept": "text/html"})
    assert page.status == 200
    assert fingerprint.encode() in page.body
    assert b'href="/ca.crt"' in page.body and b'href="/ca.mobileconfig"' in page.body


def catalogue(code):
    return json.loads((WEB_ROOT / f"i18n-{code}.json").read_text(encoding="utf-8"))


def fixed_words(text):
    """The parts of a catalogue text the page shows as they are: between its {placeholders}
    and *emphasis* marks, escaped as the server escapes text."""
    escaped = html.escape(text, quote=True).replace("&#x27;", "&#39;")
    return [part for part in re.split(r"\{\w+\}|\*", escaped) if len(part.strip()) >= 4]


@pytest.mark.parametrize("headers,code,tag", [
    ({"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}, "de", "de"),
    ({"Accept-Language": "en", "Cookie": "filedrop-lang=zh"}, "zh", "zh-Hans"),
], ids=["accept-language", "cookie"])
def test_the_trust_page_is_in_the_readers_language(daemon_factory, tmp_path, headers, code, tag):
    daemon = start_auto(daemon_factory, tmp_path)
    page = fetch(daemon.url + "/trust", headers={"Accept": "text/html", **headers})
    assert page.status == 200
    assert f'<html lang="{tag}" dir="ltr">'.encode() in page.body
    assert {"accept-language", "cookie"} <= {t.strip().lower() for v in page.headers_named("Vary") for t in v.split(",")}
    body = page.body.decode()
    own, english = catalogue(code), catalogue("en")
    # "nothing" is the operator-certificate page's; this server has a CA of its own.
    shown = [key for key in own if key.startswith("trust.") and not key.startswith("trust.nothing")]
    assert len(shown) > 30
    for key in shown:
        for words in fixed_words(own[key]):
            assert words in body, (key, words)
        for words in fixed_words(english[key]):
            if len(words) >= 12:
                assert words not in body, ("English left", key, words)
    _, _, fingerprint = ca_from_plain_http(daemon, tmp_path)
    assert fingerprint in body


@pytest.mark.parametrize("locale", ["de-DE", "zh-CN"])
def test_the_translated_trust_page_has_no_axe_violation(browser_page, daemon_factory, tmp_path, locale):
    daemon = start_auto(daemon_factory, tmp_path)
    page = browser_page("phone", locale=locale)
    page.goto(daemon.url + "/trust")
    assert page.locator("html").get_attribute("lang") == ("de" if locale == "de-DE" else "zh-Hans")
    assert_accessible(page)
    # Over plain HTTP the page asks the HTTPS port whether this browser trusts the CA; this
    # one does not, and Chromium logs the refused certificate.
    assert_no_problems(page, allowed=("ERR_CERT_AUTHORITY_INVALID",))


def test_plain_http_refusals_are_in_the_readers_language(daemon_factory, certificate):
    daemon = start(daemon_factory, certificate)
    page = fetch(daemon.url + "/files/x.txt", "PUT", body=b"x", headers={"Accept": "text/html", "Accept-Language": "de"})
    assert page.status == 403
    assert "Dieser Server nimmt Uploads und Passwörter nur über HTTPS an".encode() in page.body
    assert f"{daemon.https_url}/files/x.txt".encode() in page.body
    text = fetch(daemon.url + "/files/x.txt", "PUT", body=b"x", headers={"Accept-Language": "de"})
    assert b"only over HTTPS" in text.body
