"""Downloads against the real daemon with real clients: HEAD matching GET, gzip, the
Content-Disposition of awkward names, active content sent as attachments, awkward and refused
names, DELETE, and an aborted download in the log. Range, conditional requests, listings and
ZIP archives have files of their own."""

from __future__ import annotations

import gzip
import os
import subprocess
import urllib.parse
from urllib.parse import quote

import pytest
import requests

from conftest import AWKWARD_FILES, REFUSED_NAMES, SERVED_FILES
from download_support import file_url, put_file
from http_raw import fetch, get_then_reset, small_window_socket


def test_head_has_get_headers(daemon):
    put_file(daemon, "h.txt", b"head and get\n" * 1000)
    for extra in ({}, {"Accept-Encoding": "gzip"}, {"Range": "bytes=1-5"}, {"Range": "bytes=0-1,100-200"}):
        for path in ("h.txt", "", "?format=json"):
            url = file_url(daemon, "h.txt") if path == "h.txt" else f"{daemon.url}/files/{path}"
            get = requests.get(url, headers=extra, stream=True)
            head = requests.head(url, headers=extra)
            get.close()
            ignored = {"Date", "Content-Type"} if "Range" in extra and "," in extra["Range"] else {"Date"}
            # The multipart boundary is random per response; everything else must match.
            assert {k: v for k, v in get.headers.items() if k not in ignored} == \
                {k: v for k, v in head.headers.items() if k not in ignored}, (url, extra)


def test_gzip_for_text_only_when_accepted(daemon):
    text = b"compressible line of text\n" * 4000
    put_file(daemon, "t.txt", text)
    put_file(daemon, "p.jpg", os.urandom(50_000))
    plain = requests.get(file_url(daemon, "t.txt"), headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in plain.headers and plain.content == text
    zipped = requests.get(file_url(daemon, "t.txt"), headers={"Accept-Encoding": "gzip"}, stream=True)
    raw = zipped.raw.read(decode_content=False)
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in zipped.headers["Vary"]
    assert zipped.headers["ETag"].endswith('-gz"') and zipped.headers["ETag"] != plain.headers["ETag"]
    assert gzip.decompress(raw) == text and len(raw) < len(text) // 10
    # The gzip variant revalidates with its own tag.
    assert requests.get(file_url(daemon, "t.txt"), headers={"Accept-Encoding": "gzip",
                                                         "If-None-Match": zipped.headers["ETag"]}).status_code == 304
    assert requests.get(file_url(daemon, "t.txt"), headers={"Accept-Encoding": "gzip;q=0"}).headers.get("Content-Encoding") is None
    ranged = requests.get(file_url(daemon, "t.txt"), headers={"Accept-Encoding": "gzip", "Range": "bytes=0-9"})
    assert ranged.status_code == 206 and "Content-Encoding" not in ranged.headers and ranged.content == text[:10]
    assert "Content-Encoding" not in requests.get(file_url(daemon, "p.jpg"), headers={"Accept-Encoding": "gzip"}).headers
    for url in (f"{daemon.url}/", f"{daemon.url}/app.js", f"{daemon.url}/files/", f"{daemon.url}/files/?format=json"):
        page = requests.get(url, headers={"Accept-Encoding": "gzip"})
        assert page.headers.get("Content-Encoding") == "gzip", url
        assert page.content == requests.get(url, headers={"Accept-Encoding": "identity"}).content, url


def test_unicode_name_round_trips(daemon, tmp_path):
    name = "Grüße 😀 «x».txt"
    put_file(daemon, name, b"unicode\n")
    url = file_url(daemon, name, "download")
    header = requests.head(url).headers["Content-Disposition"]
    encoded = header.split("filename*=UTF-8''", 1)[1]
    assert urllib.parse.unquote(encoded, errors="strict") == name
    # wget follows RFC 6266 filename* and gets the exact name.
    subprocess.run(["wget", "-q", "--content-disposition", url], cwd=tmp_path, check=True, timeout=10)
    assert (tmp_path / name).read_bytes() == b"unicode\n"
    # curl -OJ (7.88) reads only filename=, the ASCII fallback of RFC 6266 appendix D:
    # a safe name with the same bytes, never a path.
    curl_dir = tmp_path / "curl"
    curl_dir.mkdir()
    subprocess.run(["curl", "-sSf", "-OJ", url], cwd=curl_dir, check=True, timeout=10)
    assert [(path.name, path.read_bytes()) for path in curl_dir.iterdir()] == [("Gr__e _ _x_.txt", b"unicode\n")]


@pytest.mark.parametrize("name", ["evil.html", "evil.svg"])
def test_active_content_is_an_attachment_in_a_sandbox(daemon, name):
    put_file(daemon, name, b"<script>alert(document.cookie)</script>")
    response = requests.get(file_url(daemon, name))
    assert response.headers["Content-Disposition"].startswith("attachment;")
    assert "sandbox" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_delete_off_by_default(daemon):
    put_file(daemon, "keep.txt", b"keep")
    assert requests.delete(file_url(daemon, "keep.txt")).status_code == 405
    assert (daemon.save_dir / "keep.txt").exists()


def test_delete_with_allow_delete(daemon_factory):
    daemon = daemon_factory("--allow-delete")
    put_file(daemon, "gone.txt", b"bye")
    assert requests.delete(file_url(daemon, "gone.txt")).status_code == 204
    assert not (daemon.save_dir / "gone.txt").exists()
    assert requests.delete(file_url(daemon, "gone.txt")).status_code == 404


def test_every_variant_of_the_page_and_a_listing_has_the_same_vary(daemon):
    # RFC 9110 §12.5.5 (issue 18): the identity, gzip and 304 variants name the same fields.
    (daemon.save_dir / "notes.txt").write_bytes(b"some words " * 100)
    for path, accept in [("/", "text/html"), ("/files/", "application/json"), ("/files/notes.txt", "*/*")]:
        plain = fetch(daemon.url + path, headers={"Accept": accept})
        zipped = fetch(daemon.url + path, headers={"Accept": accept, "Accept-Encoding": "gzip"})
        again = fetch(daemon.url + path, headers={"Accept": accept, "If-None-Match": plain.header("ETag")})
        assert zipped.header("Content-Encoding") == "gzip", path
        assert again.status == 304, path
        assert plain.header("Vary") == zipped.header("Vary") == again.header("Vary"), path
        assert "Accept-Encoding" in plain.header("Vary"), path


def test_an_aborted_download_is_logged_as_cut_with_the_bytes_sent(daemon):
    size = 64 << 20
    put_file(daemon, "cut.bin", os.urandom(size))
    received = get_then_reset(small_window_socket(daemon.port), "/files/cut.bin", f"127.0.0.1:{daemon.port}")
    daemon.assert_logged_as_cut("/files/cut.bin", received, size)


@pytest.mark.parametrize("name", SERVED_FILES.keys(), ids=[quote(name) for name in SERVED_FILES])
def test_download_of_awkward_name(daemon, name):
    response = fetch(f"{daemon.url}/files/{quote(name)}")
    assert response.status == 200
    assert response.body == SERVED_FILES[name]
    assert response.header("Content-Length") == str(len(SERVED_FILES[name]))
    assert response.header("ETag")


@pytest.mark.parametrize("name", sorted(REFUSED_NAMES), ids=[quote(name) for name in sorted(REFUSED_NAMES)])
def test_names_the_policy_refuses_are_not_served(daemon, name):
    response = fetch(f"{daemon.url}/files/{quote(name)}")
    assert response.status in (400, 404), response
    assert AWKWARD_FILES[name] not in response.body


def test_hidden_names_are_served_with_allow_hidden(daemon_factory):
    daemon = daemon_factory("--allow-hidden")
    response = fetch(f"{daemon.url}/files/..txt")
    assert response.status == 200
    assert response.body == AWKWARD_FILES["..txt"]
