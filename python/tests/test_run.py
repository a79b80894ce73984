"""joute.run and joute.match with Python bots: failures as the command line's, Ctrl-C
resumable, the same games in-process and over the line protocol, results as tables."""
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import joute

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "python"))
import negamax_connect4  # noqa: E402


def first_legal(state):
    return state.legal_moves()[0]


def test_a_bot_that_raises_loses_by_crash_with_its_tracebacks_last_line():
    def broken(state):
        if len(state.moves()) > 6:
            raise ValueError("no idea what to play")
        return state.legal_moves()[0]

    run = joute.match("connect4", broken, "alphabeta:2", games=4, progress=False, threads=1)
    lost = [g for g in run.games if g["termination"] == "crash"]
    assert len(lost) == 4, run.games
    for g in lost:
        loser_first = g["first"] == "broken"
        assert g["score"] == (0.0 if loser_first else 1.0)
        assert "ValueError: no idea what to play" in g["detail"], g["detail"]
        assert "test_run.py" in g["detail"] and "in broken" in g["detail"], g["detail"]
    # The terminations table counts them as the command line's does.
    per_engine = {t["name"]: t for t in run.terminations}
    assert per_engine["broken"]["crash"] == 4, run.terminations
    assert per_engine["alphabeta:2"]["crash"] == 0, run.terminations


def test_a_bot_that_plays_an_illegal_move_loses_by_illegal_move():
    def stubborn(state):
        return "8"  # Connect 4 has 7 columns

    run = joute.match("connect4", stubborn, "random", games=2, progress=False, threads=1)
    for g in run.games:
        assert g["termination"] == "illegal-move", g
        assert g["detail"].startswith("8: "), g["detail"]
        assert "column" in g["detail"], g["detail"]
    # Something that is no text is no move either: it is named as it came back.
    run = joute.match("connect4", lambda s: 8, "random", games=2, progress=False, threads=1)
    assert [g["termination"] for g in run.games] == ["illegal-move"] * 2
    assert all(g["detail"].startswith("8: ") for g in run.games), run.games


class Counter:
    """A bot object with a game's state: one instance per game when given as a class."""

    def __init__(self):
        self.moves = 0
        self.sides = []

    def new_game(self, state, side, seed):
        assert self.moves == 0, "a fresh instance for every game"
        self.sides.append(side)

    def move(self, state, clock):
        self.moves += 1
        assert clock["budget"] is None  # no clock
        return state.legal_moves()[-1], {"nodes": 3, "depth": 1}


def test_a_bot_class_gets_an_instance_per_game_and_its_nodes_reach_the_cost_table():
    run = joute.match("connect4", Counter, "random", games=4, progress=False, threads=2)
    assert len(run.games) == 4
    cost = {r["name"]: r for r in run.cost}
    assert cost["Counter"]["nodes_mean"] == 3
    assert cost["Counter"]["depth_mean"] == 1
    mine = [g for g in run.games if "Counter" in (g["first"], g["second"])]
    assert all(
        (g["first_nodes"] if g["first"] == "Counter" else g["second_nodes"])
        == 3 * (g["first_moves"] if g["first"] == "Counter" else g["second_moves"])
        for g in mine
    )


def test_the_same_bot_in_process_and_over_the_line_protocol_plays_the_same_games(tmp_path):
    # Deterministic on both sides: the same games, move for move.
    inproc = joute.match(
        "connect4", negamax_connect4.bot, "alphabeta:4", games=20, seed=3, progress=False, threads=2
    )
    script = ROOT / "examples" / "python" / "negamax_connect4.py"
    word = f"cmd={sys.executable},arg={script},proto=line,name=bot"
    line = joute.match("connect4", word, "alphabeta:4", games=20, seed=3, progress=False, threads=2)
    key = lambda g: (g["id"], g["first"].replace("bot", "B"), g["result"], g["opening"], g["moves"])
    inproc_games = sorted(key(g) for g in inproc.games)
    line_games = sorted(key(g) for g in line.games)
    assert inproc_games == line_games
    assert [r["elo"] for r in inproc.ratings] == [r["elo"] for r in line.ratings]


def test_ctrl_c_leaves_a_resumable_run(tmp_path):
    out = tmp_path / "run"

    def slow(state):
        time.sleep(0.01)
        return first_legal(state)

    spec = {
        "name": "interrupted",
        "game": "connect4",
        "seed": 5,
        "openings": {"plies": 4, "count": 60},
        "engine": [
            {"name": "slow", "bot": slow},
            {"name": "ab2", "algorithm": "alphabeta", "depth": 2},
        ],
    }
    # Python turns SIGINT into KeyboardInterrupt only where it was not ignored when the
    # interpreter started (a shell's background job ignores it): say so here.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as stop:
            joute.run(spec, out=out, progress=False, threads=2)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    if sys.version_info >= (3, 11):
        assert any(str(out) in note for note in stop.value.__notes__), stop.value.__notes__
    logged = [json.loads(l) for l in (out / "games.jsonl").read_text().splitlines() if '"id"' in l]
    assert 0 < len(logged) < 120, len(logged)
    record = json.loads((out / "run.json").read_text())
    assert record["sessions"][-1]["ended"] == "interrupted", record["sessions"][-1]
    # The same spec again plays the rest: every game once.
    rest = joute.run(spec, out=out, progress=False, threads=2)
    assert rest.played == 120 - len(logged)
    assert sorted(g["id"] for g in rest.games) == list(range(120))


def joute_binary():
    """The command line built by `cargo test` or `cargo build --release` (CI names it)."""
    named = os.environ.get("JOUTE_BIN")
    if named:
        return named
    for profile in ("release", "debug"):
        path = ROOT / "target" / profile / "joute"
        if path.exists():
            return str(path)
    pytest.skip("no joute binary built (cargo build --release, or JOUTE_BIN)")


def test_ratings_to_pandas_are_numeric_and_the_command_lines(tmp_path):
    pd = pytest.importorskip("pandas")
    spec = ROOT / "tournaments" / "quickstart.toml"
    run = joute.run(spec, out=tmp_path / "py", progress=False, threads=2)
    frame = run.ratings.to_pandas()
    for column in ("rank", "elo", "games", "points", "score", "draws"):
        assert pd.api.types.is_numeric_dtype(frame[column]), (column, frame.dtypes)
    assert pd.api.types.is_numeric_dtype(run.cost.to_pandas()["nodes_mean"])
    assert pd.api.types.is_numeric_dtype(run.games.to_pandas()["score"])
    cli = tmp_path / "cli"
    done = subprocess.run(
        [joute_binary(), "run", str(spec), "--out", str(cli), "--json", "--threads", "2"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout)["ratings"]
    mine = run.summary["ratings"]
    strip = lambda rows: [{k: r[k] for k in ("name", "elo", "error", "games", "points")} for r in rows]
    assert strip(mine) == strip(theirs)
    assert (tmp_path / "py" / "ratings.csv").read_text() == (cli / "ratings.csv").read_text()
    # The command line's folder read back: the same tables, the same summary's ratings.
    loaded = joute.load(cli)
    assert loaded.ratings == run.ratings
    assert strip(loaded.summary["ratings"]) == strip(theirs)
    assert [g["moves"] for g in loaded.games] == [g["moves"] for g in run.games]
    with pytest.raises(ValueError, match="not a run's folder"):
        joute.load(tmp_path)


def test_a_spec_with_a_hosted_engine_needs_its_bot():
    text = """
name = "hosted"
game = "connect4"
seed = 1
openings = { plies = 2, count = 2 }
[[engine]]
name = "mine"
hosted = "mine"
[[engine]]
name = "ab"
algorithm = "alphabeta"
depth = 2
"""
    with pytest.raises(ValueError, match="engine 'mine' is hosted"):
        joute.run(text, out="/nonexistent-never-written", progress=False)
    run = joute.run(text, bots={"mine": first_legal}, out=None, progress=False, threads=1)
    assert len(run.games) == 4
    shutil.rmtree(run.folder)


def test_a_python_bot_on_a_clock_plays_one_game_at_a_time():
    with pytest.raises(ValueError, match="one interpreter"):
        joute.match("connect4", first_legal, "alphabeta:2", games=2, st="50ms", progress=False, threads=2)
    run = joute.match("connect4", first_legal, "alphabeta:2", games=2, st="50ms", progress=False, threads=1)
    assert len(run.games) == 2
    assert all(g["termination"] != "timeout" for g in run.games), run.games

    def slow(state, clock):
        time.sleep(clock["deadline"] + 0.2)  # past the referee's limit, margin included
        return first_legal(state)

    run = joute.match("connect4", slow, "alphabeta:2", games=2, st="50ms", progress=False, threads=1)
    assert [g["termination"] for g in run.games] == ["timeout", "timeout"], run.games
    # Its time was measured by the referee: at least the sleep.
    for g in run.games:
        took = int(g["detail"].split("the move took ")[1].split(" ms")[0])
        assert took >= 250 and g["detail"].endswith("with 50 ms allowed"), g["detail"]


def test_a_bot_a_built_in_engine_and_an_outside_program_play_one_round_robin(tmp_path):
    spec = {
        "name": "mixed",
        "game": "connect4",
        "seed": 2,
        "openings": {"plies": 2, "count": 4},
        "engine": [
            {"name": "negamax-py", "bot": negamax_connect4.bot},
            {"name": "ab3", "algorithm": "alphabeta", "depth": 3},
            {
                "name": "example",
                "command": sys.executable,
                "args": [str(ROOT / "examples" / "engines" / "connect4.py")],
                "protocol": "line",
            },
        ],
    }
    run = joute.run(spec, out=tmp_path / "mixed", progress=False, threads=2)
    assert len(run.games) == 3 * 4 * 2
    assert all(g["termination"] == "normal" for g in run.games), run.games
    assert sorted(r["name"] for r in run.ratings) == ["ab3", "example", "negamax-py"]
    assert all(r["games"] == 16 for r in run.ratings)
    # The report's page names the bot's engine as hosted.
    record = json.loads((tmp_path / "mixed" / "run.json").read_text())
    engines = {e["name"]: e for e in record["spec"]["engines"]}
    assert engines["negamax-py"]["algorithm"] == "hosted"
    assert engines["negamax-py"]["hosted"] == "negamax-py"


def test_a_match_with_an_sprt_stops_when_it_decides():
    run = joute.match("connect4", "alphabeta:4", "random", games=400, sprt="0,50", progress=False)
    assert run.summary["sprt"]["result"] == "H1", run.summary["sprt"]
    assert len(run.games) < 400
    with pytest.raises(ValueError, match="sprt '1,1'"):
        joute.match("connect4", "alphabeta:4", "random", sprt="1,1", progress=False)
