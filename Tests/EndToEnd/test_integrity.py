"""Issue 21, Integrity: every upload's SHA-256 (form, PUT, tus, `filedrop send`) equals
hashlib's of the source, and is in the answer, the JSON listing, `GET ?sha256` (in
`sha256sum -c` form) and the xattr `user.filedrop.sha256`; a wrong `Repr-Digest`, `Digest` or
tus `Upload-Checksum` is refused with nothing published; `sha256 = off` gives none of it. The
listing, which remembers what it read per file version, shows a hash set, changed or removed
by hand at once."""

import base64
import hashlib
import json
import os
import subprocess
import time

from client_support import curl, random_bytes
from http_raw import fetch
from test_cli import client_env, run
from test_tus import create, head, patch, tus_files, tus_uploader

XATTR = "user.filedrop.sha256"


def hex_of(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def repr_digest(content: bytes) -> str:
    return "sha-256=:" + base64.b64encode(hashlib.sha256(content).digest()).decode() + ":"


def listed_sha256(daemon, folder: str = "") -> dict[str, str]:
    response = fetch(f"{daemon.url}/files/{folder}?format=json")
    assert response.status == 200
    return {entry["name"]: entry["sha256"] for entry in json.loads(response.body)["entries"] if "sha256" in entry}


def assert_recorded(daemon, name: str, content: bytes):
    """The stored file has the content's SHA-256 in its xattr, the JSON listing, ?sha256 and
    the Repr-Digest of GET and HEAD."""
    path = daemon.save_dir / name
    assert path.read_bytes() == content
    expected = hex_of(content)
    assert os.getxattr(path, XATTR).decode() == expected
    assert listed_sha256(daemon)[name] == expected
    answer = fetch(f"{daemon.url}/files/{name}?sha256")
    assert answer.status == 200
    assert answer.header("Content-Type").startswith("text/plain")
    assert answer.body == f"{expected}  {name}\n".encode()
    checked = subprocess.run(["sha256sum", "-c", "-"], input=answer.body, cwd=daemon.save_dir, capture_output=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    for method in ("GET", "HEAD"):
        assert fetch(f"{daemon.url}/files/{name}", method=method).header("Repr-Digest") == repr_digest(content)


def assert_nothing_published(daemon, name: str):
    assert not (daemon.save_dir / name).exists()
    assert daemon.temp_files() == []


def test_form_upload_by_curl(daemon, tmp_path):
    content = random_bytes(3_000_001)
    source = tmp_path / "form.bin"
    source.write_bytes(content)
    result = curl("--fail-with-body", "--header", "Accept: application/json", "-F", f"file=@{source}", f"{daemon.url}/upload")
    assert result.returncode == 0, result.stderr
    stored = json.loads(result.stdout)["files"][0]
    assert stored["sha256"] == hex_of(content)
    assert list(stored) == ["name", "size", "crc32", "sha256", "url"]
    assert_recorded(daemon, "form.bin", content)


def test_put_with_and_without_repr_digest(daemon):
    content = random_bytes(1_000_003)
    response = fetch(f"{daemon.url}/files/put.bin", method="PUT", body=content,
                     headers={"Accept": "application/json", "Repr-Digest": repr_digest(content)})
    assert response.status == 201, response.body
    assert response.header("Repr-Digest") == repr_digest(content)
    assert json.loads(response.body)["files"][0]["sha256"] == hex_of(content)
    assert_recorded(daemon, "put.bin", content)
    plain = fetch(f"{daemon.url}/files/plain.bin", method="PUT", body=b"no digest sent\n")
    assert plain.status == 201
    assert plain.header("Repr-Digest") == repr_digest(b"no digest sent\n")


def test_put_with_a_wrong_digest_is_refused_and_nothing_published(daemon):
    content = random_bytes(700_000)
    wrong = "sha-256=:" + base64.b64encode(hashlib.sha256(b"other").digest()).decode() + ":"
    refused = fetch(f"{daemon.url}/files/wrong.bin", method="PUT", body=content, headers={"Repr-Digest": wrong})
    assert refused.status == 400
    assert b"SHA-256" in refused.body
    assert_nothing_published(daemon, "wrong.bin")
    # RFC 3230's obsolete Digest, and a sha-256 member that is not 32 bytes.
    legacy = "SHA-256=" + base64.b64encode(hashlib.sha256(b"other").digest()).decode()
    assert fetch(f"{daemon.url}/files/wrong.bin", method="PUT", body=content, headers={"Digest": legacy}).status == 400
    assert fetch(f"{daemon.url}/files/wrong.bin", method="PUT", body=content,
                 headers={"Repr-Digest": "sha-256=:AAAA:"}).status == 400
    assert_nothing_published(daemon, "wrong.bin")
    right = "SHA-256=" + base64.b64encode(hashlib.sha256(content).digest()).decode()
    assert fetch(f"{daemon.url}/files/wrong.bin", method="PUT", body=content, headers={"Digest": right}).status == 201


def test_tus_sha256_checksum_refuses_a_wrong_chunk_and_the_file_is_hashed(daemon):
    first, second = random_bytes(400_000), random_bytes(300_000)
    options = fetch(daemon.url + "/files/", method="OPTIONS")
    assert "sha256" in options.header("Tus-Checksum-Algorithm").split(",")
    location = create(daemon, len(first) + len(second), name="tus.bin").header("Location")
    good = patch(daemon, location, 0, first, {"Upload-Checksum": "sha256 " + base64.b64encode(hashlib.sha256(first).digest()).decode()})
    assert good.status == 204
    bad = patch(daemon, location, len(first), second, {"Upload-Checksum": "sha256 " + base64.b64encode(hashlib.sha256(b"x").digest()).decode()})
    assert bad.status == 460
    assert head(daemon, location).header("Upload-Offset") == str(len(first))
    assert_nothing_published(daemon, "tus.bin")
    # The running hash saw the refused chunk: publishing reads the partial file once instead.
    last = patch(daemon, location, len(first), second)
    assert last.status == 204
    assert last.header("Repr-Digest") == repr_digest(first + second)
    assert_recorded(daemon, "tus.bin", first + second)


def test_tuspy_upload_in_chunks_across_a_restart(daemon, tmp_path):
    source = tmp_path / "resumed.bin"
    source.write_bytes(os.urandom(2 * 1024 * 1024 + 5))
    uploader = tus_uploader(daemon, source, chunk_size=512 * 1024)
    uploader.upload(stop_at=1024 * 1024)
    daemon.stop()
    daemon.notifications.clear()
    daemon.start()
    resumed = tus_uploader(daemon, source, chunk_size=512 * 1024)
    resumed.url = daemon.url + "/files/.tus/" + uploader.url.rsplit("/", 1)[1]
    resumed.offset = resumed.get_offset()
    resumed.upload()
    assert_recorded(daemon, "resumed.bin", source.read_bytes())
    assert tus_files(daemon) == []


def test_filedrop_send_verifies_the_servers_sha256(daemon, tmp_path):
    source = tmp_path / "sent.bin"
    source.write_bytes(random_bytes(2_000_000))
    for method in ("multipart", "put", "tus"):
        code, out, err, _ = run(["send", "--method", method, "--as", f"{method}.bin", str(source)],
                                client_env(tmp_path, daemon.url), tmp_path)
        assert code == 0, err
        assert out == f"sent {method}.bin 2000000 bytes, sha256 {hex_of(source.read_bytes())} verified\n"
        assert_recorded(daemon, f"{method}.bin", source.read_bytes())


def test_sha256_off_records_and_reports_nothing(daemon_factory):
    daemon = daemon_factory("--sha256", "off")
    content = b"not hashed\n"
    response = fetch(f"{daemon.url}/files/off.txt", method="PUT", body=content, headers={"Accept": "application/json"})
    assert response.status == 201
    assert "sha256" not in json.loads(response.body)["files"][0]
    assert response.header("Repr-Digest") is None
    assert os.listxattr(daemon.save_dir / "off.txt") == []
    assert listed_sha256(daemon) == {}
    assert fetch(f"{daemon.url}/files/off.txt?sha256").status == 404
    assert fetch(f"{daemon.url}/files/off.txt").header("Repr-Digest") is None


def test_the_listing_shows_a_hash_set_changed_or_removed_by_hand(daemon):
    """The listing reads each file version's xattr once; setting, changing or removing it moves
    the file's change time, so the next listing reads it again."""
    path = daemon.save_dir / "by-hand.txt"
    path.write_bytes(b"by hand\n")
    # Older than the two seconds in which nothing about a file is remembered.
    time.sleep(2.1)
    for _ in range(2):
        assert "by-hand.txt" not in listed_sha256(daemon)
    for content in (b"first", b"second"):
        os.setxattr(path, XATTR, hex_of(content).encode())
        assert listed_sha256(daemon)["by-hand.txt"] == hex_of(content)
    os.removexattr(path, XATTR)
    assert "by-hand.txt" not in listed_sha256(daemon)
