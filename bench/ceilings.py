"""The machine's ceilings, measured in the same run as the servers: what the disk and the
loopback interface allow at best, so a server's figure can be read as a fraction of it.

- dd to the page cache, without and with conv=fsync (the cost of durability): dd copies the
  big source file (in the page cache, as the file curl sends) into a new file in the same
  directory tree the servers write to, and the time is the whole dd process's, from exec to
  exit, so it includes the fsync and the close (as curl's total time includes the daemon's
  fsync before it answers). Dirty pages of earlier work are synced first and the copy's
  unlink is synced after (its discards), so neither lands in another measurement. Before
  this, dd copied /dev/zero and its own timing was taken: on the shared 2-core machine the
  "durable" ceiling came out faster than the page-cache one (1,138 against 555 MB/s), since
  the copy of /dev/zero is not the copy the daemon does, and on the shared 2-core machine
  CPU contention moved either figure by more than the fsync costs. Read the two with their
  min–max: on a busy machine they are noise (three 1 GiB copies in a row, load 7: 27–172
  and 68–577 MiB/s);
- one process sending the big file over loopback TCP (sendfile) to another that writes it
  to a file: the best a receive-and-write server could do, without HTTP.

Run as `python3 ceilings.py sink OUTFILE`, this file is that receiving process: it prints the
port it listens on, takes one connection, and prints the bytes written and the seconds taken.
"""

import os
import re
import socket
import subprocess
import sys
import time

from workloads import MIB, Outcome, same_file

SINK_TIMEOUT = 300


class Ceilings:
    def __init__(self, sizes, sources, directory):
        self.sizes = sizes
        self.sources = sources
        self.directory = directory

    def dd_page_cache(self, run):
        return self._dd(run, [])

    def dd_fsync(self, run):
        return self._dd(run, ["conv=fsync"])

    def _dd(self, run, options):
        target = self.directory / f"dd-{run}.bin"
        count = self.sizes.big // MIB
        os.sync()
        started = time.monotonic()
        done = subprocess.run(["dd", f"if={self.sources.big}", f"of={target}", "bs=1M", f"count={count}", *options],
                              capture_output=True, text=True, timeout=self.sizes.transfer_timeout)
        seconds = time.monotonic() - started
        copied = re.search(r"^(\d+) bytes ", done.stderr, re.M)
        target.unlink(missing_ok=True)
        os.sync()
        if done.returncode != 0 or not copied or int(copied.group(1)) != self.sizes.big:
            return Outcome(0.0, ok=False, note=done.stderr.strip()[:200])
        return Outcome(self.sizes.big / MIB / seconds)

    def tcp_to_file(self, run):
        target = self.directory / f"tcp-{run}.bin"
        os.sync()
        sink = subprocess.Popen([sys.executable, __file__, "sink", str(target)], stdout=subprocess.PIPE, text=True)
        try:
            port = int(sink.stdout.readline())
            with socket.create_connection(("127.0.0.1", port), timeout=SINK_TIMEOUT) as connection, \
                    open(self.sources.big, "rb") as source:
                connection.sendfile(source)
            written, seconds = sink.stdout.readline().split()
            sink.wait(timeout=SINK_TIMEOUT)
        finally:
            if sink.poll() is None:
                sink.kill()
                sink.wait()
        ok = int(written) == self.sizes.big and same_file(target, self.sources.big)
        target.unlink(missing_ok=True)
        return Outcome(int(written) / MIB / float(seconds), ok=ok, note="" if ok else "received copy differs")


def sink(path):
    """Accepts one connection and writes what arrives to path; prints bytes and seconds taken."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(SINK_TIMEOUT)
    print(listener.getsockname()[1], flush=True)
    connection, _ = listener.accept()
    connection.settimeout(SINK_TIMEOUT)
    started = time.monotonic()
    buffer = bytearray(1 << 20)
    view = memoryview(buffer)
    written = 0
    with open(path, "wb", buffering=0) as output:
        while True:
            count = connection.recv_into(buffer)
            if count == 0:
                break
            output.write(view[:count])
            written += count
    print(written, time.monotonic() - started, flush=True)


if __name__ == "__main__":
    sink(sys.argv[2])
