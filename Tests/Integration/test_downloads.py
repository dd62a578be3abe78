"""Downloads against the real daemon with real clients: resumed transfers (curl -C -,
wget -c, requests with Range), conditional requests, multipart/byteranges, gzip, the
Content-Disposition of awkward names, active content sent as attachments, and ZIP archives
checked by Python's zipfile and `unzip -t`.

Slow cases (a ZIP over 4 GiB, a folder of 70,000 files) run with FILEDROP_SLOW_TESTS=1.
"""

from __future__ import annotations

import email.parser
import gzip
import os
import re
import socket
import struct
import subprocess
import threading
import time
import urllib.parse
import zipfile

import pytest
import requests

from http_raw import fetch

SLOW = os.environ.get("FILEDROP_SLOW_TESTS") == "1"


def file_url(daemon, relative: str, query: str = "") -> str:
    path = "/".join(urllib.parse.quote(part, safe="") for part in relative.split("/"))
    return f"{daemon.url}/files/{path}" + (f"?{query}" if query else "")


def put_file(daemon, relative: str, content: bytes):
    target = daemon.save_dir / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)
    return target


def test_curl_resumes_an_interrupted_download(daemon, tmp_path):
    content = os.urandom(8 << 20)
    put_file(daemon, "big.bin", content)
    out = tmp_path / "big.bin"
    # The first transfer breaks off after 1 MiB (the connection dropped mid-body). curl's own
    # --limit-rate proved unreliable on loopback (some runs finished 8 MiB in 0.13 s), so
    # the interruption is made here.
    with requests.get(file_url(daemon, "big.bin"), stream=True) as first, open(out, "wb") as partial_file:
        partial_file.write(first.raw.read(1 << 20))
    assert out.stat().st_size == 1 << 20
    subprocess.run(["curl", "-sSf", "-C", "-", "-o", str(out), file_url(daemon, "big.bin")], check=True, timeout=30)
    assert out.read_bytes() == content


def test_wget_continues_a_partial_file(daemon, tmp_path):
    content = os.urandom(3 << 20)
    put_file(daemon, "w.bin", content)
    (tmp_path / "w.bin").write_bytes(content[:1234567])
    subprocess.run(["wget", "-q", "-c", file_url(daemon, "w.bin")], cwd=tmp_path, check=True, timeout=30)
    assert (tmp_path / "w.bin").read_bytes() == content


def test_requests_range_and_suffix(daemon):
    content = bytes(range(256)) * 100
    put_file(daemon, "r.bin", content)
    response = requests.get(file_url(daemon, "r.bin"), headers={"Range": "bytes=100-299"})
    assert response.status_code == 206
    assert response.headers["Content-Range"] == f"bytes 100-299/{len(content)}"
    assert response.content == content[100:300]
    suffix = requests.get(file_url(daemon, "r.bin"), headers={"Range": "bytes=-10"})
    assert suffix.status_code == 206 and suffix.content == content[-10:]


def test_416_names_the_size(daemon):
    put_file(daemon, "s.bin", b"x" * 100)
    response = requests.get(file_url(daemon, "s.bin"), headers={"Range": "bytes=100-200"})
    assert response.status_code == 416
    assert response.headers["Content-Range"] == "bytes */100"


def test_conditional_requests(daemon):
    put_file(daemon, "c.bin", b"conditional\n" * 10)
    first = requests.get(file_url(daemon, "c.bin"))
    etag = first.headers["ETag"]
    again = requests.get(file_url(daemon, "c.bin"), headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["ETag"] == etag
    since = requests.get(file_url(daemon, "c.bin"), headers={"If-Modified-Since": first.headers["Last-Modified"]})
    assert since.status_code == 304
    # If-Range with a stale validator: the range no longer applies, the whole file comes back.
    stale = requests.get(file_url(daemon, "c.bin"), headers={"Range": "bytes=0-3", "If-Range": '"stale"'})
    assert stale.status_code == 200 and stale.content == first.content
    fresh = requests.get(file_url(daemon, "c.bin"), headers={"Range": "bytes=0-3", "If-Range": etag})
    assert fresh.status_code == 206 and fresh.content == b"cond"


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


def test_multipart_byteranges(daemon):
    content = os.urandom(100_000)
    put_file(daemon, "m.bin", content)
    response = requests.get(file_url(daemon, "m.bin"), headers={"Range": "bytes=0-9,5000-5999,-100"})
    assert response.status_code == 206
    assert response.headers["Content-Type"].startswith("multipart/byteranges; boundary=")
    assert int(response.headers["Content-Length"]) == len(response.content)
    message = email.parser.BytesParser().parsebytes(
        b"Content-Type: " + response.headers["Content-Type"].encode() + b"\r\n\r\n" + response.content)
    parts = [(part["Content-Range"], part.get_payload(decode=True)) for part in message.get_payload()]
    assert parts == [
        ("bytes 0-9/100000", content[:10]),
        ("bytes 5000-5999/100000", content[5000:6000]),
        ("bytes 99900-99999/100000", content[-100:]),
    ]
    # Overlapping ranges are coalesced: each byte at most once.
    overlap = requests.get(file_url(daemon, "m.bin"), headers={"Range": "bytes=0-50000,100-60000"})
    assert overlap.status_code == 206 and overlap.content == content[:60001]
    # More ranges than the limit: the whole file, not an amplified body.
    many = ",".join(f"{i * 10}-{i * 10 + 1}" for i in range(17))
    whole = requests.get(file_url(daemon, "m.bin"), headers={"Range": f"bytes={many}"})
    assert whole.status_code == 200 and whole.content == content


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


def test_listing_json_shape(daemon):
    put_file(daemon, "photos/a <b>.jpg", b"123")
    (daemon.save_dir / "photos" / "album").mkdir()
    listing = requests.get(f"{daemon.url}/files/photos/", headers={"Accept": "application/json"}).json()
    assert listing["path"] == "photos/"
    assert sorted(listing["entries"], key=lambda e: e["name"])[0] == {
        "name": "a <b>.jpg", "type": "file", "size": 3, "mtime": listing["entries"][1]["mtime"],
        "url": "/files/photos/a%20%3Cb%3E.jpg"}
    assert listing["entries"][0]["type"] == "directory" and listing["entries"][0]["url"] == "/files/photos/album/"
    html = requests.get(f"{daemon.url}/files/photos/", headers={"Accept": "text/html"}).text
    assert "a &lt;b&gt;.jpg" in html and "<b>" not in html


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


def fetch_zip(daemon, tmp_path, folder: str = "") -> zipfile.ZipFile:
    url = f"{daemon.url}/files/{urllib.parse.quote(folder)}?zip"
    target = tmp_path / "download.zip"
    failures: list[BaseException] = []

    def download():
        try:
            with requests.get(url, stream=True) as response:
                assert response.status_code == 200
                assert response.headers["Content-Type"] == "application/zip"
                with open(target, "wb") as out:
                    for chunk in response.iter_content(1 << 20):
                        out.write(chunk)
        except BaseException as error:  # re-raised below, in the test's thread
            failures.append(error)

    # The daemon reports progress (STATUS=) over NOTIFY_SOCKET with a blocking send, as
    # sd_notify does; systemd reads at once, so the test must too during a long download.
    worker = threading.Thread(target=download)
    worker.start()
    while worker.is_alive():
        daemon.drain_notifications()
        worker.join(0.2)
    if failures:
        raise failures[0]
    subprocess.run(["unzip", "-tqq", str(target)], check=True, timeout=600)
    archive = zipfile.ZipFile(target)
    assert archive.testzip() is None
    daemon.drain_notifications()
    return archive


def test_zip_of_a_folder(daemon, tmp_path):
    put_file(daemon, "trip/notes.txt", b"notes\n" * 10000)
    put_file(daemon, "trip/pic.jpg", os.urandom(300_000))
    put_file(daemon, "trip/deep/ü.md", b"deep")
    (daemon.save_dir / "trip" / "empty").mkdir()
    os.symlink("/etc/passwd", daemon.save_dir / "trip" / "link")
    response = requests.head(f"{daemon.url}/files/trip/?zip")
    assert response.headers["Content-Disposition"].startswith('attachment; filename="trip.zip"')
    archive = fetch_zip(daemon, tmp_path, "trip/")
    names = archive.namelist()
    assert names == ["deep/", "deep/ü.md", "empty/", "notes.txt", "pic.jpg"]
    for name in names:
        if not name.endswith("/"):
            assert archive.read(name) == (daemon.save_dir / "trip" / name).read_bytes()
    assert archive.getinfo("notes.txt").compress_type == zipfile.ZIP_DEFLATED
    assert archive.getinfo("pic.jpg").compress_type == zipfile.ZIP_STORED


def test_zip_of_everything_matches_the_disk(daemon, tmp_path):
    archive = fetch_zip(daemon, tmp_path)
    served = {path.relative_to(daemon.save_dir).as_posix(): path.read_bytes()
              for path in daemon.save_dir.rglob("*") if path.is_file()}
    assert {name: archive.read(name) for name in archive.namelist() if not name.endswith("/")} == served


@pytest.mark.skipif(not SLOW, reason="set FILEDROP_SLOW_TESTS=1 (writes a 4.1 GiB sparse file, streams it)")
def test_zip64_for_a_file_over_4_gib(daemon, tmp_path):
    big = daemon.save_dir / "huge" / "sparse.mp4"
    big.parent.mkdir()
    with open(big, "wb") as out:
        out.truncate((4 << 30) + (100 << 20))
        out.seek(-5, os.SEEK_END)
        out.write(b"tail!")
    # Sorted after the big file, so its local header sits beyond 4 GiB.
    put_file(daemon, "huge/zafter.txt", b"after the big one")
    archive = fetch_zip(daemon, tmp_path, "huge/")
    info = archive.getinfo("sparse.mp4")
    assert info.file_size == big.stat().st_size and info.compress_type == zipfile.ZIP_STORED
    with archive.open("sparse.mp4") as member:
        member.seek(info.file_size - 5)
        assert member.read() == b"tail!"
    assert archive.read("zafter.txt") == b"after the big one"
    assert archive.getinfo("zafter.txt").header_offset > 0xFFFFFFFF


@pytest.mark.skipif(not SLOW, reason="set FILEDROP_SLOW_TESTS=1 (70,000 files)")
def test_zip64_for_70000_entries(daemon, tmp_path):
    folder = daemon.save_dir / "many"
    folder.mkdir()
    for index in range(70_000):
        (folder / f"{index:05}.txt").write_bytes(str(index).encode())
    archive = fetch_zip(daemon, tmp_path, "many/")
    assert len(archive.namelist()) == 70_000
    assert archive.read("69999.txt") == b"69999"


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


def test_a_range_of_a_page_file_is_partial_content(daemon):
    whole = fetch(daemon.url + "/app.js")
    assert whole.header("Accept-Ranges") == "bytes"
    part = fetch(daemon.url + "/app.js", headers={"Range": "bytes=0-9", "Accept-Encoding": "gzip"})
    assert part.status == 206
    assert part.body == whole.body[:10]
    assert part.header("Content-Range") == f"bytes 0-9/{len(whole.body)}"
    assert fetch(daemon.url + "/app.js", headers={"Range": f"bytes={len(whole.body)}-"}).status == 416
    # The gzip variant's bytes are not the identity's: it offers no ranges.
    assert fetch(daemon.url + "/app.js", headers={"Accept-Encoding": "gzip"}).header("Accept-Ranges") is None


def test_etags_do_not_reveal_the_inode(daemon):
    stored = daemon.save_dir / "inode.bin"
    stored.write_bytes(b"x" * 1000)
    etag = fetch(daemon.url + "/files/inode.bin").header("ETag")
    assert re.fullmatch(r'"[0-9a-f]{16}"', etag), etag
    assert format(stored.stat().st_ino, "x") not in etag


def test_an_unchanged_listing_is_not_modified(daemon):
    (daemon.save_dir / "a.txt").write_bytes(b"a")
    first = fetch(daemon.url + "/files/?format=json")
    etag = first.header("ETag")
    assert etag.startswith('W/"') and first.header("Last-Modified")
    unchanged = fetch(daemon.url + "/files/?format=json", headers={"If-None-Match": etag})
    assert unchanged.status == 304 and unchanged.body == b""
    since = fetch(daemon.url + "/files/?format=json", headers={"If-Modified-Since": first.header("Last-Modified")})
    assert since.status == 304
    (daemon.save_dir / "b.txt").write_bytes(b"b")
    changed = fetch(daemon.url + "/files/?format=json", headers={"If-None-Match": etag})
    assert changed.status == 200 and b"b.txt" in changed.body


def test_an_aborted_download_is_logged_as_cut_with_the_bytes_sent(daemon):
    size = 64 << 20
    put_file(daemon, "cut.bin", os.urandom(size))
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
    client.settimeout(10)
    client.connect(("127.0.0.1", daemon.port))
    client.sendall(f"GET /files/cut.bin HTTP/1.1\r\nHost: 127.0.0.1:{daemon.port}\r\n\r\n".encode())
    received = 0
    while received < 1 << 20:
        received += len(client.recv(65536))
    # A reset, as a client that gives up sends: the daemon's next write fails.
    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.close()
    daemon.assert_logged_as_cut("/files/cut.bin", received, size)
