"""The daemon is one file: copied alone into an empty folder (no web/ beside it, no
/usr/share/filedrop), started there with only a save directory, it serves the page, its
scripts, styles, icons and every language, byte for byte what web/ held when it was built."""

from __future__ import annotations

import json
import shutil
import urllib.request
from pathlib import Path

import pytest

from conftest import FILEDROP_BIN, WEB_ROOT, Daemon

LANGUAGES = sorted(path.stem.removeprefix("i18n-") for path in WEB_ROOT.glob("i18n-*.json"))


@pytest.fixture
def lone_daemon(tmp_path: Path, monkeypatch):
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    binary = folder / "filedrop"
    shutil.copy2(FILEDROP_BIN, binary)
    monkeypatch.setattr("conftest.FILEDROP_BIN", binary)
    daemon = Daemon(folder, [], listen=["127.0.0.1:0"], fill=False)
    try:
        daemon.start()
        yield daemon
        daemon.stop()
    finally:
        daemon.cleanup()


def fetch(url: str, language: str | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Accept-Language": language} if language else {})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.read()


def test_the_copied_binary_serves_every_file_of_the_page(lone_daemon):
    assert sorted(path.name for path in lone_daemon.workdir.iterdir()) == ["daemon.stderr", "daemon.stdout", "filedrop", "files"]
    served = [path for path in WEB_ROOT.iterdir() if path.is_file() and path.name != "index.html"]
    assert len(served) > 10
    for path in served:
        status, body = fetch(f"{lone_daemon.url}/{path.name}")
        assert status == 200, path.name
        assert body == path.read_bytes(), f"{path.name} differs from web/"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_copied_binary_speaks_every_language(lone_daemon, language):
    status, page = fetch(f"{lone_daemon.url}/", language=language)
    assert status == 200
    assert f'<html lang="{language}'.encode() in page
    if language != "en":
        # Translated on the server from the built-in catalogue: some of its own words are there.
        english = set(json.loads((WEB_ROOT / "i18n-en.json").read_text(encoding="utf-8")).values())
        own = [value for value in json.loads((WEB_ROOT / f"i18n-{language}.json").read_text(encoding="utf-8")).values()
               if value not in english and len(value) > 3 and not any(c in value for c in "<>&\"'{")]
        assert any(value.encode() in page for value in own), f"no {language} text in the page"


def test_a_web_root_given_on_the_command_line_still_wins(tmp_path: Path, daemon_factory):
    web = tmp_path / "page"
    shutil.copytree(WEB_ROOT, web)
    (web / "app.js").write_text("// a page being worked on\n")
    daemon = daemon_factory("--web-root", str(web))
    assert fetch(f"{daemon.url}/app.js") == (200, b"// a page being worked on\n")
