"""Turns the outcomes of all rounds into a markdown report: one table per workload (median and
min-max over the runs that passed their integrity check, peak RSS, CPU seconds, filedrop's
ratio to each row), the ceilings, filedrop's memory figures and a summary of ratios.
"""

import statistics

from workloads import MIB

FILEDROP, FILEDROP_NOFSYNC = "filedrop", "filedrop-nofsync"
RSS_GROWTH_TARGET_MIB = 8


def _number(value):
    if value is None:
        return "-"
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


class Series:
    """The outcomes of one server on one workload across the runs; None entries mean n/a."""

    def __init__(self, outcomes):
        self.outcomes = [o for o in outcomes if o is not None]
        self.supported = bool(self.outcomes) or not outcomes
        self.passed = [o for o in self.outcomes if o.ok]

    @property
    def median(self):
        return statistics.median(o.value for o in self.passed) if self.passed else None

    def span(self):
        if not self.passed:
            return "-"
        values = [o.value for o in self.passed]
        return f"{_number(min(values))}–{_number(max(values))}"

    def count(self):
        return f"{len(self.passed)}/{len(self.outcomes)}"

    def peak_rss_mib(self):
        return max(o.peak_rss for o in self.outcomes) / MIB if self.outcomes else None

    def cpu(self):
        return statistics.median(o.cpu for o in self.outcomes) if self.outcomes else None

    def extra_median(self, key):
        values = [o.extra[key] for o in self.passed if key in o.extra]
        return statistics.median(values) if values else None

    def growth_mib(self):
        """Largest rise of RSS over its value when the workload began."""
        return max((o.peak_rss - o.start_rss) for o in self.outcomes) / MIB if self.outcomes else None


def _ratio(mine, theirs, lower_is_better=False):
    if mine is None or theirs is None or mine == 0 or theirs == 0:
        return "-"
    return f"{(theirs / mine) if lower_is_better else (mine / theirs):.2f}"


class Report:
    def __init__(self, workloads, ceilings, kinds, results, header, notes):
        self.workloads = workloads
        self.ceilings = ceilings
        self.kinds = kinds
        self.results = results
        self.header = header
        self.notes = notes

    def series(self, workload, key):
        return Series(self.results.get((workload, key), []))

    def render(self):
        lines = [*self.header, ""]
        lines += self._summary()
        lines += self._hashing_cost()
        for workload in self.workloads:
            lines += workload.table.lines(workload.title) if workload.table else self._workload_table(workload)
        lines += self._ceiling_table()
        lines += self._filedrop_memory()
        lines += self._failures()
        lines += ["## Notes", "", *[f"- {note}" for note in self.notes], ""]
        return "\n".join(lines)

    def _summary(self):
        if all(w.table for w in self.workloads):
            return []
        peers = [k for k in self.kinds if k.key not in (FILEDROP, FILEDROP_NOFSYNC)]
        lines = ["## Summary: filedrop ÷ peer", "",
                 "Median against median; above 1 means filedrop is better (faster, or less memory for the held "
                 "connections). Uploads are shown for both filedrop modes: the peers do not fsync.", "",
                 "| workload | filedrop mode | " + " | ".join(k.label for k in peers) + " | ceiling |",
                 "|---|---|" + "---|" * (len(peers) + 1)]
        for workload in [w for w in self.workloads if not w.table]:
            modes = [FILEDROP, FILEDROP_NOFSYNC] if workload.upload else [self._mode_measured(workload)]
            for mode in modes:
                mine = self.series(workload.key, mode).median
                cells = [self._cell_ratio(workload, mine, self.series(workload.key, k.key)) for k in peers]
                ceiling = self.series(workload.ceiling, "ceiling").median if workload.ceiling else None
                cells.append(_ratio(mine, ceiling) if workload.ceiling else "-")
                label = "fsync" if mode == FILEDROP else "--fsync false"
                lines.append(f"| {workload.title} | {label if workload.upload else 'default'} | " + " | ".join(cells) + " |")
        return lines + [""]

    def _hashing_cost(self):
        """Issue 21: upload throughput with SHA-256 on ÷ off, per fsync mode (target: at
        least 0.90 for multipart)."""
        rows = []
        for workload in [w for w in self.workloads if w.key in ("post", "put", "concurrent")]:
            for on, off, label in ((FILEDROP, FILEDROP + "-nosha256", "fsync"),
                                   (FILEDROP_NOFSYNC, FILEDROP_NOFSYNC + "-nosha256", "--fsync false")):
                hashed, unhashed = self.series(workload.key, on).median, self.series(workload.key, off).median
                if hashed is None or unhashed is None:
                    continue
                rows.append(f"| {workload.title} | {label} | {_number(hashed)} | {_number(unhashed)} | {_ratio(hashed, unhashed)} |")
        if not rows:
            return []
        return ["## SHA-256 of uploads: on ÷ off", "",
                "Median MiB/s with `sha256 = on` (the default) and with `--sha256 false`, same rounds; "
                "the target is at least 0.90 for multipart.", "",
                "| workload | filedrop mode | sha256 on | sha256 off | on ÷ off |", "|---|---|---|---|---|", *rows, ""]

    def _mode_measured(self, workload):
        """The filedrop whose figures stand for both where the mode does not matter (downloads):
        the default one, or `--fsync false` when only that one ran (BENCH_SERVERS)."""
        return FILEDROP if self.series(workload.key, FILEDROP).outcomes else FILEDROP_NOFSYNC

    def _cell_ratio(self, workload, mine, theirs):
        if not theirs.supported:
            return "n/a"
        if theirs.median is None:
            return "failed"
        return _ratio(mine, theirs.median, workload.lower_is_better)

    def _workload_table(self, workload):
        mine = self.series(workload.key, FILEDROP if workload.upload else self._mode_measured(workload)).median
        mine_nofsync = self.series(workload.key, FILEDROP_NOFSYNC).median
        extra_header = workload.extra_column[0] if workload.extra_column else None
        header = ["server", f"{workload.unit} median", "min–max", "ok runs"]
        header += [extra_header] if extra_header else []
        header += ["peak RSS MiB", "CPU s", "filedrop ÷ this"]
        header += ["filedrop --fsync false ÷ this"] if workload.upload else []
        lines = [f"## {workload.title}", "", workload.description, "",
                 "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for kind in self.kinds:
            series = self.series(workload.key, kind.key)
            if not series.supported:
                lines.append(f"| {kind.label} | n/a |" + " |" * (len(header) - 2))
                continue
            shown = _number(series.median) if series.passed else ("failed" if series.outcomes else "not run")
            row = [kind.label, shown, series.span(), series.count()]
            if extra_header:
                row.append(workload.extra_column[1](series))
            row += [_number(series.peak_rss_mib()), _number(series.cpu()),
                    _ratio(mine, series.median, workload.lower_is_better)]
            if workload.upload:
                row.append(_ratio(mine_nofsync, series.median))
            lines.append("| " + " | ".join(row) + " |")
        for ceiling_key in workload.ceiling_rows:
            series = self.series(ceiling_key, "ceiling")
            title = next(c.title for c in self.ceilings if c.key == ceiling_key)
            row = [f"ceiling: {title}", _number(series.median), series.span(), series.count()]
            row += ["-"] if extra_header else []
            row += ["-", "-", _ratio(mine, series.median)]
            if workload.upload:
                row.append(_ratio(mine_nofsync, series.median))
            lines.append("| " + " | ".join(row) + " |")
        return lines + [""]

    def _ceiling_table(self):
        lines = ["## Machine ceilings", "", "| ceiling | MiB/s median | min–max | ok runs |", "|---|---|---|---|"]
        for ceiling in self.ceilings:
            series = self.series(ceiling.key, "ceiling")
            lines.append(f"| {ceiling.title} | {_number(series.median)} | {series.span()} | {series.count()} |")
        return lines + [""]

    def _filedrop_memory(self):
        lines = ["## filedrop memory", "",
                 "| measure | filedrop | filedrop --fsync false |", "|---|---|---|"]
        idle = [self.results.get(("idle", key)) for key in (FILEDROP, FILEDROP_NOFSYNC)]
        lines.append("| RSS idle after start, MiB | " + " | ".join(_number(v / MIB) if v else "-" for v in idle) + " |")
        held = [self.series("conns", key) for key in (FILEDROP, FILEDROP_NOFSYNC)]
        lines.append("| RSS with the connections held, MiB (median) | " + " | ".join(_number(s.median) for s in held) + " |")
        for workload in self.workloads:
            if workload.key not in ("put", "post"):
                continue
            cells = []
            for key in (FILEDROP, FILEDROP_NOFSYNC):
                growth = self.series(workload.key, key).growth_mib()
                verdict = "" if growth is None else (" (under target)" if growth < RSS_GROWTH_TARGET_MIB else " (OVER TARGET)")
                cells.append(_number(growth) + verdict)
            lines.append(f"| peak RSS growth during {workload.title}, MiB (worst run; target < {RSS_GROWTH_TARGET_MIB}) | "
                         + " | ".join(cells) + " |")
        lines += ["", "RSS of every server idle after start (its process tree), MiB:", "",
                  "| " + " | ".join(k.label for k in self.kinds) + " |", "|" + "---|" * len(self.kinds),
                  "| " + " | ".join(_number(self.results.get(("idle", k.key), 0) / MIB) for k in self.kinds) + " |"]
        return lines + [""]

    def _failures(self):
        failures = []
        for (workload, key), outcomes in sorted(self.results.items(), key=lambda item: str(item[0])):
            if not isinstance(outcomes, list):
                continue
            for run, outcome in enumerate(outcomes):
                if outcome is not None and not outcome.ok:
                    failures.append(f"- {key}, {workload}, run {run + 1}: {outcome.note}")
        if not failures:
            return ["## Integrity and errors", "", "Every counted transfer compared equal; no run failed.", ""]
        return ["## Integrity and errors", "", "Runs below failed and are left out of the medians.", "", *failures, ""]
