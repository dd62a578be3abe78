"""Memory and CPU time of a server's process tree, read from /proc.

A server may be several processes (nginx's master and workers), so every figure is the sum
over the tree rooted at the PID we started. RSS is sampled every 50 ms by a thread, because
VmHWM only knows the peak since the process started, not the peak during one workload.
"""

import os
import threading
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
SAMPLE_INTERVAL = 0.05
TREE_REFRESH_INTERVAL = 1.0


def _stat_fields(pid):
    """Fields 3.. of /proc/<pid>/stat (after the command name, which may hold spaces)."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        data = f.read()
    return data[data.rindex(b")") + 2:].split()


def tree_pids(root):
    """The root PID and all its descendants, found through the parent PID of every process."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            parent = int(_stat_fields(entry)[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry))
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def start_time(pid):
    """When the process started (clock ticks since boot), so a reused PID is never mistaken for ours."""
    try:
        return int(_stat_fields(pid)[19])
    except (OSError, ValueError, IndexError):
        return None


def rss_bytes(pids):
    """Resident memory summed over the processes (statm's second field: VmRSS in pages)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                total += int(f.read().split()[1]) * PAGE_SIZE
        except (OSError, ValueError, IndexError):
            continue
    return total


def cpu_seconds(pids):
    """utime + stime summed over the processes (all their threads included)."""
    ticks = 0
    for pid in pids:
        try:
            fields = _stat_fields(pid)
            ticks += int(fields[11]) + int(fields[12])
        except (OSError, ValueError, IndexError):
            continue
    return ticks / CLOCK_TICKS


class TreeSampler:
    """Samples the tree's RSS every 50 ms between start() and stop(); measures CPU seconds used."""

    def __init__(self, root_pid):
        self.root_pid = root_pid
        self.start_rss = 0
        self.peak_rss = 0
        self.cpu = 0.0
        self._stop = threading.Event()
        self._thread = None
        self._pids = []
        self._cpu_start = 0.0

    def start(self):
        self._pids = tree_pids(self.root_pid)
        self._cpu_start = cpu_seconds(self._pids)
        self.start_rss = rss_bytes(self._pids)
        self.peak_rss = self.start_rss
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def current_rss(self):
        return rss_bytes(self._pids)

    def _run(self):
        refreshed = time.monotonic()
        while not self._stop.wait(SAMPLE_INTERVAL):
            if time.monotonic() - refreshed > TREE_REFRESH_INTERVAL:
                self._pids = tree_pids(self.root_pid)
                refreshed = time.monotonic()
            self.peak_rss = max(self.peak_rss, rss_bytes(self._pids))

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=5)
        pids = tree_pids(self.root_pid)
        self.peak_rss = max(self.peak_rss, rss_bytes(pids))
        self.cpu = max(0.0, cpu_seconds(pids) - self._cpu_start)
        return self
