"""Anyone who may upload cannot make the owner's on-upload hook or webhook skip a file: a
burst of 2,000 files, each with a hook that takes 50 ms, runs the hook exactly once per
file, also when the daemon is stopped (SIGTERM) halfway through the runs and started again
on the same save directory; what waits is kept on disk (`.filedrop-hooks`) and `/metrics`
shows its depth going down. Webhook notices that cannot go wait on disk the same way, with
their attempts, and go after a restart. Two daemons on one save directory share the queue
and run each file once.

Every wait is bounded; the receiver listens on loopback only.
"""

from __future__ import annotations

import pytest
import http.client
import http.server
import json
import re
import socket
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from attack_support import multipart
from conftest import Daemon

pytestmark = pytest.mark.long

FILES = 2000
FORMS = 4
WAIT = 90.0


def names() -> list[str]:
    return [f"flood-{index:04d}.txt" for index in range(FILES)]


def write_hook(directory: Path) -> tuple[Path, Path]:
    """A shell hook that takes 50 ms, then appends the file's name to a log (one short
    O_APPEND write per run, so concurrent runs never interleave within a line)."""
    log = directory / "hook.log"
    hook = directory / "hook.sh"
    hook.write_text(f"#!/bin/sh\nsleep 0.05\nprintf '%s\\n' \"$FILEDROP_NAME\" >> '{log}'\n")
    hook.chmod(0o755)
    return hook, log


def logged(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def wait_until(condition, what: str, timeout: float = WAIT):
    deadline = time.monotonic() + timeout
    while not (result := condition()):
        assert time.monotonic() < deadline, f"not within {timeout}s: {what}"
        time.sleep(0.05)
    return result


def send_forms(daemon, files: list[str]):
    """`files` in FORMS multipart forms sent at once, each file's content its own name."""
    def send(batch: list[str]) -> int:
        headers, body = multipart([("file", name, name.encode()) for name in batch])
        connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=120)
        connection.request("POST", "/upload", body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        connection.close()
        return response.status

    batches = [files[index::FORMS] for index in range(FORMS)]
    with ThreadPoolExecutor(FORMS) as pool:
        statuses = list(pool.map(send, batches))
    assert statuses == [201] * FORMS, statuses


def metric(daemon, name: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=10)
    connection.request("GET", "/metrics")
    text = connection.getresponse().read().decode()
    connection.close()
    match = re.search(rf"(?m)^{name} (\d+)$", text)
    assert match, f"no {name} in /metrics"
    return int(match.group(1))


def queued(daemon, folder: str) -> list[str]:
    return sorted(path.name for path in (daemon.save_dir / folder).iterdir())


def test_every_file_of_a_burst_runs_the_hook_once_across_a_restart(daemon_factory, tmp_path):
    hook, log = write_hook(tmp_path)
    # Two runs at once while the files arrive, so that the queue grows; more after the restart.
    daemon = daemon_factory("--on-upload", str(hook), "--on-upload-concurrency", "2", fill=False)
    expected = names()
    started = time.monotonic()
    send_forms(daemon, expected)
    uploaded = time.monotonic() - started
    assert sorted(path.name for path in daemon.save_dir.iterdir() if not path.name.startswith(".")) == expected
    # Stop in the middle of the runs: some done, the rest waiting on disk.
    wait_until(lambda: len(logged(log)) >= FILES // 10, "a tenth of the runs")
    assert metric(daemon, "filedrop_hook_queue_depth") > 0
    daemon.stop()
    done_before = logged(log)
    print(f"{FILES} files uploaded in {uploaded:.1f} s; {len(done_before)} runs before the restart")
    assert FILES // 10 <= len(done_before) < FILES, "the daemon stopped after every run: nothing left to resume"
    # Runs under way at SIGTERM ended before the exit; each file is done or waits, never both.
    waiting = queued(daemon, ".filedrop-hooks")
    assert len(waiting) == FILES - len(done_before), (len(waiting), len(done_before))
    assert all(name.endswith(".run") for name in waiting), waiting[:5]
    assert "runs already waiting" not in daemon.stderr_text()
    # A deep queue is one line a minute, not one per file.
    assert len([line for line in daemon.stderr_text().splitlines() if "runs wait in .filedrop-hooks" in line]) == 1
    daemon.wait_for_log_lines(f"on-upload: {len(waiting)} pending run(s) kept on disk for the next start")

    daemon.extra_args = ["--on-upload", str(hook), "--on-upload-concurrency", "16"]
    daemon.notifications.clear()
    started = time.monotonic()
    daemon.start()
    depths = [metric(daemon, "filedrop_hook_queue_depth")]
    while depths[-1] > 0:
        assert len(depths) < WAIT / 0.1, f"the queue is still {depths[-1]} deep"
        time.sleep(0.1)
        depths.append(metric(daemon, "filedrop_hook_queue_depth"))
    # The depth only goes down once nothing new arrives (the first reading may precede the
    # new daemon's first look at the folder, which reads 0).
    readings = [depth for depth in depths if depth > 0]
    assert readings and readings == sorted(readings, reverse=True), depths
    assert max(readings) > FILES // 10, depths
    wait_until(lambda: len(logged(log)) >= FILES, "every run")
    print(f"{FILES - len(done_before)} runs after the restart in {time.monotonic() - started:.1f} s")
    time.sleep(0.3)
    runs = Counter(logged(log))
    assert set(runs) == set(expected)
    assert [name for name, count in runs.items() if count != 1] == []
    assert sum(runs.values()) == FILES
    assert queued(daemon, ".filedrop-hooks") == []
    assert metric(daemon, "filedrop_hook_runs_total") == FILES - len(done_before)


def closed_port() -> int:
    """A loopback port nothing listens on (bound and closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Receiver:
    """A webhook receiver on `port` that answers 200 and records each POST's JSON."""

    def __init__(self, port: int):
        self.posts: list[dict] = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                receiver.posts.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_webhook_notices_that_cannot_go_wait_on_disk_and_go_after_a_restart(daemon_factory):
    port = closed_port()
    daemon = daemon_factory("--notify-url", f"http://127.0.0.1:{port}/in", fill=False)
    expected = [f"notice-{index:02d}.txt" for index in range(20)]
    for name in expected:
        connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=10)
        connection.request("PUT", f"/files/{name}", body=name.encode())
        assert connection.getresponse().status == 201
        connection.close()
    # Each notice failed once (nobody listens) and waits for its next attempt, on disk.
    for name in expected:
        daemon.wait_for_log_lines(f"notify-url attempt 1 for {name} failed")
    assert metric(daemon, "filedrop_webhook_queue_depth") == len(expected)
    daemon.stop()
    assert len(queued(daemon, ".filedrop-webhooks")) == len(expected)

    receiver = Receiver(port)
    try:
        daemon.notifications.clear()
        daemon.start()
        wait_until(lambda: len(receiver.posts) >= len(expected), "every notice")
        for name in expected:
            line = daemon.wait_for_log_lines(f"notify-url told of {name} (HTTP 200")[0]
            # The attempts made before the restart count.
            assert int(re.search(r"attempt (\d+)\)", line).group(1)) >= 2, line
        time.sleep(0.3)
        assert Counter(post["name"] for post in receiver.posts) == Counter(expected)
        assert queued(daemon, ".filedrop-webhooks") == []
        assert metric(daemon, "filedrop_webhook_queue_depth") == 0
    finally:
        receiver.close()


def test_daemons_sharing_a_save_directory_run_each_file_once(tmp_path):
    """Two daemons on one save directory (as behind HAProxy): files uploaded to one are run by
    both, each file by one of them only."""
    log = tmp_path / "hook.log"
    hook = tmp_path / "hook.sh"
    # The daemon is the hook's parent: $PPID says which one ran it.
    hook.write_text(f"#!/bin/sh\nsleep 0.05\nprintf '%s %s\\n' \"$FILEDROP_NAME\" \"$PPID\" >> '{log}'\n")
    hook.chmod(0o755)
    shared = tmp_path / "shared"
    shared.mkdir()
    daemons = []
    try:
        for name, concurrency in (("a", "1"), ("b", "4")):
            (tmp_path / name).mkdir()
            daemon = Daemon(tmp_path / name, ["--on-upload", str(hook), "--on-upload-concurrency", concurrency], fill=False)
            daemon.save_dir.rmdir()
            daemon.save_dir = shared
            daemons.append(daemon)
            daemon.start()
        expected = [f"shared-{index:03d}.txt" for index in range(400)]
        send_forms(daemons[0], expected)
        wait_until(lambda: len(logged(log)) >= len(expected), "every run")
        time.sleep(0.5)
        runs = [line.split(" ") for line in logged(log)]
        assert Counter(name for name, _ in runs) == Counter(expected)
        by_daemon = Counter(int(pid) for _, pid in runs)
        assert set(by_daemon) == {daemon.pid for daemon in daemons}, by_daemon
        assert queued(daemons[0], ".filedrop-hooks") == []
        for daemon in daemons:
            assert daemon.stop() == 0
    finally:
        for daemon in daemons:
            daemon.stop(check=False)
            daemon.cleanup()
