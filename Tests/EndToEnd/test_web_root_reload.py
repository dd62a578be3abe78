"""SIGHUP and the web root: the same directory stays open across reloads (no descriptor, change
watch or thread more per reload), and a directory put in its place is served at once, never
the old one's small files from memory."""

from __future__ import annotations

import os
import shutil
import signal

from conftest import WEB_ROOT
from http_raw import fetch
from tls_support import wait_until


def test_a_reload_keeps_the_web_root_and_a_replaced_web_root_is_served(daemon_factory, tmp_path):
    web = tmp_path / "web"
    shutil.copytree(WEB_ROOT, web)
    original = (web / "style.css").read_bytes()
    daemon = daemon_factory("--web-root", str(web))
    for _ in range(2):  # the second answer comes from memory
        assert fetch(daemon.url + "/style.css").body == original

    os.kill(daemon.pid, signal.SIGHUP)
    assert len(daemon.wait_for_log_lines("configuration reloaded")) == 1
    assert fetch(daemon.url + "/style.css").body == original
    daemon.assert_no_fd_leak()

    # A deploy that renames a new page into place, then reloads.
    staged = tmp_path / "web.new"
    shutil.copytree(WEB_ROOT, staged)
    (staged / "style.css").write_bytes(b"body { color: teal }\n")
    web.rename(tmp_path / "web.old")
    staged.rename(web)
    os.kill(daemon.pid, signal.SIGHUP)
    assert wait_until(lambda: fetch(daemon.url + "/style.css").body == b"body { color: teal }\n", timeout=10), \
        daemon.stderr_tail()
    # A loop that has not answered since still holds the old app, and its web root: one
    # descriptor, its change watch's two, until that loop's next request.
    daemon.baseline_fds += 3
