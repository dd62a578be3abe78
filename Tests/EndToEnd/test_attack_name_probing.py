"""Probing a drop box for the names it holds, against the real daemon (`access = drop`): an
anonymous sender may upload but must not learn which files are there. Each probe is asked
twice, once about a name that exists (`secret.txt`, `sub dir`) and once about one that
does not, and the two answers must be byte-identical apart from `Date` (and, for tus, the
random upload URL and its expiry). Probes: a PUT or form upload "into" a name (which would
have to make a folder there), a folder upload's `relativePath`, tus metadata, a name that is
taken, `If-None-Match: *`, MKCOL and MOVE.
"""

from __future__ import annotations

import base64

import pytest

from attack_support import multipart
from http_raw import Response, fetch
from test_access import password_hash

SECRET = b"the owner's secret\n"
VARYING = {"date"}


@pytest.fixture
def drop_box(daemon_factory):
    daemon = daemon_factory("--access", "drop", "--password-hash", password_hash(), "--allow-delete")
    (daemon.save_dir / "secret.txt").write_bytes(SECRET)
    return daemon


def comparable(reply: Response, varying: set[str] = VARYING) -> tuple:
    return (reply.status, reply.reason, [(name.lower(), value) for name, value in reply.headers if name.lower() not in varying],
            reply.body)


def assert_same_answer(existing: Response, missing: Response, varying: set[str] = VARYING):
    assert comparable(existing, varying) == comparable(missing, varying), f"existing: {existing}\nmissing:  {missing}"


def assert_secret_untouched(daemon):
    assert (daemon.save_dir / "secret.txt").read_bytes() == SECRET
    assert not (daemon.save_dir / "missing.txt").exists()


def test_a_put_into_a_name_answers_the_same_whether_it_exists(drop_box):
    for format_headers in ({}, {"Accept": "application/json"}):
        existing = fetch(drop_box.url + "/files/secret.txt/probe", "PUT", headers=format_headers, body=b"probe")
        missing = fetch(drop_box.url + "/files/missing.txt/probe", "PUT", headers=format_headers, body=b"probe")
        assert existing.status == 201, existing
        assert_same_answer(existing, missing)
    assert_secret_untouched(drop_box)


@pytest.mark.parametrize("field", ["filename", "relativePath"])
def test_a_form_upload_into_a_name_answers_the_same_whether_it_exists(drop_box, field):
    def probe(name: str) -> Response:
        if field == "filename":
            headers, body = multipart([("file", name, b"probe")])
        else:
            headers, body = multipart([("relativePath", None, name.encode()), ("file", "probe", b"probe")])
        return fetch(drop_box.url + "/upload", "POST", headers=headers, body=body)

    for existing_name, missing_name in [("secret.txt/probe", "missing.txt/probe"),
                                        ("secret.txt/deeper/probe", "missing.txt/deeper/probe"),
                                        ("sub dir/probe", "no dir/probe")]:
        existing, missing = probe(existing_name), probe(missing_name)
        assert existing.status == 201, existing
        assert_same_answer(existing, missing)
    assert_secret_untouched(drop_box)


def test_a_taken_name_and_if_none_match_answer_the_same(drop_box):
    for headers in ({}, {"If-None-Match": "*"}, {"If-Match": "*"}):
        existing = fetch(drop_box.url + "/files/secret.txt", "PUT", headers=headers, body=b"guess")
        missing = fetch(drop_box.url + "/files/missing.txt", "PUT", headers=headers, body=b"guess")
        assert_same_answer(existing, missing)
    # Stored, but the answers never said under which names ("secret (1).txt"...).
    assert (drop_box.save_dir / "secret.txt").read_bytes() == SECRET
    assert (drop_box.save_dir / "secret (1).txt").read_bytes() == b"guess"
    assert (drop_box.save_dir / "missing.txt").read_bytes() == b"guess"


def test_tus_uploads_into_a_name_answer_the_same(drop_box):
    def metadata(relative: str) -> str:
        return ",".join(f"{key} {base64.b64encode(value.encode()).decode()}"
                        for key, value in (("filename", "probe"), ("relativePath", relative)))

    answers = []
    for relative in ("secret.txt/probe", "missing.txt/probe"):
        created = fetch(drop_box.url + "/files/", "POST", headers={
            "Tus-Resumable": "1.0.0", "Upload-Length": "5", "Upload-Metadata": metadata(relative)})
        assert created.status == 201, created
        location = created.header("Location")
        patched = fetch(location, "PATCH", headers={"Tus-Resumable": "1.0.0", "Upload-Offset": "0",
                                                    "Content-Type": "application/offset+octet-stream"}, body=b"probe")
        answers.append((created, patched))
    (created_existing, patched_existing), (created_missing, patched_missing) = answers
    assert_same_answer(created_existing, created_missing, VARYING | {"location", "upload-expires"})
    assert patched_existing.status == 204, patched_existing
    assert_same_answer(patched_existing, patched_missing)
    assert_secret_untouched(drop_box)


@pytest.mark.parametrize("method, headers", [
    ("MKCOL", {}),
    ("MOVE", {"Destination": "/files/elsewhere.txt"}),
    ("DELETE", {}),
    ("GET", {}),
    ("HEAD", {}),
    ("GET", {"If-None-Match": "*"}),
    ("OPTIONS", {}),
])
def test_other_methods_answer_the_same_whether_a_name_exists(drop_box, method, headers):
    for existing_path, missing_path in (("/files/secret.txt", "/files/missing.txt"),
                                        ("/files/secret.txt/probe", "/files/missing.txt/probe"),
                                        ("/files/sub%20dir/", "/files/no%20dir/")):
        existing = fetch(drop_box.url + existing_path, method, headers=headers)
        missing = fetch(drop_box.url + missing_path, method, headers=headers)
        assert_same_answer(existing, missing)
    assert_secret_untouched(drop_box)
