"""Three daemons on one save directory behind HAProxy (issue 20): plain uploads spread over
them land byte-identical with nothing extra, also on a file system without O_TMPFILE, and
`/healthz` takes a daemon out of the balancer while its save directory is read-only."""

from __future__ import annotations

import os
import socket
import re
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from cluster_support import (ClusterDaemon, Cluster, REQUEST_TIMEOUT, UPLOADS, requires_root, save_dir,  # noqa: F401 (save_dir is a fixture)
                             send, temp_files, upload_plan)

pytestmark = requires_root

CLIENTS = 6
HEALTH_CHANGE_TIMEOUT = 10
DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs")


@pytest.fixture
def cluster(tmp_path, save_dir):
    running = Cluster(tmp_path, save_dir)
    try:
        yield running.start()
    finally:
        running.stop()


def uploads_served(daemon) -> int:
    daemon.flush_access_log()
    return len(re.findall(r"(?m)(PUT /files/|POST /upload )", daemon.stderr_text()))


def test_plain_uploads_spread_over_three_daemons_land_intact(cluster):
    plan = upload_plan()
    with ThreadPoolExecutor(CLIENTS) as pool:
        responses = list(pool.map(lambda item: send(cluster.url, *item), plan))
    refused = [(item[:2], response.status_code, response.text[:200]) for item, response in zip(plan, responses)
               if response.status_code not in (200, 201)]
    assert refused == []

    stored = {path.name: path.read_bytes() for path in cluster.save_dir.iterdir()}
    assert Counter(stored.values()) == Counter(content for _, _, content in plan), "a file is lost, doubled or altered"
    assert {name for _, name, _ in plan} <= set(stored), "a unique or first same-name upload lost its name"
    assert len(stored) == UPLOADS
    assert cluster.extra_entries(set(stored)) == [], "something besides the uploads is in the directory"
    assert temp_files(cluster.save_dir) == []
    # Round-robin without stickiness: every daemon took its share.
    shares = [uploads_served(daemon) for daemon in cluster.daemons]
    assert sum(shares) == UPLOADS and min(shares) >= UPLOADS // 6, shares


@pytest.mark.parametrize("save_dir", ["local"], indirect=True)
def test_healthz_takes_a_read_only_daemon_out_of_the_balancer(cluster):
    first, second, third = cluster.daemons
    for url in [daemon.url for daemon in cluster.daemons] + [cluster.url]:
        answer = requests.get(f"{url}/healthz", timeout=REQUEST_TIMEOUT)
        assert (answer.status_code, answer.text) == (200, "ok\n")
        assert answer.headers["Cache-Control"] == "no-store"
    assert requests.head(f"{second.url}/healthz", timeout=REQUEST_TIMEOUT).status_code == 200

    # A read-only mount stops root too (a chmod would not): only the second daemon sees it.
    second.make_read_only()
    answer = health_once_changed(second, 503)
    assert "The save directory takes no uploads now" in answer.text and "read-only" in answer.text
    assert requests.get(f"{first.url}/healthz", timeout=REQUEST_TIMEOUT).status_code == 200
    cluster.haproxy.wait_for(lambda states: states.get("filedrop2") == "DOWN", "filedrop2 DOWN")
    assert cluster.haproxy.states()["filedrop1"].startswith("UP")
    assert cluster.haproxy.states()["filedrop3"].startswith("UP")

    # While it is down, uploads through the balancer go to the others and all succeed.
    before = uploads_served(second)
    contents = {f"while-down-{index}.bin": os.urandom(10_000) for index in range(12)}
    for name, content in contents.items():
        assert send(cluster.url, "put", name, content).status_code == 201
    assert uploads_served(second) == before
    for name, content in contents.items():
        assert (cluster.save_dir / name).read_bytes() == content

    second.make_writable()
    cluster.haproxy.wait_for(lambda states: states.get("filedrop2") == "UP", "filedrop2 UP again")

    # Passing checks (HAProxy's, every second) stay out of the access log; failing ones are in it.
    second.flush_access_log()
    assert "GET /healthz 503" in second.stderr_text()
    for daemon in cluster.daemons:
        daemon.flush_access_log()
        assert "/healthz 200" not in daemon.stderr_text()


def health_once_changed(daemon, status: int) -> requests.Response:
    """`/healthz` once it answers `status`: a reading is reused for up to a second
    (`SaveDirectoryHealth.maxAge`), so the change shows within a few checks (bounded)."""
    deadline = time.monotonic() + HEALTH_CHANGE_TIMEOUT
    while True:
        answer = requests.get(f"{daemon.url}/healthz", headers={"Accept": "text/plain"}, timeout=REQUEST_TIMEOUT)
        if answer.status_code == status or time.monotonic() > deadline:
            assert answer.status_code == status, answer.text
            return answer
        time.sleep(0.1)


def test_docs_show_the_tested_haproxy_config():
    """docs/deployment.md quotes docs/haproxy.cfg, the file these tests run HAProxy with."""
    with open(os.path.join(DOCS, "deployment.md")) as guide, open(os.path.join(DOCS, "haproxy.cfg")) as config:
        blocks = re.findall(r"```haproxy\n(.*?)```", guide.read(), re.S)
        assert blocks == [config.read()]


@pytest.mark.parametrize("save_dir", ["bindfs"], indirect=True)
def test_a_daemon_starting_keeps_the_others_uploads_in_flight(cluster, tmp_path):
    """Without O_TMPFILE an upload in flight has a named temporary: a daemon starting on the
    same directory (a restart, one more daemon) must not take it for a crash's leftover."""
    first = cluster.daemons[0]
    content = os.urandom(2 << 20)
    head = (f"PUT /files/in-flight.bin HTTP/1.1\r\nHost: localhost\r\nContent-Length: {len(content)}\r\n"
            "Connection: close\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", first.port), timeout=30) as connection:
        connection.sendall(head + content[: len(content) // 2])
        deadline = time.monotonic() + 10
        while not temp_files(cluster.save_dir):
            assert time.monotonic() < deadline, "the upload never made its temporary"
            time.sleep(0.05)
        joining = ClusterDaemon(tmp_path / "joining", cluster.save_dir, [])
        try:
            joining.start()
        finally:
            joining.stop(check=False)
            joining.cleanup()
        connection.sendall(content[len(content) // 2:])
        reply = connection.makefile("rb").readline()
    assert reply.split()[1] == b"201", reply
    assert (cluster.save_dir / "in-flight.bin").read_bytes() == content
    assert temp_files(cluster.save_dir) == []


@pytest.mark.parametrize("save_dir", ["bindfs"], indirect=True)
def test_renames_work_where_the_file_system_has_no_rename_noreplace(save_dir, tmp_path):
    """bindfs, like NFS, refuses renameat2(RENAME_NOREPLACE) with EINVAL: MOVE of a file and
    of a folder still works through the fallback, and still never replaces what is there."""
    (save_dir / "a.txt").write_bytes(b"a")
    (save_dir / "b.txt").write_bytes(b"b")
    (save_dir / "sub").mkdir()
    (save_dir / "sub" / "c.txt").write_bytes(b"c")
    daemon = ClusterDaemon(tmp_path / "renaming", save_dir, ["--allow-delete"])
    try:
        daemon.start()
        base = f"http://127.0.0.1:{daemon.port}"

        def move(source: str, destination: str) -> int:
            return requests.request("MOVE", f"{base}/files/{source}", timeout=REQUEST_TIMEOUT,
                                    headers={"Destination": f"/files/{destination}"}).status_code

        assert move("a.txt", "b.txt") == 412
        assert move("sub/", "b.txt") == 412
        assert move("sub/", "sub/deeper/") == 409
        assert move("a.txt", "sub/a.txt") == 201
        assert move("sub/", "folder/") == 201
    finally:
        daemon.stop(check=False)
        daemon.cleanup()
    assert sorted(p.name for p in save_dir.iterdir()) == ["b.txt", "folder"]
    assert (save_dir / "b.txt").read_bytes() == b"b"
    assert sorted(p.name for p in (save_dir / "folder").iterdir()) == ["a.txt", "c.txt"]
    assert (save_dir / "folder" / "a.txt").read_bytes() == b"a"
