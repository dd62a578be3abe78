"""Symlinks planted in the save directory (by another local user, an unpacked archive, or a
careless owner) against the real daemon: downloads, listings, ZIP archives, uploads under
every collision policy, folder uploads, tus and deletes never follow a link out of the save
directory, and an honest client on another address is served during and after.
"""

from __future__ import annotations

import base64
import io
import os
import zipfile

import pytest

from attack_support import Canary, LegitClient, multipart
from http_raw import fetch

SECRET = b"outside the save directory\n"


def plant_links(daemon, canary: Canary):
    """`dir-link` -> the outside folder, `file-link.txt` -> the secret, `passwd-link` ->
    /etc/passwd, `dangling.txt` -> a file outside that does not exist yet."""
    (daemon.save_dir / "dir-link").symlink_to(canary.outside)
    (daemon.save_dir / "file-link.txt").symlink_to(canary.outside / "secret.txt")
    (daemon.save_dir / "passwd-link").symlink_to("/etc/passwd")
    (daemon.save_dir / "dangling.txt").symlink_to(canary.outside / "created-through-a-link.txt")
    (daemon.save_dir / "sub dir" / "up-link").symlink_to("../..")
    canary.before = canary.snapshot()


@pytest.fixture
def planted(daemon):
    canary = Canary(daemon)
    plant_links(daemon, canary)
    return daemon, canary


@pytest.mark.parametrize("target", ["/files/dir-link/secret.txt", "/files/file-link.txt", "/files/passwd-link",
                                    "/files/sub%20dir/up-link/outside/secret.txt", "/files/dir-link/",
                                    "/files/dir-link/?format=json", "/files/dir-link/?zip", "/files/file-link.txt?download"])
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_downloads_do_not_follow_links(planted, target, method):
    daemon, canary = planted
    with LegitClient(daemon):
        response = fetch(daemon.url + target, method, {"Range": "bytes=0-"} if "?" not in target else {})
    assert response.status in (403, 404), response
    assert SECRET not in response.body and b"root:" not in response.body
    canary.assert_untouched()


def test_listings_and_archives_of_the_root_leak_nothing(planted):
    daemon, canary = planted
    with LegitClient(daemon):
        listing = fetch(daemon.url + "/files/?format=json")
        page = fetch(daemon.url + "/files/")
        archive = fetch(daemon.url + "/files/?zip")
    assert listing.status == 200 and page.status == 200
    for body in (listing.body, page.body):
        assert b"secret" not in body and str(canary.outside).encode() not in body
    assert archive.status == 200, archive
    with zipfile.ZipFile(io.BytesIO(archive.body)) as zipped:
        for info in zipped.infolist():
            assert "link" not in info.filename and "dangling" not in info.filename, info.filename
            assert zipped.read(info) != SECRET
    canary.assert_untouched()


@pytest.mark.parametrize("policy", ["rename", "overwrite", "reject"])
@pytest.mark.parametrize("name", ["file-link.txt", "dangling.txt", "dir-link/new.txt", "sub%20dir/up-link/outside/new.txt"])
def test_raw_uploads_never_write_through_a_link(daemon_factory, policy, name):
    daemon = daemon_factory("--on-collision", policy)
    canary = Canary(daemon)
    plant_links(daemon, canary)
    with LegitClient(daemon):
        response = fetch(daemon.url + "/files/" + name, "PUT", {"Accept": "application/json"}, b"planted through a link")
    assert response.status in (201, 400, 403, 404, 409), response
    canary.assert_untouched()
    assert not (canary.outside / "created-through-a-link.txt").exists()
    if response.status == 201:
        # Stored as a regular file inside, under the link's name (replacing the link) or another.
        stored = [path for path in daemon.save_dir.rglob("*")
                  if path.is_file() and not path.is_symlink() and path.read_bytes() == b"planted through a link"]
        assert len(stored) == 1 and "link" not in str(stored[0].parent.relative_to(daemon.save_dir)), stored


@pytest.mark.parametrize("policy", ["rename", "overwrite"])
def test_multipart_uploads_never_write_through_a_link(daemon_factory, policy):
    daemon = daemon_factory("--on-collision", policy)
    canary = Canary(daemon)
    plant_links(daemon, canary)
    with LegitClient(daemon):
        headers, body = multipart([("file", "file-link.txt", b"planted"), ("file", "dangling.txt", b"planted"),
                                   ("relativePath", None, b"dir-link/new.txt"), ("file", "new.txt", b"planted"),
                                   ("relativePath", None, b"sub dir/up-link/outside/new.txt"), ("file", "new.txt", b"planted")])
        response = fetch(daemon.url + "/upload", "POST", headers, body)
    assert response.status in (201, 207, 400, 403, 404), response
    canary.assert_untouched()
    assert not (canary.outside / "created-through-a-link.txt").exists()


def test_tus_uploads_never_write_through_a_link(planted):
    daemon, canary = planted
    with LegitClient(daemon):
        for values in ({"filename": "new.txt", "relativePath": "dir-link/new.txt"},
                       {"filename": "dangling.txt"}, {"filename": "file-link.txt"}):
            metadata = ",".join(f"{key} {base64.b64encode(value.encode()).decode()}" for key, value in values.items())
            response = fetch(daemon.url + "/files/", "POST", {
                "Tus-Resumable": "1.0.0", "Upload-Length": "7", "Upload-Metadata": metadata,
                "Content-Type": "application/offset+octet-stream"}, b"planted")
            assert response.status in (201, 204, 400, 403, 404), response
    canary.assert_untouched()
    assert not (canary.outside / "created-through-a-link.txt").exists()


def test_a_link_replacing_the_tus_folder_is_not_followed(daemon):
    canary = Canary(daemon)
    (daemon.save_dir / ".filedrop-tus").symlink_to(canary.outside)
    canary.before = canary.snapshot()
    with LegitClient(daemon):
        response = fetch(daemon.url + "/files/", "POST", {
            "Tus-Resumable": "1.0.0", "Upload-Length": "7",
            "Upload-Metadata": "filename " + base64.b64encode(b"t.txt").decode()})
    assert response.status >= 400, response
    canary.assert_untouched()


def test_deletes_do_not_follow_links(daemon_factory):
    daemon = daemon_factory("--allow-delete")
    canary = Canary(daemon)
    plant_links(daemon, canary)
    with LegitClient(daemon):
        assert fetch(daemon.url + "/files/dir-link/secret.txt", "DELETE").status in (403, 404)
        assert fetch(daemon.url + "/files/sub%20dir/up-link/outside/secret.txt", "DELETE").status in (403, 404)
        # Removing the link itself is allowed or refused; its target survives either way.
        assert fetch(daemon.url + "/files/file-link.txt", "DELETE").status in (204, 403, 404)
    assert (canary.outside / "secret.txt").read_bytes() == SECRET
    assert os.listdir(canary.outside) == ["secret.txt"]
