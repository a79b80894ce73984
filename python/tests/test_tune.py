"""joute.tune end to end with its events, a bad tuning spec's message, and joute.rate against
a run's own ratings and against the logistic formula."""
import json
import math
from pathlib import Path

import pytest

import joute

ROOT = Path(__file__).resolve().parents[2]


def spec(method="spsa", extra=""):
    """A small Connect 4 tuning spec (two parameters, depth 2), as tests/it's."""
    return f"""name = "t"
game = "connect4"
seed = 5
method = "{method}"

[engine]
algorithm = "alphabeta"
depth = 2
weights = "{ROOT / 'weights' / 'connect4-centre.toml'}"

[openings]
plies = 6

[budget]
iterations = 4

[spsa]
pairs = 2

[confirm]
games = 20
aa_games = 8

[[param]]
name = "own_threes"
min = -20
max = 40
step = 4

[[param]]
name = "own_immediate"
min = -20
max = 100
step = 10
{extra}"""


def test_a_small_tuning_run_tells_its_events_and_reads_back(tmp_path):
    events = []
    tuning = joute.tune(
        spec(), out=tmp_path / "t", threads=2, callback=events.append, progress=False
    )
    kinds = [e["kind"] for e in events]
    assert kinds[0] == "start", kinds
    for kind in ("step", "tuned", "match_starting", "match_progress", "match_played"):
        assert kind in kinds, kinds
    # Every event says its stage; the stages come in order.
    stages = [e["stage"] for e in events]
    order = {"tuning": 0, "confirm": 1, "aa": 2}
    assert [order[s] for s in stages] == sorted(order[s] for s in stages), stages
    steps = [e for e in events if e["kind"] == "step"]
    assert [e["candidate"] for e in steps] == [1, 2, 3, 4]
    for e in steps:
        assert set(e["weights"]) == {"own_threes", "own_immediate"}
        assert e["games"] > 0 and e["method"] == "spsa"
    # The last step's θ is what tuning ended with, and the summary's tuned weights.
    tuned = {p["name"]: p["tuned"] for p in tuning.summary["params"]}
    assert steps[-1]["weights"] == pytest.approx(tuned)
    assert [e for e in events if e["kind"] == "tuned"][0]["weights"] == pytest.approx(tuned)
    # The weights file holds every feature; the tuned ones at their tuned values.
    for name, value in tuned.items():
        assert tuning.weights[name] == pytest.approx(value)
    assert "centre" in tuning.weights
    # The history as history.jsonl has it.
    lines = [json.loads(l) for l in (tmp_path / "t" / "history.jsonl").read_text().splitlines()]
    assert [h["k"] for h in tuning.history] == [1, 2, 3, 4]
    assert tuning.history.column("theta") == [h["theta"] for h in lines]
    assert tuning.summary == json.loads((tmp_path / "t" / "summary.json").read_text())
    # The confirmation's figures, and its games counted by the match's progress.
    played = [e for e in events if e["kind"] == "match_played" and e["match"] == "confirm"]
    c = tuning.confirmation
    assert c["games"] == 20 and c["wins"] + c["draws"] + c["losses"] == 20, c
    assert played[0]["result"] == c
    progress = [e for e in events if e["kind"] == "match_progress" and e["match"] == "confirm"]
    assert progress[-1]["done"] == progress[-1]["total"] == 20
    aa = [e for e in events if e["kind"] == "match_played" and e["match"] == "aa"][0]
    assert aa["result"]["games"] == 8 and aa["check"]["verdict"] == tuning.aa["check"]["verdict"]
    # Run again in the same folder: refused (it holds a run), resumed at once with resume=True.
    with pytest.raises(ValueError, match="already holds a tuning run"):
        joute.tune(spec(), out=tmp_path / "t", progress=False)
    again = joute.tune(spec(), out=tmp_path / "t", resume=True, progress=False)
    assert again.weights == tuning.weights


def test_a_keyboardinterrupt_stops_the_run_resumably(tmp_path, monkeypatch):
    # The whole run from the spec as a dict, in its default folder (reports/NAME).
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 on
    monkeypatch.chdir(tmp_path)
    whole = joute.tune(tomllib.loads(spec()), threads=1, progress=False)
    assert whole.folder == Path("reports") / "t" and (tmp_path / "reports/t/summary.json").exists()

    def interrupt(event):
        if event["kind"] == "step" and event["candidate"] == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as err:
        joute.tune(spec(), out=tmp_path / "t", threads=1, callback=interrupt, progress=False)
    assert "can be resumed" in str(err.value), err.value
    assert not (tmp_path / "t" / "summary.json").exists()
    events = []
    resumed = joute.tune(
        spec(), out=tmp_path / "t", threads=1, resume=True, callback=events.append, progress=False
    )
    start = events[0]
    assert start["kind"] == "start" and start["resumed"] and start["candidates"] == 2, start
    assert [e["candidate"] for e in events if e["kind"] == "step"] == [3, 4]
    assert resumed.weights == whole.weights
    assert [h["theta"] for h in resumed.history] == [h["theta"] for h in whole.history]


def test_a_callback_that_raises_stops_the_run_with_its_exception(tmp_path):
    def broken(event):
        if event["kind"] == "step":
            raise RuntimeError("the display broke")

    with pytest.raises(RuntimeError, match="the display broke"):
        joute.tune(spec(), out=tmp_path / "t", threads=1, callback=broken, progress=False)
    # Stopped right after the first candidate, resumable from there.
    events = []
    joute.tune(spec(), out=tmp_path / "t", resume=True, callback=events.append, progress=False)
    assert events[0]["candidates"] == 1
    assert [e["candidate"] for e in events if e["kind"] == "step"] == [2, 3, 4]


def test_a_bad_tuning_spec_raises_valueerror_with_file_line_and_column(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(spec().replace('name = "own_threes"', 'name = "corners"'))
    with pytest.raises(ValueError) as err:
        joute.tune(bad, out=tmp_path / "out", progress=False)
    text = str(err.value)
    assert "bad.toml:25:8" in text, text
    assert "'corners' is not a feature of connect4" in text, text
    assert not (tmp_path / "out").exists()


def test_rate_of_a_match_log_gives_the_runs_own_ratings(tmp_path):
    run = joute.match(
        "connect4", "alphabeta:1", "alphabeta:3", games=20, out=tmp_path / "m", progress=False
    )
    rated = joute.rate([run.folder / "games.jsonl"])
    assert rated.games == 20
    assert [(r["name"], r["elo"], r["error"]) for r in rated] == [
        (r["name"], r["elo"], r["error"]) for r in run.ratings
    ]


def test_rate_of_a_pgn_follows_the_logistic_formula(tmp_path):
    # Ten games, each engine with White five times: A scores 7 of 10.
    results = ["1-0"] * 4 + ["1/2-1/2"]  # A as White: 4 wins, 1 draw
    results_b = ["0-1"] * 2 + ["1/2-1/2"] + ["1-0"] * 2  # A as Black: 2 wins, 1 draw, 2 losses
    games = [("A", "B", r) for r in results] + [("B", "A", r) for r in results_b]
    pgn = "".join(
        f'[Event "t"]\n[White "{w}"]\n[Black "{b}"]\n[Result "{r}"]\n\n{r}\n\n'
        for w, b, r in games
    )
    (tmp_path / "games.pgn").write_text(pgn)
    rated = joute.rate([tmp_path / "games.pgn"], first_move="ignore")
    by_name = {r["name"]: r for r in rated}
    p = 7 / 10
    expected = 400 * math.log10(p / (1 - p))
    assert by_name["A"]["elo"] - by_name["B"]["elo"] == pytest.approx(expected, abs=0.15)
    # The ratings average 0 unless anchored; anchored, B sits where it is told.
    assert by_name["A"]["elo"] + by_name["B"]["elo"] == pytest.approx(0, abs=0.15)
    anchored = joute.rate(tmp_path / "games.pgn", first_move="ignore", anchor="B=1000")
    anchored = {r["name"]: r["elo"] for r in anchored}
    assert anchored["B"] == pytest.approx(1000, abs=0.15)
    assert anchored["A"] - anchored["B"] == pytest.approx(expected, abs=0.15)
    with pytest.raises(ValueError, match="not among the rated engines"):
        joute.rate(tmp_path / "games.pgn", anchor="C=0")
    (tmp_path / "nothing.txt").write_text("")
    with pytest.raises(ValueError, match="unknown record file"):
        joute.rate(tmp_path / "nothing.txt")
