"""Tuning runs and ratings from Python: ``joute.tune`` (what ``joute tune SPEC`` does) and
``joute.rate`` (what ``joute rate FILES`` computes). See docs/python.md."""

import json
import os
from pathlib import Path

from . import _joute
from ._run import Table, _csv_table, _progress, _toml

__all__ = ["Tuning", "rate", "tune"]


class Tuning:
    """A tuning run in its folder, read back: ``summary`` (``summary.json``), ``history`` (the
    candidates of ``history.jsonl``, a :class:`Table`), ``weights`` (the tuned weights as
    ``{name: value}``, from the file the run wrote) and ``confirmation`` (the confirmation
    match's figures, when it was played)."""

    def __init__(self, folder, summary=None):
        self.folder = Path(folder)
        path = self.folder / "summary.json"
        if summary is None:
            summary = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        self.summary = summary
        self.history = Table(json.loads(_joute.tune_history(str(self.folder))))
        self.weights = self._weights()

    def _weights(self):
        """The tuned weights file's ``[weights]`` table (every feature of the evaluation); an
        outside program's tuned options, or pattern weights (a binary file), as the summary's
        tuned parameters."""
        path = self.folder / "tuned-weights.toml"
        if path.exists():
            table = json.loads(_joute.toml_file(str(path)))
            if isinstance(table.get("weights"), dict):
                return dict(table["weights"])
        return {p["name"]: p["tuned"] for p in self.summary.get("params", [])}

    @property
    def confirmation(self):
        """The confirmation match (tuned against start): games, wins, draws, losses,
        pentanomial, elo, error, los…; ``None`` when it was not played."""
        c = self.summary.get("confirmation")
        return None if not c or c.get("skipped") else c

    @property
    def aa(self):
        """The A/A match (start against itself) with its ``check``, when played."""
        return self.summary.get("aa")

    @property
    def report(self):
        """The run's report page."""
        return self.folder / "index.html"

    def __repr__(self):
        s = self.summary
        lines = [
            f"Tuning({str(self.folder)!r}): {s.get('method')}, {len(self.history)} candidates, "
            f"{s.get('games')} games"
        ]
        for p in s.get("params", []):
            lines.append(f"  {p['name']:<20} {p['start']!s:>9} -> {p['tuned']}")
        c = self.confirmation
        if c:
            lines.append(
                f"  confirmation: {c['elo']:+.1f} ± {c['error']:.1f} Elo over {c['games']} games"
            )
        return "\n".join(lines)


def _spec_source(spec):
    """``(path, text)`` of a tuning spec given as a path, a TOML text or a dict."""
    if isinstance(spec, dict):
        return None, _toml(spec)
    if isinstance(spec, os.PathLike) or (
        isinstance(spec, str) and "\n" not in spec and spec.endswith(".toml")
    ):
        return os.fspath(spec), None
    if isinstance(spec, str):
        return None, spec
    raise TypeError("spec: a path to a .toml file, a TOML text or a dict")


class _TuneOptions:
    """What the native part reads as its TuneRunOptions (attributes)."""

    def __init__(self, out, threads, resume, force, fresh):
        self.out = str(out)
        self.threads = int(threads) if threads is not None else _joute.default_threads()
        self.resume = bool(resume)
        self.force = bool(force)
        self.fresh = bool(fresh)


class _Display:
    """The progress shown while tuning: a bar over the planned candidates (else games), then
    one per match."""

    def __init__(self, show):
        self.show = show
        self.update, self.close = None, lambda: None
        self.total = None

    def __call__(self, event):
        kind = event["kind"]
        if kind == "start":
            self.by_candidates = event.get("planned_games") is None
            self.total = event["planned_candidates"] if self.by_candidates else event["planned_games"]
            self._bar("tune", "candidate" if self.by_candidates else "game")
            self.update(self._done(event), self.total)
        elif kind == "step":
            self.update(min(self._done(event), self.total), self.total)
        elif kind in ("tuned", "match_played"):
            self.close()
        elif kind == "match_starting" and event.get("games"):
            self._bar(event["match"])
        elif kind == "match_progress":
            self.update(event["done"], event["total"])

    def _done(self, event):
        return event["candidates"] if self.by_candidates else event["games_total"]

    def _bar(self, what, unit="game"):
        self.close()
        self.update, self.close = _progress(self.show, what, unit)
        if self.update is None:
            self.update = lambda done, total: None


def tune(
    spec,
    *,
    out=None,
    threads=None,
    resume=False,
    force=False,
    fresh=False,
    callback=None,
    progress=True,
):
    """Runs a tuning spec — a path to a ``.toml`` file, a TOML text, or a dict — as ``joute
    tune`` does: tuning, then the confirmation and A/A matches on held-out openings, then the
    tuned weights, ``summary.json`` and the report, in ``out`` (else ``reports/NAME``).
    ``callback(event)`` hears every event of the run as a dict with its ``kind`` (``start``,
    ``step``, ``waiting``, ``tuned``, ``match_starting``, ``match_skipped``,
    ``match_progress``, ``match_played``) and ``stage`` (``tuning``, ``confirm``, ``aa``).
    Returns a :class:`Tuning`. Ctrl-C stops it resumably (``resume=True`` continues it)."""
    path, text = _spec_source(spec)
    if out is None:
        out = Path("reports") / _joute.tune_spec_name(path, text)
    display = _Display(progress)

    def events(event_json):
        event = json.loads(event_json)
        display(event)
        if callback is not None:
            callback(event)

    try:
        summary = _joute.run_tune(
            path, text, _TuneOptions(out, threads, resume, force, fresh), events
        )
    finally:
        display.close()
    return Tuning(out, json.loads(summary))


def rate(logs_or_records, *, first_move=None, anchor=None):
    """The ratings of the games in ``logs_or_records`` — joute's games logs
    (``games.jsonl``, with their ``run.json``), result PGN, WThor (``.wtb``) or GGF files — as
    ``joute rate FILES`` computes them: a :class:`Table` best first, the columns of
    ``ratings.csv`` (rank, name, elo, error, games, points, score, draws, bound, reason).
    ``first_move``: ``"fit"`` (the default: the first move's advantage fitted) or
    ``"ignore"``; ``anchor``: ``"NAME=ELO"``, ``"NAME"`` (at 0) or ``(name, elo)``, else the
    ratings average 0. The table's ``scale``, ``games`` and ``runs`` are attributes."""
    if isinstance(logs_or_records, (str, os.PathLike)):
        logs_or_records = [logs_or_records]
    paths = [os.fspath(p) for p in logs_or_records]
    if isinstance(anchor, str):
        if anchor.strip() == "mean":
            anchor = None
        else:
            name, _, elo = anchor.rpartition("=") if "=" in anchor else (anchor, "", "0")
            try:
                anchor = (name.strip(), float(elo))
            except ValueError:
                raise ValueError(f"anchor {anchor}: '{elo.strip()}' is not a number of Elo") from None
    elif anchor is not None:
        anchor = (str(anchor[0]), float(anchor[1]))
    result = json.loads(_joute.rate_files(paths, first_move, anchor))
    table = _csv_table(result["ratings"])
    table.scale = result["scale"]
    table.games = result["games"]
    table.runs = result["runs"]
    return table
