#!/usr/bin/env python3
"""A Connect 4 negamax in Python, two ways: a function joute plays in-process
(`joute.match("connect4", negamax_connect4.bot, "alphabeta:4")`), and the same function as an
outside engine over joute's line protocol (`python3 negamax_connect4.py` reads `move
moves=4,4,3` and writes its column). It searches DEPTH plies, wins and losses only (a win
sooner is better), moves tried centre first: deterministic, so both ways play the same games.
"""
import os
import sys

import joute

DEPTH = int(os.environ.get("NEGAMAX_DEPTH", "4"))
CENTRE_FIRST = "4352617"  # columns by preference


def negamax(state, depth, alpha, beta):
    """The value of `state` for the side to move: +/-(100 + plies left) for a win or loss
    found, 0 for a draw or nothing found within `depth` plies."""
    if state.is_over():
        # The game ended on the last move: a draw, or the side that moved last won.
        return 0 if state.result() == 0.5 else -(100 + depth)
    if depth == 0:
        return 0
    best = -1000
    for move in sorted(state.legal_moves(), key=CENTRE_FIRST.index):
        state.play(move)
        value = -negamax(state, depth - 1, -beta, -alpha)
        state.undo()
        if value > best:
            best = value
        if best > alpha:
            alpha = best
        if alpha >= beta:
            break
    return best


def bot(state):
    """The move negamax chooses (the first best, centre first)."""
    best_move, best = None, -1001
    alpha = -1000
    for move in sorted(state.legal_moves(), key=CENTRE_FIRST.index):
        state.play(move)
        value = -negamax(state, DEPTH - 1, -1000, -alpha)
        state.undo()
        if value > best:
            best_move, best = move, value
            alpha = max(alpha, value)
    return best_move


def main():
    """joute's line protocol: `joute` → `ok`, `move moves=...` → a column, `quit`."""
    for line in sys.stdin:
        command, *words = line.split() or [""]
        if command == "joute":
            print(f"ok name=negamax-{DEPTH}", flush=True)
        elif command == "move":
            args = dict(word.split("=", 1) for word in words if "=" in word)
            moves = [m for m in args.get("moves", "").split(",") if m]
            print(bot(joute.Game("connect4", moves=moves)), flush=True)
        elif command == "quit":
            break


if __name__ == "__main__":
    main()
