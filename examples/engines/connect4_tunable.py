#!/usr/bin/env python3
"""connect4.py with an option to tune: noise=P (0-100) plays a random legal move with
probability P/100 instead of its choice, so its best value is 0. The random draw is seeded from
the seed=N option and the moves so far: the program plays the same move in the same game."""
import random
import sys
CENTRE_FIRST = [4, 3, 5, 2, 6, 1, 7]  # columns by preference; of two equally central, the left one

def makes_four(grid, col, row, player):
    """Would a disc of `player` at (col, row) complete four (or more) in a row?"""
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):  # horizontal, vertical, both diagonals
        count = 1
        for sign in (1, -1):  # walk both ways from the new disc
            c, r = col + sign * dc, row + sign * dr
            while grid.get((c, r)) == player:
                count, c, r = count + 1, c + sign * dc, r + sign * dr
        if count >= 4:
            return True
    return False

def choose(moves, noise, seed):
    grid, height = {}, [0] * 8  # grid[(col, row)] = player 0 or 1; row 0 is the bottom
    for i, col in enumerate(int(m) for m in moves):
        grid[(col, height[col])] = i % 2
        height[col] += 1
    me = len(moves) % 2
    legal = [col for col in CENTRE_FIRST if height[col] < 6]
    draw = random.Random(f"{seed}:{','.join(moves)}")  # the same game, the same draw
    if draw.random() * 100 < noise:
        return draw.choice(legal)
    for player in (me, 1 - me):  # first a win of mine, then a win of theirs to block
        for col in legal:
            if makes_four(grid, col, height[col], player):
                return col
    return legal[0]

noise, seed = 0.0, "0"
for line in sys.stdin:  # one request per line; unknown commands are ignored
    command, *words = line.split() or [""]
    args = dict(word.split("=", 1) for word in words if "=" in word)
    if command == "joute":  # the handshake carries the options: noise=P seed=N
        noise, seed = float(args.get("noise", noise)), args.get("seed", seed)
        print(f"ok name=connect4-tunable noise={noise:g}", flush=True)
    elif command == "move":
        print(choose([m for m in args.get("moves", "").split(",") if m], noise, seed), flush=True)
    elif command == "quit":
        break
