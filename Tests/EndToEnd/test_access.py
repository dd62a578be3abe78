"""Access control and hostile input against the real daemon: passwords (drop, private,
read-only modes), brute force, DNS rebinding, per-client limits, and file names made to run
script in a page (cross-site requests: `test_attack_cross_origin.py`).

One test per attack; each checks both that the attack fails and that the honest request
next to it still works, so a test cannot pass by the daemon refusing everything.
"""

from __future__ import annotations

import base64
import html
import json
import socket
import subprocess
import time
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

import pytest

from conftest import AWKWARD_FILES, FILEDROP_BIN, WEB_ROOT
from http_raw import build_request, fetch

PASSWORD = "correct horse"
BOUNDARY = "AccessTestBoundary"
# The first has a "/": multipart uploads keep relative folders, so it is stored as the file
# "script>.html" in a folder "<script>alert(1)<"; the others are single names.
XSS_NAMES = ["<script>alert(1)</script>.html", '"><img src=x onerror=alert(1)>.svg', "<svg onload=alert(1)>.html"]


@lru_cache(maxsize=1)
def password_hash() -> str:
    done = subprocess.run([str(FILEDROP_BIN), "passwd"], input=f"{PASSWORD}\n".encode(),
                          capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode().strip()


def basic(password: str, user: str = "anyone") -> dict[str, str]:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


def multipart(name: str, content: bytes) -> tuple[dict[str, str], bytes]:
    quoted = name.replace('"', "%22")
    body = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{quoted}\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\n").encode() + content + f"\r\n--{BOUNDARY}--\r\n".encode()
    return {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}, body


def stored_names(daemon) -> set[str]:
    return {str(path.relative_to(daemon.save_dir)) for path in daemon.save_dir.rglob("*") if path.is_file()}


# filedrop passwd

def test_passwd_prints_a_yescrypt_hash_that_the_daemon_accepts(daemon_factory):
    hashed = password_hash()
    assert hashed.startswith("$y$") and "\n" not in hashed and len(hashed) > 40
    again = subprocess.run([str(FILEDROP_BIN), "passwd"], input=f"{PASSWORD}\n".encode(), capture_output=True, timeout=30)
    assert again.stdout.decode().strip() != hashed, "every hash needs its own salt"
    daemon = daemon_factory("--access", "private", "--password-hash", hashed)
    assert fetch(daemon.url + "/", headers=basic(PASSWORD)).status == 200
    assert fetch(daemon.url + "/", headers=basic("wrong")).status == 401


@pytest.mark.parametrize("stdin", [b"", b"\n"])
def test_passwd_without_a_password_fails_with_2(stdin):
    done = subprocess.run([str(FILEDROP_BIN), "passwd"], input=stdin, capture_output=True, timeout=30)
    assert done.returncode == 2
    assert done.stdout == b""
    assert b"passwd" in done.stderr


def test_password_modes_refuse_to_start_without_a_hash(tmp_path):
    for mode in ("drop", "private"):
        done = subprocess.run([str(FILEDROP_BIN), "--config=", "--access", mode, "--save-dir", str(tmp_path),
                               "--web-root", str(WEB_ROOT), "--listen", "127.0.0.1:0"], capture_output=True, timeout=30)
        assert done.returncode == 2
        assert b"filedrop passwd" in done.stderr


def test_a_bad_hash_refuses_to_start(tmp_path):
    done = subprocess.run([str(FILEDROP_BIN), "--config=", "--access", "drop", "--password-hash", "$1$legacy$md5",
                           "--save-dir", str(tmp_path), "--web-root", str(WEB_ROOT), "--listen", "127.0.0.1:0"],
                          capture_output=True, timeout=30)
    assert done.returncode == 2
    assert b"password-hash" in done.stderr


# Modes

def test_drop_mode_takes_uploads_but_guards_listing_and_downloads(daemon_factory):
    daemon = daemon_factory("--access", "drop", "--password-hash", password_hash())
    assert fetch(daemon.url + "/files/dropped.txt", "PUT", body=b"for the owner").status == 201
    headers, body = multipart("form.txt", b"from a form")
    assert fetch(daemon.url + "/upload", "POST", headers=headers, body=body).status == 201
    assert {"dropped.txt", "form.txt"} <= stored_names(daemon)

    assert fetch(daemon.url + "/").status == 200
    assert fetch(daemon.url + "/config.json").status == 200
    for path in ("/files/", "/files/?format=json", "/files/dropped.txt", "/files"):
        refused = fetch(daemon.url + path)
        assert refused.status == 401, path
        assert refused.header("WWW-Authenticate") == 'Basic realm="filedrop", charset="UTF-8"'
        assert b"dropped" not in refused.body
    assert fetch(daemon.url + "/files/", headers=basic("wrong")).status == 401
    listing = fetch(daemon.url + "/files/?format=json", headers=basic(PASSWORD))
    assert listing.status == 200 and b"dropped.txt" in listing.body
    download = fetch(daemon.url + "/files/dropped.txt", headers=basic(PASSWORD, user="who-ever"))
    assert download.status == 200 and download.body == b"for the owner"


def test_private_mode_guards_the_page_too(daemon_factory):
    daemon = daemon_factory("--access", "private", "--password-hash", password_hash())
    for path in ("/", "/app.js", "/config.json", "/files/"):
        assert fetch(daemon.url + path).status == 401, path
    assert fetch(daemon.url + "/files/x.txt", "PUT", body=b"x").status == 401
    assert "x.txt" not in stored_names(daemon)
    assert fetch(daemon.url + "/", headers=basic(PASSWORD)).status == 200
    assert fetch(daemon.url + "/files/x.txt", "PUT", headers=basic(PASSWORD), body=b"x").status == 201


def test_read_only_refuses_every_write(daemon_factory):
    daemon = daemon_factory("--access", "read-only", "--allow-delete")
    before = stored_names(daemon)
    assert fetch(daemon.url + "/files/new.txt", "PUT", body=b"x").status == 403
    headers, body = multipart("new.txt", b"x")
    assert fetch(daemon.url + "/upload", "POST", headers=headers, body=body).status == 403
    assert fetch(daemon.url + "/files/plain.txt", "DELETE").status == 403
    assert stored_names(daemon) == before
    assert fetch(daemon.url + "/files/plain.txt").status == 200


def test_delete_is_off_unless_allowed_and_needs_the_password_when_one_is_set(daemon_factory):
    plain = daemon_factory()
    assert fetch(plain.url + "/files/plain.txt", "DELETE").status == 405
    guarded = daemon_factory("--allow-delete", "--password-hash", password_hash())
    assert fetch(guarded.url + "/files/plain.txt", "DELETE").status == 401
    assert "plain.txt" in stored_names(guarded)
    assert fetch(guarded.url + "/files/plain.txt", "DELETE", headers=basic(PASSWORD)).status == 204
    assert "plain.txt" not in stored_names(guarded)


# 401 before the body

def test_401_goes_out_instead_of_100_continue(daemon_factory):
    daemon = daemon_factory("--access", "private", "--password-hash", password_hash())
    connection = daemon.connect()
    connection.send(build_request("PUT", "/files/big.bin", headers=[
        ("Content-Length", str(10 << 20)), ("Expect", "100-continue")]))
    response = connection.read_response()
    assert response.status == 401, "no 100 Continue may come first"
    assert response.header("WWW-Authenticate") == 'Basic realm="filedrop", charset="UTF-8"'
    assert response.says_close
    assert connection.wait_closed()
    assert "big.bin" not in stored_names(daemon)


# Brute force

def test_brute_force_is_slowed_to_429(daemon_factory):
    daemon = daemon_factory("--access", "drop", "--password-hash", password_hash())
    statuses = [fetch(daemon.url + "/files/", headers=basic(f"guess{n}")).status for n in range(6)]
    assert statuses == [401] * 6
    locked = fetch(daemon.url + "/files/", headers=basic(PASSWORD))
    assert locked.status == 429, "even the right password waits out the lockout"
    assert int(locked.header("Retry-After")) >= 1
    # Another client (IPv6 loopback is another address) is not affected.
    assert fetch(daemon.url6 + "/files/", headers=basic(PASSWORD)).status == 200
    time.sleep(int(locked.header("Retry-After")) + 0.2)
    assert fetch(daemon.url + "/files/", headers=basic(PASSWORD)).status == 200
    # Success wiped the slate: the next wrong guess is a plain 401 again.
    assert fetch(daemon.url + "/files/", headers=basic("wrong")).status == 401


# DNS rebinding

@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1.evil.example", "localhost.evil.example:{port}"])
def test_foreign_host_names_are_refused(daemon, host):
    connection = daemon.connect()
    connection.send(build_request("GET", "/files/", host=host.format(port=daemon.port)))
    response = connection.read_response()
    assert response.status == 421
    assert b"allowed-hosts" in response.body
    assert b"plain.txt" not in response.body


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "127.0.0.1", "localhost:{port}", "[::1]:{port}", "LocalHost"])
def test_addresses_and_localhost_are_served(daemon, host):
    connection = daemon.connect()
    connection.send(build_request("GET", "/files/", host=host.format(port=daemon.port)))
    assert connection.read_response().status == 200


def test_configured_and_machine_names_are_served(daemon_factory):
    daemon = daemon_factory("--allowed-hosts", "nas.lan,files.home")
    for host in ("nas.lan", "FILES.HOME:8080", socket.gethostname(), socket.gethostname().split(".")[0] + ".local"):
        connection = daemon.connect()
        connection.send(build_request("GET", "/config.json", host=host))
        assert connection.read_response().status == 200, host
        connection.close()


# Per-client limits

def test_connections_per_client_are_capped(daemon_factory):
    daemon = daemon_factory("--max-connections-per-client", "3")
    held = [daemon.connect() for _ in range(3)]
    for connection in held:
        assert connection.is_open_after(0.2)
    extra = daemon.connect()
    assert extra.wait_closed(), "a fourth connection from the same address must be closed at accept"
    assert extra.buffer.startswith(b"HTTP/1.1 503 "), f"closed without a 503: {extra.buffer[:100]!r}"
    # Another address is not affected, and a freed slot is usable again.
    assert fetch(daemon.url6 + "/config.json").status == 200
    held[0].close()
    time.sleep(0.3)
    assert fetch(daemon.url + "/config.json").status == 200


def test_concurrent_uploads_per_client_are_capped(daemon_factory):
    daemon = daemon_factory("--max-uploads-per-client", "1")
    first = daemon.connect()
    first.send(build_request("PUT", "/files/slow.bin", headers=[("Content-Length", "10")]) + b"12345")
    time.sleep(0.3)
    second = fetch(daemon.url + "/files/second.bin", "PUT", body=b"x")
    assert second.status == 429
    assert second.header("Retry-After") is not None
    first.send(b"67890")
    assert first.read_response().status == 201
    assert fetch(daemon.url + "/files/second.bin", "PUT", body=b"x").status == 201


def test_hourly_upload_quota_one_byte_over(daemon_factory):
    daemon = daemon_factory("--upload-quota-per-hour", "100")
    assert fetch(daemon.url + "/files/a.bin", "PUT", body=b"x" * 100).status == 201
    over = fetch(daemon.url + "/files/b.bin", "PUT", body=b"x")
    assert over.status == 429 and int(over.header("Retry-After")) > 3000
    assert "b.bin" not in stored_names(daemon)


def upload_lines(daemon, name: str) -> list[str]:
    """The daemon's upload log lines (started, finished, failed, refused) naming `name`."""
    return [line for line in daemon.stderr_text().splitlines() if "upload " in line and f": {name}" in line]


def test_an_upload_over_the_clients_limit_is_logged_once_as_refused(daemon_factory):
    daemon = daemon_factory("--max-uploads-per-client", "1")
    held = daemon.connect()
    held.send(build_request("PUT", "/files/held.bin", headers=[("Content-Length", "10")]) + b"12345")
    deadline = time.monotonic() + 5
    while not upload_lines(daemon, "held.bin"):
        assert time.monotonic() < deadline, daemon.stderr_tail()
        time.sleep(0.02)
    assert fetch(daemon.url + "/files/other.bin", "PUT", body=b"x").status == 429
    held.send(b"67890")
    assert held.read_response().status == 201
    lines = upload_lines(daemon, "other.bin")
    assert len(lines) == 1 and "upload refused: other.bin: You already have 1 uploads running" in lines[0], lines


def test_an_upload_the_hourly_quota_cannot_take_is_logged_once_as_refused(daemon_factory):
    daemon = daemon_factory("--upload-quota-per-hour", "100")
    assert fetch(daemon.url + "/files/a.bin", "PUT", body=b"x" * 60).status == 201
    over = fetch(daemon.url + "/files/b.bin", "PUT", body=b"x" * 60)
    assert over.status == 429, "60 more bytes do not fit the 40 left: refused before it starts"
    assert fetch(daemon.url + "/files/c.bin", "PUT", body=b"x" * 40).status == 201, "exactly the rest fits"
    lines = upload_lines(daemon, "b.bin")
    assert len(lines) == 1 and "upload refused: b.bin: You have uploaded 100 bytes this hour" in lines[0], lines
    assert "b.bin" not in stored_names(daemon)


# Output safety

def test_script_in_file_names_is_escaped_and_never_runs(daemon):
    for name in XSS_NAMES:
        headers, body = multipart(name, b"<script>alert(document.domain)</script><svg onload=alert(1)/>")
        report = fetch(daemon.url + "/upload", "POST", headers={**headers, "Accept": "text/html"}, body=body)
        assert report.status == 200, report
        assert b"<script>alert(1)" not in report.body and b"<img src=x" not in report.body
        assert b"<svg onload" not in report.body and b"script>.html" not in report.body
        assert b"&gt;" in report.body
        assert "default-src 'none'" in report.header("Content-Security-Policy")
    listing = fetch(daemon.url + "/files/", headers={"Accept": "text/html"})
    assert listing.status == 200
    assert "script-src" not in listing.header("Content-Security-Policy")
    top_level = {path.split("/")[0] for path in stored_names(daemon)} - {name.split("/")[0] for name in AWKWARD_FILES}
    assert top_level == {"<script>alert(1)<", '"><img src=x onerror=alert(1)>.svg', "<svg onload=alert(1)>.html"}
    for name in top_level:
        assert html.escape(name, quote=True).encode() in listing.body, name
        assert name.encode() not in listing.body, name

    listing_json = fetch(daemon.url + "/files/?format=json")
    assert listing_json.header("Content-Type") == "application/json"
    assert top_level <= {entry["name"] for entry in json.loads(listing_json.body)["entries"]}
    for name in ["<script>alert(1)</script>.html", '"><img src=x onerror=alert(1)>.svg', "<svg onload=alert(1)>.html"]:
        download = fetch(daemon.url + "/files/" + "/".join(quote(part, safe="") for part in name.split("/")))
        assert download.status == 200
        assert download.header("Content-Disposition").startswith("attachment;"), name
        assert "sandbox" in download.header("Content-Security-Policy")
        assert download.header("X-Content-Type-Options") == "nosniff"
        fallback = download.header("Content-Disposition").split("filename*=")[0]
        assert '"' not in fallback.split('filename="', 1)[1].rstrip('"; '), fallback


@pytest.mark.parametrize("path,headers", [
    ("/", {}),
    ("/files/", {"Accept": "text/html"}),
    ("/nothing-here", {"Accept": "text/html"}),
    ("/files/plain.txt", {}),
    ("/config.json", {}),
])
def test_security_headers_on_every_response(daemon, path, headers):
    response = fetch(daemon.url + path, headers=headers)
    assert response.header("X-Content-Type-Options") == "nosniff"
    assert response.header("Referrer-Policy") == "no-referrer"
    assert response.header("X-Frame-Options") == "DENY"
    if (response.header("Content-Type") or "").startswith("text/html"):
        policy = response.header("Content-Security-Policy")
        assert policy and ("frame-ancestors 'none'" in policy or "default-src 'none'" in policy), path


def test_refusals_are_html_with_a_policy_too(daemon_factory):
    daemon = daemon_factory("--access", "private", "--password-hash", password_hash())
    refused = fetch(daemon.url + "/", headers={"Accept": "text/html"})
    assert refused.status == 401
    assert "default-src 'none'" in refused.header("Content-Security-Policy")
    assert refused.header("X-Frame-Options") == "DENY"


def test_the_page_works_as_a_drop_box(daemon_factory, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    from conftest import CHROMIUM
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    daemon = daemon_factory("--access", "drop", "--password-hash", password_hash())
    source = tmp_path / "for-the-owner.txt"
    source.write_bytes(b"dropped from the page\n")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            page = browser.new_page()
            page.goto(daemon.url + "/")
            sync_api.expect(page.locator("#files-status")).to_contain_text("Listing needs a password", timeout=10_000)
            page.set_input_files("#file-input", str(source))
            sync_api.expect(page.locator('.upload[data-state="done"]')).to_have_count(1, timeout=30_000)
            # The owner signs in on the HTML listing and sees the file.
            owner = browser.new_context(http_credentials={"username": "owner", "password": PASSWORD}).new_page()
            owner.goto(daemon.url + "/files/")
            sync_api.expect(owner.locator("body")).to_contain_text("for-the-owner.txt")
            owner.context.close()
        finally:
            browser.close()
    assert (daemon.save_dir / "for-the-owner.txt").read_bytes() == source.read_bytes()
