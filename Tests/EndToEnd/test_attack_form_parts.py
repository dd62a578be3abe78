"""Forms that fail at a later part, against the real daemon: the files before the failure
stay stored (they are complete and published), and the answer says so - the `files` list of
the success answer beside the `error` sentence, in JSON, text and HTML - so a client does not
take the error for "nothing happened" and send them all again."""

from __future__ import annotations

import json
import threading

import pytest

from http_raw import RawConnection, build_request, fetch

BOUNDARY = "----filedropFormParts"
CONTENT_TYPE = f"multipart/form-data; boundary={BOUNDARY}"
MAX_PARTS = 10_000


def file_part(name: str, content: bytes) -> bytes:
    return (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\r\n".encode()
            + content + b"\r\n")


def three_good_and_a_malformed_fourth() -> bytes:
    body = b"".join(file_part(f"good-{index}.txt", f"content {index}".encode()) for index in range(1, 4))
    body += f"--{BOUNDARY}\r\nContent-Disposition form-data broken\r\n\r\nwhatever\r\n".encode()
    return body + f"--{BOUNDARY}--\r\n".encode()


def stored_names(save_dir) -> set[str]:
    return {path.name for path in save_dir.iterdir()}


def post(daemon, body: bytes, accept: str):
    return fetch(daemon.url + "/upload.html", "POST", {"Accept": accept, "Content-Type": CONTENT_TYPE}, body)


def test_malformed_fourth_part_answers_with_the_three_stored_files(daemon_factory):
    daemon = daemon_factory("--fsync", "false", fill=False)
    answer = post(daemon, three_good_and_a_malformed_fourth(), "application/json")
    assert answer.status == 400
    assert answer.header("Connection") == "close"
    reply = json.loads(answer.body)
    assert [file["name"] for file in reply["files"]] == ["good-1.txt", "good-2.txt", "good-3.txt"]
    assert [file["size"] for file in reply["files"]] == [9, 9, 9]
    assert all(file["url"] == f"/files/{file['name']}" for file in reply["files"])
    assert reply["errors"] == []
    assert reply["status"] == 400
    assert reply["error"] == ("3 files stored; part 4 of the form was refused: "
                              "A part of the form has a malformed header line.")
    assert stored_names(daemon.save_dir) == {"good-1.txt", "good-2.txt", "good-3.txt"}
    assert (daemon.save_dir / "good-2.txt").read_bytes() == b"content 2"
    assert daemon.temp_files() == []


def test_malformed_fourth_part_in_text_and_html(daemon_factory):
    daemon = daemon_factory("--fsync", "false", fill=False)
    text = post(daemon, three_good_and_a_malformed_fourth(), "text/plain")
    assert text.status == 400
    lines = text.body.decode().splitlines()
    assert lines[:3] == [f"stored good-{index}.txt 9 bytes /files/good-{index}.txt" for index in range(1, 4)]
    assert lines[3] == ("400 Bad Request: 3 files stored; part 4 of the form was refused: "
                        "A part of the form has a malformed header line.")

    # A browser posting the plain form (no JavaScript) gets the page with the stored names.
    page = fetch(daemon.url + "/upload.html", "POST", {"Accept": "text/html", "Accept-Language": "de",
                                                      "Content-Type": CONTENT_TYPE},
                 three_good_and_a_malformed_fourth().replace(b"good-", b"page-"))
    assert page.status == 400
    html = page.body.decode()
    assert "3 Dateien gespeichert" in html
    for index in range(1, 4):
        assert f'<a href="/files/page-{index}.txt">page-{index}.txt</a>' in html
    assert "Teil 4 des Formulars wurde abgelehnt" in html


def test_first_part_malformed_is_the_plain_error(daemon_factory):
    """Nothing stored before the failure: the answer is the error alone, as before."""
    daemon = daemon_factory(fill=False)
    body = f"--{BOUNDARY}\r\nContent-Disposition form-data broken\r\n\r\nx\r\n--{BOUNDARY}--\r\n".encode()
    answer = post(daemon, body, "application/json")
    assert answer.status == 400
    assert json.loads(answer.body) == {"error": "A part of the form has a malformed header line.", "status": 400}
    assert stored_names(daemon.save_dir) == set()


@pytest.mark.timeout(300)
def test_form_with_more_parts_than_the_limit_lists_what_was_stored(daemon_factory):
    daemon = daemon_factory("--fsync", "false", fill=False)
    total = MAX_PARTS + 2_000
    body = b"".join(file_part(f"p{index:05}", b"x") for index in range(total)) + f"--{BOUNDARY}--\r\n".encode()
    connection = RawConnection.open(("127.0.0.1", int(daemon.url.rsplit(":", 1)[1])), timeout=120)
    try:
        connection.send(build_request("POST", "/upload.html", headers=[
            ("Content-Type", CONTENT_TYPE), ("Accept", "application/json"), ("Content-Length", str(len(body)))]))
        # The daemon answers once the limit is passed, while the rest may still be on its way.
        sender = threading.Thread(target=send_ignoring_close, args=(connection, body), daemon=True)
        sender.start()
        answer = connection.read_response(timeout=240)
        sender.join(timeout=60)
    finally:
        connection.close()
    assert answer.status == 400
    reply = json.loads(answer.body)
    assert len(reply["files"]) == MAX_PARTS
    assert reply["files"][0]["name"] == "p00000" and reply["files"][-1]["name"] == f"p{MAX_PARTS - 1:05}"
    assert reply["error"] == (f"{MAX_PARTS} files stored; part {MAX_PARTS + 1} of the form was refused: "
                              f"The form has more than {MAX_PARTS} parts.")
    assert len(list(daemon.save_dir.iterdir())) == MAX_PARTS
    assert daemon.temp_files() == []


def send_ignoring_close(connection: RawConnection, body: bytes):
    try:
        connection.send(body)
    except OSError:
        pass  # the daemon closed after its answer; what it did not read was never needed
