"""Runs and matches from Python: specs as paths, TOML or dicts; Python bots as engines; the
results as tables (lists of dicts with ``.to_pandas()``). See docs/python.md."""

import csv
import inspect
import io
import json
import os
import tempfile
from pathlib import Path

from . import _joute

__all__ = ["Run", "Table", "load", "match", "run"]


class Table(list):
    """A table of results: a list of dicts, one per row, with numbers as numbers."""

    def to_pandas(self):
        """The table as a pandas DataFrame (numeric columns numeric). Needs pandas."""
        import pandas as pd

        return pd.DataFrame(list(self))

    def column(self, name):
        """The values of one column, in row order."""
        return [row.get(name) for row in self]


def _cell(text):
    """A CSV cell as Python has it: '' is None, numbers are int or float."""
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _csv_table(text):
    """The rows of a CSV text; a column is numeric when all its cells are (or empty)."""
    rows = list(csv.DictReader(io.StringIO(text)))
    if not rows:
        return Table()
    numeric = {
        k: all(r[k] == "" or not isinstance(_cell(r[k]), str) for r in rows) for k in rows[0]
    }
    return Table(
        {k: (_cell(v) if numeric[k] else (None if v == "" else _text(v))) for k, v in r.items()}
        for r in rows
    )


def _text(cell):
    """A text cell as the report wrote it: the guard's leading quote (a cell that could read as
    a formula) taken off."""
    return cell[1:] if cell.startswith("'") and cell[1:2] in ("=", "+", "-", "@") else cell


def _read_table(folder, name):
    path = Path(folder) / name
    if not path.exists():
        return Table()
    return _csv_table(path.read_text(encoding="utf-8"))


class Run:
    """A run in its folder, read back: its summary (``joute run --json``'s object) and its
    tables — ``ratings``, ``pairs``, ``cost``, ``terminations``, ``games`` — as the command
    line writes them (``ratings.csv``, ``pairs.csv``, ``cost.csv``, ``terminations.csv``,
    ``joute export --format csv``)."""

    def __init__(self, folder, summary=None, scratch=None):
        self.folder = Path(folder)
        self.summary = summary or {}
        self._scratch = scratch  # a match's temporary folder, removed with the Run
        self.ratings = _read_table(self.folder, "ratings.csv")
        self.pairs = _read_table(self.folder, "pairs.csv")
        self.cost = _read_table(self.folder, "cost.csv")
        self.terminations = _read_table(self.folder, "terminations.csv")
        self.games = _csv_table(_joute.games_csv(str(self.folder)))

    @property
    def report(self):
        """The report's page (index.html) in the run's folder."""
        return self.folder / "index.html"

    @property
    def played(self):
        """Games this session played."""
        return self.summary.get("played")

    @property
    def seconds(self):
        """Wall-clock seconds of this session's games."""
        return self.summary.get("seconds")

    def __repr__(self):
        lines = [f"Run({str(self.folder)!r}): {len(self.games)} games"]
        for r in self.ratings:
            lines.append(
                f"  {r.get('rank')!s:>3} {r.get('name')!s:<24} {r.get('elo')!s:>8} "
                f"± {r.get('error')!s:<7} {r.get('games')} games, {r.get('score')}"
            )
        return "\n".join(lines)

    def _repr_html_(self):
        rows = "".join(
            f"<tr><td>{r.get('rank')}</td><td>{_html(r.get('name'))}</td><td>{r.get('elo')}</td>"
            f"<td>{r.get('error')}</td><td>{r.get('games')}</td><td>{r.get('score')}</td></tr>"
            for r in self.ratings
        )
        return (
            f"<p>joute run in <code>{_html(str(self.folder))}</code>: {len(self.games)} games</p>"
            "<table><tr><th>rank</th><th>name</th><th>elo</th><th>error</th><th>games</th>"
            f"<th>score</th></tr>{rows}</table>"
        )


def _html(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def load(folder):
    """A run folder written by ``joute run``, ``joute match --out`` or this module, read back."""
    folder = Path(folder)
    if not (folder / "games.jsonl").exists():
        raise ValueError(f"{folder}: no games.jsonl here (not a run's folder)")
    return Run(folder, json.loads(_joute.report_json(str(folder))))


class _Bot:
    """A Python engine as joute plays it: a function ``f(state)`` or ``f(state, clock)``, an
    object with such a ``move`` method (or callable), or a class, instantiated for every game.
    The object may also have ``new_game(state, side, seed)`` and ``game_over(points)``."""

    def __init__(self, engine):
        self.engine = engine
        if not (inspect.isclass(engine) or callable(engine) or callable(getattr(engine, "move", None))):
            raise TypeError(
                f"{engine!r} is no engine: give an engine word ('alphabeta:4', "
                "'cmd=./bot,proto=line'), a function f(state) -> move, an object with a "
                "move(state) method, or such a class"
            )

    def player(self):
        instance = self.engine() if inspect.isclass(self.engine) else self.engine
        return _Seat(instance)

    def describe(self):
        e = self.engine
        target = e if (inspect.isfunction(e) or inspect.isclass(e)) else type(e)
        kind = "class" if inspect.isclass(e) else ("function" if inspect.isfunction(e) else "object")
        try:
            where = f" ({Path(inspect.getsourcefile(target)).name}:{inspect.getsourcelines(target)[1]})"
        except (TypeError, OSError):
            where = ""
        return f"python {kind} {getattr(target, '__qualname__', repr(e))}{where}"


def _takes_clock(f):
    """Whether ``f`` takes a second positional argument (the clock)."""
    try:
        params = [
            p
            for p in inspect.signature(f).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        varargs = any(p.kind == p.VAR_POSITIONAL for p in inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return False
    return varargs or len(params) >= 2


class _Seat:
    """One game of a bot: what joute's native part calls."""

    def __init__(self, instance):
        self.instance = instance
        move = getattr(instance, "move", None)
        self.move = move if callable(move) else instance
        self.with_clock = _takes_clock(self.move)

    def new_game(self, state, side, seed):
        f = getattr(self.instance, "new_game", None)
        if callable(f):
            f(state, side, seed)

    def think(self, state, clock):
        answer = self.move(state, clock) if self.with_clock else self.move(state)
        info = None
        if isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[1], dict):
            answer, info = answer
        if not isinstance(answer, str):
            # Read as no legal move: the game's detail shows what came back.
            answer = repr(answer)
        return answer, info

    def game_over(self, points):
        f = getattr(self.instance, "game_over", None)
        if callable(f):
            f(points)


def _bot_name(engine):
    target = engine if (inspect.isfunction(engine) or inspect.isclass(engine)) else type(engine)
    return getattr(engine, "name", None) or getattr(target, "__name__", "bot")


def _progress(show, what, unit="game"):
    """A progress callback ``(done, total)`` of ``unit``s: tqdm's bar (a notebook's own under
    Jupyter) when tqdm is installed, else a line every few seconds; ``None`` when not shown."""
    if not show:
        return None, lambda: None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        tqdm = None
    state = {"bar": None, "last": 0.0}

    def update(done, total):
        if tqdm is not None:
            if state["bar"] is None:
                state["bar"] = tqdm(total=total, initial=done, desc=what, unit=unit)
            state["bar"].n = done
            state["bar"].refresh()
            return
        import time

        now = time.monotonic()
        if now - state["last"] >= 5 or done == total:
            state["last"] = now
            print(f"{what}: {done}/{total} {unit}s", flush=True)

    def close():
        if state["bar"] is not None:
            state["bar"].close()

    return update, close


class _Options:
    """What the native part reads as its RunOptions (attributes)."""

    def __init__(self, out, threads, resume, force, fresh, oversubscribe):
        self.out = str(out)
        self.threads = int(threads) if threads is not None else _joute.default_threads()
        self.resume = bool(resume)
        self.force = bool(force)
        self.fresh = bool(fresh)
        self.oversubscribe = bool(oversubscribe)


def _toml(value, path=()):
    """A spec dict as TOML text (tables, arrays of tables, strings, numbers, booleans)."""
    lines = []
    tables = []
    for k, v in value.items():
        if isinstance(v, dict):
            tables.append((k, v))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            tables.append((k, v))
        else:
            lines.append(f"{_key(k)} = {_toml_value(v)}")
    for k, v in tables:
        name = ".".join(_key(p) for p in (*path, k))
        if isinstance(v, dict):
            lines.append(f"\n[{name}]")
            lines.append(_toml(v, (*path, k)))
        else:
            for item in v:
                lines.append(f"\n[[{name}]]")
                lines.append(_toml(item, (*path, k)))
    return "\n".join(lines)


def _key(k):
    k = str(k)
    return k if k and all(c.isalnum() or c in "_-" for c in k) else json.dumps(k)


def _toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, os.PathLike):
        return json.dumps(os.fspath(v))
    raise TypeError(f"a spec value must be text, a number, a boolean, a list or a table, not {v!r}")


def _spec_bots(spec, bots):
    """A dict spec with Python engines in its engine tables (``{"name": ..., "bot": f}``):
    each becomes ``hosted = NAME``, its function one of the bots."""
    bots = dict(bots or {})
    spec = dict(spec)
    for key in ("engine", "engines"):
        if key in spec:
            tables = []
            for table in spec[key]:
                table = dict(table)
                if "bot" in table:
                    bot = table.pop("bot")
                    name = table.get("name") or _bot_name(bot)
                    table.setdefault("name", name)
                    table["hosted"] = name
                    bots[name] = bot
                tables.append(table)
            spec["engine"] = tables
            if key == "engines":
                del spec["engines"]
    return spec, bots


def run(
    spec,
    *,
    bots=None,
    out=None,
    threads=None,
    resume=False,
    force=False,
    fresh=False,
    oversubscribe=False,
    progress=True,
):
    """Plays a tournament spec — a path to a ``.toml`` file, a TOML text, or a dict (engine
    tables may hold ``"bot": function``) — in its folder (``out``, else ``reports/NAME`` as
    ``joute run`` has it), with the Python engines ``bots`` (``{key: engine}``, named in the
    spec by ``hosted = "key"``). Returns a :class:`Run`. Ctrl-C stops it resumably: run it
    again to play the rest."""
    path = text = None
    if isinstance(spec, dict):
        spec, bots = _spec_bots(spec, bots)
        text = _toml(spec)
    elif isinstance(spec, os.PathLike) or (isinstance(spec, str) and "\n" not in spec and spec.endswith(".toml")):
        path = os.fspath(spec)
    elif isinstance(spec, str):
        text = spec
    else:
        raise TypeError("spec: a path to a .toml file, a TOML text or a dict")
    if out is None:
        out = Path("reports") / _joute.spec_name(path, text)
    options = _Options(out, threads, resume, force, fresh, oversubscribe)
    summary = _play(
        "run",
        lambda hosted, update: _joute.run_spec(path, text, hosted, options, update),
        bots or {},
        progress,
        out,
        "the same joute.run call",
    )
    return Run(out, json.loads(summary))


def _play(what, native, bots, progress, out, again):
    """Calls ``native(hosted, update)`` — the native run of a spec or a match — with the bots
    made hosted engines and a progress display; on Ctrl-C says what was kept, and re-raises."""
    hosted = {k: (_Bot(e), _Bot(e).describe()) for k, e in bots.items()}
    update, close = _progress(progress, what)
    try:
        return native(hosted, update)
    except KeyboardInterrupt as stop:
        _resumable(stop, out, again)
        raise
    finally:
        close()


def _resumable(stop, out, again):
    """Says on a KeyboardInterrupt what was kept and how to go on (Python 3.11's notes)."""
    if hasattr(stop, "add_note"):
        stop.add_note(f"joute: the games played are logged and reported in {out}; to play the rest: {again}")


def _engine(engine, bots):
    """An engine of ``match`` as the native part takes it."""
    if isinstance(engine, str):
        return ("word", engine)
    name = _bot_name(engine)
    key = name
    while key in bots and bots[key] is not engine:
        key += "'"
    bots[key] = engine
    return ("hosted", name, key)


def match(
    game,
    a,
    b,
    *,
    games=100,
    seed=1,
    openings=None,
    tc=None,
    st=None,
    sprt=None,
    out=None,
    threads=None,
    resume=False,
    force=False,
    oversubscribe=False,
    progress=True,
):
    """Plays ``games`` games of ``game`` between ``a`` and ``b`` — engine words
    (``"alphabeta:4"``, ``"cmd=./bot.py,proto=line"``) or Python engines — from openings of
    ``openings`` plies (the game's default when None), each played twice with colours swapped,
    as ``joute match`` does. ``tc`` is a game clock (``"10+0.1"``), ``st`` a time per move
    (``"100ms"``). ``sprt`` a sequential test as ``--sprt`` writes it (``"0,10"``,
    ``"elo0=0,elo1=5,model=normalized"``): the match stops when it decides. Without ``out`` the run's folder is a temporary one, removed with the
    returned :class:`Run`."""
    bots = {}
    engines = (_engine(a, bots), _engine(b, bots))
    scratch = None
    if out is None:
        scratch = tempfile.TemporaryDirectory(prefix="joute-match-")
        out = Path(scratch.name) / "match"
    options = _Options(out, threads, resume, force, False, oversubscribe)
    summary = _play(
        "match",
        lambda hosted, update: _joute.run_match(
            game, engines, int(games), int(seed), openings, tc, st, sprt, hosted, options, update
        ),
        bots,
        progress,
        out,
        "the same joute.match call" if scratch is None else "nothing: a match without out= keeps no folder",
    )
    return Run(out, json.loads(summary), scratch)
