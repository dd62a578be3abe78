"""Installs what the benchmark needs, only when it is missing: Debian packages through apt-get,
copyparty and uploadserver from PyPI into a virtual environment under .build/bench-venv, and
filedrop's release build (BENCH_FILEDROP=PATH uses that binary instead, and builds nothing).

The PyPI versions are pinned so results from different days compare the same peers.
"""

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

DEBIAN_PACKAGES = {
    "nginx": "nginx",
    "lighttpd": "lighttpd",
    "/usr/lib/lighttpd/mod_webdav.so": "lighttpd-mod-webdav",
    "/usr/lib/lighttpd/mod_openssl.so": "lighttpd-mod-openssl",
    "wrk": "wrk",
    "valgrind": "valgrind",
    "curl": "curl",
    "cmp": "diffutils",
    "openssl": "openssl",
    "haproxy": "haproxy",
}
PYPI_PACKAGES = {"copyparty": "1.20.26", "uploadserver": "6.0.5"}


@dataclass
class Tools:
    filedrop: Path
    web_root: Path
    venv_bin: Path


def _say(text):
    print(f"bench: {text}", file=sys.stderr, flush=True)


def _present(name):
    return Path(name).exists() if name.startswith("/") else shutil.which(name) is not None


def _apt_install(packages):
    _say("apt-get install " + " ".join(packages))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages], check=True, env=env)


def _venv(venv):
    python = venv / "bin" / "python"
    if not python.exists():
        _say(f"creating {venv}")
        if subprocess.run([sys.executable, "-m", "venv", str(venv)]).returncode != 0:
            _apt_install(["python3-venv"])
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run(["/usr/bin/python3", "-m", "venv", str(venv)], check=True)
    wanted = [f"{name}=={version}" for name, version in PYPI_PACKAGES.items()]
    check = "import importlib.metadata as m, sys; sys.exit(any(m.version(n) != v for n, v in %r))" % (
        list(PYPI_PACKAGES.items()),)
    if subprocess.run([str(python), "-c", check], capture_output=True).returncode != 0:
        _say("pip install " + " ".join(wanted))
        subprocess.run([str(python), "-m", "pip", "install", "-q", *wanted], check=True)
    return venv / "bin"


def install(repo: Path):
    missing = sorted({package for name, package in DEBIAN_PACKAGES.items() if not _present(name)})
    if missing:
        _apt_install(missing)
    venv_bin = _venv(repo / ".build" / "bench-venv")
    chosen = os.environ.get("BENCH_FILEDROP")
    filedrop = Path(chosen).resolve() if chosen else repo / ".build" / "release" / "filedrop"
    if chosen and not filedrop.is_file():
        raise SystemExit(f"bench: BENCH_FILEDROP={chosen} is not a file")
    if not filedrop.exists():
        _say("building filedrop (swift build -c release)")
        subprocess.run(["swift", "build", "-c", "release", "--product", "filedrop"], cwd=repo, check=True)
    return Tools(filedrop=filedrop, web_root=repo / "web", venv_bin=venv_bin)
