"""Helpers of the download tests: URLs of stored files, files put straight into the save
directory, and a 1024-byte file every Range and conditional-request test reads."""

from __future__ import annotations

import urllib.parse

import pytest

from http_raw import fetch


def file_url(daemon, relative: str, query: str = "") -> str:
    path = "/".join(urllib.parse.quote(part, safe="") for part in relative.split("/"))
    return f"{daemon.url}/files/{path}" + (f"?{query}" if query else "")


def put_file(daemon, relative: str, content: bytes):
    target = daemon.save_dir / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)
    return target


CONTENT = bytes(range(256)) * 4  # 1024 bytes
SIZE = len(CONTENT)


@pytest.fixture
def ranged(daemon):
    put_file(daemon, "r.bin", CONTENT)
    return daemon


def get(daemon, relative: str, **headers: str):
    return fetch(file_url(daemon, relative), headers={key.replace("_", "-"): value for key, value in headers.items()})
