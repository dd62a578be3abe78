"""The event stream's deliveries (issue 21): the on-upload hook runs once per finished file
with the right FILEDROP_* variables and JSON on stdin, for form, PUT and tus uploads; a hook
that hangs is killed at its timeout while uploads go on; a failing hook is logged; the
webhook (notify-url) gets one POST per file, retries after a 500, verifies an https
receiver's certificate, and speaks ntfy's format when asked.

Every receiver is a Python http.server on loopback port 0; every wait is bounded.
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import http.server
import json
import os
import re
import ssl
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from client_support import curl
from tls_support import TestPKI

WAIT = 15.0


def write_hook(directory: Path, body: str) -> Path:
    """An executable Python hook; `body` runs with `RECORDS` (a directory) defined."""
    records = directory / "records"
    records.mkdir(exist_ok=True)
    hook = directory / "hook.py"
    prelude = textwrap.dedent(f"""\
        #!{sys.executable}
        import json, os, sys, time, uuid
        RECORDS = {str(records)!r}
        def save(name, record):
            # Whole or not at all: the test may read it at any moment.
            with open(os.path.join(RECORDS, name + ".part"), "w") as out:
                json.dump(record, out)
            os.rename(os.path.join(RECORDS, name + ".part"), os.path.join(RECORDS, name + ".json"))
    """)
    hook.write_text(prelude + textwrap.dedent(body))
    hook.chmod(0o755)
    return hook


RECORDING_HOOK = """
    record = {"env": dict(os.environ), "stdin": sys.stdin.read(), "cwd": os.getcwd(), "pid": os.getpid()}
    save(uuid.uuid4().hex, record)
    print("recorded " + os.environ["FILEDROP_NAME"])
    print("to stderr too", file=sys.stderr)
"""


def records(directory: Path, count: int) -> list[dict]:
    """The hook's records, once there are `count` of them (bounded wait)."""
    deadline = time.monotonic() + WAIT
    while len(found := sorted((directory / "records").glob("*.json"))) < count:
        assert time.monotonic() < deadline, f"{len(found)} hook run(s), expected {count}"
        time.sleep(0.05)
    return [json.loads(path.read_text()) for path in found]


def log_lines(daemon, needle: str, count: int) -> list[str]:
    """The log lines containing `needle`, once there are `count` (bounded wait)."""
    deadline = time.monotonic() + WAIT
    while len(lines := [line for line in daemon.stderr_text().splitlines() if needle in line]) < count:
        assert time.monotonic() < deadline, f"{len(lines)} log line(s) with {needle!r}, expected {count}\n{daemon.stderr_tail()}"
        time.sleep(0.05)
    return lines


def put(daemon, name: str, body: bytes) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=10)
    connection.request("PUT", f"/files/{name}", body=body)
    status = connection.getresponse().status
    connection.close()
    return status


def tus_upload(daemon, name: str, body: bytes):
    connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=10)
    metadata = "filename " + base64.b64encode(name.encode()).decode()
    connection.request("POST", "/files/", headers={"Tus-Resumable": "1.0.0", "Upload-Length": str(len(body)),
                                                   "Upload-Metadata": metadata})
    response = connection.getresponse()
    response.read()
    assert response.status == 201, response.status
    location = response.getheader("Location")
    connection.request("PATCH", location, body=body, headers={
        "Tus-Resumable": "1.0.0", "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"})
    response = connection.getresponse()
    response.read()
    assert response.status == 204, response.status
    connection.close()


def test_hook_runs_once_per_file_with_its_details(daemon_factory, tmp_path):
    hook = write_hook(tmp_path, RECORDING_HOOK)
    daemon = daemon_factory("--on-upload", str(hook), fill=False,
                            env={"FILEDROP_TITLE": "lab drop", "LANG": "C.UTF-8", "SECRET_OF_THE_DAEMON": "x"})
    contents = {"form file.txt": b"from a form\n", "puté.bin": b"\x00" * 1000, "resumable.dat": b"tus bytes" * 100}
    form = curl("-F", "file=@-;filename=form file.txt", f"{daemon.url}/upload.html", stdin=contents["form file.txt"])
    assert form.returncode == 0, form.stderr
    assert put(daemon, "put%C3%A9.bin", contents["puté.bin"]) == 201
    tus_upload(daemon, "resumable.dat", contents["resumable.dat"])

    found = {record["env"]["FILEDROP_NAME"]: record for record in records(tmp_path, 3)}
    assert set(found) == {"form file.txt", "puté.bin", "resumable.dat"}
    save_dir = daemon.save_dir.resolve()
    for name, method, size in [("form file.txt", "form", 12), ("puté.bin", "put", 1000), ("resumable.dat", "tus", 900)]:
        env = found[name]["env"]
        # A clean environment: PATH, the locale, the event; nothing else of the daemon's.
        assert set(env) - {"PATH", "LANG", "LC_ALL", "TZ", "LC_CTYPE"} == {
            key for key in env if key.startswith("FILEDROP_")}, env
        assert "SECRET_OF_THE_DAEMON" not in env and "FILEDROP_TITLE" not in env
        assert env["LANG"] == "C.UTF-8"
        assert env["FILEDROP_EVENT"] == "upload.finished"
        assert env["FILEDROP_PATH"] == str(save_dir / name)
        assert Path(env["FILEDROP_PATH"]).stat().st_size == size
        assert env["FILEDROP_SIZE"] == str(size)
        assert env["FILEDROP_SHA256"] == hashlib.sha256(contents[name]).hexdigest()
        assert env["FILEDROP_CLIENT"] in ("127.0.0.1", "::ffff:127.0.0.1")
        assert env["FILEDROP_METHOD"] == method
        assert env["FILEDROP_URL"].endswith("/files/" + {"form file.txt": "form%20file.txt",
                                                          "puté.bin": "put%C3%A9.bin"}.get(name, name))
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", env["FILEDROP_TIME"])
        assert found[name]["cwd"] == str(save_dir)
        stdin = json.loads(found[name]["stdin"])
        assert stdin["event"] == "upload.finished"
        assert (stdin["name"], stdin["path"], stdin["size"], stdin["method"]) == (name, str(save_dir / name), size, method)
        assert stdin["url"] == env["FILEDROP_URL"] and stdin["time"] == env["FILEDROP_TIME"]
        assert stdin["client"] == env["FILEDROP_CLIENT"] and stdin["sha256"] == env["FILEDROP_SHA256"]
    # Output and exit status reach the log with the hook's pid.
    pid = found["resumable.dat"]["pid"]
    daemon.wait_for_log_lines(f"on-upload[{pid}] stdout: recorded resumable.dat")
    daemon.wait_for_log_lines(f"on-upload[{pid}] stderr: to stderr too")
    assert len(log_lines(daemon, "exit status 0", 3)) == 3
    # Once per file: every run has ended, and there were three.
    assert len(list((tmp_path / "records").glob("*.json"))) == 3


def test_hanging_hook_is_killed_at_its_timeout_while_uploads_go_on(daemon_factory, tmp_path):
    hook = write_hook(tmp_path, """
        save(str(os.getpid()), {"name": os.environ["FILEDROP_NAME"]})
        time.sleep(100000)
    """)
    daemon = daemon_factory("--on-upload", str(hook), "--on-upload-timeout", "1s", "--on-upload-concurrency", "1", fill=False)
    assert put(daemon, "first.txt", b"1") == 201
    records(tmp_path, 1)
    # The only hook slot hangs; uploads are answered as ever meanwhile.
    for index in range(2):
        assert put(daemon, f"more{index}.txt", b"x" * 10) == 201
    assert (daemon.save_dir / "more1.txt").read_bytes() == b"x" * 10
    assert not daemon.stderr_text().count("timed out for")
    line = daemon.wait_for_log_lines("timed out for first.txt")[0]
    pid = int(re.search(r"on-upload\[(\d+)\]", line).group(1))
    assert Path(tmp_path / "records" / f"{pid}.json").exists()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    # The queued files get their (also hanging, also killed) runs in turn, one at a time.
    assert len(log_lines(daemon, "timed out for", 3)) == 3
    assert len(records(tmp_path, 3)) == 3


def test_failing_hook_is_logged(daemon_factory, tmp_path):
    hook = write_hook(tmp_path, """
        print("cannot file " + os.environ["FILEDROP_NAME"], file=sys.stderr)
        sys.exit(3)
    """)
    daemon = daemon_factory("--on-upload", str(hook), fill=False)
    assert put(daemon, "report.csv", b"a,b\n") == 201
    daemon.wait_for_log_lines("stderr: cannot file report.csv")
    assert "report.csv" in daemon.wait_for_log_lines("failed for report.csv: exit status 3")[0]


def test_hook_that_cannot_run_is_a_clear_error(daemon_factory, tmp_path):
    hook = tmp_path / "not-executable.sh"
    hook.write_text("#!/bin/sh\n")
    daemon = daemon_factory("--on-upload", str(hook), fill=False)
    assert put(daemon, "a.txt", b"a") == 201
    daemon.wait_for_log_lines("on-upload failed for a.txt: cannot run")


class Receiver:
    """A webhook receiver on loopback port 0: records every POST; answers the statuses in
    `answers` in turn, then 200."""

    def __init__(self, answers: list[int] | None = None, context: ssl.SSLContext | None = None):
        self.posts: list[dict] = []
        self.answers = list(answers or [])
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.posts.append({"path": self.path, "headers": dict(self.headers), "body": body})
                status = receiver.answers.pop(0) if receiver.answers else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if context:
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def wait_for(self, count: int) -> list[dict]:
        deadline = time.monotonic() + WAIT
        while len(self.posts) < count:
            assert time.monotonic() < deadline, f"{len(self.posts)} POST(s), expected {count}"
            time.sleep(0.05)
        return self.posts

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receivers():
    started: list[Receiver] = []

    def start(**options) -> Receiver:
        started.append(Receiver(**options))
        return started[-1]

    yield start
    for receiver in started:
        receiver.close()


def test_webhook_gets_one_json_post_per_file(daemon_factory, receivers):
    receiver = receivers()
    daemon = daemon_factory("--notify-url", f"http://127.0.0.1:{receiver.port}/hooks/filedrop?key=1", fill=False)
    assert put(daemon, "one.txt", b"1") == 201
    assert put(daemon, "two.txt", b"22") == 201
    posts = receiver.wait_for(2)
    daemon.wait_for_log_lines("notify-url told of two.txt")
    daemon.wait_for_log_lines("notify-url told of one.txt")
    assert len(receiver.posts) == 2
    bodies = {json.loads(post["body"])["name"]: json.loads(post["body"]) for post in posts}
    assert set(bodies) == {"one.txt", "two.txt"}
    for post in posts:
        assert post["path"] == "/hooks/filedrop?key=1"
        assert post["headers"]["Content-Type"] == "application/json"
    body = bodies["two.txt"]
    assert body["event"] == "upload.finished" and body["size"] == 2 and body["method"] == "put"
    assert body["url"].endswith("/files/two.txt") and "path" not in body
    assert body["sha256"] == hashlib.sha256(b"22").hexdigest()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", body["time"])


def test_webhook_retries_after_500(daemon_factory, receivers):
    receiver = receivers(answers=[500, 500])
    daemon = daemon_factory("--notify-url", f"http://127.0.0.1:{receiver.port}/", fill=False)
    assert put(daemon, "retry.txt", b"r") == 201
    posts = receiver.wait_for(3)
    daemon.wait_for_log_lines("notify-url told of retry.txt (HTTP 200, attempt 3)")
    assert len(log_lines(daemon, "failed: HTTP 500; trying again", 2)) == 2
    assert [json.loads(post["body"])["name"] for post in posts] == ["retry.txt"] * 3
    assert len(receiver.posts) == 3


def test_webhook_gives_up_at_once_on_4xx(daemon_factory, receivers):
    receiver = receivers(answers=[404])
    daemon = daemon_factory("--notify-url", f"http://127.0.0.1:{receiver.port}/", fill=False)
    assert put(daemon, "lost.txt", b"l") == 201
    daemon.wait_for_log_lines("notify-url not told of lost.txt after 1 attempt(s): HTTP 404")
    assert len(receiver.posts) == 1


def test_webhook_over_https_verifies_the_receiver(daemon_factory, receivers, tmp_path):
    pki = TestPKI.create(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pki.leaf, pki.key)
    receiver = receivers(context=context)
    url = f"https://localhost:{receiver.port}/in"
    trusted = daemon_factory("--notify-url", url, fill=False, env={"SSL_CERT_FILE": str(pki.ca)})
    assert put(trusted, "secure.txt", b"s") == 201
    assert json.loads(receiver.wait_for(1)[0]["body"])["name"] == "secure.txt"
    # Another CA of the same name: the handshake fails, nothing is posted.
    untrusted = daemon_factory("--notify-url", url, fill=False, env={"SSL_CERT_FILE": str(pki.other_ca)})
    assert put(untrusted, "unseen.txt", b"u") == 201
    line = untrusted.wait_for_log_lines("notify-url attempt 1 for unseen.txt failed")[0]
    assert "certificate" in line
    assert len(receiver.posts) == 1


def test_ntfy_format_is_a_message_for_a_phone(daemon_factory, receivers):
    receiver = receivers()
    daemon = daemon_factory("--notify-url", f"http://127.0.0.1:{receiver.port}/my-topic", "--notify-format", "ntfy",
                            "--title", "Labor ü", fill=False)
    assert put(daemon, "scan%201.pdf", b"p" * 2048) == 201
    post = receiver.wait_for(1)[0]
    assert post["path"] == "/my-topic"
    assert post["headers"]["Content-Type"].startswith("text/plain")
    assert post["body"].decode() == "scan 1.pdf (2 KiB) from 127.0.0.1"
    # Non-ASCII header text as an RFC 2047 encoded word, which ntfy decodes.
    assert post["headers"]["Title"] == "=?UTF-8?B?" + base64.b64encode("Labor ü: new file".encode()).decode() + "?="
    assert post["headers"]["Tags"] == "inbox_tray"
    assert post["headers"]["Click"].endswith("/files/scan%201.pdf")
