"""The servers compared, each configured as a user would write it, on loopback with its own directory.

Every server serves and stores files in `<root>/files`. Each kind says how to start it and
which URLs and curl arguments its downloads, raw PUTs and multipart uploads use; None means
the server has no such feature and the workload is shown as n/a.
"""

import copy
import http.client
import os
import resource
import signal
import socket
import subprocess
import time
from pathlib import Path

from procstat import start_time, tree_pids

READY_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0


class ServerKind:
    key = ""
    label = ""
    get_prefix = "/"
    put_prefix = "/"
    multipart_path = None
    multipart_field = None
    multipart_extra = ()
    # Sent by the readiness check: a server behind a password answers 401 without it.
    ready_headers = {}
    # A TlsSetup (tls.py): the server also listens for HTTPS on tls.port with tls.cert/tls.key.
    tls = None

    def argv(self, root: Path, port: int, tools):
        raise NotImplementedError

    def version(self, tools):
        return ""

    def put_path(self, name):
        return None if self.put_prefix is None else self.put_prefix + name

    def multipart(self, name, source):
        """curl -F arguments uploading `source` as `name`, or None."""
        if self.multipart_path is None:
            return None
        args = [f"{self.multipart_field}=@{source};filename={name};type=application/octet-stream"]
        return self.multipart_path, [*self.multipart_extra, *args]


class Filedrop(ServerKind):
    get_prefix = "/files/"
    put_prefix = "/files/"
    multipart_path = "/upload"
    multipart_field = "file"

    extra_argv = ()

    def __init__(self, fsync, baseline=None, sha256=True):
        """`baseline`: another filedrop binary (BENCH_BASELINE), run as one more peer so a change
        is measured against the version before it in the same rounds. `sha256=False`: uploads
        are not hashed (`--sha256 false`), so the hash's cost shows as a ratio (issue 21)."""
        self.fsync = fsync
        self.sha256 = sha256
        self.binary = baseline
        name = "filedrop-baseline" if baseline else "filedrop"
        self.key = (name if fsync else name + "-nofsync") + ("" if sha256 else "-nosha256")
        self.label = (("filedrop baseline" if baseline else "filedrop") + ("" if fsync else " --fsync false")
                      + ("" if sha256 else " --sha256 false"))

    def _binary(self, tools):
        return self.binary or tools.filedrop

    def argv(self, root, port, tools):
        argv = [str(self._binary(tools)), "--config", "", "--listen", f"127.0.0.1:{port}",
                "--save-dir", str(root / "files"), "--web-root", str(tools.web_root), "--log-level", "warning",
                # Every benchmark client is one address (127.0.0.1): lift the per-client
                # limits that guard a LAN against one greedy device, as a user would here.
                "--max-connections-per-client", "2000", "--max-uploads-per-client", "64",
                "--max-connections", "4096"]
        if self.tls:
            # --http-mode serve: the plain port keeps serving (the readiness check uses it).
            argv += ["--tls", "files", "--tls-cert", str(self.tls.cert), "--tls-key", str(self.tls.key),
                     "--https-listen", f"127.0.0.1:{self.tls.port}", "--http-mode", "serve"]
        argv += self.extra_argv
        if not self.sha256:
            argv += ["--sha256", "false"]
        return argv if self.fsync else [*argv, "--fsync", "false"]

    def version(self, tools):
        return _first_line([str(self._binary(tools)), "--version"])


class Nginx(ServerKind):
    key = "nginx"
    label = "nginx"
    # An htpasswd file: every request then needs Basic credentials (auth_basic).
    auth_user_file = None

    def argv(self, root, port, tools):
        (root / "body-temp").mkdir(exist_ok=True)
        config = root / "nginx.conf"
        auth = (f'auth_basic "bench";\n            auth_basic_user_file {self.auth_user_file};\n            '
                if self.auth_user_file else "")
        tls_listen, tls_settings = "", ""
        if self.tls:
            tls_listen = f"\n        listen 127.0.0.1:{self.tls.port} ssl;"
            tls_settings = f"""
    ssl_certificate {self.tls.cert};
    ssl_certificate_key {self.tls.key};
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_conf_command Ciphersuites {self.tls.ciphersuite};
    ssl_ciphers {self.tls.tls12_ciphers};
    ssl_prefer_server_ciphers on;
    ssl_session_tickets off;
    ssl_session_cache shared:SSL:10m;
    ssl_ecdh_curve {self.tls.nginx_curves};"""
        config.write_text(f"""\
user root;
worker_processes auto;
worker_rlimit_nofile 8192;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65s;
    client_body_temp_path {root}/body-temp;{tls_settings}
    server {{
        listen 127.0.0.1:{port};{tls_listen}
        root {root}/files;
        location / {{
            {auth}dav_methods PUT;
            create_full_put_path on;
            client_max_body_size 0;
        }}
    }}
}}
""")
        return ["nginx", "-c", str(config), "-e", str(root / "error.log"), "-g", "daemon off;"]

    def version(self, tools):
        return _first_line(["nginx", "-v"]).removeprefix("nginx version: ")


class Lighttpd(ServerKind):
    key = "lighttpd"
    label = "lighttpd"

    def argv(self, root, port, tools):
        (root / "upload-temp").mkdir(exist_ok=True)
        config = root / "lighttpd.conf"
        modules = '"mod_webdav", "mod_openssl"' if self.tls else '"mod_webdav"'
        config.write_text(f"""\
server.modules = ({modules})
server.document-root = "{root}/files"
server.bind = "127.0.0.1"
server.port = {port}
server.errorlog = "{root}/error.log"
server.upload-dirs = ("{root}/upload-temp")
server.max-fds = 8192
server.max-connections = 4096
mimetype.assign = ("" => "application/octet-stream")
webdav.activate = "enable"
""" + (self._tls_config() if self.tls else ""))
        return ["lighttpd", "-D", "-f", str(config)]

    def _tls_config(self):
        commands = {"MinProtocol": "TLSv1.2", "Ciphersuites": self.tls.ciphersuite,
                    "CipherString": self.tls.tls12_ciphers, "Options": "ServerPreference,-SessionTicket",
                    "Groups": self.tls.openssl_groups}
        listed = ", ".join(f'"{name}" => "{value}"' for name, value in commands.items())
        # server.max-worker: one worker per CPU, as nginx's `worker_processes auto` and filedrop's loops.
        return f"""\
server.max-worker = {os.cpu_count()}
$SERVER["socket"] == "127.0.0.1:{self.tls.port}" {{
    ssl.engine = "enable"
    ssl.pemfile = "{self.tls.cert}"
    ssl.privkey = "{self.tls.key}"
    ssl.openssl.ssl-conf-cmd = ({listed})
}}
"""

    def version(self, tools):
        return _first_line(["lighttpd", "-v"]).split(" ")[0]


class Copyparty(ServerKind):
    multipart_path = "/"
    multipart_field = "f"
    multipart_extra = ("act=bput",)

    def __init__(self, hashing):
        self.hashing = hashing
        self.key = "copyparty" if hashing else "copyparty-nohash"
        self.label = "copyparty" if hashing else "copyparty --put-ck no --bup-ck no"

    def argv(self, root, port, tools):
        argv = [str(tools.venv_bin / "copyparty"), "-i", "127.0.0.1", "-p", str(port),
                "-v", f"{root}/files::rw", "-q", "--http-only", "--no-crt"]
        return argv if self.hashing else [*argv, "--put-ck", "no", "--bup-ck", "no"]

    def version(self, tools):
        return "copyparty " + _pip_version(tools, "copyparty")


class Uploadserver(ServerKind):
    key = "uploadserver"
    label = "uploadserver"
    put_prefix = None
    multipart_path = "/upload"
    multipart_field = "files"

    def argv(self, root, port, tools):
        return [str(tools.venv_bin / "python"), "-m", "uploadserver", str(port),
                "--bind", "127.0.0.1", "--directory", str(root / "files")]

    def version(self, tools):
        return "uploadserver " + _pip_version(tools, "uploadserver")


def all_kinds(baseline=None):
    """Every server compared; with `baseline` (a filedrop binary) also that filedrop, in both modes."""
    baselines = [Filedrop(fsync=True, baseline=baseline), Filedrop(fsync=False, baseline=baseline)] if baseline else []
    return [Filedrop(fsync=True), Filedrop(fsync=False), *baselines,
            Filedrop(fsync=True, sha256=False), Filedrop(fsync=False, sha256=False), Nginx(), Lighttpd(),
            Copyparty(hashing=True), Copyparty(hashing=False), Uploadserver()]


def variant(kind, **settings):
    """A copy of `kind` with some attributes changed (extra_argv, auth_user_file, ready_headers)."""
    changed = copy.copy(kind)
    for name, value in settings.items():
        setattr(changed, name, value)
    return changed


def _first_line(argv):
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    text = (done.stdout or done.stderr).strip()
    return text.splitlines()[0] if text else "?"


def _pip_version(tools, package):
    code = f"import importlib.metadata as m; print(m.version('{package}'))"
    return _first_line([str(tools.venv_bin / "python"), "-c", code])


def free_ports(count):
    """Ports the kernel hands out for 127.0.0.1:0, all held open at once so they differ."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _raise_fd_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class RunningServer:
    """One started server: its process (in its own session, so Ctrl-C reaches only us) and URLs."""

    def __init__(self, kind, root: Path, port, tools):
        self.kind = kind
        self.root = root
        self.files = root / "files"
        self.port = port
        self.tools = tools
        self.process = None
        self.idle_rss = 0

    @property
    def pid(self):
        return self.process.pid

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def https_url(self, path):
        return f"https://127.0.0.1:{self.kind.tls.port}{path}"

    def start(self):
        self.files.mkdir(parents=True, exist_ok=True)
        argv = self.kind.argv(self.root, self.port, self.tools)
        env = dict(os.environ, XDG_CONFIG_HOME=str(self.root / "config"), PYTHONUNBUFFERED="1")
        log = open(self.root / "server.log", "ab")
        self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                        cwd=self.root, env=env, start_new_session=True, preexec_fn=_raise_fd_limit)
        log.close()
        self._wait_ready()

    def _wait_ready(self):
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.kind.label} exited with {self.process.returncode}; see {self.root}/server.log")
            try:
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                connection.request("GET", self.kind.get_prefix + "small.bin", headers=self.kind.ready_headers)
                status = connection.getresponse().status
                connection.close()
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.kind.label} not ready after {READY_TIMEOUT:.0f} s; see {self.root}/server.log")

    def stop(self):
        """SIGTERM to the PID we started, SIGKILL to whatever of its tree is left after a grace period."""
        if self.process is None or self.process.poll() is not None:
            return
        family = [(pid, start_time(pid)) for pid in tree_pids(self.process.pid)[1:]]
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=STOP_TIMEOUT)
        for pid, started in family:
            if started is not None and start_time(pid) == started:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
