#!/usr/bin/env python3
"""The tuning methods side by side: hill climbing, SPSA and regression from the same start.

Runs the three tuning specs of tournaments/tune-compare/ one after another with about the same
CPU budget each (`joute tune SPEC --out DIR --quiet --threads N`, measuring each child's CPU
time, user + sys, and its wall time), then confirms all of them in one tournament on the same
held-out openings against a fixed pool none of them tuned against
(tournaments/tune-compare/compare.toml), and writes into --out:

  table.md, table.csv   method, games (positions), CPU and wall minutes, Elo vs start from the
                        tuning's own confirmation, Elo vs start and vs the pool in the common
                        tournament, with 95% intervals
  elo-vs-cpu.svg        Elo gained over the start (common tournament) against CPU minutes
  results.json          everything the table is made of
  runs/METHOD/          the tuning runs (joute's own folders), specs/ the specs they ran,
  compare/              the tournament, logs/ the commands' output, timings.json

Budgets: the specs hold the budgets of a 10-CPU-minute comparison; --minutes M scales the
tuning part of each (hill climbing's budget.games, SPSA's budget.iterations, regression's
[regression] games) by M/10 in a copy of the spec written to OUT/specs/ (the confirmation
matches are the same for all three and not scaled). --smoke uses tiny budgets instead.

Python 3 standard library only. Every file is written under --out, to a temporary name first
and then renamed.

Usage:
  python3 scripts/tune-compare.py [--minutes 10] [--games 10000] [--out reports/tune-compare]
                                  [--joute target/release/joute] [--threads 2] [--smoke]
                                  [--reuse]
"""

import argparse
import csv
import json
import math
import os
import re
import resource
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPECS = os.path.join(ROOT, "tournaments", "tune-compare")
METHODS = ["hill-climb", "spsa", "regression"]
POOL = ["pool-alphabeta-2", "pool-alphabeta-4", "pool-pvs-4-discs"]
COLOURS = {"hill-climb": "#1f77b4", "spsa": "#d62728", "regression": "#2ca02c"}

# Smoke budgets: a few seconds each.
SMOKE_CONFIRM = 200
SMOKE_AA = 40
SMOKE_TUNING = 2000
SMOKE_PAIRING_GAMES = 20


# --- files -------------------------------------------------------------------------------


def write_atomic(path, text):
    """Writes `text` to `path` through a temporary name in the same folder."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, path)


def toml_string(s):
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(s, ensure_ascii=False)


class SpecText:
    """A TOML spec as lines, with the few edits this script makes: set a key of a table, read
    one, rewrite every `weights = "PATH"` to an absolute path. Comments after an edited value
    are dropped."""

    KEY = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=\s*(.*?)\s*(#.*)?$")
    HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.-]+)\s*\]\]?\s*(#.*)?$")

    def __init__(self, path):
        self.path = path
        with open(path, encoding="utf-8") as f:
            self.lines = f.read().split("\n")

    def _find(self, table, key):
        current = ""
        for i, line in enumerate(self.lines):
            h = self.HEADER.match(line)
            if h:
                current = h.group(1)
                continue
            m = self.KEY.match(line)
            if m and current == table and m.group(1) == key:
                return i, m
        return None, None

    def get(self, table, key):
        i, m = self._find(table, key)
        if i is None:
            raise KeyError(f"{self.path}: no key {key} in [{table}]")
        value = m.group(2)
        try:
            return int(value.replace("_", ""))
        except ValueError:
            return json.loads(value)

    def set(self, table, key, value):
        i, _ = self._find(table, key)
        if i is None:
            raise KeyError(f"{self.path}: no key {key} in [{table}]")
        text = toml_string(value) if isinstance(value, str) else str(value)
        self.lines[i] = f"{key} = {text}"

    def absolute_weights(self, replace=None):
        """Every `weights = "REL"` made absolute (relative to the spec's folder); in an
        `[[engine]]` whose name is a key of `replace`, the path given there instead."""
        base = os.path.dirname(os.path.abspath(self.path))
        name = None
        for i, line in enumerate(self.lines):
            if self.HEADER.match(line):
                name = None
                continue
            m = self.KEY.match(line)
            if not m:
                continue
            if m.group(1) == "name":
                name = json.loads(m.group(2))
            elif m.group(1) == "weights":
                if replace and name in replace:
                    path = replace[name]
                else:
                    path = os.path.normpath(os.path.join(base, json.loads(m.group(2))))
                self.lines[i] = f"weights = {toml_string(path)}"

    def text(self):
        return "\n".join(self.lines)


# --- statistics (docs/statistics.md, "Head to head") ----------------------------------------


def elo(score):
    return -400.0 * math.log10(1.0 / score - 1.0)


def pentanomial_elo(counts):
    """Elo and the half-width of its 95% interval from pentanomial counts [LL, LD, WL+DD, WD,
    WW], fastchess's formula as joute prints it (an end at or beyond 0 or 1 put half a pair
    inside). None when there are no pairs or the score is 0 or 1."""
    n = sum(counts)
    if n == 0:
        return None
    a = [0.0, 0.25, 0.5, 0.75, 1.0]
    p = [c / n for c in counts]
    s = sum(pk * ak for pk, ak in zip(p, a))
    if s <= 0.0 or s >= 1.0:
        return None
    var = sum(pk * (ak - s) ** 2 for pk, ak in zip(p, a))
    se = math.sqrt(var / n)
    lo, hi = s - 1.96 * se, s + 1.96 * se
    lo = 0.5 / n if lo <= 0.0 else lo
    hi = 1.0 - 0.5 / n if hi >= 1.0 else hi
    return elo(s), (elo(hi) - elo(lo)) / 2.0, s, n


def read_csv(path):
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def number(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


PENTA = ["ll", "ld", "wl_dd", "wd", "ww"]


def pair_row(pairs, a, b):
    """The pairs.csv row of a against b, from a's side: (elo, error, pentanomial)."""
    for row in pairs:
        if row["a"] == a and row["b"] == b:
            counts = [int(row[k]) for k in PENTA]
            return number(row["elo"]), number(row["error"]), counts
        if row["a"] == b and row["b"] == a:
            counts = [int(row[k]) for k in reversed(PENTA)]
            e = number(row["elo"])
            return (-e if e is not None else None), number(row["error"]), counts
    return None


# --- running -----------------------------------------------------------------------------


def run_timed(cmd, log_path):
    """Runs `cmd` with its output to `log_path`; returns (exit code, CPU seconds of the child
    (user + sys), wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    with open(log_path + ".tmp", "w", encoding="utf-8") as log:
        log.write("$ " + " ".join(cmd) + "\n")
        log.flush()
        code = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    os.replace(log_path + ".tmp", log_path)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return code, cpu, wall


def method_spec(method, args):
    """The spec of `method` with its budget for --minutes (or --smoke)."""
    spec = SpecText(os.path.join(SPECS, f"{method}.toml"))
    spec.absolute_weights()
    confirm = spec.get("confirm", "games")
    aa = spec.get("confirm", "aa_games")
    if args.smoke:
        confirm, aa = SMOKE_CONFIRM, SMOKE_AA
        spec.set("confirm", "games", confirm)
        spec.set("confirm", "aa_games", aa)
    matches = confirm + aa
    f = args.minutes / 10.0
    if method == "hill-climb":
        base = spec.get("budget", "games") - spec.get("confirm", "games") - spec.get("confirm", "aa_games")
        tuning = SMOKE_TUNING if args.smoke else max(1000, round(base * f))
        spec.set("budget", "games", tuning + matches)
    elif method == "spsa":
        per = 2 * spec.get("spsa", "pairs")  # games per iteration: θ+ plays θ− `pairs` pairs
        iterations = SMOKE_TUNING // per if args.smoke else max(10, round(spec.get("budget", "iterations") * f))
        spec.set("budget", "iterations", iterations)
        spec.set("budget", "games", iterations * per + matches)
    else:
        rounds = spec.get("regression", "rounds")
        if args.smoke:
            rounds = 2
            spec.set("regression", "rounds", rounds)
        games = SMOKE_TUNING // rounds if args.smoke else max(100, round(spec.get("regression", "games") * f))
        spec.set("regression", "games", games)
        spec.set("budget", "games", games * rounds + matches)
    return spec.text() + ("\n" if not spec.text().endswith("\n") else "")


def compare_spec(args, out):
    spec = SpecText(os.path.join(SPECS, "compare.toml"))
    tuned = {m: os.path.join(out, "runs", m, "tuned-weights.toml") for m in METHODS}
    spec.absolute_weights(tuned)
    games = SMOKE_PAIRING_GAMES if args.smoke else args.games
    spec.set("openings", "count", max(1, games // 2))
    return spec.text()


def tune_all(args, out, joute, timings):
    for method in METHODS:
        run_dir = os.path.join(out, "runs", method)
        done = timings.get(method)
        if args.reuse and done and os.path.exists(os.path.join(run_dir, "summary.json")):
            print(f"{method}: kept ({done['cpu_seconds'] / 60:.1f} CPU min)", flush=True)
            continue
        if os.path.exists(run_dir):
            shutil.rmtree(run_dir)
        spec_path = os.path.join(out, "specs", f"{method}.toml")
        write_atomic(spec_path, method_spec(method, args))
        cmd = [joute, "tune", spec_path, "--out", run_dir, "--quiet", "--threads", str(args.threads)]
        print(f"{method}: {' '.join(cmd)}", flush=True)
        code, cpu, wall = run_timed(cmd, os.path.join(out, "logs", f"{method}.log"))
        if code != 0:
            sys.exit(f"{method}: joute tune failed (exit {code}); see {out}/logs/{method}.log")
        timings[method] = {"cpu_seconds": cpu, "wall_seconds": wall}
        write_atomic(os.path.join(out, "timings.json"), json.dumps(timings, indent=2) + "\n")
        print(f"{method}: {cpu / 60:.2f} CPU min, {wall / 60:.2f} wall min", flush=True)


def tournament(args, out, joute, timings):
    run_dir = os.path.join(out, "compare")
    done = timings.get("compare")
    if args.reuse and done and os.path.exists(os.path.join(run_dir, "pairs.csv")):
        print("compare: kept", flush=True)
        return
    if os.path.exists(run_dir):
        shutil.rmtree(run_dir)
    spec_path = os.path.join(out, "specs", "compare.toml")
    write_atomic(spec_path, compare_spec(args, out))
    cmd = [joute, "run", spec_path, "--out", run_dir, "--quiet", "--threads", str(args.threads)]
    print(f"compare: {' '.join(cmd)}", flush=True)
    code, cpu, wall = run_timed(cmd, os.path.join(out, "logs", "compare.log"))
    if code != 0:
        sys.exit(f"compare: joute run failed (exit {code}); see {out}/logs/compare.log")
    timings["compare"] = {"cpu_seconds": cpu, "wall_seconds": wall}
    write_atomic(os.path.join(out, "timings.json"), json.dumps(timings, indent=2) + "\n")
    print(f"compare: {cpu / 60:.2f} CPU min, {wall / 60:.2f} wall min", flush=True)


# --- results -----------------------------------------------------------------------------


def gather(out, timings):
    pairs = read_csv(os.path.join(out, "compare", "pairs.csv"))
    ratings = {r["name"]: r for r in read_csv(os.path.join(out, "compare", "ratings.csv"))}
    pool_mean = sum(float(ratings[p]["elo"]) for p in POOL) / len(POOL)
    rows = []
    for name in ["start"] + METHODS:
        row = {"method": name}
        if name != "start":
            with open(os.path.join(out, "runs", name, "summary.json"), encoding="utf-8") as f:
                summary = json.load(f)
            row["games"] = summary["games"]
            c = summary["confirmation"]
            row["confirm_elo"], row["confirm_error"], row["confirm_games"] = c["elo"], c["error"], c["games"]
            row["positions"] = None
            hist = os.path.join(out, "runs", name, "history.jsonl")
            with open(hist, encoding="utf-8") as f:
                lines = [json.loads(l) for l in f if l.strip()]
            row["candidates"] = len(lines)
            if lines and lines[-1].get("fit"):
                row["positions"] = lines[-1]["fit"]["positions"]
            row["cpu_minutes"] = timings[name]["cpu_seconds"] / 60
            row["wall_minutes"] = timings[name]["wall_seconds"] / 60
            h2h = pair_row(pairs, name, "start")
            row["vs_start_elo"], row["vs_start_error"] = h2h[0], h2h[1]
            row["vs_start_games"] = 2 * sum(h2h[2])
        counts = [0] * 5
        for p in POOL:
            r = pair_row(pairs, name, p)
            counts = [x + y for x, y in zip(counts, r[2])]
        pooled = pentanomial_elo(counts)
        row["vs_pool_elo"], row["vs_pool_error"] = (pooled[0], pooled[1]) if pooled else (None, None)
        row["vs_pool_score"] = pooled[2] if pooled else None
        row["vs_pool_games"] = 2 * sum(counts)
        row["rating"] = float(ratings[name]["elo"])
        row["rating_error"] = number(ratings[name]["error"])
        row["rating_minus_pool_mean"] = float(ratings[name]["elo"]) - pool_mean
        rows.append(row)
    return rows


def fmt_elo(e, err):
    if e is None:
        return "—"
    if round(e, 1) == 0.0:
        e = 0.0  # no "-0.0"
    if err is None:
        return f"{e:+.1f}"
    return f"{e:+.1f} ± {err:.1f}"


def minutes(m):
    return f"{m:.1f}" if m >= 1 else f"{m:.2f}"


def fmt_games(row):
    if "games" not in row:
        return "—"
    text = f"{row['games']:,} games"
    if row.get("positions"):
        text += f" ({row['positions']:,} positions)"
    return text


def table_md(rows, meta):
    head = [
        "method",
        "games (positions fitted)",
        "CPU min",
        "wall min",
        "Elo vs start, tuning's confirmation (held-out)",
        "Elo vs start, common tournament",
        "Elo vs the fixed pool",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if r["method"] == "start":
            cells = ["start (`weights/othello.toml`)", "—", "—", "—", "—", "0", fmt_elo(r["vs_pool_elo"], r["vs_pool_error"])]
        else:
            cells = [
                r["method"],
                fmt_games(r),
                minutes(r["cpu_minutes"]),
                minutes(r["wall_minutes"]),
                fmt_elo(r["confirm_elo"], r["confirm_error"]) + f" ({r['confirm_games']:,} games)",
                fmt_elo(r["vs_start_elo"], r["vs_start_error"]) + f" ({r['vs_start_games']:,} games)",
                fmt_elo(r["vs_pool_elo"], r["vs_pool_error"]),
            ]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(
        f"Budget: {meta['budget']}; {meta['threads']} threads. Elo ± the half-width of the 95% "
        "interval (pentanomial, fastchess's formula). Tuning's confirmation: the tuned weights "
        "against the start on the tuning's own held-out openings. Common tournament: "
        f"round-robin of the start, the three tuned vectors and the pool ({', '.join(POOL)}), "
        f"{meta['pairing_games']:,} games per pairing on openings of its own (seed "
        f"{meta['compare_seed']}). Elo vs the fixed pool: the score of all games against the "
        "three pool engines pooled (pentanomial counts added), converted to Elo. CPU minutes: "
        "user + sys of the whole `joute tune` process, its two confirmation matches included."
    )
    return "\n".join(lines) + "\n"


def table_csv(rows):
    cols = [
        "method", "games", "positions", "cpu_minutes", "wall_minutes",
        "confirm_elo", "confirm_error", "confirm_games",
        "vs_start_elo", "vs_start_error", "vs_start_games",
        "vs_pool_elo", "vs_pool_error", "vs_pool_score", "vs_pool_games",
        "rating", "rating_error", "rating_minus_pool_mean",
    ]
    lines = [",".join(cols)]
    for r in rows:
        cells = []
        for c in cols:
            v = r.get(c)
            if v is None:
                cells.append("")
            elif isinstance(v, float):
                cells.append(f"{v:.4f}" if c == "vs_pool_score" else f"{v:.2f}")
            else:
                cells.append(str(v))
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


def nice_ticks(lo, hi, n=6):
    span = hi - lo
    if span <= 0:
        span = 1.0
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    ticks = []
    t = first
    while t <= hi + 1e-9:
        ticks.append(round(t, 10))
        t += step
    return ticks


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def chart_svg(rows, meta):
    """Elo gained over the start (common tournament) against CPU minutes: a circle per method
    with its 95% interval as an error bar."""
    pts = [r for r in rows if r["method"] != "start"]
    W, H = 640, 420
    left, right, top, bottom = 70, 170, 40, 60
    pw, ph = W - left - right, H - top - bottom
    xmax = max(r["cpu_minutes"] for r in pts) * 1.15 or 1.0
    ys = [0.0]
    for r in pts:
        e = r["vs_start_elo"] or 0.0
        err = r["vs_start_error"] or 0.0
        ys += [e - err, e + err]
    ylo, yhi = min(ys), max(ys)
    pad = max(5.0, (yhi - ylo) * 0.12)
    ylo, yhi = ylo - pad, yhi + pad

    def X(v):
        return left + pw * v / xmax

    def Y(v):
        return top + ph * (yhi - v) / (yhi - ylo)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
        'font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
        f'<rect x="0" y="0" width="{W}" height="{H}" fill="white"/>',
        f'<text x="{left + pw / 2:.1f}" y="22" text-anchor="middle" font-size="14">'
        f"Elo gained over the start against CPU time ({esc(meta['budget'])})</text>",
        f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>',
    ]
    for t in nice_ticks(0.0, xmax):
        x = X(t)
        out.append(f'<line x1="{x:.1f}" y1="{top + ph}" x2="{x:.1f}" y2="{top + ph + 5}" stroke="#333"/>')
        out.append(f'<text x="{x:.1f}" y="{top + ph + 18}" text-anchor="middle">{t:g}</text>')
    for t in nice_ticks(ylo, yhi):
        y = Y(t)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{t:g}</text>')
    y0 = Y(0.0)
    out.append(f'<line x1="{left}" y1="{y0:.1f}" x2="{left + pw}" y2="{y0:.1f}" stroke="#888" stroke-dasharray="4 3"/>')
    out.append(
        f'<text x="{left + pw / 2:.1f}" y="{H - 18}" text-anchor="middle">'
        "CPU minutes (user + sys of joute tune)</text>"
    )
    out.append(
        f'<text transform="translate(20 {top + ph / 2:.1f}) rotate(-90)" text-anchor="middle">'
        "Elo vs start, common tournament (95%)</text>"
    )
    for r in pts:
        colour = COLOURS[r["method"]]
        x = X(r["cpu_minutes"])
        e = r["vs_start_elo"] or 0.0
        err = r["vs_start_error"] or 0.0
        y, ya, yb = Y(e), Y(e + err), Y(e - err)
        out.append(f'<g class="method" data-method="{esc(r["method"])}">')
        out.append(f'<line x1="{x:.1f}" y1="{ya:.1f}" x2="{x:.1f}" y2="{yb:.1f}" stroke="{colour}" stroke-width="2"/>')
        for yy in (ya, yb):
            out.append(f'<line x1="{x - 6:.1f}" y1="{yy:.1f}" x2="{x + 6:.1f}" y2="{yy:.1f}" stroke="{colour}" stroke-width="2"/>')
        out.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{colour}">'
            f"<title>{esc(r['method'])}: {esc(fmt_elo(r['vs_start_elo'], r['vs_start_error']))} Elo, "
            f"{minutes(r['cpu_minutes'])} CPU min</title></circle>"
        )
        # Labels alternate sides, so that neighbouring points' labels do not cross their bars.
        side = -1 if METHODS.index(r["method"]) % 2 == 0 else 1
        anchor = "end" if side < 0 else "start"
        out.append(
            f'<text x="{x + 9 * side:.1f}" y="{y + 4:.1f}" text-anchor="{anchor}" fill="{colour}">'
            f"{esc(r['method'])}</text>"
        )
        out.append("</g>")
    lx, ly = left + pw + 20, top + 10
    out.append(f'<text x="{lx}" y="{ly}" font-weight="bold">method</text>')
    for i, r in enumerate(pts):
        yy = ly + 22 * (i + 1)
        colour = COLOURS[r["method"]]
        out.append(f'<rect x="{lx}" y="{yy - 9}" width="10" height="10" fill="{colour}"/>')
        out.append(f'<text x="{lx + 16}" y="{yy}">{esc(r["method"])}</text>')
    out.append(f'<text x="{lx}" y="{ly + 22 * (len(pts) + 1) + 6}" fill="#555">error bars: 95%</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0, help="CPU minutes per method (default 10)")
    ap.add_argument("--games", type=int, default=10000, help="games per pairing in the common tournament (default 10000)")
    ap.add_argument("--out", default=os.path.join("reports", "tune-compare"), help="output folder (default reports/tune-compare)")
    ap.add_argument("--joute", default=None, help="the joute binary (default: target/release/joute of this repository, else joute on PATH)")
    ap.add_argument("--threads", type=int, default=2, help="worker threads of every joute command (default 2)")
    ap.add_argument("--smoke", action="store_true", help="tiny budgets: the whole pipeline in well under a minute")
    ap.add_argument("--reuse", action="store_true", help="keep the runs of an earlier invocation with this --out that finished (timings.json)")
    args = ap.parse_args()
    if args.minutes <= 0 or args.games < 2 or args.threads < 1:
        ap.error("--minutes must be positive, --games at least 2, --threads at least 1")

    joute = args.joute
    if joute is None:
        built = os.path.join(ROOT, "target", "release", "joute")
        joute = built if os.path.exists(built) else shutil.which("joute")
        if joute is None:
            ap.error("no joute binary: build it (cargo build --release) or pass --joute PATH")
    joute = os.path.abspath(joute) if os.sep in joute else joute

    out = os.path.abspath(args.out)
    for sub in ("specs", "logs", "runs"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    timings = {}
    tpath = os.path.join(out, "timings.json")
    if args.reuse and os.path.exists(tpath):
        with open(tpath, encoding="utf-8") as f:
            timings = json.load(f)

    started = time.monotonic()
    tune_all(args, out, joute, timings)
    tournament(args, out, joute, timings)

    rows = gather(out, timings)
    compare = SpecText(os.path.join(out, "specs", "compare.toml"))
    meta = {
        "budget": "smoke budgets" if args.smoke else f"{args.minutes:g} CPU minutes per method",
        "threads": args.threads,
        "pairing_games": 2 * compare.get("openings", "count"),
        "compare_seed": compare.get("", "seed"),
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "machine": f"{os.uname().sysname} {os.uname().machine}, {os.cpu_count()} CPUs",
        "compare_cpu_minutes": timings["compare"]["cpu_seconds"] / 60,
        "compare_wall_minutes": timings["compare"]["wall_seconds"] / 60,
    }
    write_atomic(os.path.join(out, "table.md"), table_md(rows, meta))
    write_atomic(os.path.join(out, "table.csv"), table_csv(rows))
    write_atomic(os.path.join(out, "elo-vs-cpu.svg"), chart_svg(rows, meta))
    write_atomic(os.path.join(out, "results.json"), json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    with open(os.path.join(out, "table.md"), encoding="utf-8") as f:
        print(f.read(), end="")
    print(f"done in {(time.monotonic() - started) / 60:.1f} min; {out}/table.md, table.csv, elo-vs-cpu.svg", flush=True)


if __name__ == "__main__":
    main()
