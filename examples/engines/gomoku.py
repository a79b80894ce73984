#!/usr/bin/env python3
"""A small gomoku engine (freestyle: five or more in a row wins) for the Gomocup protocol.

Square boards from 5x5 to 20x20. No search, one heuristic pass over the empty cells
near the stones: each cell is scored by the lines it would make for us (attack) and
the lines it would make for the opponent (defence), so in effect it
  1. completes its own five,      2. blocks the opponent's five,
  3. makes an open four,          4. blocks a four / an open three,
  5. extends its own lines,       6. else plays near the centre and the stones.
Ties go to the cell nearest the centre, then the topmost, then the leftmost: deterministic.
Coordinates are Gomocup's: X the 0-based column, Y the 0-based row from the top.
"""
import re
import sys

EMPTY, ME, THEM = 0, 1, 2
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
# Value of the line made by a stone, by the run's length (capped at 5) and its open ends.
VALUE = {(5, 0): 10**8, (5, 1): 10**8, (5, 2): 10**8,
         (4, 2): 10**5, (4, 1): 10**4, (3, 2): 5000, (3, 1): 400,
         (2, 2): 200, (2, 1): 40, (1, 2): 10, (1, 1): 2}


class Board:
    def __init__(self, size):
        self.size = size
        self.cells = [[EMPTY] * size for _ in range(size)]

    def inside(self, x, y):
        return 0 <= x < self.size and 0 <= y < self.size

    def line_value(self, x, y, who):
        """The value of the lines a stone of `who` at the empty cell (x, y) would make."""
        total = 0
        for dx, dy in DIRECTIONS:
            run, open_ends = 1, 0
            for sign in (1, -1):  # walk both ways from (x, y)
                cx, cy = x + sign * dx, y + sign * dy
                while self.inside(cx, cy) and self.cells[cy][cx] == who:
                    run, cx, cy = run + 1, cx + sign * dx, cy + sign * dy
                if self.inside(cx, cy) and self.cells[cy][cx] == EMPTY:
                    open_ends += 1
            total += VALUE.get((min(run, 5), open_ends), 0)
        return total

    def best_move(self):
        n, centre = self.size, (self.size - 1) / 2
        stones = [(x, y) for y in range(n) for x in range(n) if self.cells[y][x] != EMPTY]
        if not stones:
            return n // 2, n // 2
        candidates = {(x + dx, y + dy) for x, y in stones for dx in range(-2, 3) for dy in range(-2, 3)}
        candidates = [(x, y) for x, y in candidates if self.inside(x, y) and self.cells[y][x] == EMPTY]
        if not candidates:  # no empty cell near the stones: any empty cell
            candidates = [(x, y) for y in range(n) for x in range(n) if self.cells[y][x] == EMPTY]
        if not candidates:
            return None

        def key(cell):
            x, y = cell
            score = self.line_value(x, y, ME) + 0.9 * self.line_value(x, y, THEM)
            return (-score, max(abs(x - centre), abs(y - centre)), abs(x - centre) + abs(y - centre), y, x)

        return min(candidates, key=key)


def send(line):
    print(line, flush=True)


def numbers(text):
    return [int(v) for v in re.findall(r"-?\d+", text)]


def main():
    board = None
    lines = (line.strip() for line in sys.stdin)

    def play_and_answer():
        move = board.best_move()
        if move is None:
            send("ERROR no move to play")
            return
        board.cells[move[1]][move[0]] = ME
        send("%d,%d" % move)

    def start(width, height):
        nonlocal board
        if width != height or not 5 <= width <= 20:
            send("ERROR only square boards from 5x5 to 20x20 are supported")
        else:
            board = Board(width)
            send("OK")

    for line in lines:
        command, _, rest = line.partition(" ")
        command = command.upper()
        if command in ("START", "RECTSTART"):
            size = numbers(rest)
            if len(size) == 1 + (command == "RECTSTART"):
                start(size[0], size[-1])
            else:
                send("ERROR bad size %s" % rest)
        elif command == "INFO" or not command:
            pass  # timeouts, memory, rules: nothing to tune in a one-ply engine
        elif command in ("RESTART", "BEGIN", "TURN", "BOARD", "TAKEBACK") and board is None:
            send("ERROR no game started")
            if command == "BOARD":
                any(entry.upper() == "DONE" for entry in lines)  # skip to DONE
        elif command == "RESTART":
            board = Board(board.size)
            send("OK")
        elif command == "BEGIN":
            play_and_answer()
        elif command == "TURN":
            xy = numbers(rest)
            if len(xy) != 2 or not board.inside(*xy) or board.cells[xy[1]][xy[0]] != EMPTY:
                send("ERROR invalid move %s" % rest)
                continue
            board.cells[xy[1]][xy[0]] = THEM
            play_and_answer()
        elif command == "BOARD":
            board = Board(board.size)
            for entry in lines:
                if entry.upper() == "DONE":
                    break
                x, y, who = (numbers(entry) + [0, 0, 0])[:3]
                if board.inside(x, y):
                    board.cells[y][x] = ME if who == 1 else THEM  # 2 and 3 are the opponent's
            play_and_answer()
        elif command == "TAKEBACK":
            xy = numbers(rest)
            if len(xy) == 2 and board.inside(*xy):
                board.cells[xy[1]][xy[0]] = EMPTY
            send("OK")
        elif command == "ABOUT":
            send('name="gomoku-py", version="1.0", author="joute examples", country="-"')
        elif command == "END":
            break
        else:
            send("UNKNOWN %s" % line)


if __name__ == "__main__":
    main()
