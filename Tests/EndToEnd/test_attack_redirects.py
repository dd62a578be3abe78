"""Open redirects against the real daemon: request targets that a browser would resolve to
another host if the server echoed them into `Location` (`//evil.example/`,
`/\\evil.example/`, their percent-encoded forms). Every redirecting route is asked with each:
the language switch on the page and on a listing, the folder and `/files` slash redirects, the
no-script form's 303, the plain port's redirect to HTTPS, and the 201s of PUT, MKCOL, MOVE
and tus. Every `Location` that comes back is resolved against the URL asked, by Python and
by Chromium's own WHATWG URL parser, and must stay on the daemon's host and port.
"""

from __future__ import annotations

import base64
import re
import subprocess
from urllib.parse import urljoin, urlsplit

import pytest

from http_raw import RawConnection, fetch

# What the outside probe sent before `?lang=de` (curl --path-as-is), and a few more forms.
HOSTILE = [
    "//evil.example/",
    "/\\evil.example/",
    "/%2F%2Fevil.example/",
    "/%5Cevil.example/",
    "///evil.example/",
    "/\\/evil.example/",
    "/%5C%5Cevil.example/",
    "/.//evil.example/",
    "/%2e%2e//evil.example/",
]

# The routes that answer with a redirect, as a benign client asks them.
REDIRECTING = ["/?lang=de", "/files/?lang=de", "/files/sub%20dir/?lang=fr", "/files", "/files/sub%20dir",
               "/upload.html", "/index.html?lang=en"]


def hostile_targets() -> list[str]:
    """Each hostile prefix alone (as the probe sent it) and in front of, or inside, each
    redirecting route."""
    targets = []
    for prefix in HOSTILE:
        targets.append(prefix + "?lang=de")
        for route in REDIRECTING:
            targets.append(prefix.rstrip("/") + route)
            if route.startswith("/files/"):
                targets.append("/files" + prefix + route[len("/files/"):])
    return targets


def whatwg_host(location: str, base: str) -> str:
    """The host[:port] a browser goes to for `location` on the page `base`, by the rules of
    the WHATWG URL standard that matter here: leading and trailing C0 controls and spaces go,
    tabs and newlines anywhere go, and in http(s) a `\\` is a `/`."""
    cleaned = re.sub(r"[\t\n\r]", "", location.strip("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d"
                                                     "\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b"
                                                     "\x1c\x1d\x1e\x1f "))
    scheme = urlsplit(cleaned).scheme.lower()
    if scheme in ("", "http", "https"):
        cleaned = cleaned.replace("\\", "/")
    return urlsplit(urljoin(base, cleaned)).netloc.lower()


def curl_location(url: str, target: str) -> tuple[int, str | None]:
    """`curl --path-as-is` as the probe ran it: the status and Location, never followed."""
    done = subprocess.run(["curl", "--silent", "--show-error", "--max-time", "20", "--path-as-is", "--globoff",
                           "-o", "/dev/null", "-D", "-", url + target], capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    location = next((line.split(":", 1)[1].strip() for line in lines if line.lower().startswith("location:")), None)
    return status, location


def raw_location(port: int, target: str, method: str = "GET") -> tuple[int, str | None]:
    """One request with the target exactly as given, on its own connection."""
    connection = RawConnection.open(("127.0.0.1", port), timeout=10)
    try:
        reply = connection.request(method, target, host=f"127.0.0.1:{port}")
        return reply.status, reply.header("Location")
    finally:
        connection.close()


def browser_hosts(chromium, pairs: list[tuple[str, str]]) -> list[str]:
    """`new URL(location, base).host` for each (location, base), in Chromium."""
    page = chromium.new_page()
    try:
        return page.evaluate("pairs => pairs.map(([location, base]) => new URL(location, base).host)", pairs)
    finally:
        page.close()


def assert_all_stay(chromium, seen: list[tuple[str, str, str]], host: str):
    """`seen`: (target, base URL, Location). Python and Chromium must both resolve each
    Location to `host`."""
    assert seen, "no redirect was answered at all"
    for target, base, location in seen:
        assert whatwg_host(location, base) == host, f"{target!r} -> Location {location!r}"
    for (target, base, location), resolved in zip(seen, browser_hosts(chromium, [(loc, base) for _, base, loc in seen])):
        assert resolved == host, f"{target!r} -> Location {location!r} -> Chromium goes to {resolved!r}"


def test_the_language_switch_never_redirects_to_another_host(daemon, chromium):
    host = f"127.0.0.1:{daemon.port}"
    seen = []
    for prefix in HOSTILE:
        target = prefix + "?lang=de"
        status, location = curl_location(daemon.url, target)
        if location is not None:
            seen.append((target, daemon.url + "/", location))
    # The probe's own targets are answered by the switch: the test cannot pass by 400s alone.
    assert len(seen) >= 3, seen
    assert_all_stay(chromium, seen, host)
    # And the switch still takes a browser back to the page it was on.
    assert curl_location(daemon.url, "/?lang=de") == (303, "/")
    assert curl_location(daemon.url, "/files/sub%20dir/?lang=de") == (303, "/files/sub%20dir/")


def test_every_redirecting_route_stays_on_this_host(daemon, chromium):
    host = f"127.0.0.1:{daemon.port}"
    seen = []
    for target in hostile_targets() + REDIRECTING:
        for method in ("GET", "HEAD"):
            status, location = raw_location(daemon.port, target, method)
            if location is not None:
                assert status in (301, 303, 307, 308), (target, status, location)
                seen.append((target, daemon.url + "/", location))
    assert_all_stay(chromium, seen, host)
    benign = {target: location for target, _, location in seen if target in REDIRECTING}
    assert benign["/files"] == "/files/"
    assert benign["/files/sub%20dir"] == "/files/sub%20dir/"
    assert benign["/upload.html"] == "/"


def test_the_201_answers_name_urls_on_this_host(daemon_factory, chromium):
    daemon = daemon_factory("--allow-delete")
    host = f"127.0.0.1:{daemon.port}"
    seen = []
    for target, method, headers in [
        ("/files/evil.example", "PUT", {}),
        ("/files/%40evil.example", "PUT", {}),
        ("/files/new%20folder/", "MKCOL", {}),
        ("/files/evil.example", "MOVE", {"Destination": "/files/%40evil.example%20moved"}),
        ("/files/", "POST", {"Tus-Resumable": "1.0.0", "Upload-Length": "4",
                             "Upload-Metadata": "filename " + base64.b64encode(b"//evil.example").decode()}),
    ]:
        reply = fetch(daemon.url + target, method, headers=headers, body=b"body" if method == "PUT" else None)
        assert reply.status == 201, (target, method, reply)
        seen.append((target, daemon.url + target, reply.header("Location")))
    assert_all_stay(chromium, seen, host)


def test_the_plain_port_redirects_only_to_our_https_port(https_daemon, chromium):
    daemon = https_daemon()
    host = f"127.0.0.1:{daemon.https_port}"
    seen = []
    for target in hostile_targets() + REDIRECTING:
        status, location = raw_location(daemon.port, target)
        if location is not None:
            assert status == 308, (target, status, location)
            seen.append((target, daemon.url + "/", location))
    assert_all_stay(chromium, seen, host)
    # Absolute, so the host above holds anyway; the path is the server's own too.
    for target in ("//evil.example/?lang=de", "/\\evil.example/?lang=de"):
        status, location = curl_location(daemon.url, target)
        assert status == 308, (target, status)
        path = location[len(daemon.https_url):]
        assert location.startswith(daemon.https_url + "/") and path[1:2] not in ("/", "\\"), location
