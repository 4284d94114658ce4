"""A run's results directory: raw samples (JSON lines), summary rows (CSV and
JSON), the Markdown report and plots, all under results/<timestamp>/."""
import csv
import datetime
import json
import pathlib
import sys
import time

from .env import ROOT, environment


class Lab:
    def __init__(self, build, out_dir=None):
        self.build = build
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        self.dir = pathlib.Path(out_dir) if out_dir else ROOT / "results" / stamp
        self.dir.mkdir(parents=True, exist_ok=True)
        self.env = environment(build)
        self.rows = []          # summary rows, one dict each
        self.sections = []      # (title, markdown) in report order
        self.plots = []
        self._raw = open(self.dir / "samples.jsonl", "w")

    def raw(self, suite, record):
        self._raw.write(json.dumps(dict(record, suite=suite)) + "\n")

    def row(self, suite, **fields):
        r = dict(suite=suite, **fields, **{f"env_{k}": v for k, v in self.env.items()})
        self.rows.append(r)
        return r

    def section(self, title, markdown):
        self.sections.append((title, markdown))

    def figure(self, filename):
        """A plot of the run directory, shown in the report where it is added."""
        self.plots.append(filename)
        self.sections.append((None, f"![{filename}]({filename})"))

    def progress(self, suite, done, total, what=""):
        if sys.stderr.isatty() or done == total or done % max(1, total // 10) == 0:
            sys.stderr.write(f"\r[{suite}] {done}/{total} {what[:50]:<50}")
            if done == total:
                sys.stderr.write("\n")
            sys.stderr.flush()

    def finish(self, title):
        self._raw.close()
        keys = sorted({k for r in self.rows for k in r})
        with open(self.dir / "summary.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(self.rows)
        (self.dir / "summary.json").write_text(json.dumps({"environment": self.env, "rows": self.rows}, indent=1))
        env = "\n".join(f"| {k} | {v} |" for k, v in self.env.items())
        body = [f"# {title}", "", "| environment | |", "|---|---|", env, ""]
        for t, md in self.sections:
            body += ([f"## {t}", ""] if t is not None else []) + [md, ""]
        shown = {md for t, md in self.sections if t is None}
        body += [x for p in self.plots if f"![{p}]({p})" not in shown for x in (f"![{p}]({p})", "")]
        (self.dir / "report.md").write_text("\n".join(body))
        return self.dir / "report.md"


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def fmt_us(ns):
    return f"{ns / 1e3:.1f}" if ns is not None else "–"


def now():
    return time.monotonic()
