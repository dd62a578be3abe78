"""ZIP archives of folders against the real daemon, checked by Python's zipfile, `unzip -t`
and bsdtar (libarchive, a second implementation): contents match the disk, Unicode names and
empty folders survive, symlinks stay out.

Slow cases (a ZIP over 4 GiB, a folder of 70,000 files) run with FILEDROP_SLOW_TESTS=1.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import unicodedata
import urllib.parse
import zipfile
from pathlib import Path

import pytest
import requests

from download_support import put_file


SLOW = os.environ.get("FILEDROP_SLOW_TESTS") == "1"


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


ZIP_TREE = {
    "Grüße/日本語.txt": "unicode name\n".encode() * 100,
    "Grüße/ñandú 😀.bin": os.urandom(70_000),
    "emoji 🎉/deep/ü.md": b"deep",
    "plain.txt": b"plain\n",
}
ZIP_EMPTY_FOLDERS = ["empty", "Grüße/leer ordner", "emoji 🎉/deep/empty too"]


@pytest.mark.skipif(shutil.which("bsdtar") is None, reason="bsdtar missing: apt-get install libarchive-tools (make deps)")
def test_zip_with_unicode_names_and_empty_folders_unpacks_with_bsdtar(daemon_factory, tmp_path):
    daemon = daemon_factory(fill=False)
    for name, content in ZIP_TREE.items():
        put_file(daemon, name, content)
    for folder in ZIP_EMPTY_FOLDERS:
        (daemon.save_dir / folder).mkdir(parents=True)
    fetch_zip(daemon, tmp_path)
    archive = tmp_path / "download.zip"
    environment = dict(os.environ, LC_ALL="C.UTF-8")
    listed = subprocess.run(["bsdtar", "-tf", str(archive)], check=True, capture_output=True, env=environment,
                            timeout=60).stdout.decode().splitlines()
    assert {unicodedata.normalize("NFC", name.rstrip("/")) for name in listed} >= set(ZIP_TREE) | set(ZIP_EMPTY_FOLDERS)
    out = tmp_path / "unpacked"
    out.mkdir()
    subprocess.run(["bsdtar", "-xf", str(archive), "-C", str(out)], check=True, env=environment, timeout=60)
    files = {unicodedata.normalize("NFC", path.relative_to(out).as_posix()): path.read_bytes()
             for path in out.rglob("*") if path.is_file()}
    assert files == ZIP_TREE
    empty = {unicodedata.normalize("NFC", path.relative_to(out).as_posix())
             for path in out.rglob("*") if path.is_dir() and not any(path.iterdir())}
    assert empty == set(ZIP_EMPTY_FOLDERS)
    assert Path(out / "Grüße" / "ñandú 😀.bin").exists()
