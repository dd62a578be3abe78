"""The file operations against the real daemon, with curl and http.client: rename (WebDAV
MOVE), new folder (MKCOL), delete, and the multi-select ZIP. Each is tried allowed, refused by
the mode, refused cross-origin, with traversal and overwrite attempts; after every refusal the
save directory is byte-for-byte what it was, so nothing is ever lost.
"""

from __future__ import annotations

import http.client
import io
import json
import os
import subprocess
import urllib.parse
import zipfile

import pytest

from test_access import basic, password_hash, PASSWORD


def seed(daemon) -> None:
    (daemon.save_dir / "a.txt").write_bytes(b"alpha\n")
    (daemon.save_dir / "b.txt").write_bytes(b"bravo\n")
    (daemon.save_dir / "sub").mkdir()
    (daemon.save_dir / "sub" / "c.txt").write_bytes(os.urandom(70_000))


def snapshot(daemon) -> dict[str, bytes | None]:
    """Every path below the save directory (and its parent, where an escape would land)."""
    tree: dict[str, bytes | None] = {}
    for path in sorted(daemon.workdir.rglob("*")):
        if path.name.startswith("daemon.") or "fdn-" in str(path):
            continue
        relative = str(path.relative_to(daemon.workdir))
        tree[relative] = None if path.is_dir() else path.read_bytes()
    return tree


def request(daemon, method: str, path: str, headers: dict[str, str] | None = None,
            body: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def curl(*args: str) -> tuple[int, str]:
    """curl's status code and body (`-w` puts the code on the last line)."""
    done = subprocess.run(["curl", "-sS", "-w", "\n%{http_code}", *args], capture_output=True, timeout=30, check=True)
    text, _, code = done.stdout.decode().rpartition("\n")
    return int(code), text


@pytest.fixture
def deleting(daemon_factory):
    daemon = daemon_factory("--allow-delete", fill=False)
    seed(daemon)
    return daemon


def test_rename_with_curl_keeps_the_file_itself(deleting):
    inode = (deleting.save_dir / "a.txt").stat().st_ino
    code, text = curl("-X", "MOVE", "-H", "Destination: /files/sub/r%C3%A9sum%C3%A9%20final.txt",
                      f"{deleting.url}/files/a.txt")
    assert code == 201, text
    assert "/files/sub/r%C3%A9sum%C3%A9%20final.txt" in text
    moved = deleting.save_dir / "sub" / "résumé final.txt"
    assert moved.read_bytes() == b"alpha\n" and moved.stat().st_ino == inode
    assert not (deleting.save_dir / "a.txt").exists()
    # A folder, named by an absolute URI as WebDAV clients send it.
    status, headers, _ = request(deleting, "MOVE", "/files/sub/", {"Destination": f"{deleting.url}/files/renamed/"})
    assert status == 201 and headers["location"] == "/files/renamed/"
    assert (deleting.save_dir / "renamed" / "résumé final.txt").read_bytes() == b"alpha\n"
    assert not (deleting.save_dir / "sub").exists()


@pytest.mark.parametrize("overwrite", [None, "T", "F"])
def test_rename_never_replaces(deleting, overwrite):
    before = snapshot(deleting)
    headers = {"Destination": "/files/b.txt", "Accept": "application/json"}
    if overwrite:
        headers["Overwrite"] = overwrite
    status, answer_headers, body = request(deleting, "MOVE", "/files/a.txt", headers)
    assert status == 412
    assert answer_headers["content-type"].startswith("application/json")
    assert "already exists" in json.loads(body)["error"]
    assert snapshot(deleting) == before


@pytest.mark.parametrize("destination,status", [
    ("/files/../escaped.txt", 400), ("/files/%2e%2e/escaped.txt", 400), ("/files/sub%2F..%2F..%2Fescaped.txt", 400),
    ("/files/.tus/x", 400), ("/files/.hidden", 400), ("/escaped.txt", 400), ("/files/", 400),
    ("http://evil.example/files/x.txt", 502), ("/files/a.txt", 403), ("/files/no/such/x.txt", 409),
])
def test_rename_refuses_bad_destinations(deleting, destination, status):
    before = snapshot(deleting)
    code, text = curl("-X", "MOVE", "-H", f"Destination: {destination}", f"{deleting.url}/files/a.txt")
    assert code == status, text
    assert text.startswith(f"{status} ") and len(text) > 20, "a sentence a person understands"
    assert snapshot(deleting) == before


def test_symlinks_are_never_renamed_or_followed(deleting, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, deleting.save_dir / "link")
    os.symlink("/etc/hostname", deleting.save_dir / "host")
    before = snapshot(deleting)
    assert request(deleting, "MOVE", "/files/a.txt", {"Destination": "/files/link/a.txt"})[0] == 403
    assert request(deleting, "MOVE", "/files/host", {"Destination": "/files/mine"})[0] in (403, 404)
    assert request(deleting, "MKCOL", "/files/link/new/")[0] == 403
    assert snapshot(deleting) == before and list(outside.iterdir()) == []


def test_new_folder_with_curl(deleting):
    code, text = curl("-X", "MKCOL", f"{deleting.url}/files/sub/holiday%202026/")
    assert code == 201, text
    assert (deleting.save_dir / "sub" / "holiday 2026").is_dir()
    again, text = curl("-X", "MKCOL", f"{deleting.url}/files/sub/holiday%202026/")
    assert again == 405 and "already exists" in text
    assert curl("-X", "MKCOL", f"{deleting.url}/files/no/such/")[0] == 409
    status, _, _ = request(deleting, "MKCOL", "/files/with-body/", {"Content-Type": "text/xml"}, b"<x/>")
    assert status == 415
    assert not (deleting.save_dir / "with-body").exists()
    assert curl("-X", "MKCOL", f"{deleting.url}/files/.hidden/")[0] == 400


def test_delete_and_the_html_a_browser_gets(deleting):
    status, headers, body = request(deleting, "DELETE", "/files/sub/", {"Accept": "text/html"})
    assert status == 409 and headers["content-type"].startswith("text/html") and b"not empty" in body
    assert curl("-X", "DELETE", f"{deleting.url}/files/b.txt")[0] == 204
    assert not (deleting.save_dir / "b.txt").exists()


def test_refused_by_the_mode(daemon_factory):
    plain = daemon_factory(fill=False)
    seed(plain)
    before = snapshot(plain)
    status, headers, _ = request(plain, "MOVE", "/files/a.txt", {"Destination": "/files/x.txt"})
    assert status == 405 and "MOVE" not in headers["allow"]
    assert request(plain, "DELETE", "/files/a.txt")[0] == 405
    # New folders are uploads, not deletions: allowed without allow-delete.
    assert request(plain, "MKCOL", "/files/made/")[0] == 201
    assert (plain.save_dir / "made").is_dir()

    read_only = daemon_factory("--access", "read-only", "--allow-delete", fill=False)
    seed(read_only)
    before = snapshot(read_only)
    for method, headers in [("MOVE", {"Destination": "/files/x.txt"}), ("MKCOL", {}), ("DELETE", {})]:
        status, _, body = request(read_only, method, "/files/a.txt" if method != "MKCOL" else "/files/new/", headers)
        assert status == 403 and b"read-only" in body
    assert snapshot(read_only) == before


def test_drop_mode_needs_the_password(daemon_factory):
    daemon = daemon_factory("--access", "drop", "--password-hash", password_hash(), "--allow-delete", fill=False)
    seed(daemon)
    before = snapshot(daemon)
    assert request(daemon, "MOVE", "/files/a.txt", {"Destination": "/files/x.txt"})[0] == 401
    assert request(daemon, "MKCOL", "/files/new/")[0] == 401
    assert request(daemon, "GET", "/files/?zip&select=a.txt")[0] == 401
    assert snapshot(daemon) == before
    auth = basic(PASSWORD)
    assert request(daemon, "MOVE", "/files/a.txt", {"Destination": "/files/x.txt", **auth})[0] == 201
    assert request(daemon, "MKCOL", "/files/new/", auth)[0] == 201
    assert (daemon.save_dir / "x.txt").read_bytes() == b"alpha\n" and (daemon.save_dir / "new").is_dir()


@pytest.mark.parametrize("foreign", [{"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"},
                                     {"Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1:1"}])
def test_refused_cross_origin(deleting, foreign):
    before = snapshot(deleting)
    for method, path, headers in [("MOVE", "/files/a.txt", {"Destination": "/files/x.txt"}), ("MKCOL", "/files/new/", {}),
                                  ("DELETE", "/files/a.txt", {})]:
        status, _, body = request(deleting, method, path, {**headers, **foreign})
        assert status == 403 and b"another website" in body
    assert snapshot(deleting) == before
    # The page's own requests (same origin) go through.
    own = {"Origin": deleting.url, "Sec-Fetch-Site": "same-origin"}
    assert request(deleting, "MKCOL", "/files/new/", own)[0] == 201


def test_zip_of_a_selection_matches_the_files(deleting, tmp_path):
    (deleting.save_dir / "left out.txt").write_bytes(b"not selected")
    target = tmp_path / "selection.zip"
    query = urllib.parse.urlencode([("zip", ""), ("select", "a.txt"), ("select", "sub/")])
    subprocess.run(["curl", "-sSf", "-o", str(target), f"{deleting.url}/files/?{query}"], check=True, timeout=30)
    archive = zipfile.ZipFile(target)
    assert archive.testzip() is None
    assert sorted(archive.namelist()) == ["a.txt", "sub/", "sub/c.txt"]
    assert archive.read("a.txt") == (deleting.save_dir / "a.txt").read_bytes()
    assert archive.read("sub/c.txt") == (deleting.save_dir / "sub" / "c.txt").read_bytes()
    # Inside a subfolder, by a name that is not ASCII, as http.client sends it.
    (deleting.save_dir / "sub" / "Grüße 😀.txt").write_bytes(b"hello")
    query = urllib.parse.urlencode([("zip", ""), ("select", "Grüße 😀.txt")])
    status, headers, body = request(deleting, "GET", f"/files/sub/?{query}")
    assert status == 200 and headers["content-disposition"].startswith("attachment") and "sub.zip" in headers["content-disposition"]
    inner = zipfile.ZipFile(io.BytesIO(body))
    assert inner.namelist() == ["Grüße 😀.txt"] and inner.read("Grüße 😀.txt") == b"hello"


@pytest.mark.parametrize("query,status", [
    ("zip&select=a.txt&select=missing.txt", 404), ("zip&select=..", 400), ("zip&select=sub%2Fc.txt", 400),
    ("zip&select=", 400), ("zip&select=.tus", 400),
])
def test_zip_selection_refusals_come_before_any_byte(deleting, query, status):
    code, headers, body = request(deleting, "GET", f"/files/?{query}")
    assert code == status
    assert headers["content-type"].startswith("text/plain") and not body.startswith(b"PK")
    if status == 404:
        assert b"missing.txt" in body
    html = request(deleting, "GET", f"/files/?{query}", {"Accept": "text/html"})
    assert html[0] == status and html[1]["content-type"].startswith("text/html")


@pytest.mark.parametrize("flags,file_methods,folder_methods", [
    (["--allow-delete"], ["GET", "HEAD", "PUT", "MKCOL", "DELETE", "MOVE", "OPTIONS"],
     ["GET", "HEAD", "MKCOL", "DELETE", "MOVE", "OPTIONS"]),
    ([], ["GET", "HEAD", "PUT", "MKCOL", "OPTIONS"], ["GET", "HEAD", "MKCOL", "OPTIONS"]),
    (["--access", "read-only", "--allow-delete"], ["GET", "HEAD", "OPTIONS"], ["GET", "HEAD", "OPTIONS"]),
], ids=["allow-delete", "default", "read-only"])
def test_options_lists_what_the_server_accepts_there(daemon_factory, flags, file_methods, folder_methods):
    daemon = daemon_factory(*flags, fill=False)
    seed(daemon)
    for path, methods in [("/files/a.txt", file_methods), ("/files/sub/", folder_methods)]:
        status, headers, _ = request(daemon, "OPTIONS", path)
        assert status == 204
        assert [method.strip() for method in headers["allow"].split(",")] == methods, path
    # What OPTIONS lists is accepted: MKCOL makes a folder wherever it is listed.
    if "MKCOL" in folder_methods:
        assert request(daemon, "MKCOL", "/files/sub/new/")[0] == 201


def test_a_folder_moved_into_itself_is_409_with_a_sentence(deleting):
    before = snapshot(deleting)
    status, _, body = request(deleting, "MOVE", "/files/sub/", {"Destination": "/files/sub/deeper/"})
    assert status == 409 and body == b"409 Conflict: A folder cannot be moved into itself.\n"
    status, _, page = request(deleting, "MOVE", "/files/sub/", {"Destination": "/files/sub/deeper/",
                                                                  "Accept": "text/html", "Accept-Language": "de"})
    assert status == 409 and "Ein Ordner kann nicht in sich selbst verschoben werden.".encode() in page
    assert snapshot(deleting) == before


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a second file system needs root (CI runs as root)")
def test_a_rename_onto_another_file_system_says_why(deleting):
    mount_point = deleting.save_dir / "other-disk"
    mount_point.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "none", str(mount_point)], check=True, timeout=10)
    try:
        status, _, body = request(deleting, "MOVE", "/files/a.txt", {"Destination": "/files/other-disk/a.txt"})
        assert status == 502, body
        assert b"another file system inside the save directory" in body
        status, _, page = request(deleting, "MOVE", "/files/a.txt", {"Destination": "/files/other-disk/a.txt",
                                                                      "Accept": "text/html", "Accept-Language": "es"})
        assert status == 502 and "El destino está en otro sistema de archivos".encode() in page
        assert (deleting.save_dir / "a.txt").read_bytes() == b"alpha\n"
        assert list(mount_point.iterdir()) == []
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=True, timeout=10)
