#!/usr/bin/env python3
"""Lets Pascal Pons' Connect 4 solver play in joute, through joute's line protocol.

Usage: c4solver.py PATH_TO_c4solver [extra c4solver args, e.g. -w or -b BOOK]

One `c4solver -a` process runs for the whole session. For each move request this
adapter writes the position as Pons writes it (the 1-based columns played from the
empty board, e.g. `4453`, one position per line) and reads the solver's answer:

    4453 -5 -5 -2 -3 -4 -2 -2

the position echoed (nothing before the first space for the empty board), then the
score of each of the 7 columns from the mover's point of view, -1000 for a full
column. It plays the best score; among equal scores, the most central column.
An invalid position (bad column, full column, game already won) gets no answer line
at all from c4solver, only a message on stderr, so the adapter checks positions first.
Without an opening book the solver is slow in the opening (minutes for the first moves).
"""
import subprocess
import sys

CENTRE_FIRST = [4, 3, 5, 2, 6, 1, 7]
INVALID = -1000  # c4solver's score for an unplayable column


def problem(moves):
    """Why c4solver would reject this position (None if it accepts it)."""
    grid, height = {}, [0] * 8
    for i, m in enumerate(moves):
        if len(m) != 1 or m not in "1234567" or height[int(m)] == 6:
            return "bad move %r" % m
        col, row = int(m), height[int(m)]
        grid[col, row], height[col] = i % 2, row + 1
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            line = [grid.get((col + k * dc, row + k * dr)) for k in range(-3, 4)]
            if any(line[k:k + 4] == [i % 2] * 4 for k in range(4)):
                return "game already won by move %d" % (i + 1)
    return None


def die_with_parent():
    """Linux: have the kernel kill the solver if this adapter dies, even by SIGKILL."""
    try:
        import ctypes
        ctypes.CDLL(None).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        pass


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: c4solver.py PATH_TO_c4solver [extra args]")
    try:  # stderr passes through ("Unable to load opening book" without a book)
        solver = subprocess.Popen([sys.argv[1], "-a"] + sys.argv[2:], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, bufsize=1,
                                  preexec_fn=die_with_parent if sys.platform == "linux" else None)
    except OSError as e:
        sys.exit("c4solver.py: cannot start %s: %s" % (sys.argv[1], e))
    for line in sys.stdin:
        command, *words = line.split() or [""]
        if command == "joute":
            print("ok name=c4solver-pons", flush=True)
        elif command == "move":
            args = dict(word.split("=", 1) for word in words if "=" in word)
            moves = [m for m in args.get("moves", "").split(",") if m]
            why = problem(moves)
            if why:
                print("# c4solver.py: %s" % why, file=sys.stderr, flush=True)
                print("error", flush=True)
                continue
            position = "".join(moves)
            solver.stdin.write(position + "\n")
            solver.stdin.flush()
            while True:  # the answer line echoes the position
                answer = solver.stdout.readline()
                if not answer:
                    sys.exit("c4solver.py: the solver exited")
                fields = answer.split()
                if fields[:-7] == ([position] if position else []):
                    break
            scores = [int(s) for s in fields[-7:]]
            best = max(CENTRE_FIRST, key=lambda c: (scores[c - 1], -CENTRE_FIRST.index(c)))
            print("# scores %s" % " ".join(fields[-7:]), flush=True)
            if scores[best - 1] == INVALID:
                print("error", flush=True)  # board full: no move to play
            else:
                print("%d score=%d" % (best, scores[best - 1]), flush=True)
        elif command == "quit":
            break
    solver.stdin.close()
    try:
        solver.wait(timeout=5)
    except subprocess.TimeoutExpired:
        solver.kill()
        solver.wait()


if __name__ == "__main__":
    main()
