#!/usr/bin/env python3
"""A configurable fake engine for joute's tests (standard library only).

It speaks one of four protocols (GTP for Othello, NBoard, Gomocup, joute's
line protocol), plays random LEGAL moves in the position it tracks, and can
misbehave on request (crash, hang, illegal move, garbage, flood, ...) so that
tests can check that joute survives. See tests/engines/README.md.
"""
import argparse
import os
import random
import re
import subprocess
import sys
import time

# ---------------------------------------------------------------- games


class Othello:
    """8x8; index = row * 8 + col, a1 = top-left (index 0), rows count down."""

    name = "othello"
    DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]

    def __init__(self):
        self.board = [0] * 64  # 0 empty, 1 black, 2 white
        self.board[27] = self.board[36] = 2  # d4, e5 white
        self.board[28] = self.board[35] = 1  # e4, d5 black
        self.side = 1  # black moves first
        self.history = []  # (side, move) in order, passes included

    @staticmethod
    def square(i):
        return "abcdefgh"[i % 8] + str(i // 8 + 1)

    @staticmethod
    def parse_square(text):
        m = re.fullmatch(r"([a-h])([1-8])", text.strip().lower())
        if not m:
            return None
        return (int(m.group(2)) - 1) * 8 + "abcdefgh".index(m.group(1))

    def flips(self, i, side):
        if self.board[i]:
            return []
        out, r0, c0 = [], i // 8, i % 8
        for dr, dc in self.DIRS:
            r, c, line = r0 + dr, c0 + dc, []
            while 0 <= r < 8 and 0 <= c < 8 and self.board[r * 8 + c] == 3 - side:
                line.append(r * 8 + c)
                r, c = r + dr, c + dc
            if line and 0 <= r < 8 and 0 <= c < 8 and self.board[r * 8 + c] == side:
                out.extend(line)
        return out

    def moves_of(self, side):
        return [self.square(i) for i in range(64) if self.flips(i, side)]

    def legal(self):
        """Legal moves of the side to move; ['pass'] if it must pass; [] if the game is over."""
        own = self.moves_of(self.side)
        if own:
            return own
        return ["pass"] if self.moves_of(3 - self.side) else []

    def play(self, move):
        mv = move.strip().lower()
        if mv in ("pass", "pa", "ps", "@@@@"):
            if self.legal() != ["pass"]:
                raise ValueError("illegal pass %r" % move)
            self.history.append((self.side, "pass"))
            self.side = 3 - self.side
            return
        i = self.parse_square(mv)
        if i is None:
            raise ValueError("bad move %r" % move)
        fl = self.flips(i, self.side)
        if not fl:
            raise ValueError("illegal move %r" % move)
        self.board[i] = self.side
        for j in fl:
            self.board[j] = self.side
        self.history.append((self.side, self.square(i)))
        self.side = 3 - self.side

    def illegal(self):
        """A well-formed illegal move: the first occupied square."""
        return next(self.square(i) for i in range(64) if self.board[i])


class Connect4:
    """7 columns x 6 rows, moves '1'..'7'."""

    name = "connect4"

    def __init__(self):
        self.cols = [[] for _ in range(7)]
        self.side = 1
        self.history = []
        self.winner = 0

    def cell(self, c, r):
        return self.cols[c][r] if 0 <= c < 7 and 0 <= r < len(self.cols[c]) else 0

    def legal(self):
        if self.winner:
            return []
        return [str(c + 1) for c in range(7) if len(self.cols[c]) < 6]

    def play(self, move):
        mv = move.strip()
        if mv not in self.legal():
            raise ValueError("illegal move %r" % move)
        c = int(mv) - 1
        r = len(self.cols[c])
        self.cols[c].append(self.side)
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            n = 1
            for s in (1, -1):
                k = 1
                while self.cell(c + s * k * dc, r + s * k * dr) == self.side:
                    n, k = n + 1, k + 1
            if n >= 4:
                self.winner = self.side
        self.history.append((self.side, mv))
        self.side = 3 - self.side

    def illegal(self):
        """A full column if there is one (else None: the caller plays legally)."""
        if self.winner:
            return None
        return next((str(c + 1) for c in range(7) if len(self.cols[c]) == 6), None)


class Morpion:
    """R rows x C columns, K or more in a row wins; cell 'a1' = column a, row 1 (top)."""

    def __init__(self, rows, cols, k):
        self.rows, self.ncols, self.k = rows, cols, k
        self.name = "morpion-%dx%d-%d" % (rows, cols, k)
        self.cells = [0] * (rows * cols)
        self.side = 1  # X
        self.history = []
        self.winner = 0

    def cellname(self, i):
        return "abcdefghijklmnopqrstuvwxyz"[i % self.ncols] + str(i // self.ncols + 1)

    def parse_cell(self, text):
        m = re.fullmatch(r"([a-z])(\d+)", text.strip().lower())
        if not m:
            return None
        c, r = ord(m.group(1)) - 97, int(m.group(2)) - 1
        if 0 <= c < self.ncols and 0 <= r < self.rows:
            return r * self.ncols + c
        return None

    def legal(self):
        if self.winner:
            return []
        return [self.cellname(i) for i, v in enumerate(self.cells) if v == 0]

    def play(self, move):
        i = self.parse_cell(move)
        if i is None or self.cells[i] or self.winner:
            raise ValueError("illegal move %r" % move)
        self.cells[i] = self.side
        r0, c0 = divmod(i, self.ncols)
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            n = 1
            for s in (1, -1):
                r, c = r0 + s * dr, c0 + s * dc
                while 0 <= r < self.rows and 0 <= c < self.ncols and self.cells[r * self.ncols + c] == self.side:
                    n, r, c = n + 1, r + s * dr, c + s * dc
            if n >= self.k:
                self.winner = self.side
        self.history.append((self.side, self.cellname(i)))
        self.side = 3 - self.side

    def illegal(self):
        """The first occupied cell (None on an empty board: the caller plays legally)."""
        if self.winner:
            return None
        return next((self.cellname(i) for i, v in enumerate(self.cells) if v), None)


def parse_morpion(game):
    m = re.fullmatch(r"morpion-(\d+)x(\d+)-(\d+)", game or "")
    if not m:
        return None
    r, c, k = (int(x) for x in m.groups())
    if not (1 <= r <= 99 and 1 <= c <= 26 and 1 <= k <= max(r, c)):
        return None
    return r, c, k


def new_game(game):
    if game == "othello":
        return Othello()
    if game == "connect4":
        return Connect4()
    rck = parse_morpion(game)
    if rck:
        return Morpion(*rck)
    raise ValueError("unsupported game %r" % game)


# ---------------------------------------------------------------- plumbing


def out(line):
    try:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
    except (BrokenPipeError, OSError):
        os._exit(0)


def err(line):
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (BrokenPipeError, OSError):
        pass


BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < %f: pass\n"


def burn(ms):
    """Uses MS milliseconds of this process's CPU time, whatever the machine's load."""
    exec(BURN % (ms / 1000.0), {})


def worker():
    """The persistent child of --worker-burn-ms: burns the milliseconds each line asks for."""
    for line in sys.stdin:
        burn(int(line))
        sys.stdout.write("done\n")
        sys.stdout.flush()


def spin_forever(n):
    """--busy N: N child processes in its process group that spin for its whole life (an
    engine pondering, or a stray busy loop), on the opponent's time as on its own."""
    for _ in range(n):
        if os.fork() == 0:
            try:
                os.close(0)  # the child must not hold joute's pipes open
                os.close(1)
            except OSError:
                pass
            while True:
                pass


def report_pid(a):
    """--report-pid: says its pid on stderr at start."""
    if a.report_pid:
        err("fake: pid %d" % os.getpid())


def meet_a_limit(a):
    """--alloc-forever, --fork-bomb, --write-forever: at its first move, heads for a resource
    limit and never answers."""
    if a.alloc_forever:
        held = []
        while True:
            held.append(b"\1" * (10 << 20))  # filled, so every page is touched
    if a.fork_bomb:
        # Children fork too; each process makes 7 children and the third generation none:
        # 399 children at most, past the default process_limit (256), and a machine with no
        # limit survives it. Failed forks are retried, forever.
        generation, made = 0, 0
        while True:
            if generation >= 3 or made >= 7:
                time.sleep(3600)
                continue
            try:
                if os.fork() == 0:
                    generation, made = generation + 1, 0
                else:
                    made += 1
            except OSError:
                time.sleep(0.001)
    if a.write_forever:
        import signal
        # Python ignores SIGXFSZ (its writes fail instead): die of it as a C program does.
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        with open(a.write_forever, "ab") as f:
            while True:
                try:
                    f.write(b"x" * (1 << 20))
                    f.flush()
                except OSError:
                    time.sleep(0.01)


def figures(ply):
    """What --report says of the search of the move at ply PLY (moves before it, opening
    included): depth, selective depth, nodes."""
    return ply + 1, ply + 4, 1000 * (ply + 1) + 7


class Fake:
    def __init__(self, args):
        self.a = args
        self.rng = random.Random(args.seed)
        self.name = args.name or "fake-" + args.protocol
        self.log = open(args.log, "a", buffering=1) if args.log else None
        self.worker = None
        if args.worker_burn_ms:
            # One child for the whole run, in the fake's process group, doing the work.
            self.worker = subprocess.Popen([sys.executable, __file__, "--worker"],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def work(self):
        """The CPU time of a move: in this process, in a child started for the move (and
        reaped), or in the persistent worker."""
        meet_a_limit(self.a)
        if self.a.burn_ms:
            burn(self.a.burn_ms)
        if self.a.child_burn_ms:
            subprocess.run([sys.executable, "-c", BURN % (self.a.child_burn_ms / 1000.0)], check=True)
        if self.worker:
            self.worker.stdin.write("%d\n" % self.a.worker_burn_ms)
            self.worker.stdin.flush()
            self.worker.stdout.readline()

    def lines(self):
        """The input lines, without line ends; logged with --log."""
        while True:
            try:
                line = sys.stdin.readline()
            except (OSError, ValueError):
                return
            if not line:
                return
            line = line.rstrip("\r\n")
            if self.log:
                self.log.write(line + "\n")
            yield line

    def claim(self):
        """--once: True for the one process allowed to misbehave (creates DIR/misbehaved)."""
        if not self.a.once:
            return True
        os.makedirs(self.a.once, exist_ok=True)
        try:
            fd = os.open(os.path.join(self.a.once, "misbehaved"), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        os.write(fd, ("%d\n" % os.getpid()).encode())
        os.close(fd)
        return True

    def decide(self, n, can_illegal):
        a = self.a
        for kind, at in (("crash", a.crash_at), ("hang", a.hang_at), ("flood", a.flood_at), ("garbage", a.garbage_at)):
            if at is not None and n == at and self.claim():
                return kind
        # An illegal move is made at the first own move >= N where one exists.
        if a.illegal_at is not None and n >= a.illegal_at and can_illegal and self.claim():
            return "illegal"
        return None

    def answer(self, n, legal, illegal, emit, garbage, chatter):
        """Answers the engine's n-th own move; returns the legal move played, or None."""
        kind = self.decide(n, illegal is not None)
        if kind == "crash":
            err("fake: crashing at move %d" % n)
            sys.stdout.flush()
            os._exit(3)
        # Debug prints come first, as a program writes them before it thinks (or hangs).
        for i in range(self.a.stray):
            out("thinking... %d moves so far" % (i + 1))
        if kind == "hang":
            time.sleep(3600)
            os._exit(0)
        if self.a.sleep_ms:
            time.sleep(self.a.sleep_ms / 1000.0)
        self.work()
        if self.a.stderr_flood:
            # KIB KiB of stderr before the answer, in lines of 100 bytes.
            text = "".join("fake flood move %6d line %6d %s\n" % (n, k, "x" * 70) for k in range(self.a.stderr_flood * 1024 // 100))
            try:
                sys.stderr.write(text)
                sys.stderr.flush()
            except (BrokenPipeError, OSError):
                pass
        for i in range(self.a.chatter):
            chatter(i + 1)
        if kind == "flood":
            chunk = ("flood flood flood flood flood flood flood flood\n" * 512).encode()
            try:
                while True:
                    os.write(1, chunk)
            except OSError:
                os._exit(0)
        if kind == "garbage":
            out(garbage)
            return None
        if kind == "illegal":
            emit(illegal)
            return None
        move = self.rng.choice(legal)
        emit(move)
        return move

    # ------------------------------------------------------------ line protocol

    def run_line(self):
        game = self.a.game
        for line in self.lines():
            words = line.split()
            if not words:
                continue
            cmd = words[0]
            kv = dict(w.split("=", 1) for w in words[1:] if "=" in w)
            if cmd == "joute":
                if self.a.bad_handshake:
                    out("error nope")
                    continue
                g = kv.get("game", game)
                try:
                    new_game(g)
                    if self.a.game and g != self.a.game:
                        raise ValueError("unsupported game %r" % g)
                except ValueError as e:
                    err("fake: %s" % e)
                    out("error unsupported game %s" % g)
                    continue
                game = g
                out("ok name=%s author=joute-tests" % self.name)
            elif cmd == "move":
                try:
                    pos = new_game(kv.get("game", game))
                    moves = [m for m in kv.get("moves", "").split(",") if m]
                    for m in moves:
                        pos.play(m)
                except ValueError as e:
                    err("fake: %s" % e)
                    out("error %s" % str(e).replace(" ", "-"))
                    continue
                legal = pos.legal()
                if not legal:
                    err("fake: asked to move in a finished game")
                    out("error game-over")
                    continue
                report = " depth=%d seldepth=%d nodes=%d" % figures(len(moves)) if self.a.report else ""
                self.answer(len(moves) // 2 + 1, legal, pos.illegal(), lambda m: out(m + report), "banana9",
                            lambda i: out("# info fake chatter %d" % i))
            elif cmd == "quit":
                return

    # ------------------------------------------------------------ GTP (Othello)

    def run_gtp(self):
        pos = Othello()
        known = ["protocol_version", "name", "version", "known_command", "list_commands", "quit",
                 "boardsize", "clear_board", "komi", "play", "genmove", "time_settings", "time_left"]
        for raw in self.lines():
            line = "".join(" " if ch == "\t" else ch for ch in raw.split("#", 1)[0] if ch >= " " or ch == "\t")
            words = line.split()
            if not words:
                continue
            gid = words.pop(0) if words[0].isdigit() else ""
            if not words:
                continue
            cmd, params = words[0].lower(), words[1:]

            def ok(res=""):
                out("=%s%s\n" % (gid, " " + res if res else ""))

            def fail(msg):
                out("?%s %s\n" % (gid, msg))

            if self.a.bad_handshake:
                fail("no")
                if cmd == "quit":
                    return
                continue
            if cmd == "protocol_version":
                ok("2")
            elif cmd == "name":
                ok(self.name)
            elif cmd == "version":
                ok("1.0")
            elif cmd == "known_command":
                ok("true" if params and params[0] in known else "false")
            elif cmd == "list_commands":
                ok("\n".join(known))
            elif cmd == "quit":
                ok()
                return
            elif cmd == "boardsize":
                if params == ["8"]:
                    ok()
                else:
                    fail("unacceptable size")
            elif cmd == "clear_board":
                pos = Othello()
                ok()
            elif cmd in ("time_settings", "time_left") and self.a.no_clock:
                fail("unknown command")
            elif cmd in ("komi", "time_settings", "time_left"):
                ok()
            elif cmd in ("play", "genmove"):
                color = {"b": 1, "black": 1, "w": 2, "white": 2}.get(params[0].lower() if params else "")
                if color is None or (cmd == "play" and len(params) < 2):
                    fail("syntax error (wrong or missing color)" if color is None else "syntax error")
                    continue
                if color != pos.side:
                    if pos.legal() == ["pass"]:  # like Edax: the side to move must pass first
                        pos.play("pass")
                    else:
                        fail("wrong color")
                        continue
                if cmd == "play":
                    try:
                        pos.play(params[1])
                        ok()
                    except ValueError:
                        fail("illegal move")
                    continue
                legal = pos.legal()
                if not legal:
                    ok("pass")  # game over: nothing to do
                    continue
                n = sum(1 for s, _ in pos.history if s == pos.side) + 1
                move = self.answer(n, legal, pos.illegal(), ok, "=%s banana split\n" % gid,
                                   lambda i: err("fake chatter %d" % i))
                if move:
                    pos.play(move)
            else:
                fail("unknown command")

    # ------------------------------------------------------------ NBoard (Othello)

    def run_nboard(self):
        pos = Othello()
        for line in self.lines():
            words = line.split()
            if not words:
                continue
            cmd = words[0].lower()
            if cmd == "set" and len(words) > 1:
                key = words[1].lower()
                if key == "depth":
                    out("set myname %s" % self.name)
                elif key == "game":
                    try:
                        pos = parse_ggf(line.split(None, 2)[2] if len(words) > 2 else "")
                    except ValueError as e:
                        err("fake: cannot parse game: %s" % e)
            elif cmd == "move" and len(words) > 1:
                try:
                    pos.play(words[1].split("/")[0])
                except ValueError as e:
                    err("fake: %s" % e)
            elif cmd == "go":
                out("status fake is thinking")
                legal = pos.legal() or ["pass"]
                n = sum(1 for s, _ in pos.history if s == pos.side) + 1
                ply = len(pos.history)

                def answer(m):
                    m = "PA" if m == "pass" else m.upper()
                    if self.a.report:
                        # As Edax and NTest report their search: the last report counts.
                        depth, _, nodes = figures(ply)
                        out("search %s       +0.10 0   1" % m)
                        out("nodestats 5 0.00")
                        out("nodestats %d 0.00" % nodes)
                        out("search %s       -1.30 0 %3d" % (m, depth))
                    out("=== %s/0.00/0.0" % m)

                # NBoard does not apply its own move: the GUI sends it back with `move`.
                self.answer(n, legal, pos.illegal(), answer,
                            "=== banana", lambda i: out("status fake chatter %d" % i))
                out("status fake is waiting")
            elif cmd == "ping":
                if not self.a.bad_handshake:
                    out("pong" + line.strip()[4:])
            elif cmd == "quit":
                return
            # nboard N, hint N, learn, analyze and unknown commands: ignored

    # ------------------------------------------------------------ Gomocup

    def run_gomocup(self):
        fixed = parse_morpion(self.a.game) if self.a.game else None
        size, cells = None, None
        lines = self.lines()

        def xy(text):
            nums = [int(v) for v in re.findall(r"-?\d+", text)]
            return nums

        def cell(x, y):
            return y * size + x

        def name(i):
            return "%d,%d" % (i % size, i // size)

        def start(n):
            nonlocal size, cells
            if self.a.bad_handshake:
                out("ERROR no")
            elif n < 5 or n > 99 or (fixed and n != fixed[0]):
                out("ERROR unsupported board size %d" % n)
            else:
                size, cells = n, [0] * (n * n)
                out("OK")

        def move():
            if size is None:
                out("ERROR no game started")
                return
            legal = [i for i in range(size * size) if cells[i] == 0]
            if not legal:
                out("ERROR board is full")
                return
            occupied = next((i for i in range(size * size) if cells[i]), None)
            n = cells.count(1) + 1
            ply = sum(1 for c in cells if c)

            def answer(i):
                if self.a.report:
                    depth, seldepth, nodes = figures(ply)
                    out("MESSAGE Depth 1-1 | Node 1")
                    out("MESSAGE [Pondering] Speed 1K | Depth 99-99 | Eval 0 | Node 99M | Time 1s")
                    if ply % 2 == 0:
                        # Rapfi's end of search (its nodesText: exact below 10000, then K).
                        text = str(nodes) if nodes < 10000 else "%dK" % (nodes // 1000)
                        out("MESSAGE Speed 1K | Depth %d-%d | Eval 12 | Node %s | Time 5ms"
                            % (depth, seldepth, text))
                        out("MESSAGE Bestline H8 I7")
                    else:
                        # PentaZen's print_message.
                        out("MESSAGE Dep %2d-%2d    Ev +33    Nd %3dk    Tm 12    Sp 10"
                            % (depth, seldepth, nodes // 1000))
                out(name(i))

            i = self.answer(n, legal, occupied, answer, "banana,split",
                            lambda k: out("MESSAGE fake chatter %d" % k))
            if i is not None:
                cells[i] = 1

        for line in lines:
            words = line.strip().split(None, 1)
            if not words:
                continue
            cmd, rest = words[0].upper(), words[1] if len(words) > 1 else ""
            if cmd == "START":
                nums = xy(rest)
                start(nums[0] if nums else 0)
            elif cmd == "RECTSTART":
                nums = xy(rest)
                if len(nums) == 2 and nums[0] == nums[1]:
                    start(nums[0])
                else:
                    out("ERROR rectangular boards are not supported")
            elif cmd == "RESTART":
                if size is None:
                    out("ERROR no game started")
                else:
                    cells = [0] * (size * size)
                    out("OK")
            elif cmd == "INFO":
                pass
            elif cmd == "BEGIN":
                move()
            elif cmd == "TURN":
                nums = xy(rest)
                if size is None or len(nums) != 2 or not (0 <= nums[0] < size and 0 <= nums[1] < size) \
                        or cells[cell(*nums)]:
                    out("ERROR invalid move %s" % rest)
                    continue
                cells[cell(*nums)] = 2
                move()
            elif cmd == "BOARD":
                if size is not None:
                    cells = [0] * (size * size)
                for entry in lines:
                    if entry.strip().upper() == "DONE":
                        break
                    nums = xy(entry)
                    if size is not None and len(nums) == 3 and 0 <= nums[0] < size and 0 <= nums[1] < size:
                        cells[cell(nums[0], nums[1])] = 1 if nums[2] == 1 else 2
                move()
            elif cmd == "TAKEBACK":
                nums = xy(rest)
                if size is not None and len(nums) == 2 and 0 <= nums[0] < size and 0 <= nums[1] < size:
                    cells[cell(*nums)] = 0
                    out("OK")
                else:
                    out("ERROR invalid takeback %s" % rest)
            elif cmd == "ABOUT":
                about = 'name="%s", version="1.0", author="joute tests", country="-"' % self.name
                if self.a.about_unended:
                    # As PentaZen answers: no line end.
                    sys.stdout.write(about)
                    sys.stdout.flush()
                else:
                    out(about)
            elif cmd == "END":
                return
            else:
                out("UNKNOWN command %s" % cmd)


def parse_ggf(text):
    """The position at the end of a GGF Othello game (tags in any order, unknown ones ignored)."""
    pos = Othello()
    tags = re.findall(r"([A-Za-z]+)\[([^\]]*)\]", text)
    for key, value in tags:
        if key.upper() == "BO":
            words = value.split()
            if not words or words[0] != "8":
                raise ValueError("board %r" % value)
            chars = "".join(words[1:])
            if len(chars) != 65:
                raise ValueError("board %r" % value)
            colours = {"-": 0, ".": 0, "*": 1, "X": 1, "x": 1, "#": 1, "O": 2, "o": 2}
            try:
                pos.board = [colours[ch] for ch in chars[:64]]
                pos.side = {"*": 1, "X": 1, "x": 1, "#": 1, "O": 2, "o": 2}[chars[64]]
            except KeyError:
                raise ValueError("board %r" % value)
    for key, value in tags:
        if key.upper() in ("B", "W"):
            colour = 1 if key.upper() == "B" else 2
            if colour != pos.side:
                if pos.legal() == ["pass"]:
                    pos.play("pass")
                else:
                    pos.side = colour
            pos.play(value.split("/")[0])
    return pos


def daemonize(marker, clean_env):
    """Leaves a process behind that escapes the process group: a double fork and setsid, its
    inherited pipes closed (as a daemon does). With clean_env it also drops its environment,
    joute's mark included. The marker (the --name) stays in its command line."""
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() > 0:
            os._exit(0)
        fd = os.open(os.devnull, os.O_RDWR)
        for i in (0, 1, 2):
            os.dup2(fd, i)
        if clean_env:
            os.execve(sys.executable, [sys.executable, "-c", "import time; time.sleep(3600)", "fake-daemon", marker or ""], {})
        time.sleep(3600)
        os._exit(0)
    os.waitpid(pid, 0)


def host_port(text):
    """HOST:PORT (an IPv6 host in brackets) for --try-connect."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError("expected HOST:PORT, got %r" % text)
    return host.strip("[]"), int(port)


def try_access(a):
    """--try-read/--try-write/--try-connect: tries each, one stderr line each, then plays on."""
    def attempt(what, call):
        try:
            call()
            err("fake: %s: ok" % what)
        except Exception as e:  # the class and text tell denied (PermissionError) from missing
            err("fake: %s: denied (%s: %s)" % (what, type(e).__name__, e))

    def read():
        with open(a.try_read, "rb") as f:
            f.read()

    def write():
        with open(a.try_write, "w") as f:
            f.write("written by fake.py\n")

    def connect():
        import socket
        socket.create_connection(a.try_connect, timeout=5).close()

    if a.try_read is not None:
        attempt("read %s" % a.try_read, read)
    if a.try_write is not None:
        attempt("write %s" % a.try_write, write)
    if a.try_connect is not None:
        host, port = a.try_connect
        shown = "[%s]" % host if ":" in host else host
        attempt("connect %s:%d" % (shown, port), connect)


def main():
    p = argparse.ArgumentParser(description="fake engine for joute's tests")
    p.add_argument("--protocol", required=True, choices=["gtp", "nboard", "gomocup", "line"])
    p.add_argument("--game", help="othello, connect4 or morpion-RxC-K")
    p.add_argument("--seed", type=int, default=1)
    for flag in ("--crash-at", "--hang-at", "--illegal-at", "--garbage-at", "--flood-at"):
        p.add_argument(flag, type=int, metavar="N")
    p.add_argument("--chatter", type=int, default=0, metavar="N")
    p.add_argument("--stray", type=int, default=0, metavar="N",
                   help="N lines that are no answer on stdout before each move answer")
    p.add_argument("--slow-start", type=int, default=0, metavar="MS")
    p.add_argument("--exit-at-start", action="store_true")
    p.add_argument("--bad-handshake", action="store_true")
    p.add_argument("--sleep-ms", type=int, default=0, metavar="MS")
    p.add_argument("--no-clock", action="store_true", help="GTP: answer '?' to the clock's commands")
    p.add_argument("--once", metavar="DIR")
    p.add_argument("--name")
    p.add_argument("--about-unended", action="store_true",
                   help="Gomocup: answer ABOUT without ending the line (as PentaZen does)")
    p.add_argument("--stderr-lines", type=int, default=0, metavar="N")
    p.add_argument("--log", metavar="FILE")
    p.add_argument("--stderr-flood", type=int, default=0, metavar="KIB")
    p.add_argument("--daemon", action="store_true")
    p.add_argument("--daemon-clean-env", action="store_true")
    p.add_argument("--burn-ms", type=int, default=0, metavar="MS",
                   help="uses MS ms of its own CPU time before each move answer")
    p.add_argument("--child-burn-ms", type=int, default=0, metavar="MS",
                   help="before each move answer, runs a child process that uses MS ms of CPU, and waits for it")
    p.add_argument("--worker-burn-ms", type=int, default=0, metavar="MS",
                   help="starts one child for the whole run; before each move answer, it uses MS ms of CPU")
    p.add_argument("--report", action="store_true",
                   help="says what its search did, as each protocol's engines write it")
    p.add_argument("--try-read", metavar="PATH", help="at start, tries to read PATH and says how it went on stderr")
    p.add_argument("--try-write", metavar="PATH", help="at start, tries to write PATH and says how it went on stderr")
    p.add_argument("--try-connect", metavar="HOST:PORT", type=host_port,
                   help="at start, tries a TCP connection to HOST:PORT and says how it went on stderr")
    p.add_argument("--alloc-forever", action="store_true",
                   help="at its first move, allocates 10 MiB chunks, touching them, forever")
    p.add_argument("--fork-bomb", action="store_true",
                   help="at its first move, forks children that fork (399 of them at most), retrying failed forks forever")
    p.add_argument("--write-forever", metavar="FILE",
                   help="at its first move, appends 1 MiB blocks to FILE forever")
    p.add_argument("--report-pid", action="store_true", help="writes 'fake: pid PID' to stderr at start")
    p.add_argument("--busy", type=int, default=0, metavar="N",
                   help="at start, N child processes that spin for its whole life")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    if "--worker" in sys.argv[1:]:
        return worker()
    a = p.parse_args()
    report_pid(a)
    spin_forever(a.busy)

    if a.protocol in ("gtp", "nboard") and a.game not in (None, "othello"):
        p.error("--protocol %s plays othello only" % a.protocol)
    if a.protocol == "gomocup" and a.game is not None:
        rck = parse_morpion(a.game)
        if not rck or rck[0] != rck[1]:
            p.error("--protocol gomocup plays square morpion-NxN-K only")
    if a.protocol == "line" and a.game is not None:
        try:
            new_game(a.game)
        except ValueError as e:
            p.error(str(e))

    if a.daemon or a.daemon_clean_env:
        daemonize(a.name, a.daemon_clean_env)
    if a.exit_at_start:
        err("fake: refusing to start")
        sys.exit(1)
    for i in range(a.stderr_lines):
        err("fake stderr line %d" % (i + 1))
    if a.slow_start:
        time.sleep(a.slow_start / 1000.0)
    try_access(a)

    try:
        sys.stdin.reconfigure(errors="replace")  # a stray byte must not crash the fake
    except AttributeError:
        pass
    fake = Fake(a)
    getattr(fake, "run_" + a.protocol)()
    try:
        sys.stdout.flush()
    except (BrokenPipeError, OSError):
        os._exit(0)


if __name__ == "__main__":
    main()
