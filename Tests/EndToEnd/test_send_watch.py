"""`filedrop send --watch DIR` (issue 21) against the real daemon: files dropped into a
folder (written slowly, renamed into place, present at start) arrive once each and
byte-identical; hidden and temporary names are left alone; a file that keeps changing is
not sent while it changes; the watcher waits out a server restart and sends later files;
a restarted watcher sends nothing twice; `--after-send` deletes or moves only after the
server's SHA-256 matched the local one, and keeps the file when the server states none
(`sha256 = off`).

Every wait is bounded; the watcher runs with --settle 500ms so the test stays short."""

import hashlib
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import FILEDROP_BIN

WAIT = 30


class Watcher:
    """One `filedrop send --watch` process; its output is collected as it comes."""

    def __init__(self, tmp_path: Path, folder: Path, url: str, *args: str):
        env = {key: value for key, value in os.environ.items() if not key.startswith(("FILEDROP_", "NOTIFY_", "LISTEN_"))}
        env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
        env["XDG_STATE_HOME"] = str(tmp_path / "state")
        env["FILEDROP_URL"] = url
        self.process = subprocess.Popen([str(FILEDROP_BIN), "send", "--watch", str(folder), "--settle", "500ms", *args],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env=env, cwd=tmp_path)
        self.out: list[str] = []
        self.err: list[str] = []
        for stream, lines in ((self.process.stdout, self.out), (self.process.stderr, self.err)):
            threading.Thread(target=self._read, args=(stream, lines), daemon=True).start()

    @staticmethod
    def _read(stream, lines):
        for line in iter(stream.readline, b""):
            lines.append(line.decode("utf-8", "replace").rstrip("\n"))

    def wait_for(self, predicate, what: str, timeout: float = WAIT):
        deadline = time.monotonic() + timeout
        while not predicate():
            assert self.process.poll() is None, f"the watcher exited {self.process.returncode}\n{self.transcript()}"
            assert time.monotonic() < deadline, f"timed out waiting for {what}\n{self.transcript()}"
            time.sleep(0.1)

    def sent_lines(self, name: str) -> list[str]:
        return [line for line in self.out if line.startswith(f"sent {name} ")]

    def transcript(self) -> str:
        return "stdout:\n" + "\n".join(self.out) + "\nstderr:\n" + "\n".join(self.err)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


@pytest.fixture
def watchers():
    started: list[Watcher] = []
    yield started
    for watcher in started:
        watcher.stop()


def write_slowly(path: Path, data: bytes, pieces: int = 5, pause: float = 0.2):
    """Writes in pieces with pauses shorter than the settle time: never sent half-written."""
    with open(path, "wb") as file:
        for index in range(pieces):
            file.write(data[index * len(data) // pieces:(index + 1) * len(data) // pieces])
            file.flush()
            time.sleep(pause)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_five_files_arrive_once_each_and_are_deleted_after_verification(daemon_factory, tmp_path, watchers):
    daemon = daemon_factory(fill=False)
    folder = tmp_path / "outbox"
    folder.mkdir()
    contents = {f"file{n}.bin": os.urandom(1000 * n + 17) for n in range(1, 6)}
    (folder / "file1.bin").write_bytes(contents["file1.bin"])  # there before the watcher starts
    (folder / ".hidden").write_bytes(b"never sent")
    (folder / "draft.txt~").write_bytes(b"never sent")
    watcher = Watcher(tmp_path, folder, daemon.url, "--after-send", "delete")
    watchers.append(watcher)
    write_slowly(folder / "file2.bin", contents["file2.bin"])
    (folder / "file3.bin").write_bytes(contents["file3.bin"])
    # Written under a temporary name, renamed into place when complete.
    (folder / "file4.bin.part").write_bytes(contents["file4.bin"])
    os.rename(folder / "file4.bin.part", folder / "file4.bin")
    write_slowly(folder / "file5.bin", contents["file5.bin"], pieces=3)
    watcher.wait_for(lambda: all(watcher.sent_lines(name) for name in contents), "five sends")
    for name, data in contents.items():
        assert (daemon.save_dir / name).read_bytes() == data, name
        lines = watcher.sent_lines(name)
        assert len(lines) == 1, watcher.transcript()
        assert f"SHA-256 {sha256(data)} verified; deleted" in lines[0]
        assert not (folder / name).exists()
    assert sorted(path.name for path in daemon.save_dir.iterdir()) == sorted(contents), "only the five, each once"
    assert sorted(path.name for path in folder.iterdir()) == [".hidden", "draft.txt~"]


def test_a_restarted_watcher_sends_nothing_twice(daemon_factory, tmp_path, watchers):
    daemon = daemon_factory(fill=False)
    folder = tmp_path / "outbox"
    folder.mkdir()
    kept = {"a.txt": b"first", "b.txt": b"second"}
    for name, data in kept.items():
        (folder / name).write_bytes(data)
    watcher = Watcher(tmp_path, folder, daemon.url, "--after-send", "keep")
    watchers.append(watcher)
    watcher.wait_for(lambda: all(watcher.sent_lines(name) for name in kept), "two sends")
    assert all((folder / name).exists() for name in kept), "--after-send keep keeps the files"
    watcher.stop()
    # A new watcher on the same folder: both are in its ledger; only a new file goes.
    again = Watcher(tmp_path, folder, daemon.url, "--after-send", "keep")
    watchers.append(again)
    (folder / "c.txt").write_bytes(b"third")
    again.wait_for(lambda: again.sent_lines("c.txt"), "the new file")
    time.sleep(1)
    assert not any(again.sent_lines(name) for name in kept), again.transcript()
    assert sorted(path.name for path in daemon.save_dir.iterdir()) == ["a.txt", "b.txt", "c.txt"]


def test_a_file_that_keeps_changing_is_not_sent_while_it_changes(daemon_factory, tmp_path, watchers):
    daemon = daemon_factory(fill=False)
    folder = tmp_path / "outbox"
    folder.mkdir()
    watcher = Watcher(tmp_path, folder, daemon.url)
    watchers.append(watcher)
    growing = folder / "growing.log"
    with open(growing, "wb") as file:
        # 4 s of appends every 100 ms, far more often than the 500 ms settle time.
        for _ in range(40):
            file.write(os.urandom(100))
            file.flush()
            time.sleep(0.1)
            assert not watcher.sent_lines("growing.log"), watcher.transcript()
    assert not (daemon.save_dir / "growing.log").exists()
    watcher.wait_for(lambda: watcher.sent_lines("growing.log"), "the file once it stopped")
    assert (daemon.save_dir / "growing.log").read_bytes() == growing.read_bytes()


def test_the_watcher_waits_out_a_server_restart(daemon_factory, tmp_path, watchers):
    first = daemon_factory(fill=False)
    port = first.port
    folder = tmp_path / "outbox"
    folder.mkdir()
    watcher = Watcher(tmp_path, folder, first.url)
    watchers.append(watcher)
    (folder / "before.bin").write_bytes(b"before the restart")
    watcher.wait_for(lambda: watcher.sent_lines("before.bin"), "the first file")
    first.stop()
    (folder / "during.bin").write_bytes(b"while the server is down")
    watcher.wait_for(lambda: any("during.bin" in line and "trying again" in line for line in watcher.err), "a retry")
    # The same port again (learned from the first daemon, not fixed).
    second = daemon_factory(fill=False, listen=[f"127.0.0.1:{port}"])
    watcher.wait_for(lambda: watcher.sent_lines("during.bin"), "the file sent after the restart")
    (folder / "after.bin").write_bytes(b"after the restart")
    watcher.wait_for(lambda: watcher.sent_lines("after.bin"), "a later file")
    assert (second.save_dir / "during.bin").read_bytes() == b"while the server is down"
    assert (second.save_dir / "after.bin").read_bytes() == b"after the restart"


def test_after_send_move_puts_the_verified_file_into_the_directory(daemon_factory, tmp_path, watchers):
    daemon = daemon_factory(fill=False)
    folder = tmp_path / "outbox"
    folder.mkdir()
    done = tmp_path / "done"
    done.mkdir()
    (done / "scan.pdf").write_bytes(b"an older scan")
    watcher = Watcher(tmp_path, folder, daemon.url, "--after-send", f"move:{done}")
    watchers.append(watcher)
    data = os.urandom(5000)
    (folder / "scan.pdf").write_bytes(data)
    watcher.wait_for(lambda: watcher.sent_lines("scan.pdf"), "the send")
    assert f"SHA-256 {sha256(data)} verified; moved to" in watcher.sent_lines("scan.pdf")[0]
    assert (daemon.save_dir / "scan.pdf").read_bytes() == data
    assert not (folder / "scan.pdf").exists()
    assert (done / "scan.pdf").read_bytes() == b"an older scan", "a move never replaces a file"
    assert (done / "scan.pdf (1)").read_bytes() == data


def test_without_the_servers_sha256_nothing_is_deleted(daemon_factory, tmp_path, watchers):
    daemon = daemon_factory("--sha256", "false", fill=False)
    folder = tmp_path / "outbox"
    folder.mkdir()
    watcher = Watcher(tmp_path, folder, daemon.url, "--after-send", "delete")
    watchers.append(watcher)
    (folder / "scan.pdf").write_bytes(b"unverifiable")
    watcher.wait_for(lambda: watcher.sent_lines("scan.pdf"), "the send")
    assert "not verified" in watcher.sent_lines("scan.pdf")[0]
    assert any("scan.pdf" in line and "no SHA-256" in line for line in watcher.err), watcher.transcript()
    assert (folder / "scan.pdf").read_bytes() == b"unverifiable"
    assert (daemon.save_dir / "scan.pdf").read_bytes() == b"unverifiable"
