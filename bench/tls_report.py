"""The HTTPS workload's tables (tls.py measures): each row with filedrop's figure, nginx's and
lighttpd's, filedrop's ratio to each and issue 16's target met or not; each server in detail;
and what `openssl s_client` negotiated with each server.
"""

import os
import statistics

from tls import CIPHERSUITE, SERVERS, kernel_tls_available, rows
from workloads import MIB


class TlsTables:
    """The report's HTTPS tables: every row with filedrop's figure, the peers', the ratios and the
    target met or not; then each server's figures in detail and what each one negotiated."""

    def __init__(self, sizes, results):
        self.rows = rows(sizes, 2 * (os.cpu_count() or 1))
        self.sizes = sizes
        self.results = results

    def _passed(self, server, row):
        found = []
        for outcome in self.results.get(("tls", server), []):
            entry = outcome.extra.get("rows", {}).get(row) if outcome is not None else None
            if entry and entry["ok"]:
                found.append(entry)
        return found

    def _ran(self, server, row):
        return any(outcome is not None and row in outcome.extra.get("rows", {})
                   for outcome in self.results.get(("tls", server), []))

    def median(self, server, row):
        passed = self._passed(server, row)
        return statistics.median(e["value"] for e in passed) if passed else None

    def lines(self, title):
        if not any(self.results.get(("tls", s)) for s in SERVERS):
            return []
        peers = ("nginx", "lighttpd")
        out = [f"## {title}", "",
               "The same ECDSA P-256 leaf (signed by a CA made for the run) on every server; TLS 1.2 and 1.3 with "
               f"{CIPHERSUITE} as the only TLS 1.3 cipher, server preference, session tickets off, X25519 then P-256, "
               f"kernel TLS {'available but not enabled' if kernel_tls_available() else 'not available on this kernel (no tls ULP)'}. "
               "Ratios are filedrop ÷ peer (for RSS, peer ÷ filedrop): above 1 means filedrop is better. "
               "Uploads are shown for both filedrop modes: the peers do not fsync.", "",
               "| workload | unit | filedrop | nginx | lighttpd | filedrop ÷ nginx | filedrop ÷ lighttpd | target | |",
               "|---|---|---|---|---|---|---|---|---|"]
        for row in self.rows:
            modes = ("filedrop", "filedrop-nofsync") if row.upload else ("filedrop",)
            for mode in modes:
                if not self._ran(mode, row.key):
                    continue
                mine = self.median(mode, row.key)
                theirs = {p: self.median(p, row.against_row or row.key) for p in peers}
                ratios = {p: _ratio(mine, theirs[p], row.lower_is_better) for p in peers}
                label = row.title + ("" if not row.upload else
                                     (", filedrop fsyncs" if mode == "filedrop" else ", filedrop --fsync false"))
                out.append("| " + " | ".join([
                    label, row.unit, _shown(mine, self._ran(mode, row.key)),
                    *[_shown(theirs[p], self._ran(p, row.against_row or row.key)) for p in peers],
                    *[_number(ratios[p]) for p in peers], _target_text(row),
                    _verdict(row, {p: ratios[p] for p in row.against if self._ran(p, row.against_row or row.key)}),
                ]) + " |")
        out += ["", "Each server in detail: median and min–max over the rounds that passed; CPU s is the server's "
                "(utime + stime of its tree) during the workload, peak RSS the largest sum of its tree's VmRSS.", "",
                "| workload | server | median | min–max | ok runs | server CPU s | peak RSS MiB | detail |",
                "|---|---|---|---|---|---|---|---|"]
        for row in self.rows:
            for server in row.servers:
                if not self._ran(server, row.key):
                    continue
                passed = self._passed(server, row.key)
                values = [e["value"] for e in passed]
                runs = sum(1 for o in self.results.get(("tls", server), [])
                           if o is not None and row.key in o.extra.get("rows", {}))
                span = f"{_number(min(values))}–{_number(max(values))}" if values else "-"
                cpu = statistics.median(e["cpu"] for e in passed) if passed else None
                peak = max(e["peak_rss"] for e in passed) / MIB if passed else None
                out.append(f"| {row.key} | {_label(server)} | {_shown(self.median(server, row.key), True)} | {span} "
                           f"| {len(passed)}/{runs} | {_number(cpu)} | {_number(peak)} | {_detail(row, passed)} |")
        out += ["", "What `openssl s_client` negotiated with each server (certificate verified against the CA, "
                "`-verify_return_error`), as a default client and as a TLS 1.2 client:", ""]
        for server in SERVERS:
            negotiated = next((o.extra.get("negotiated") for o in reversed(self.results.get(("tls", server), []))
                               if o is not None and o.extra.get("negotiated")), None)
            if negotiated:
                out.append(f"- {_label(server)}: " + "; ".join(
                    f"{n['protocol']} {n['cipher']}, {n['group']}, {n['signature']} signature, verify {n['verify']}"
                    for n in negotiated.values()))
        return out + [""]


NOTES = [
    "HTTPS: every server gets the same leaf and key files; filedrop runs as in the plain rows plus `--tls files "
    "--tls-cert --tls-key --https-listen 127.0.0.1:PORT --http-mode serve` (serve: the plain port, which the "
    "readiness check uses, keeps answering); nginx with `worker_processes auto` (one per CPU, as filedrop's "
    "event loops), lighttpd with `mod_openssl` and `server.max-worker` one per CPU. A fresh server for every round.",
    "HTTPS handshakes: `openssl s_time -new -www PATH` sends one HTTP/1.0 GET per connection, which the server "
    "closes after its answer; s_time does not check the certificate, so the shared CPUs go to the server's side "
    "of the handshake (ECDHE and the ECDSA signature) and to the client's unavoidable half. A run counts only "
    "when no session was resumed and every connection read at least the 4 KiB file.",
    "HTTPS idle connections: the RSS is that of the processes that hold the connections (nginx's and lighttpd's "
    "workers, without their master; filedrop's one process); 'whole tree' adds the master. Python's ssl client "
    "verifies the certificate and never offers a session to resume.",
]


def _label(server):
    return {"filedrop-nofsync": "filedrop --fsync false"}.get(server, server)


def _number(value):
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def _shown(value, ran):
    return _number(value) if value is not None else ("failed" if ran else "not run")


def _ratio(mine, theirs, lower_is_better):
    if mine is None or theirs is None or mine == 0 or theirs == 0:
        return None
    return theirs / mine if lower_is_better else mine / theirs


def _target_text(row):
    against = " and ".join(f"{p}'s" for p in row.against)
    if row.lower_is_better:
        return f"≤ {against}"
    return f"≥ {row.target:.1f}x {against}"


def _verdict(row, ratios):
    """Met when filedrop reaches the target against every peer of the row that ran (BENCH_SERVERS)."""
    wanted = list(ratios.values())
    if not wanted or any(r is None for r in wanted):
        return "-"
    return "met" if all(r >= row.target - 1e-9 for r in wanted) else "not met"


def _detail(row, passed):
    if not passed:
        return "-"
    extra = [e["extra"] for e in passed]
    if row.key == "wrk":
        p99 = [x["p99_ms"] for x in extra if "p99_ms" in x]
        return f"p99 {statistics.median(p99):.2f} ms" if p99 else "-"
    if row.key == "handshakes":
        cost = [x["cpu_us_per_handshake"] for x in extra if x.get("cpu_us_per_handshake")]
        total = sum(x["connections"] for x in extra)
        return (f"{statistics.median(cost):.0f} µs server CPU per handshake; "
                f"{sum(x['resumed'] for x in extra)} of {total:,} resumed")
    if row.key == "idle":
        return (f"held {min(x['held'] for x in extra)}; "
                f"+{statistics.median(x['kib_per_connection'] for x in extra):.1f} KiB per connection; "
                f"whole tree {statistics.median(x['tree_rss_mib'] for x in extra):.1f} MiB")
    return "-"
