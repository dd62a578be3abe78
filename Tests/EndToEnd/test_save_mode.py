"""`save-mode`: who besides the service reads what it saves. `group` (the default) makes
files 0640 and folders 0750, so a person in the service's group reads uploads without sudo;
in a set-group-ID save directory (the package's is 2750) every folder made inside inherits
the group and the bit. `owner` keeps files 0600 and folders 0700. Every way a file or a
folder comes to be is tried: a form upload, a PUT into new folders, MKCOL, a resumable (tus)
upload, a rename. The daemon runs under umask 022, so the modes are the daemon's own.
"""

from __future__ import annotations

import os
import stat
import subprocess

import pytest

from http_raw import fetch

MODES = {"group": (0o640, 0o750), "owner": (0o600, 0o700)}
UMASK = ["sh", "-c", 'umask 022 && exec "$@"', "sh"]


def start(daemon_factory, *args):
    return daemon_factory("--allow-delete", *args, fill=False, command_prefix=UMASK)


def curl(*args: str) -> None:
    subprocess.run(["curl", "--silent", "--show-error", "--fail", "--max-time", "20", "-o", "/dev/null", *args],
                   check=True, timeout=30)


def make_everything(daemon, tmp_path) -> None:
    source = tmp_path / "photo.jpg"
    source.write_bytes(b"not really a photo\n")
    curl("-F", f"file=@{source}", f"{daemon.url}/upload.html")
    curl("-T", str(source), f"{daemon.url}/files/trip/day%201/put.jpg")
    curl("-X", "MKCOL", f"{daemon.url}/files/empty/")
    curl("-X", "MOVE", "-H", "Destination: /files/trip/renamed.jpg", f"{daemon.url}/files/photo.jpg")
    # tus: create, then send the whole body in one PATCH.
    body = b"resumable bytes\n"
    created = fetch(daemon.url + "/files/", "POST", headers={
        "Tus-Resumable": "1.0.0", "Upload-Length": str(len(body)),
        "Upload-Metadata": "filename dHVzLmJpbg=="})  # "tus.bin"
    assert created.status == 201, created
    location = created.header("Location")
    patched = fetch(location if location.startswith("http") else daemon.url + location, "PATCH", body=body, headers={
        "Tus-Resumable": "1.0.0", "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"})
    assert patched.status == 204, patched


def modes(daemon) -> tuple[dict[str, int], dict[str, int]]:
    """The permission bits (set-group-ID included) of every file and folder under the save directory."""
    files, folders = {}, {}
    for root, directories, names in os.walk(daemon.save_dir):
        directories[:] = [name for name in directories if not name.startswith(".filedrop")]
        for name in directories:
            path = os.path.join(root, name)
            folders[os.path.relpath(path, daemon.save_dir)] = stat.S_IMODE(os.stat(path).st_mode)
        for name in names:
            path = os.path.join(root, name)
            files[os.path.relpath(path, daemon.save_dir)] = stat.S_IMODE(os.stat(path).st_mode)
    return files, folders


@pytest.mark.parametrize("save_mode", ["group", "owner", None], ids=["group", "owner", "default"])
def test_files_and_folders_get_the_save_modes_mode(daemon_factory, tmp_path, save_mode):
    daemon = start(daemon_factory, *(["--save-mode", save_mode] if save_mode else []))
    make_everything(daemon, tmp_path)
    file_mode, folder_mode = MODES[save_mode or "group"]
    files, folders = modes(daemon)
    assert set(files) == {"trip/day 1/put.jpg", "trip/renamed.jpg", "tus.bin"}, files
    assert set(folders) == {"trip", "trip/day 1", "empty"}, folders
    assert files == dict.fromkeys(files, file_mode), {name: oct(mode) for name, mode in files.items()}
    assert folders == dict.fromkeys(folders, folder_mode), {name: oct(mode) for name, mode in folders.items()}


def test_a_set_group_id_save_directory_keeps_everything_the_groups(daemon_factory, tmp_path):
    daemon = start(daemon_factory)
    # As systemd's StateDirectoryMode=2750 leaves it; the group is the test's own.
    os.chmod(daemon.save_dir, 0o2750)
    group = os.stat(daemon.save_dir).st_gid
    make_everything(daemon, tmp_path)
    files, folders = modes(daemon)
    assert folders == dict.fromkeys(folders, 0o2750), {name: oct(mode) for name, mode in folders.items()}
    assert files == dict.fromkeys(files, 0o640), {name: oct(mode) for name, mode in files.items()}
    for relative in [*files, *folders]:
        assert os.stat(daemon.save_dir / relative).st_gid == group, relative


def test_a_bad_save_mode_is_refused_at_start(tmp_path):
    from conftest import FILEDROP_BIN
    result = subprocess.run([str(FILEDROP_BIN), "--save-mode", "world", "--save-dir", str(tmp_path)],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2, result
    assert "save-mode" in result.stderr and "group or owner" in result.stderr, result.stderr
