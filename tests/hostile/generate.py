#!/usr/bin/env python3
"""Writes tests/hostile/cases.toml: the corpus of hostile inputs that tests/hostile.rs runs.

Every case must be refused with exit 2, one line on stderr of at most 300 characters, no raw
control character, no panic, within seconds, and nothing written but the case's own inputs.
Edit this script, not the TOML, and run it again: python3 tests/hostile/generate.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
cases = []


def case(name, args, expect=None, **files):
    c = {"name": name, "args": args}
    if expect:
        c["expect"] = expect
    for k, v in files.items():
        c[k] = v
    cases.append(c)


def toml_str(s):
    return json.dumps(s, ensure_ascii=False)


ESC = "\u001b[2J"
LONG = "x" * 5000
HUGE_INT = "9223372036854775807"

# ------------------------------------------------------------------ the command line
for game in ["chess", "", "othello8", "morpion-16x16-5", "morpion-3x3-9", "morpion-0x3-2",
             "random-tree-0x5", "random-tree-9x99", "connect4" + ESC, LONG, "morpion-3x3",
             "random-tree-2x2-s", "othello othello"]:
    case(f"perft: game {game[:20]!r}", ["perft", game, "3"])
for depth in ["0", "-1", "65", "1e3", "three", HUGE_INT, "", "3.5", "0x10"]:
    case(f"perft: depth {depth[:20]!r}", ["perft", "othello", depth])
for threads in ["0", "-2", "1025", "many", HUGE_INT]:
    case(f"perft: threads {threads[:20]!r}", ["perft", "connect4", "3", "--threads", threads])
for pos in ["y" * 64 + " X", "-" * 63 + " X", "-" * 64 + " X", "X" * 64 + " Z", "X" * 64 + " X extra",
            "XO" * 32 + "Q", ESC * 10, "8888888", "0", "12345678", "4444444", "a1 a1", "z9", LONG]:
    case(f"perft: position {pos[:24]!r}", ["perft", "othello" if len(pos) >= 60 else "connect4", "2", "--position", pos])
for pos in ["a1 a1", "k1", "a0", "XXX/OOO/XXX/O", "a1a2a3a4a5", "b2" + ESC]:
    case(f"perft: morpion position {pos[:20]!r}", ["perft", "morpion", "2", "--position", pos])
engines = ["alphabeta:0", "alphabeta:65", "alphabeta:-1", "alphabeta", "minimax:n0", "pvs:n-5",
           "pvs:n" + HUGE_INT, "pvs:0s", "pvs:1e-300s", "pvs:1e20s", "pvs:NaNs", "pvs:infs",
           "mcts:0", "mcts:" + HUGE_INT, "random:3", "rand", "alphabeta:3:", "alphabeta:3:/no/such.toml",
           "alphabeta:3:" + LONG, ":3", "", "alphabeta:3:4:5", "random" + ESC, "bisection:abc",
           "pvs:200us", "pvs:5m", "alphabeta:3:threats=1", "pvs:3:threats=2", "pvs:3:vcf=50",
           "pvs:3:threats=1:vcf=-1", "pvs:3:threats=1:vcf=" + HUGE_INT, "mcts:10:vcf=5",
           "pvs:3:vct=500", "pvs:3:threats=1:vct=-1", "pvs:3:threats=1:vct=" + HUGE_INT, "mcts:10:vct=5",
           "pvs:3:lmr=1", "pvs:3:threats=1:lmr=2", "mcts:10:lmr=1"]
for e in engines:
    case(f"match: engine {e[:30]!r}", ["match", "connect4", e, "random"])
for e in ["alphabeta:0", "nothing", "mcts:-3"]:
    case(f"play: engine {e!r}", ["play", "othello", e, "random"])
for args, label in [
    (["--games", "0"], "no games"), (["--games", "7"], "odd games"), (["--games", "-5"], "negative games"),
    (["--games", HUGE_INT], "huge games"), (["--games", "1e6"], "float games"),
    (["--openings", "300"], "long openings"), (["--openings", "-1"], "negative openings"),
    (["--seed", "-1"], "negative seed"), (["--seed", "1e3"], "float seed"),
    (["--sprt", "10,0"], "sprt bounds reversed"), (["--sprt", "0,5000"], "sprt bound huge"),
    (["--sprt", "0"], "sprt one bound"), (["--sprt", "a,b"], "sprt words"), (["--sprt", "nan,1"], "sprt nan"),
    (["--sprt", "0,inf"], "sprt inf"), (["--sprt", "elo0=0,elo1=10,alfa=0.05"], "sprt unknown key"),
    (["--sprt", "elo0=0,elo1=10,model=" + ESC], "sprt model escape"), (["--sprt", "elo0=" + LONG], "sprt long key value"),
    (["--sprt", "elo0=0,elo1=10,alpha=1"], "sprt alpha out of range"), (["--sprt", "0,10,probit"], "sprt unknown model"),
    (["--sprt", "elo0=0,=,elo1=1"], "sprt empty key"), (["--report-every", "-1"], "negative report interval"),
    (["--threads", "0"], "no threads"), (["--threads", "-1"], "negative threads"),
    (["--threads", "5000"], "too many threads"), (["--resume"], "resume without out"),
    (["-c", "2"], "short flag"), (["-concurrency", "2"], "one-dash long flag"), (["--thread", "2"], "typo"),
    (["--games"], "missing value"), (["--out"], "missing out"), (["--depth", "3"], "foreign flag"),
    (["--games", "10", "--games", "20"], "flag twice"),
]:
    case(f"match: {label}", ["match", "connect4", "random", "random"] + args)
for args in [["match"], ["match", "connect4"], ["match", "connect4", "random"], ["play", "connect4"],
             ["perft"], ["perft", "othello"], ["features"], ["solve"], ["analyze"], ["tune"], ["report"],
             ["run", "a.toml", "b.toml"], ["bench", "extra"], ["frobnicate"], ["matc", "connect4"],
             ["--threads", "2", "run"], ["run", "--shard", "3/3"], ["run", "--shard", "0/0"],
             ["run", "--shard", "a/b"], ["run", "--shard", "1"], ["run", "--shard", "-1/4"],
             ["run", "--shard", HUGE_INT + "/2"]]:
    case(f"usage: {' '.join(args)[:40]}", args)
for opening in ["8", "1 2 3 8", "44444444", "z", ESC, "a1", LONG[:300]]:
    case(f"play: opening {opening[:20]!r}", ["play", "connect4", "random", "random", "--opening", opening])
for opening in ["a1", "f5 f5", "pass", "f5 d6 c3 d3 c4 f4 f6 f3 e6 e7 z9", "5 d6", "\u00e95", "f\u00ff"]:
    case(f"play: othello opening {opening[:20]!r}", ["play", "othello", "random", "random", "--opening", opening])
for a in [["random-forest"], ["random-tree", "--branching", "1"], ["random-tree", "--branching", "99"],
          ["random-tree", "--depth", "0"], ["random-tree", "--depth", "99"], ["random-tree", "--trees", "0"],
          ["random-tree", "--branching", "10", "--depth", "9"], ["random-tree", "--trees", "-1"],
          ["random-tree", "--seed", "x"]]:
    case(f"analyze: {' '.join(a)[:40]}", ["analyze"] + a)
for a in [["othello", "--time", "0s"], ["othello", "--time", "2d"], ["othello", "--time", "-1s"],
          ["connect4", "--nodes", "0"], ["connect4", "--nodes", "-1"], ["connect4", "--hash", "0"],
          ["connect4", "--hash", "999999"], ["othello"], ["morpion-15x15-5"], ["connect4", "12121212"],
          ["connect4", "12345678"], ["othello", "-" * 64], ["chess"], ["connect4", "--file", "missing.txt"],
          ["morpion", "--file", "suite.txt"], ["connect4", "4453", "--file", "suite.txt"],
          ["connect4", "--file", "suite.txt", "--time", "1s"], ["connect4", "--file", "."],
          ["othello", "--threads", "0"], ["othello", "--threads", "257"], ["othello", "--threads", "two"],
          ["connect4", "--threads", "2"]]:
    case(f"solve: {' '.join(a)[:40]}", ["solve"] + a, **({"suite": "4453 1\n4453 x\n"} if "suite.txt" in a else {}))
for g in ["chess", "", ESC]:
    case(f"features: game {g!r}", ["features", g])
case("report: missing log", ["report", "nope.jsonl"])
case("report: a folder", ["report", "."])
case("report: no run.json", ["report", "run/games.jsonl"], log="{\"id\":0}\n")
case("tune: missing spec", ["tune", "nope.toml"])
case("run: missing spec", ["run", "nope.toml"])
case("run: a folder as spec", ["run", "."])
case("run: spec is binary", ["run", "spec.toml"], spec_hex="00ff10fe80c3")
case("run: empty spec", ["run", "spec.toml"], spec="")
case("run: output folder is a file", ["run", "spec.toml", "--out", "spec.toml"])  # spec filled below

for args, label in [(["connect4", "--count", "0"], "count 0"), (["connect4", "--plies", "3"], "plies 3"),
                    (["connect4", "--plies", "9"], "plies 9"), (["morpion", "--max-score", "3"], "morpion max score"), (["random-tree-2x3", "--count", "2"], "random tree"),
                    (["othello", "--depth", "0"], "depth 0"), (["othello", "--depth", "40"], "depth 40"),
                    (["connect4", "--max-score", "1.5"], "fractional max score"), (["connect4", "--depth", "3"], "depth for connect4"),
                    (["othello", "--max-score", "nan"], "max score nan"), (["othello", "--count", "-1"], "negative count"),
                    (["chess"], "unknown game")]:
    case(f"openings: {label}", ["openings"] + args)
# ------------------------------------------------------------------ tournament specs
BASE = """name = "t"
game = "connect4"
seed = 1
openings = { plies = 2, count = 2 }

[[engine]]
name = "a"
algorithm = "alphabeta"
depth = 1

[[engine]]
name = "b"
algorithm = "random"
"""
cases[-1]["spec"] = BASE


def spec_case(label, text, expect=None, **extra):
    case(f"spec: {label}", ["run", "spec.toml", "--out", "out"], expect, spec=text, **extra)


def top(key, value):
    return BASE.replace("seed = 1\n", f"seed = 1\n{key} = {value}\n", 1)


def replace(old, new):
    assert old in BASE, old
    return BASE.replace(old, new, 1)


for v in ['""', '"a/b"', '".."', '"."', toml_str("n" * 70000), toml_str("x" + ESC), "3", "[]", '"tab\\tname"']:
    spec_case(f"name = {v[:20]}", replace('name = "t"', f"name = {v}"), "name")
for v in ['"chess"', '""', "4", toml_str(ESC), '"morpion-99x99-5"', '"random-tree-1x1"']:
    spec_case(f"game = {v[:20]}", replace('game = "connect4"', f"game = {v}"), "game")
for v in ["-1", "1.5", '"one"', "18446744073709551616", "[]"]:
    spec_case(f"seed = {v[:20]}", replace("seed = 1", f"seed = {v}"), "seed")
for v in ['"swiss"', "1", '""']:
    spec_case(f"format = {v}", top("format", v), "format")
spec_case("gauntlet without challengers", top("format", '"gauntlet"'), "challengers")
for v in ['["zz"]', '["a", "b"]', "[]", '"a"', "[1]"]:
    spec_case(f"challengers = {v}", top("format", '"gauntlet"') .replace("seed = 1\n", f"seed = 1\nchallengers = {v}\n", 1), "challengers")
spec_case("challengers without gauntlet", top("challengers", '["a"]'), "challengers")
for v in ["0", "-2", "7", HUGE_INT, "1.5", '"ten"', "100000000"]:
    spec_case(f"games = {v[:20]}", replace("openings = { plies = 2, count = 2 }", f"openings = {{ plies = 2 }}\ngames = {v}"), "games")
spec_case("games and count disagree", top("games", "100"), "games")
for v in ["0", "-1", "10001", '"two"', HUGE_INT]:
    spec_case(f"rounds = {v[:20]}", top("rounds", v), "rounds")
spec_case("rounds and games disagree", replace("openings = { plies = 2, count = 2 }", "openings = { plies = 2 }\ngames = 6\nrounds = 2"), "rounds")
for v in ['"zz"', '""', "1", toml_str(ESC)]:
    spec_case(f"anchor = {v[:10]}", top("anchor", v), "anchor")
for v in ["1e308", "-1e308", "nan", "inf", "10001", '"zero"']:
    # A number is echoed as written, never as its 309 digits.
    spec_case(f"anchor_elo = {v}", top("anchor", '"a"').replace("seed = 1\n", f"seed = 1\nanchor_elo = {v}\n", 1),
              f"anchor_elo is {v};" if v in ("1e308", "-1e308", "10001") else "anchor_elo")
spec_case("anchor_elo without anchor", top("anchor_elo", "5"), "anchor_elo")
for v in ["{ plies = -1, count = 2 }", "{ plies = 201, count = 2 }", "{ plies = 2, count = 0 }",
          "{ plies = 2, count = -5 }", "{ plies = 2, count = 2000000 }", "{ plies = 2 }", "{ count = 2 }",
          "{ plies = 2, count = 2, file = \"o.txt\" }", "{ plies = 2, count = 2, balance_depth = 9 }",
          "{ plies = 2, count = 2, balance_depth = -1 }", "{ plies = 2, count = 2, max_imbalance = 0 }",
          "{ plies = 2, count = 2, max_imbalance = -5 }", "{ plies = 2, count = 2, max_imbalance = nan }",
          "{ plies = 2, count = 2, colour = 1 }", "{ plies = \"two\", count = 2 }", "5", "[]",
          "{ plies = 60, count = 2 }", "{ plies = 2, count = 500 }", "{ file = \"missing.txt\" }",
          "{ file = \"\" }", "{ file = \".\" }", "{ file = \"o.txt\", count = 0 }", "{ file = \"o.txt\", count = 99 }",
          "{ file = \"o.txt\", balance_depth = 2 }"]:
    spec_case(f"openings = {v[:40]}", replace("openings = { plies = 2, count = 2 }", f"openings = {v}"),
              "colour" if "colour" in v else "openings", openings="4453\n3344\n")
spec_case("no openings", replace("openings = { plies = 2, count = 2 }\n", ""), "openings")
for v in ['{ file = "o.txt", order = "shuffled" }', '{ file = "o.txt", order = 1 }', '{ file = "o.txt", order = "" }',
          '{ file = "o.txt", start = -1 }', '{ file = "o.txt", start = 2 }', '{ file = "o.txt", start = 1, count = 2 }',
          '{ file = "o.txt", start = "one" }', '{ file = "o.txt", start = 9223372036854775807 }',
          '{ plies = 2, count = 2, order = "random" }', '{ plies = 2, count = 2, start = 1 }']:
    spec_case(f"openings = {v[:48]}", replace("openings = { plies = 2, count = 2 }", f"openings = {v}"),
              "openings", openings="4453\n3344\n")
spec_case("unknown top key", top("colour", "1"), "colour")
spec_case("not toml", "name = \n[[[", None)
spec_case("duplicate key", BASE + 'name = "u"\n', None)
spec_case("one engine", BASE.split("[[engine]]\nname = \"b\"")[0], "engine")
spec_case("no engines", BASE.split("[[engine]]")[0], "engine")
spec_case("65 engines", BASE + "".join(f'\n[[engine]]\nname = "e{i}"\nalgorithm = "random"\n' for i in range(64)), "engine")
spec_case("engines of two names", BASE.replace('name = "b"', 'name = "a"'), "two engines")
for key, value in [("name", '""'), ("name", '"a,b"'), ("name", toml_str("e" + ESC)), ("name", toml_str("n" * 65)),
                   ("name", "7"), ("algorithm", '"alphabeat"'), ("algorithm", '""'), ("algorithm", toml_str("random" + ESC)),
                   ("depth", "0"), ("depth", "65"), ("depth", "-3"), ("depth", '"deep"'), ("depth", "2.5"),
                   ("nodes", "0"), ("nodes", "-1"), ("nodes", HUGE_INT), ("time", '"0s"'), ("time", '"1e-300s"'),
                   ("time", '"1e20s"'), ("time", '"fast"'), ("time", '"5"'), ("time", '"nans"'), ("time", "5"),
                   ("playouts", "10"), ("ordering", '"random"'), ("ordering", "1"), ("fail_soft", '"yes"'),
                   ("tt_mib", "0"), ("tt_mib", "2048"), ("tt_mib", "-1"), ("tolerance", "-1"), ("tolerance", "2000000"),
                   ("exploration", "-1"), ("exploration", "1e9"), ("exploration", "nan"), ("tie_break", "2"),
                   ("tree_mib", "64"), ("weights", "3"), ("weights", '"missing.toml"'), ("weights", '""'),
                   ("weights", '"."'), ("weights", "{ nothing = 1 }"), ("weights", "{ centre = \"high\" }"),
                   ("weights", "{ centre = 3e307 }"), ("weights", "{ centre = nan }"), ("weights", "{ centre = inf }"),
                   ("weights", "{ centre = -1e7 }"), ("weights", "[1, 2]"), ("colour", '"red"'),
                   ("threads", "0"), ("threads", "257"), ("threads", "1.5"), ("threads", '"two"'),
                   ("threads", HUGE_INT)]:
    text = BASE.replace('depth = 1\n', f'depth = 1\n{key} = {value}\n', 1) if key not in ("name", "algorithm", "depth") \
        else BASE.replace({"name": 'name = "a"', "algorithm": 'algorithm = "alphabeta"', "depth": "depth = 1"}[key],
                          f"{key} = {value}", 1)
    spec_case(f"engine {key} = {value[:24]}", text, None)
# The threat search's keys: pvs and mtdf only, vcf, vct and lmr with threats, within their ranges.
PVS = BASE.replace('algorithm = "alphabeta"', 'algorithm = "pvs"', 1)
for key, value, on_pvs in [("threats", "true", False), ("vcf", "10", False), ("threats", "1", True),
                           ("threats", '"yes"', True), ("vcf", "-1", True), ("vcf", "1000001", True),
                           ("vcf", HUGE_INT, True), ("vcf", '"many"', True), ("vcf", "50", True),
                           ("vcf", "2.5", True), ("vct", "10", False), ("vct", "-1", True),
                           ("vct", "100000001", True), ("vct", '"many"', True), ("vct", "50", True),
                           ("lmr", "true", False), ("lmr", "true", True), ("lmr", "1", True)]:
    text = (PVS if on_pvs else BASE).replace('depth = 1\n', f'depth = 1\n{key} = {value}\n', 1)
    spec_case(f"{'pvs' if on_pvs else 'alphabeta'} engine {key} = {value[:24]}", text, key)
for key, value in [("playouts", "0"), ("playouts", HUGE_INT), ("playouts", "-3"), ("tree_mib", "0"),
                   ("tree_mib", "5000"), ("depth", "3")]:
    budget = "" if key in ("playouts", "depth") else "playouts = 10\n"
    spec_case(f"mcts {key} = {value[:20]}", BASE.replace('algorithm = "alphabeta"\ndepth = 1',
                                                          f'algorithm = "mcts"\n{budget}{key} = {value}', 1), key)
spec_case("engine without budget", BASE.replace("depth = 1\n", "", 1), "budget")
spec_case("random with depth", BASE.replace('algorithm = "random"', 'algorithm = "random"\ndepth = 2'), "depth")
for v in ["{ elo0 = 10, elo1 = 0 }", "{ elo0 = 0, elo1 = 5000 }", "{ elo0 = 0 }", "{ elo0 = nan, elo1 = 5 }",
          "{ elo0 = 0, elo1 = 5, alpha = 0 }", "{ elo0 = 0, elo1 = 5, alpha = 0.7 }", "{ elo0 = 0, elo1 = 5, beta = -1 }",
          "{ elo0 = 0, elo1 = 5, model = \"bayes\" }", "{ elo0 = 0, elo1 = 5, extra = 1 }", "5"]:
    spec_case(f"sprt = {v[:36]}", top("sprt", v), "extra" if "extra" in v else "elo1" if "elo0 = 0 }" in v else "sprt")
for v, expect in [("{ elo0 = 0, elo1 = 1e308 }", "[0, 1e308]"), ("{ elo0 = -1e308, elo1 = 5 }", "[-1e308, 5]"),
                  ("{ elo0 = 0, elo1 = 5, alpha = 1e308 }", "1e308 is out of range"),
                  ("{ elo0 = 0, elo1 = 5, beta = -1.5e-300 }", "-1.5e-300 is out of range")]:
    spec_case(f"sprt = {v[:36]} (echoed as written)", top("sprt", v), expect)
spec_case("sprt with three engines", top("sprt", "{ elo0 = 0, elo1 = 5 }") + '\n[[engine]]\nname = "c"\nalgorithm = "random"\n', "sprt")
# [adjudication]
for v, expect in [("{ connect4_nodes = 0 }", "adjudication.connect4_nodes"),
                  ("{ connect4_nodes = -5 }", "adjudication.connect4_nodes"),
                  ("{ connect4_nodes = " + HUGE_INT + " }", "adjudication.connect4_nodes"),
                  ("{ othello_empties = 14 }", "adjudication.othello_empties"),
                  ("{ morpion_nodes = 1000 }", "adjudication.morpion_nodes"),
                  ("{ tablebase = true }", "tablebase"),
                  ("{ draw_score = 10 }", "draw_score"),
                  ("5", "adjudication")]:
    spec_case(f"adjudication = {v[:36]}", top("adjudication", v), expect)
spec_case("[adjudication] connect4_nodes = 1.5", BASE + "\n[adjudication]\nconnect4_nodes = 1.5\n", "connect4_nodes")
spec_case("[adjudication] solver = \"yes\"", BASE + "\n[adjudication]\nsolver = \"yes\"\n", "solver")
for v in ["0", "25", "-1", "64", HUGE_INT]:
    spec_case(f"othello adjudication empties = {v[:20]}",
              top("adjudication", f"{{ othello_empties = {v} }}").replace('game = "connect4"', 'game = "othello"'),
              "adjudication.othello_empties")
spec_case("adjudication on a random tree", top("adjudication", "{ solver = true }").replace('game = "connect4"', 'game = "random-tree-3x4"'), "adjudication")
spec_case("tuning spec given to run", open(os.path.join(HERE, "..", "..", "tournaments", "tune-connect4.toml")).read(), "joute tune")

# ------------------------------------------------------------------ outside engines
# An outside program that is never started: each case is refused while the spec is read. (A
# program refused at the start of the run writes the run folder: tests/outside.rs has those.)
OUT_BASE = """name = "t"
game = "connect4"
seed = 1
openings = { plies = 2, count = 2 }

[[engine]]
name = "a"
command = "sh"
args = ["-c", "exit 0"]
protocol = "line"

[[engine]]
name = "b"
algorithm = "alphabeta"
depth = 1
"""


def outside_case(label, old, new, where, key, base=OUT_BASE):
    """A spec of `base` with `old` replaced by `new`; the error must name the place where
    `where` begins in the new text, first looked for in `new` (file:line:column), and the key."""
    assert old in base, old
    text = base.replace(old, new, 1)
    inserted = base.index(old)
    at = text.find(where, inserted, inserted + len(new))
    if at < 0:
        at = text.index(where)
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    spec_case(f"outside: {label}", text, f"spec.toml:{line}:{column}: key '{key}'")


OUT_OTHELLO = OUT_BASE.replace('game = "connect4"', 'game = "othello"', 1)
for label, old, new, where, key, base in [
    ("missing program", 'command = "sh"', 'command = "./no-such-engine"', '"./no-such-engine"', "engine[1].command", OUT_BASE),
    ("program not in PATH", 'command = "sh"', 'command = "no-such-engine-joute"', '"no-such-engine-joute"', "engine[1].command", OUT_BASE),
    ("program not executable", 'command = "sh"', 'command = "./spec.toml"', '"./spec.toml"', "engine[1].command", OUT_BASE),
    ("empty command", 'command = "sh"', 'command = ""', '""', "engine[1].command", OUT_BASE),
    ("command a folder", 'command = "sh"', 'command = "./"', '"./"', "engine[1].command", OUT_BASE),
    ("unknown protocol", 'protocol = "line"', 'protocol = "uci"', '"uci"', "engine[1].protocol", OUT_BASE),
    ("no protocol", 'protocol = "line"\n', "", "[[engine]]", "engine[1].protocol", OUT_BASE),
    ("gtp on connect4", 'protocol = "line"', 'protocol = "gtp"', '"gtp"', "engine[1].protocol", OUT_BASE),
    ("nboard on connect4", 'protocol = "line"', 'protocol = "nboard"', '"nboard"', "engine[1].protocol", OUT_BASE),
    ("gomocup on othello", 'protocol = "line"', 'protocol = "gomocup"', '"gomocup"', "engine[1].protocol", OUT_OTHELLO),
    ("option an array", 'protocol = "line"', 'protocol = "line"\noptions = { hash = [1, 2] }', "{ hash", "engine[1].options.hash", OUT_BASE),
    ("option a table", 'protocol = "line"', 'protocol = "line"\noptions = { hash = { mib = 1 } }', "{ hash", "engine[1].options.hash", OUT_BASE),
    ("option with a space (line)", 'protocol = "line"', 'protocol = "line"\noptions = { book = "a b" }', "{ book", "engine[1].options.book", OUT_BASE),
    ("option with a line end", 'protocol = "line"', 'protocol = "gtp"\noptions = { book = "a\\nquit" }', "{ book", "engine[1].options.book", OUT_OTHELLO),
    ("option name with a space", 'protocol = "line"', 'protocol = "line"\noptions = { "a b" = 1 }', '{ "a b"', "engine[1].options.a b", OUT_BASE),
    ("options not a table", 'protocol = "line"', 'protocol = "line"\noptions = 3', "3", "engine[1].options", OUT_BASE),
    ("tc ten", "seed = 1", 'seed = 1\ntc = "ten"', '"ten"', "tc", OUT_BASE),
    ("tc -1", "seed = 1", 'seed = 1\ntc = "-1"', '"-1"', "tc", OUT_BASE),
    ("tc 5/", "seed = 1", 'seed = 1\ntc = "5/"', '"5/"', "tc", OUT_BASE),
    ("tc 0", "seed = 1", 'seed = 1\ntc = "0"', '"0"', "tc", OUT_BASE),
    ("tc 0/10", "seed = 1", 'seed = 1\ntc = "0/10"', '"0/10"', "tc", OUT_BASE),
    ("tc a number", "seed = 1", "seed = 1\ntc = 10", "10", "tc", OUT_BASE),
    ("st without unit", "seed = 1", 'seed = 1\nst = "100"', '"100"', "st", OUT_BASE),
    ("st zero", "seed = 1", 'seed = 1\nst = "0ms"', '"0ms"', "st", OUT_BASE),
    ("tc and st", "seed = 1", 'seed = 1\ntc = "10+0.1"\nst = "100ms"', '"100ms"', "st", OUT_BASE),
    ("timemargin without a clock", "seed = 1", 'seed = 1\ntimemargin = "50ms"', '"50ms"', "timemargin", OUT_BASE),
    ("timemargin not a time", "seed = 1", 'seed = 1\nst = "100ms"\ntimemargin = "soon"', '"soon"', "timemargin", OUT_BASE),
    ("depth for gtp", 'protocol = "line"', 'protocol = "gtp"\ndepth = 3', "3", "engine[1].depth", OUT_OTHELLO),
    ("nodes for gtp", 'protocol = "line"', 'protocol = "gtp"\nnodes = 1000', "1000", "engine[1].nodes", OUT_OTHELLO),
    ("depth 0", 'protocol = "line"', 'protocol = "line"\ndepth = 0', "0", "engine[1].depth", OUT_BASE),
    ("protocol_version for line", 'protocol = "line"', 'protocol = "line"\nprotocol_version = 1', "1", "engine[1].protocol_version", OUT_BASE),
    ("nboard protocol_version 3", 'protocol = "line"', 'protocol = "nboard"\nprotocol_version = 3', "3", "engine[1].protocol_version", OUT_OTHELLO),
    ("time on an outside engine", 'protocol = "line"', 'protocol = "line"\ntime = "1s"', '"1s"', "engine[1].time", OUT_BASE),
    ("algorithm with command", 'protocol = "line"', 'protocol = "line"\nalgorithm = "alphabeta"', '"alphabeta"', "engine[1].algorithm", OUT_BASE),
    ("protocol on a built-in engine", "depth = 1", 'depth = 1\nprotocol = "line"', '"line"', "engine[2].protocol", OUT_BASE),
    ("args on a built-in engine", "depth = 1", 'depth = 1\nargs = ["-x"]', '["-x"]', "engine[2].args", OUT_BASE),
    ("stall_timeout without unit", 'protocol = "line"', 'protocol = "line"\nstall_timeout = "5"', '"5"', "engine[1].stall_timeout", OUT_BASE),
    ("stall_timeout zero", 'protocol = "line"', 'protocol = "line"\nstall_timeout = "0s"', '"0s"', "engine[1].stall_timeout", OUT_BASE),
    ("working_dir missing", 'protocol = "line"', 'protocol = "line"\nworking_dir = "no/such/folder"', '"no/such/folder"', "engine[1].working_dir", OUT_BASE),
    ("args not strings", 'args = ["-c", "exit 0"]', "args = [1, 2]", "1, 2]", "engine[1].args", OUT_BASE),
    ("memory_limit no size", 'protocol = "line"', 'protocol = "line"\nmemory_limit = "5 parsecs"', '"5 parsecs"', "engine[1].memory_limit", OUT_BASE),
    ("memory_limit a number", 'protocol = "line"', 'protocol = "line"\nmemory_limit = 512', "512", "engine[1].memory_limit", OUT_BASE),
    ("write_limit zero", 'protocol = "line"', 'protocol = "line"\nwrite_limit = "0MiB"', '"0MiB"', "engine[1].write_limit", OUT_BASE),
    ("write_limit huge", 'protocol = "line"', 'protocol = "line"\nwrite_limit = "99999999999TiB"', '"99999999999TiB"', "engine[1].write_limit", OUT_BASE),
    ("process_limit zero", 'protocol = "line"', 'protocol = "line"\nprocess_limit = 0', "0", "engine[1].process_limit", OUT_BASE),
    ("process_limit huge", 'protocol = "line"', 'protocol = "line"\nprocess_limit = ' + HUGE_INT, HUGE_INT, "engine[1].process_limit", OUT_BASE),
    ("cpu_limit without unit", 'protocol = "line"', 'protocol = "line"\ncpu_limit = "10"', '"10"', "engine[1].cpu_limit", OUT_BASE),
    ("cpu_limit over a week", 'protocol = "line"', 'protocol = "line"\ncpu_limit = "200h"', '"200h"', "engine[1].cpu_limit", OUT_BASE),
    ("cpu_limit nan", 'protocol = "line"', 'protocol = "line"\ncpu_limit = "nanm"', '"nanm"', "engine[1].cpu_limit", OUT_BASE),
    ("confine not a boolean", 'protocol = "line"', 'protocol = "line"\nconfine = "yes"', '"yes"', "engine[1].confine", OUT_BASE),
    ("readable without confine", 'protocol = "line"', 'protocol = "line"\nreadable = ["."]', '["."]', "engine[1].readable", OUT_BASE),
    ("readable missing", 'protocol = "line"', 'protocol = "line"\nconfine = true\nreadable = ["no/such/file"]', '"no/such/file"', "engine[1].readable", OUT_BASE),
    ("restart unknown", 'protocol = "line"', 'protocol = "line"\nrestart = "always"', '"always"', "engine[1].restart", OUT_BASE),
    ("pause on a built-in engine", "depth = 1", 'depth = 1\npause = true', "true", "engine[2].pause", OUT_BASE),
    ("[outside] unknown key", "count = 2 }\n", 'count = 2 }\n[outside]\nmemory = "1GiB"\n', "memory", "outside.memory", OUT_BASE),
    ("[outside] bad memory_limit", "count = 2 }\n", 'count = 2 }\n[outside]\nmemory_limit = "-1MiB"\n', '"-1MiB"', "outside.memory_limit", OUT_BASE),
    ("affinity not a boolean", "seed = 1", 'seed = 1\naffinity = 2', "2", "affinity", OUT_BASE),
]:
    outside_case(label, old, new, where, key, base)
for engine, expect in [("proto=line,name=x", "cmd=PROGRAM is missing"), ("cmd=sh,proto=uci", "unknown protocol 'uci'"),
                       ("cmd=sh", "proto=PROTOCOL is missing"), ("cmd=sh,proto=line,colour=red", "unknown key 'colour'"),
                       ("cmd=sh,proto=line,depth=0", "depth is '0'"), ("cmd=sh,proto=gtp,depth=3", "cannot pass a depth"),
                       ("cmd=sh,proto=line,stall=5", "needs a unit"), ("cmd=sh,proto=line,option.book=a b", "white space"),
                       ("cmd=sh,proto=line,option.a b=1", "option name 'a b'"), ("cmd=./no-such-engine,proto=line", "no program"),
                       ("cmd=sh,proto=line,dir=no/such/folder", "no folder"), ("cmd=sh,proto=line,name=", "engine name"),
                       ("cmd=sh,proto=gtp", "plays othello, not connect4"), ("cmd=sh,proto=line,version=1", "version belongs to nboard"),
                       ("cmd=sh,proto=line,nonsense", "is not KEY=VALUE"),
                       ("cmd=sh,proto=line,memory_limit=lots", "memory_limit: size 'lots'"),
                       ("cmd=sh,proto=line,process_limit=-3", "process_limit is -3"),
                       ("cmd=sh,proto=line,cpu_limit=5", "needs a unit"),
                       ("cmd=sh,proto=line,confine=maybe", "confine is 'maybe'"),
                       ("cmd=sh,proto=line,readable=.", "goes with confine=true"),
                       ("cmd=sh,proto=line,restart=never", "unknown restart 'never'")]:
    case(f"match: outside engine {engine!r}", ["match", "connect4", engine, "random"], expect)
for flag, value in [("--tc", "ten"), ("--tc", "-1"), ("--st", "100"), ("--timemargin", "50ms")]:
    case(f"match: {flag} {value}", ["match", "connect4", "random", "random", flag, value])
case("match: --tc and --st", ["match", "connect4", "random", "random", "--tc", "10", "--st", "100ms"])

# ------------------------------------------------------------------ tuning specs
TBASE = """name = "t"
game = "connect4"
seed = 5
method = "hill-climb"

[engine]
algorithm = "alphabeta"
depth = 2

[openings]
plies = 6

[budget]
games = 3000

[confirm]
games = 200
aa_games = 40

[[param]]
name = "own_threes"
min = -20
max = 40
step = 4
"""


def tune_case(label, text, expect=None):
    case(f"tune: {label}", ["tune", "spec.toml", "--out", "out"], expect, spec=text)


def tswap(old, new):
    assert old in TBASE, old
    return TBASE.replace(old, new, 1)


for old, new in [
    ('method = "hill-climb"', 'method = "annealing"'), ('method = "hill-climb"', 'method = "spsa"'),
    ('method = "hill-climb"', "method = 3"), ('name = "t"', 'name = ""'), ('name = "t"', f'name = {toml_str("n" * 70)}'),
    ('game = "connect4"', 'game = "go"'), ("seed = 5", "seed = -5"),
    ('algorithm = "alphabeta"\ndepth = 2', 'algorithm = "random"'), ('algorithm = "alphabeta"\ndepth = 2', 'algorithm = "alphabeta"'),
    ("depth = 2", "depth = 0"), ("depth = 2", 'depth = 2\nname = "x"'), ("depth = 2", 'depth = 2\nweights = "missing.toml"'),
    ("depth = 2", "depth = 2\nweights = { centre = 3e307 }"), ("plies = 6", "plies = 0"), ("plies = 6", "plies = 100"),
    ("plies = 6", "plies = -1"), ("plies = 6", "plies = 500"), ("plies = 6", "plies = 6\nbalance_depth = 12"),
    ("plies = 6", "plies = 6\nmax_imbalance = -1"), ("games = 3000", "games = 0"), ("games = 3000", "games = -1"),
    ("games = 3000", "games = 200"), ("games = 3000", f"games = {HUGE_INT}"), ("games = 3000", "iterations = 0"),
    ("[budget]\ngames = 3000", "[budget]"), ("games = 200", "games = 201"), ("games = 200", "games = 0"),
    ("aa_games = 40", "aa_games = 41"), ("aa_games = 40", "aa_games = 40\nplies = 0"),
    ('name = "own_threes"', 'name = "corners"'), ('name = "own_threes"', 'name = ""'),
    ("min = -20\nmax = 40", "min = 50\nmax = 40"), ("min = -20", "min = nan"), ("max = 40", "max = 1e308"),
    ("min = -20", "min = -1e9"), ("step = 4", "step = 0"), ("step = 4", "step = -2"), ("step = 4", "step = 1000"),
    ("step = 4", "step = 4\nc_end = 2"), ("step = 4", "step = 4\nr_end = -1"),
    ("step = 4", "step = 4\nr_end = 1e308"), ("step = 4", "step = 4\nextra = 1"),
    ('method = "hill-climb"', 'method = "hill-climb"\nopponent = "pool"'), ('method = "hill-climb"', 'method = "hill-climb"\nopponent = "mirror"'),
    ('method = "hill-climb"', 'method = "hill-climb"\nweights_out = "x.txt"'), ('method = "hill-climb"', 'method = "hill-climb"\nweights_out = ""'),
    ('method = "hill-climb"', 'method = "hill-climb"\nweights_out = "no/such/folder/w.toml"'),
    ('method = "hill-climb"', 'method = "hill-climb"\ncolour = 1'),
]:
    tune_case(f"{new[:40]!r}", tswap(old, new))
for hill in ['neighbour = "all-at-once"', "batch = 0", "max_pairs = 0", "patience = 0", "min_step = 0",
             "min_step = 2", "pairs = 0", "pairs = 10\nmax_pairs = 20", "batch = -1"]:
    tune_case(f"[hill] {hill[:30]}", TBASE + f"\n[hill]\n{hill}\n")
tune_case("[hill] and [sprt] pairs", TBASE + "\n[hill]\npairs = 10\n\n[sprt]\nelo0 = 0\nelo1 = 5\n")
tune_case("[spsa] with hill-climb", TBASE + "\n[spsa]\npairs = 2\n")
tune_case("spsa without iterations", tswap('method = "hill-climb"', 'method = "spsa"'))
tune_case("spsa pairs = 0", tswap('method = "hill-climb"', 'method = "spsa"').replace("games = 3000", "iterations = 10") + "\n[spsa]\npairs = 0\n")
tune_case("spsa with [sprt]", tswap('method = "hill-climb"', 'method = "spsa"').replace("games = 3000", "iterations = 10") + "\n[sprt]\nelo0 = 0\nelo1 = 5\n")
SPSA = tswap('method = "hill-climb"', 'method = "spsa"').replace("games = 3000", "iterations = 10")
tune_case("spsa c_end above max - min", SPSA.replace("step = 4", "step = 4\nc_end = 61"), "at most 60")
tune_case("spsa r_end above 1", SPSA.replace("step = 4", "step = 4\nr_end = 1.5"), "at most 1")
tune_case("[sprt] reversed", TBASE + "\n[sprt]\nelo0 = 5\nelo1 = 0\n")
tune_case("no [[param]]", TBASE.split("[[param]]")[0])
tune_case("a parameter twice", TBASE + '\n[[param]]\nname = "own_threes"\nmin = -20\nmax = 40\nstep = 4\n')
tune_case("pool without opponent", TBASE + '\n[[pool]]\nname = "p"\nalgorithm = "random"\n')
tune_case("pool named tuned", tswap('method = "hill-climb"', 'method = "hill-climb"\nopponent = "pool"') + '\n[[pool]]\nname = "tuned"\nalgorithm = "random"\n')
tune_case("tournament spec given to tune", open(os.path.join(HERE, "..", "..", "tournaments", "quickstart.toml")).read(), "joute run")
for flag in [["--budget", "0"], ["--budget", "-5"], ["--threads", "0"], ["--write-weights", "."],
             ["--write-weights", "no/such/folder/w.toml"], ["--resume", "--budget", "abc"]]:
    case(f"tune: {' '.join(flag)}", ["tune", "spec.toml", "--out", "out"] + flag, spec=TBASE)
case("tune: weights copy exists", ["tune", "spec.toml", "--out", "out", "--write-weights", "w.toml"], "--force",
     spec=TBASE, weights="game = \"connect4\"\n")
case("tune: weights copy over the spec", ["tune", "spec.toml", "--out", "out", "--write-weights", "spec.toml", "--force"],
     "an input of the command", spec=TBASE)

# ------------------------------------------------------------------ weights files
WEIGHTED = BASE.replace("depth = 1\n", 'depth = 1\nweights = "w.toml"\n', 1)
for label, text in [
    ("empty", ""), ("no game", "[weights]\ncentre = 1\n"), ("other game", 'game = "othello"\n[weights]\nmobility = 1\n'),
    ("unknown feature", 'game = "connect4"\n[weights]\ncornerz = 1\n'), ("string weight", 'game = "connect4"\n[weights]\ncentre = "x"\n'),
    ("nan", 'game = "connect4"\n[weights]\ncentre = nan\n'), ("inf", 'game = "connect4"\n[weights]\ncentre = -inf\n'),
    ("3e307", 'game = "connect4"\n[weights]\ncentre = 3e307\n'), ("1e7", 'game = "connect4"\n[weights]\ncentre = 1e7\n'),
    ("huge integer", 'game = "connect4"\n[weights]\ncentre = 99999999999999999999\n'),
    ("not toml", "game = \"connect4\"\n[weights\n"), ("weights not a table", 'game = "connect4"\nweights = 3\n'),
    ("top-level key", 'game = "connect4"\ndepth = 3\n[weights]\ncentre = 1\n'), ("game a number", "game = 4\n[weights]\n"),
    ("control char key", 'game = "connect4"\n[weights]\n"cen\\u001btre" = 1\n'), ("boolean", 'game = "connect4"\n[weights]\ncentre = true\n'),
    ("array", 'game = "connect4"\n[weights]\ncentre = [1]\n'), ("duplicate", 'game = "connect4"\n[weights]\ncentre = 1\ncentre = 2\n'),
    ("morpion variant", 'game = "morpion-4x4-3"\n[weights]\n'), ("long", 'game = "connect4"\n[weights]\n' + "".join(f"f{i} = 1\n" for i in range(300))),
]:
    spec_case(f"weights file: {label}", WEIGHTED, None, weights=text)
spec_case("weights file: binary", WEIGHTED, None, weights_hex="ff00fe00c328")
for label, text in [("bad column", "4458\n"), ("column 0", "40\n"), ("full column", "1111111\n"), ("game over", "1212121\n"),
                    ("duplicate", "4453\n4453\n"), ("letters", "abcd\n"), ("control", "44\u001b53\n"),
                    ("empty", ""), ("only comments", "# nothing\n"), ("long", "4" * 300 + "\n")]:
    spec_case(f"openings file: {label}", replace("openings = { plies = 2, count = 2 }", 'openings = { file = "o.txt" }'),
              None, openings=text)
spec_case("openings file: binary", replace("openings = { plies = 2, count = 2 }", 'openings = { file = "o.txt" }'), None, openings_hex="fffe3434")
OTH = 'name = "o"\ngame = "othello"\nseed = 1\nopenings = { file = "o.txt" }\n\n[[engine]]\nname = "a"\nalgorithm = "random"\n\n[[engine]]\nname = "b"\nalgorithm = "random"\n'
for label, text in [("bad square", "f5 z9\n"), ("illegal move", "a1\n"), ("half a square", "f5d\n"), ("pass not allowed", "pass\n"),
                    ("repeat", "f5d6\nf5 d6\n"), ("game over", "f5 f6 e6 f4 e3 c5 c4 e7 b4 d6 d3 c6 c3 b5 b3 f7 e8 g6 a4 h6 pass\n")]:
    spec_case(f"othello openings file: {label}", OTH, None, openings=text)

for v in ['"sometimes"', '""', "3", "true", toml_str(ESC)]:
    spec_case(f"[ratings] first_move = {v[:12]}", BASE + f"\n[ratings]\nfirst_move = {v}\n", "first_move")
spec_case("[ratings] unknown key", BASE + "\n[ratings]\nwhite_advantage = 30\n", "white_advantage")
spec_case("ratings = 5", top("ratings", "5"), "ratings")

# ------------------------------------------------------------------ long paths, numbers as written
# An error line stays within 300 characters whatever the path's length: the path is cut, the
# reason kept (the number as written).
LONG_PATH = "./" * 1500 + "spec.toml"
case("long path: anchor_elo = 1e308", ["run", LONG_PATH, "--out", "out"], "anchor_elo is 1e308; allowed",
     spec=top("anchor", '"a"').replace("seed = 1\n", "seed = 1\nanchor_elo = 1e308\n", 1))
case("long path: sprt elo1 = 1e308", ["run", LONG_PATH, "--out", "out"], "[0, 1e308] are out of range",
     spec=top("sprt", "{ elo0 = 0, elo1 = 1e308 }"))
case("long path: no such spec", ["run", "./" * 1500 + "nothing.toml", "--out", "out"], "nothing.toml")
case("long path: max_imbalance = -1e308", ["run", LONG_PATH, "--out", "out"], "max_imbalance is -1e308",
     spec=replace("openings = { plies = 2, count = 2 }", "openings = { plies = 2, count = 2, max_imbalance = -1e308 }"))
for key, v in [("exploration", "1e308"), ("exploration", "-2.5e-300")]:
    spec_case(f"engine {key} = {v} (echoed as written)",
              replace('algorithm = "random"\n', f'algorithm = "mcts"\nplayouts = 10\n{key} = {v}\n'), f"exploration is {v};")
tune_case("step = 1e308 (echoed as written)", tswap("step = 4", "step = 1e308"), "1e308 is too large")
for v in ["1e308", "-1e300"]:
    case(f"fit: --lambda {v} (echoed as written)", ["fit", "run/games.jsonl", "--lambda", v, "--out", "w.toml"],
         f"--lambda {v}", damage="intact", spec=BASE)
for v in ["1e308", "-1e308"]:
    case(f"openings: --max-score {v} (echoed as written)", ["openings", "connect4", "--max-score", v], f"--max-score is {v}")
tune_case("min_step = 1e308 (echoed as written)", TBASE + "\n[hill]\nmin_step = 1e308\n", "min_step is 1e308;")

# ------------------------------------------------------------------ [output] engine_log_mib
for v in ["0", "-1", "65537", "1e3", '"64"', "99999999999999999999", "true"]:
    spec_case(f"[output] engine_log_mib = {v}", BASE + f"\n[output]\nengine_log_mib = {v}\n", "engine_log_mib")

# ------------------------------------------------------------------ outputs: inputs, run files, other files
for args, expect in [
    (["export", "run/games.jsonl", "--format", "pgn", "--out", "run/games.jsonl"], "an input of the command"),
    (["export", "run/games.jsonl", "--format", "pgn", "--out", "run/games.jsonl", "--force"], "an input of the command"),
    (["export", "run/games.jsonl", "--format", "moves", "--out", "run/../run/run.json", "--force"], "an input of the command"),
    (["export", "run/games.jsonl", "--format", "pgn", "--out", "spec.toml"], "exists; add --force"),
    (["export", "run/games.jsonl", "--format", "pgn", "--out", "run"], "a folder"),
    (["export", "run/games.jsonl", "--format", "psq", "--out", "run"], "does not fit"),
    (["fit", "run/games.jsonl", "--out", "run/games.jsonl", "--force"], "an input of the command"),
    (["fit", "run/games.jsonl", "--out", "run/run.json"], "a file of the run"),
    (["fit", "run/games.jsonl", "--out", "spec.toml"], "exists; add --force"),
    (["fit", "run/games.jsonl", "--weights", "spec.toml", "--out", "spec.toml", "--force"], "an input of the command"),
    (["report", "run/games.jsonl", "--out", "."], "--force"),
    (["run", "spec.toml", "--out", "."], "--force"),
    (["match", "connect4", "random", "random", "--games", "2", "--out", "."], "--force"),
    (["openings", "connect4", "--count", "1", "--out", "spec.toml"], "exists; add --force"),
    (["report", "run/games.jsonl", "run/games.jsonl"], "given twice"),
    (["report", "run/games.jsonl", "run/../run/games.jsonl"], "given twice"),
]:
    case(f"outputs: {' '.join(args)[:60]}", args, expect, damage="intact", spec=BASE)
tune_case("outputs: --out a folder of other files", TBASE)
cases[-1]["args"] = ["tune", "spec.toml", "--out", "."]
cases[-1]["expect"] = "--force"

# ------------------------------------------------------------------ damaged logs and records
GOOD_LOG = None  # filled by the runner: a real run's files, then damaged
LOG_COMMANDS = {
    "report": ["report", "run/games.jsonl", "--out", "rep"],
    "resume": ["run", "spec.toml", "--out", "run", "--resume"],
    "export": ["export", "run/games.jsonl", "--format", "moves", "--out", "g.moves"],
    "export-pgn": ["export", "run/games.jsonl", "--format", "pgn", "--out", "g.pgn"],
    "fit": ["fit", "run/games.jsonl", "--out", "w.toml"],
}
for label in ["truncated run.json", "run.json edited spec", "run.json not json", "run.json empty",
              "games.jsonl line not json", "games.jsonl foreign spec", "games.jsonl id beyond",
              "games.jsonl duplicate id", "games.jsonl bad score", "games.jsonl plies mismatch",
              "games.jsonl timeouts exceed plies", "games.jsonl wrong engine", "games.jsonl binary",
              "games.jsonl huge number", "games.jsonl negative id"]:
    # `joute fit` reads games, not a run's schedule: an id, an engine or a spec hash it does not
    # check.
    schedule_only = label in ("games.jsonl foreign spec", "games.jsonl id beyond", "games.jsonl duplicate id",
                              "games.jsonl plies mismatch", "games.jsonl timeouts exceed plies",
                              "games.jsonl wrong engine")
    for command in ["report", "resume", "export"] + ([] if schedule_only else ["fit"]):
        case(f"log: {label} ({command})", LOG_COMMANDS[command], damage=label, spec=BASE)
# A result, margin or move that the moves contradict: every reader replays every game.
for label, expect in [("games.jsonl forged result", "the moves end in"), ("games.jsonl result text", "result '"),
                      ("games.jsonl margin", "margin"), ("games.jsonl illegal move", "cannot be played"),
                      ("games.jsonl escape in a move", "cannot be played"), ("games.jsonl unfinished", "do not end the game"),
                      ("games.jsonl another termination", "but it ended by 'timeout'")]:
    for command in ["report", "resume", "export", "export-pgn", "fit"]:
        case(f"log: {label} ({command})", LOG_COMMANDS[command], expect, damage=label, spec=BASE)

for anchor in ["zz", "a=abc", "a=1e9", "a=nan", "a=-inf", "=5", "", "b=" + ESC, LONG]:
    case(f"report: --anchor {anchor[:20]!r}", ["report", "run/games.jsonl", "--out", "rep", "--anchor", anchor],
         "--anchor", damage="intact", spec=BASE)
case("report: --first-move maybe", ["report", "run/games.jsonl", "--out", "rep", "--first-move", "maybe"],
     "first-move", damage="intact", spec=BASE)

# ------------------------------------------------------------------ round four (issue 40)
# Endless inputs: a device is refused before a byte is read, whatever reads it.
case("endless: run /dev/zero", ["run", "/dev/zero", "--out", "out"], "not a regular file")
case("endless: tune /dev/zero", ["tune", "/dev/zero", "--out", "out"], "not a regular file")
case("endless: play weights /dev/zero", ["play", "othello", "pvs:2:/dev/zero", "random"], "not a regular file")
case("endless: match weights /dev/zero", ["match", "connect4", "alphabeta:2:/dev/zero", "random"], "not a regular file")
case("endless: rate /dev/zero", ["rate", "/dev/zero"], "not a regular file")
case("endless: solve --file /dev/zero", ["solve", "othello", "--file", "/dev/zero"], "not a regular file")
case("endless: bench --positions /dev/zero", ["bench", "othello", "pvs:2", "--positions", "/dev/zero"],
     "not a regular file")
spec_case("endless: openings file /dev/zero",
          replace("openings = { plies = 2, count = 2 }", 'openings = { file = "/dev/zero" }'), "not a regular file")
spec_case("endless: weights /dev/zero", BASE.replace("depth = 1\n", 'depth = 1\nweights = "/dev/zero"\n', 1),
          "not a regular file")
# A value that starts with a minus is named with its option, whatever follows the option.
for extra in [["--quiet"], ["--json"], []]:
    case(f"usage: run --shard -1/2 {' '.join(extra)}", ["run", "spec.toml", "--out", "o", "--shard", "-1/2"] + extra,
         "--shard is -1/2", spec=BASE)
case("usage: match --games -5 --quiet", ["match", "connect4", "random", "random", "--games", "-5", "--quiet"],
     "--games is -5")
# Only names that exist are suggested.
for game in ["morpion-3x3-3-renju", "morpion-4x4-4-renju", "morpion-2x2-1-renju"]:
    case(f"perft: game {game!r} (no board for five)", ["perft", game, "2"], "five cannot fit")
case("perft: game 'morpion-9x9-4-renju'", ["perft", "morpion-9x9-4-renju", "2"], "write morpion-9x9-5-renju")
# A key of an [[engine]] table is named with its table.
spec_case("engine table: st = 10", BASE + "st = 10\n", "key 'engine[2].st'")
spec_case("engine table: tc = 5", replace("depth = 1\n", "depth = 1\ntc = 5\n"), "key 'engine[1].tc'")
spec_case("openings table: plies = 'x'", replace("openings = { plies = 2, count = 2 }", '[openings]\nplies = "x"'),
          "key 'openings.plies'")
# Clock values that held: each refused with its key.
for key, value in [("tc", '"1e400"'), ("tc", '"inf"'), ("tc", '"nan"'), ("tc", '"10+-1"'), ("tc", '"40/0"'),
                   ("tc", '"18446744073709551616"'), ("tc", '"0.0000001"'), ("tc", '"10+1+1"'),
                   ("tc", '"１０"'), ("st", '"-5ms"'), ("st", '"0s"'), ("st", '"1e99s"'),
                   ("st", '"5 parsecs"'), ("st", '"nanms"'), ("timemargin", '"-1ms"'), ("timemargin", '"1e400ms"')]:
    extra = '\nst = "100ms"' if key == "timemargin" else ""
    spec_case(f"clock: {key} = {value}", top(key, value) .replace("seed = 1\n", "seed = 1" + extra + "\n", 1),
              key)
    engine_extra = 'st = "100ms"\n' if key == "timemargin" else ""
    spec_case(f"clock: engine[1].{key} = {value}", replace("depth = 1\n", f"depth = 1\n{engine_extra}{key} = {value}\n"),
              f"engine[1].{key}" if key != "timemargin" else None)
# Pattern weights files (an Othello spec): every kind of damage refused, naming the file.
OTHELLO_PATTERN = BASE.replace('game = "connect4"', 'game = "othello"').replace(
    "depth = 1\n", 'depth = 1\nweights = "w.toml"\n', 1)
MAGIC = "JOUTEPAT".encode().hex()
le = lambda n: n.to_bytes(4, "little").hex()
for label, hexed in [("magic only", MAGIC), ("version 2", MAGIC + le(2) + le(1) + le(1)),
                     ("phases 0", MAGIC + le(1) + le(0) + le(1)), ("phases huge", MAGIC + le(1) + le(0xFFFFFFFF) + le(1)),
                     ("per phase wrong", MAGIC + le(1) + le(1) + le(7)),
                     ("odd bytes", MAGIC + le(1) + le(1) + "00" * 5)]:
    spec_case(f"pattern file: binary {label}", OTHELLO_PATTERN, "w.toml", weights_hex=hexed)
CSV1 = "# joute pattern weights, phases = 1\nphase,pattern,config,weight\n"
for label, text in [("phases 0", "# joute pattern weights, phases = 0\n"),
                    ("phases huge", "# joute pattern weights, phases = 99999999999999999999\n"),
                    ("phases words", "# joute pattern weights, phases = six\n"),
                    ("no header", "# joute pattern weights, phases = 1\n0,bias,,1\n"),
                    ("unknown pattern", CSV1 + "0,queen,0,1\n"), ("config out of range", CSV1 + "0,bias,7,1\n"),
                    ("phase out of range", CSV1 + "5,bias,,1\n"), ("weight nan", CSV1 + "0,bias,,nan\n"),
                    ("weight inf", CSV1 + "0,bias,,inf\n"), ("weight huge", CSV1 + "0,bias,,1e300\n"),
                    ("weight words", CSV1 + "0,bias,,heavy\n"), ("row twice", CSV1 + "0,bias,,1\n0,bias,,2\n"),
                    ("too few fields", CSV1 + "0,bias\n"), ("too many fields", CSV1 + "0,bias,,1,2\n"),
                    ("control byte", CSV1 + "0,bi\u001bas,,1\n"), ("only the first line", "# joute pattern weights\n")]:
    spec_case(f"pattern file: csv {label}", OTHELLO_PATTERN, "w.toml", weights=text)
spec_case("pattern file: csv not utf-8", OTHELLO_PATTERN, "w.toml",
          weights_hex=CSV1.encode().hex() + "302cff2c2c310a")

# ------------------------------------------------------------------ write the corpus
out = ["# The corpus of hostile inputs run by tests/hostile.rs. Generated by generate.py: edit that.\n"]
for c in cases:
    out.append("[[case]]\n")
    for k, v in c.items():
        out.append(f"{k} = {json.dumps(v, ensure_ascii=False)}\n")
    out.append("\n")
with open(os.path.join(HERE, "cases.toml"), "w") as f:
    f.write("".join(out))
print(len(cases), "cases")
