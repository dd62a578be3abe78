"""Configuration errors stop the daemon before it binds anything: exit code 2 and a message
on stderr that names the key and the offending value, whether the value came from a flag,
the environment or a config file."""

import subprocess

import pytest

from conftest import FILEDROP_BIN, WEB_ROOT

INVALID_FLAGS = [
    ("--on-collision", "explode"),
    ("--max-upload-size", "12Q"),
    ("--log-level", "loud"),
    ("--threads", "many"),
    ("--head-timeout", "forever"),
    ("--max-connections", "-3"),
    ("--listen", "127.0.0.1:99999"),
]


def normalized(text: str) -> str:
    return text.lower().replace("-", "").replace("_", "")


def run_filedrop(tmp_path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(FILEDROP_BIN), "--save-dir", str(tmp_path), "--web-root", str(WEB_ROOT),
                           "--listen", "127.0.0.1:0", *args],
                          capture_output=True, timeout=10, stdin=subprocess.DEVNULL, env=env or {}, text=True)


@pytest.mark.parametrize("flag,value", INVALID_FLAGS, ids=[flag for flag, _ in INVALID_FLAGS])
def test_invalid_flag_value_exits_2_naming_key_and_value(tmp_path, flag, value):
    result = run_filedrop(tmp_path, flag, value)
    assert result.returncode == 2, result.stderr
    assert normalized(flag) in normalized(result.stderr) and value in result.stderr, result.stderr


def test_invalid_environment_value_exits_2_naming_key_and_value(tmp_path):
    result = run_filedrop(tmp_path, env={"FILEDROP_ON_COLLISION": "explode"})
    assert result.returncode == 2, result.stderr
    assert "oncollision" in normalized(result.stderr) and "explode" in result.stderr, result.stderr


def test_unknown_flag_exits_2(tmp_path):
    result = run_filedrop(tmp_path, "--no-such-flag")
    assert result.returncode == 2
    assert "no-such-flag" in result.stderr


def test_help_names_the_options_and_exits_0():
    result = subprocess.run([str(FILEDROP_BIN), "--help"], capture_output=True, timeout=10, text=True,
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 0
    for option in ("--listen", "--save-dir", "--max-upload-size", "--on-collision", "--config"):
        assert option in result.stdout + result.stderr
    # The client's commands are the same executable's.
    for command in ("filedrop send FILE", "filedrop get NAME", "filedrop ls"):
        assert command in result.stdout
