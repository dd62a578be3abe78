"""Resumable uploads (tus 1.0.0) against the real daemon: the examples of tus.io's
protocol.md replayed as raw requests, and tuspy (the tus project's Python client, written by
nobody here) uploading in chunks, resuming after an interruption and after a daemon crash.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import signal
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from tusclient import client as tus_client
from tusclient.storage import filestorage

from http_raw import fetch

TUS = {"Tus-Resumable": "1.0.0"}
PATCH_TYPE = {"Content-Type": "application/offset+octet-stream"}
TUS_FOLDER = ".filedrop-tus"


def metadata(**values: str) -> str:
    return ",".join(f"{key} {base64.b64encode(value.encode()).decode()}" for key, value in values.items())


def create(daemon, length: int | None, name: str = "upload.bin", headers: dict | None = None, body: bytes | None = None):
    request = dict(TUS, **{"Upload-Metadata": metadata(filename=name)})
    if length is None:
        request["Upload-Defer-Length"] = "1"
    else:
        request["Upload-Length"] = str(length)
    request.update(headers or {})
    return fetch(daemon.url + "/files/", method="POST", headers=request, body=body)


def tus_url(daemon, location: str) -> str:
    """The upload's URL on `daemon` as it runs now: Location is absolute, and names the port
    of the start that created it (a restarted test daemon has another)."""
    return daemon.url + urlsplit(location).path


def patch(daemon, location: str, offset: int, body: bytes, headers: dict | None = None):
    request = dict(TUS, **PATCH_TYPE, **{"Upload-Offset": str(offset)})
    request.update(headers or {})
    return fetch(tus_url(daemon, location), method="PATCH", headers=request, body=body)


def head(daemon, location: str):
    return fetch(tus_url(daemon, location), method="HEAD", headers=TUS)


def listed_names(daemon) -> set[str]:
    response = fetch(daemon.url + "/files/?format=json")
    return {entry["name"] for entry in json.loads(response.body)["entries"]} if response.status == 200 else set()


def tus_files(daemon) -> list[str]:
    folder = daemon.save_dir / TUS_FOLDER
    return sorted(path.name for path in folder.iterdir()) if folder.exists() else []


# protocol.md, replayed


def test_options_advertises_the_protocol(daemon_factory):
    daemon = daemon_factory("--max-upload-size", "1G")
    response = fetch(daemon.url + "/files/", method="OPTIONS")
    assert response.status == 204
    assert response.header("Tus-Version") == "1.0.0"
    assert response.header("Tus-Resumable") == "1.0.0"
    assert response.header("Tus-Max-Size") == str(1 << 30)
    assert set(response.header("Tus-Extension").split(",")) == {
        "creation", "creation-with-upload", "creation-defer-length", "termination", "expiration", "checksum"}
    assert "sha1" in response.header("Tus-Checksum-Algorithm").split(",")


def test_core_example_creation_head_patch_and_offset_mismatch(daemon):
    content = os.urandom(100)
    created = create(daemon, 100, name="world_domination_plan.pdf")
    assert created.status == 201, created
    location = created.header("Location")
    assert location.startswith(daemon.url + "/files/.tus/"), "absolute: aiotus cannot resolve a relative Location"
    assert created.header("Upload-Expires")

    status = head(daemon, location)
    assert status.status == 200
    assert status.header("Upload-Offset") == "0"
    assert status.header("Upload-Length") == "100"
    assert status.header("Upload-Metadata") == metadata(filename="world_domination_plan.pdf")
    assert status.header("Cache-Control") == "no-store"

    first = patch(daemon, location, 0, content[:70])
    assert first.status == 204, first
    assert first.header("Upload-Offset") == "70"
    assert first.header("Upload-Expires")
    assert head(daemon, location).header("Upload-Offset") == "70"
    # Invisible until the last byte is in.
    assert "world_domination_plan.pdf" not in listed_names(daemon)
    assert fetch(daemon.url + "/files/world_domination_plan.pdf").status == 404

    mismatch = patch(daemon, location, 60, content[60:])
    assert mismatch.status == 409
    assert head(daemon, location).header("Upload-Offset") == "70"

    last = patch(daemon, location, 70, content[70:])
    assert last.status == 204
    assert last.header("Upload-Offset") == "100"
    assert (daemon.save_dir / "world_domination_plan.pdf").read_bytes() == content
    assert tus_files(daemon) == []
    # A client whose last response was lost learns that the upload is complete.
    assert head(daemon, location).header("Upload-Offset") == "100"


@pytest.mark.parametrize("version", ["0.2.2", None])
def test_wrong_or_missing_tus_resumable_is_412(daemon, version):
    headers = {"Upload-Length": "10"}
    if version:
        headers["Tus-Resumable"] = version
    response = fetch(daemon.url + "/files/", method="POST", headers=headers)
    assert response.status == 412
    assert response.header("Tus-Version") == "1.0.0"
    assert tus_files(daemon) == []


def test_checksum_example_and_460_on_mismatch(daemon):
    location = create(daemon, 22, name="hello.txt").header("Location")
    good = patch(daemon, location, 0, b"hello world", {"Upload-Checksum": "sha1 Kq5sNclPz7QV2+lfQIuc6R7oRu0="})
    assert good.status == 204
    assert good.header("Upload-Offset") == "11"
    bad = patch(daemon, location, 11, b"hello world", {"Upload-Checksum": "sha1 " + base64.b64encode(b"\0" * 20).decode()})
    assert bad.status == 460
    assert head(daemon, location).header("Upload-Offset") == "11"
    unknown = patch(daemon, location, 11, b"hello world", {"Upload-Checksum": "sha3 Kq5sNclPz7QV2+lfQIuc6R7oRu0="})
    assert unknown.status == 400
    md5 = base64.b64encode(hashlib.md5(b"HELLO WORLD").digest()).decode()
    assert patch(daemon, location, 11, b"HELLO WORLD", {"Upload-Checksum": "md5 " + md5}).status == 204
    assert (daemon.save_dir / "hello.txt").read_bytes() == b"hello worldHELLO WORLD"


def test_termination_then_404(daemon):
    location = create(daemon, 50, name="gone.bin").header("Location")
    assert patch(daemon, location, 0, b"x" * 10).status == 204
    deleted = fetch(tus_url(daemon, location), method="DELETE", headers=TUS)
    assert deleted.status == 204
    assert deleted.header("Tus-Resumable") == "1.0.0"
    assert head(daemon, location).status in (404, 410)
    assert patch(daemon, location, 10, b"y").status in (404, 410)
    assert tus_files(daemon) == []
    assert not (daemon.save_dir / "gone.bin").exists()


def test_creation_defer_length(daemon):
    created = create(daemon, None, name="streamed.txt")
    assert created.status == 201
    location = created.header("Location")
    status = head(daemon, location)
    assert status.header("Upload-Defer-Length") == "1"
    assert status.header("Upload-Length") is None
    assert patch(daemon, location, 0, b"hello").status == 204
    last = patch(daemon, location, 5, b" world", {"Upload-Length": "11"})
    assert last.status == 204
    assert last.header("Upload-Offset") == "11"
    assert (daemon.save_dir / "streamed.txt").read_bytes() == b"hello world"


def test_bad_defer_length_is_400(daemon):
    assert create(daemon, None, headers={"Upload-Defer-Length": "2"}).status == 400


def test_creation_with_upload(daemon):
    created = create(daemon, 11, name="early.txt", headers=PATCH_TYPE, body=b"hello")
    assert created.status == 201
    assert created.header("Upload-Offset") == "5"
    assert patch(daemon, created.header("Location"), 5, b" world").status == 204
    assert (daemon.save_dir / "early.txt").read_bytes() == b"hello world"


def test_empty_upload_is_stored_at_creation(daemon):
    created = create(daemon, 0, name="empty.txt")
    assert created.status == 201
    assert (daemon.save_dir / "empty.txt").read_bytes() == b""


def test_relative_path_puts_the_file_in_a_folder(daemon):
    location = create(daemon, 3, headers={"Upload-Metadata": metadata(filename="a.txt", relativePath="album/2024/a.txt")}).header("Location")
    assert patch(daemon, location, 0, b"abc").status == 204
    assert (daemon.save_dir / "album" / "2024" / "a.txt").read_bytes() == b"abc"


def test_collision_policy_applies(daemon):
    location = create(daemon, 3, name="plain.txt").header("Location")
    assert patch(daemon, location, 0, b"new").status == 204
    assert (daemon.save_dir / "plain.txt").read_bytes() == b"hello, filedrop\n"
    assert (daemon.save_dir / "plain (1).txt").read_bytes() == b"new"


def test_hidden_tus_folder_is_neither_listed_nor_served(daemon):
    location = create(daemon, 10, name="secret.bin").header("Location")
    assert patch(daemon, location, 0, b"12345").status == 204
    assert TUS_FOLDER not in listed_names(daemon)
    upload_id = location.rsplit("/", 1)[1]
    assert fetch(daemon.url + f"/files/{TUS_FOLDER}/{upload_id}.part").status in (400, 403, 404)
    # Without Tus-Resumable a download-style request gets the tus 412, never the bytes.
    assert fetch(tus_url(daemon, location)).status == 412


# Limits


def test_tus_max_size_one_byte_over(daemon_factory):
    daemon = daemon_factory("--max-upload-size", "1K")
    assert create(daemon, 1024).status == 201
    assert create(daemon, 1025).status == 413


def test_upload_length_one_byte_over_is_refused(daemon):
    location = create(daemon, 4).header("Location")
    assert patch(daemon, location, 0, b"12345").status in (400, 413)
    assert head(daemon, location).header("Upload-Offset") == "0"


def test_per_client_limit(daemon_factory):
    daemon = daemon_factory("--tus-max-per-client", "2")
    assert create(daemon, 10).status == 201
    assert create(daemon, 10).status == 201
    assert create(daemon, 10).status == 429


def test_pending_space_limit_one_byte_over(daemon_factory):
    daemon = daemon_factory("--tus-max-pending", "1K")
    assert create(daemon, 1000).status == 201
    assert create(daemon, 25).status == 507
    assert create(daemon, 24).status == 201


def test_read_only_refuses_creation(daemon_factory):
    daemon = daemon_factory("--access", "read-only")
    assert create(daemon, 10).status == 403


def test_expired_uploads_are_swept_at_start(daemon_factory):
    # An hour, so a slow machine can never expire the upload before its PATCH; the file's
    # time set back to 1970 below is what makes it expired at the restart.
    daemon = daemon_factory("--tus-expiration", "1h")
    location = create(daemon, 10, name="abandoned.bin").header("Location")
    assert patch(daemon, location, 0, b"12345").status == 204
    daemon.stop()
    os.utime(daemon.save_dir / TUS_FOLDER / (location.rsplit("/", 1)[1] + ".part"), (1, 1))
    daemon.notifications.clear()
    daemon.start()
    deadline = time.monotonic() + 5
    while head(daemon, location).status == 200 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert head(daemon, location).status == 404
    assert tus_files(daemon) == []


# tuspy


def tus_uploader(daemon, path: Path, **options):
    client = tus_client.TusClient(daemon.url + "/files/")
    return client.uploader(str(path), metadata={"filename": path.name}, **options)


def test_tuspy_uploads_in_chunks_with_checksums(daemon, tmp_path):
    source = tmp_path / "photo.jpg"
    source.write_bytes(os.urandom(3 * 1024 * 1024 + 17))
    uploader = tus_uploader(daemon, source, chunk_size=512 * 1024, upload_checksum=True)
    uploader.upload()
    assert uploader.offset == source.stat().st_size
    assert (daemon.save_dir / "photo.jpg").read_bytes() == source.read_bytes()
    assert tus_files(daemon) == []


def test_tuspy_resumes_after_interruption(daemon, tmp_path):
    source = tmp_path / "video.mp4"
    source.write_bytes(os.urandom(2 * 1024 * 1024))
    storage = filestorage.FileStorage(str(tmp_path / "tus-urls.json"))
    first = tus_uploader(daemon, source, chunk_size=256 * 1024, store_url=True, url_storage=storage)
    first.upload(stop_at=768 * 1024)
    assert not (daemon.save_dir / "video.mp4").exists()
    # A new client process: the stored URL and a HEAD tell it where to go on.
    second = tus_uploader(daemon, source, chunk_size=256 * 1024, store_url=True, url_storage=storage)
    assert second.url == first.url
    assert second.offset == 768 * 1024
    second.upload()
    assert (daemon.save_dir / "video.mp4").read_bytes() == source.read_bytes()


def test_tuspy_resumes_after_a_daemon_crash(daemon, tmp_path):
    source = tmp_path / "backup.tar"
    source.write_bytes(os.urandom(4 * 1024 * 1024 + 5))
    first = tus_uploader(daemon, source, chunk_size=1024 * 1024, upload_checksum=True)
    first.upload(stop_at=2 * 1024 * 1024)
    path = first.url.split(str(daemon.port), 1)[1]
    os.kill(daemon.pid, signal.SIGKILL)
    daemon.process.wait(timeout=10)
    daemon.notifications.clear()
    daemon.start()
    assert "backup.tar" not in listed_names(daemon)
    resumed = tus_uploader(daemon, source, chunk_size=1024 * 1024, upload_checksum=True, url=daemon.url + path)
    assert resumed.offset == 2 * 1024 * 1024
    resumed.upload()
    assert (daemon.save_dir / "backup.tar").read_bytes() == source.read_bytes()
    assert tus_files(daemon) == []
