"""Path traversal against the real daemon: URLs (encoded, double-encoded, backslashes,
overlong UTF-8, NUL), multipart file names, folder-upload `relativePath` fields and tus
metadata. Each attack is refused or lands inside the save directory, nothing outside
changes, and an honest client on another address is served during and after.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from attack_support import Canary, LegitClient, multipart
from http_raw import fetch

SECRET = b"outside the save directory\n"

# Each tries to reach `outside/secret.txt` next to the save directory (or /etc/passwd).
TRAVERSAL_URLS = [
    "/files/../outside/secret.txt",
    "/files/%2e%2e/outside/secret.txt",
    "/files/%2E%2E%2Foutside%2Fsecret.txt",
    "/files/.%2e/outside/secret.txt",
    "/files/%2e%2e%5coutside%5csecret.txt",
    "/files/..%5coutside%5csecret.txt",
    "/files/..\\outside\\secret.txt",
    "/files/%252e%252e/outside/secret.txt",
    "/files/%252e%252e%252foutside%252fsecret.txt",
    "/files/%c0%ae%c0%ae/outside/secret.txt",
    "/files/%c0%ae%c0%ae%c0%afoutside%c0%afsecret.txt",
    "/files/%e0%80%ae%e0%80%ae/outside/secret.txt",
    "/files/plain.txt%00/../../outside/secret.txt",
    "/files/%00/../outside/secret.txt",
    "/files/sub%20dir/..%2f..%2f..%2foutside/secret.txt",
    "/files//../outside/secret.txt",
    "/files/" + "../" * 12 + "etc/passwd",
    "/files/" + "%2e%2e%2f" * 12 + "etc/passwd",
    "/..%2f..%2f..%2f..%2fetc/passwd",
    "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/..\\..\\..\\etc\\passwd",
]


def raw_status(daemon, method: str, target: str, body: bytes = b"") -> tuple[int | None, bytes]:
    """Sends `target` byte for byte (http.client would refuse some of these); None when the
    daemon closed without an answer."""
    connection = daemon.connect()
    request = f"{method} {target} HTTP/1.1\r\nHost: localhost\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    try:
        connection.send(request.encode("latin-1") + body)
        response = connection.read_response()
    except Exception:  # noqa: BLE001 - a closed connection is a refusal too
        return None, b""
    finally:
        connection.close()
    return response.status, response.body


@pytest.mark.parametrize("target", TRAVERSAL_URLS)
def test_traversal_urls_neither_read_nor_write_outside(daemon, target):
    canary = Canary(daemon)
    with LegitClient(daemon):
        status, body = raw_status(daemon, "GET", target)
        assert status in (None, 400, 404), (status, body[:200])
        assert SECRET not in body and b"root:" not in body
        status, body = raw_status(daemon, "PUT", target, b"planted by a traversal")
        # Decoded once, %252e%252e is the literal folder name "%2e%2e": storing there is fine.
        allowed = (None, 400, 404, 405, 201) if "%25" in target else (None, 400, 404, 405)
        assert status in allowed, (status, body[:200])
    canary.assert_untouched()
    planted = [path for path in daemon.save_dir.rglob("*") if path.is_file() and b"planted" in path.read_bytes()]
    assert all(path.relative_to(daemon.save_dir).parts[0].startswith("%2e%2e") for path in planted), planted


def test_percent_escapes_are_decoded_exactly_once(daemon):
    # The save directory holds a file literally named "%20.txt": %2520 must find it (one
    # decode), and must not find " .txt" or anything a second decode would produce.
    (daemon.save_dir / " .txt").write_bytes(b"found by decoding twice\n")
    response = fetch(daemon.url + "/files/%2520.txt")
    assert response.status == 200 and response.body == b"percent twenty\n"
    stored = fetch(daemon.url + "/files/%252e%252e", "PUT", body=b"literal name")
    assert stored.status == 201, stored
    assert (daemon.save_dir / "%2e%2e").read_bytes() == b"literal name"


# Names in upload bodies

MULTIPART_NAMES = [
    "../../escape.txt", "..\\..\\escape.txt", "..%2f..%2fescape.txt", "/tmp/escape.txt",
    "C:\\Windows\\escape.txt", "..", ".", "%2e%2e", "\u2025escape.txt", "..\u2215escape.txt",
    "a/../../escape.txt", "\uff0e\uff0e/escape.txt", "../../etc/passwd", "/etc/passwd", "./../up.txt",
    "a\\..\\..\\b.txt",
]


@pytest.mark.parametrize("name", MULTIPART_NAMES)
def test_multipart_file_names_stay_inside(daemon_factory, name):
    daemon = daemon_factory()
    canary = Canary(daemon)
    with LegitClient(daemon):
        headers, body = multipart([("file", name, b"payload")])
        response = fetch(daemon.url + "/upload", "POST", headers, body)
    assert response.status in (201, 400), response
    canary.assert_untouched()
    for path in daemon.save_dir.rglob("*"):
        assert path.resolve().is_relative_to(daemon.save_dir.resolve())
        assert ".." not in path.relative_to(daemon.save_dir).parts


def test_nul_in_a_file_name_is_refused(daemon_factory):
    daemon = daemon_factory(fill=False)
    headers, body = multipart([("file", "evil\x00.txt", b"payload")])
    response = fetch(daemon.url + "/upload", "POST", headers, body)
    assert response.status == 400
    assert list(daemon.save_dir.iterdir()) == []


@pytest.mark.parametrize("target", ["/upload.html?name=../escape.txt", "/upload?name=..%2fescape.txt",
                                    "/files/.filedrop-tmp-1", "/files/.filedrop-tus/escape.txt"])
def test_names_in_queries_and_reserved_names_are_refused(daemon_factory, target):
    daemon = daemon_factory(fill=False)
    canary = Canary(daemon)
    method = "POST" if target.startswith("/upload") else "PUT"
    response = fetch(daemon.url + target, method, {"Content-Type": "application/octet-stream"}, b"payload")
    assert response.status in (400, 404), response
    canary.assert_untouched()
    assert list(daemon.save_dir.iterdir()) == []


RELATIVE_PATHS = [
    "../escape.txt", "../../escape.txt", "album/../../escape.txt", "album/../escape.txt",
    "..\\escape.txt", "album\\..\\..\\escape.txt", "/escape.txt", "./escape.txt", "album//escape.txt",
    "album/%2e%2e/escape.txt", "album/\x00/escape.txt", "album/.filedrop-tus/escape.txt",
]


@pytest.mark.parametrize("relative_path", RELATIVE_PATHS)
def test_folder_upload_relative_paths_cannot_climb(daemon, relative_path):
    canary = Canary(daemon)
    with LegitClient(daemon):
        headers, body = multipart([("relativePath", None, relative_path.encode()), ("file", "escape.txt", b"payload")])
        response = fetch(daemon.url + "/upload", "POST", headers, body)
    assert response.status in (201, 400), response
    canary.assert_untouched()
    planted = [path for path in daemon.save_dir.rglob("escape.txt")]
    for path in planted:
        parts = path.relative_to(daemon.save_dir).parts
        assert ".." not in parts and "." not in parts and not any(part.startswith(".") for part in parts), parts
    if "%2e%2e" in relative_path:
        # Not a URL: the escape is a literal folder name, never decoded.
        assert planted == [daemon.save_dir / "album" / "%2e%2e" / "escape.txt"] or response.status == 400


def test_a_refused_relative_path_still_stores_the_honest_file_next_to_it(daemon):
    headers, body = multipart([("relativePath", None, b"../escape.txt"), ("file", "escape.txt", b"refused"),
                               ("file", "honest.txt", b"kept")])
    response = fetch(daemon.url + "/upload", "POST", headers, body)
    assert response.status in (201, 207, 400), response
    assert (daemon.save_dir / "honest.txt").read_bytes() == b"kept"
    assert not (daemon.workdir / "escape.txt").exists()


def tus_metadata(**values: str) -> str:
    return ",".join(f"{key} {base64.b64encode(value.encode()).decode()}" for key, value in values.items())


@pytest.mark.parametrize("values", [
    {"filename": "../../escape.txt"},
    {"filename": "escape.txt", "relativePath": "../escape.txt"},
    {"filename": "escape.txt", "relativePath": "album/../../escape.txt"},
    {"filename": "..", "relativePath": "album/.."},
    {"filename": "escape.txt", "relativePath": "/tmp/escape.txt"},
    {"filename": "escape\x00.txt"},
    {"filename": "escape.txt", "relativePath": ".filedrop-tus/escape.txt"},
])
def test_tus_metadata_cannot_climb(daemon, values):
    canary = Canary(daemon)
    with LegitClient(daemon):
        created = fetch(daemon.url + "/files/", "POST", {
            "Tus-Resumable": "1.0.0", "Upload-Length": "7", "Upload-Metadata": tus_metadata(**values),
            "Content-Type": "application/offset+octet-stream"}, b"payload")
    assert created.status in (201, 400), created
    canary.assert_untouched()
    for path in daemon.save_dir.rglob("escape.txt"):
        parts = path.relative_to(daemon.save_dir).parts
        assert ".." not in parts and not parts[0].startswith("."), parts
    assert not Path("/tmp/escape.txt").exists()
