"""docs/haproxy.cfg with one run's addresses, for the cluster tests and `bench/cluster.py`:
the `bind`, `stats socket` and `server` lines are rewritten and nothing else, so what runs is
the configuration docs/deployment.md shows. No pytest here: the benchmark imports it too."""

from __future__ import annotations

import re
from pathlib import Path

HAPROXY_TEMPLATE = Path(__file__).resolve().parents[2] / "docs" / "haproxy.cfg"


def haproxy_config(listen_port: int, daemon_ports: list[int], stats_socket: Path) -> str:
    """docs/haproxy.cfg with this run's addresses: one `server` line per daemon, in order."""
    text = HAPROXY_TEMPLATE.read_text()
    text, binds = re.subn(r"(?m)^(\s*bind )\S+$", rf"\g<1>127.0.0.1:{listen_port}", text)
    text, sockets = re.subn(r"(?m)^(\s*stats socket )\S+", rf"\g<1>{stats_socket}", text)
    server_lines = re.findall(r"(?m)^\s*server \S+ \S+$", text)
    if binds != 1 or sockets != 1 or not server_lines:
        raise ValueError(f"{HAPROXY_TEMPLATE} lost a bind, stats socket or server line that runs rewrite")
    indent = server_lines[0][: len(server_lines[0]) - len(server_lines[0].lstrip())]
    servers = "".join(f"{indent}server filedrop{index + 1} 127.0.0.1:{port}\n" for index, port in enumerate(daemon_ports))
    first = text.index(server_lines[0])
    last = text.index(server_lines[-1]) + len(server_lines[-1]) + 1
    return text[:first] + servers + text[last:]
