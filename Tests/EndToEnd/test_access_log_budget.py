"""The access log under load and across reloads (README, "Logs"): upload lines never go
through the access log's budget, requests past it are counted in one summary line per
interval whose counts add up, and `access-log` and `log-level` follow SIGHUP."""

from __future__ import annotations

import os
import re
import signal
import socket
import time
import uuid

import requests

GETS = 20_000
MISSES = 1_000
BATCH = 200


def pipelined_gets(port: int, targets: list[str]) -> list[int]:
    """Sends GETs of `targets` on one keep-alive connection, BATCH at a time pipelined, and
    returns the statuses in order. Bounded: every read has a timeout."""
    statuses: list[int] = []
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        buffer = b""
        for start in range(0, len(targets), BATCH):
            batch = targets[start:start + BATCH]
            connection.sendall(b"".join(f"GET {t} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode() for t in batch))
            answered = 0
            while answered < len(batch):
                end = buffer.find(b"\r\n\r\n")
                if end >= 0:
                    head = buffer[:end]
                    length = int(re.search(rb"(?im)^content-length:\s*(\d+)", head).group(1))
                    if len(buffer) >= end + 4 + length:
                        statuses.append(int(head.split(b" ", 2)[1]))
                        buffer = buffer[end + 4 + length:]
                        answered += 1
                        continue
                chunk = connection.recv(1 << 16)
                assert chunk, "the daemon closed the connection mid-answer"
                buffer += chunk
    return statuses


def not_logged_counts(log: str) -> list[tuple[int, dict[str, int]]]:
    """Each summary line as (its total, {"GET 200": n, ...})."""
    summaries = []
    for line in log.splitlines():
        found = re.search(r"([\d,]+) requests? not logged in the last \d+ s: (.*?) not_logged=(\d+)", line)
        if not found:
            continue
        total = int(found.group(1).replace(",", ""))
        assert total == int(found.group(3)), line
        parts = {}
        for part in found.group(2).split(", "):
            count, _, key = part.partition(" ")
            parts[key] = int(count.replace(",", ""))
        summaries.append((total, parts))
    return summaries


def test_upload_lines_survive_a_flood_of_gets_and_the_summary_adds_up(daemon):
    targets = ["/files/plain.txt"] * (GETS - MISSES) + ["/no-such-page"] * MISSES
    half = len(targets) // 2
    statuses = pipelined_gets(daemon.port, targets[:half])
    # An upload in the middle of the flood, when the budget is long spent.
    name = f"flood-{uuid.uuid4().hex[:8]}.txt"
    response = requests.put(f"{daemon.url}/files/{name}", data=b"kept whatever the request rate\n", timeout=10)
    assert response.status_code == 201, response.text
    statuses += pipelined_gets(daemon.port, targets[half:])
    assert statuses.count(200) == GETS - MISSES and statuses.count(404) == MISSES

    # Stopping writes what is queued and the summary of the interval so far.
    daemon.stop()
    log = daemon.stderr_text()
    assert len([line for line in log.splitlines() if f"upload finished: {name}" in line]) == 1, daemon.stderr_tail()
    logged_hits = len(re.findall(r"(?m) GET /files/plain\.txt 200 ", log))
    logged_misses = len(re.findall(r"(?m) GET /no-such-page 404 ", log))
    summaries = not_logged_counts(log)
    assert summaries, f"no summary line\n{daemon.stderr_tail()}"
    for total, parts in summaries:
        assert sum(parts.values()) == total, summaries
    hits = sum(parts.get("GET 200", 0) for _, parts in summaries)
    misses = sum(parts.get("GET 404", 0) for _, parts in summaries)
    # Every GET is either a line of its own or counted in a summary, never both, never lost.
    assert logged_hits + hits == GETS - MISSES, (logged_hits, hits)
    assert logged_misses + misses == MISSES, (logged_misses, misses)
    # The budget (1000 lines per 10 s by default) held: far fewer lines than requests.
    assert logged_hits + logged_misses < GETS // 2


def test_a_budget_of_lines_per_interval_is_kept(daemon_factory):
    daemon = daemon_factory("--access-log-rate", "50/1h")
    pipelined_gets(daemon.port, ["/files/plain.txt"] * 300)
    daemon.stop()
    log = daemon.stderr_text()
    assert len(re.findall(r"(?m) GET /files/plain\.txt 200 ", log)) == 50, daemon.stderr_tail()
    assert [total for total, _ in not_logged_counts(log)] == [250], daemon.stderr_tail()


def reload(daemon, config, text: str):
    """Rewrites the configuration file and sends SIGHUP; returns once READY=1 follows the
    reload (the log cannot tell: at warning, "configuration reloaded" is not logged)."""
    readies = lambda: sum(1 for n in list(daemon.notifications) if "READY" in n)
    before = readies()
    config.write_text(text)
    os.kill(daemon.pid, signal.SIGHUP)
    deadline = time.monotonic() + 10
    while readies() == before:
        assert time.monotonic() < deadline, f"no READY=1 after SIGHUP\n{daemon.stderr_tail()}"
        time.sleep(0.05)


def test_reload_switches_the_access_log_and_the_level(daemon_factory, tmp_path):
    config = tmp_path / "filedrop.conf"
    config.write_text("access-log = true\n")
    daemon = daemon_factory("--config", str(config))
    get = lambda path: requests.get(f"{daemon.url}{path}", timeout=10)

    get("/files/plain.txt?first")
    daemon.wait_for_log_lines("GET /files/plain.txt?first 200")

    reload(daemon, config, "access-log = false\n")
    get("/files/plain.txt?while-off")
    reload(daemon, config, "log-level = warning\n")
    get("/files/plain.txt?while-warning")
    assert requests.put(f"{daemon.url}/files/quiet.txt", data=b"x", timeout=10).status_code == 201
    reload(daemon, config, "access-log = true\n")
    get("/files/plain.txt?on-again")
    # Lines are written in order: once this one is there, the ones before would be too.
    daemon.wait_for_log_lines("GET /files/plain.txt?on-again 200")
    log = daemon.stderr_text()
    assert "?while-off" not in log and "?while-warning" not in log, daemon.stderr_tail()
    # At warning, an upload's notice is left out too; back at info, the reload's notice is there.
    assert "upload finished: quiet.txt" not in log
    assert log.count("configuration reloaded") == 2, daemon.stderr_tail()
