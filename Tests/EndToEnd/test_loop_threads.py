"""Event-loop threads carry their loop's index in their name (top -H, perf, a hung loop in
/proc), and the process keeps its own name."""

import os
import time


def thread_names(pid: int) -> list[str]:
    names = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/comm") as comm:
            names.append(comm.read().strip())
    return names


def test_loop_threads_are_named_by_index(daemon_factory):
    daemon = daemon_factory("--threads", "3")
    # READY=1 comes just before the loops start: give their threads a moment.
    deadline = time.monotonic() + 2.0
    while not {"loop-0", "loop-1", "loop-2"} <= set(names := thread_names(daemon.pid)) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert {"loop-0", "loop-1", "loop-2"} <= set(names), names
    assert "loop-3" not in names
    with open(f"/proc/{daemon.pid}/comm") as comm:
        assert comm.read().strip() == "filedrop"
