"""joute.Game, joute.perft and joute.solve, checked against published counts and against
brute force written here with nothing but legal_moves / play / undo."""

import copy
import random

import pytest

import joute

GAMES = ["othello", "connect4", "morpion", "morpion-5x5-4-exact", "renju", "random-tree-12x4-s3"]


def brute_perft(game, depth):
    """Move sequences of exactly `depth` plies, by playing and taking back every one."""
    if depth == 0:
        return 1
    count = 0
    for mv in game.legal_moves():
        game.play(mv)
        count += brute_perft(game, depth - 1)
        game.undo()
    return count


def negamax(game):
    """The value of the position for the side to move under perfect play: 1, 0 or -1."""
    if game.is_over():
        points = game.result()  # the first player's
        mover = 1.0 - points if game.turn() == 1 else points
        # The side to move at the end is not the one who made the last move: its view.
        return {1.0: 1, 0.5: 0, 0.0: -1}[mover]
    best = -2
    for mv in game.legal_moves():
        game.play(mv)
        best = max(best, -negamax(game))
        game.undo()
    return best


def random_playout(game, rng, plies):
    for _ in range(plies):
        moves = game.legal_moves()
        if not moves:
            break
        game.play(rng.choice(moves))


# Perft: the published counts (the repository's tests/it/perft.rs) and brute force from Python.


def test_connect4_perft_matches_published_counts_and_brute_force():
    # Every column stays open for 6 plies: 7^d.
    published = [7, 49, 343, 2401, 16807, 117649]
    assert [joute.perft("connect4", d) for d in range(1, 7)] == published
    game = joute.Game("connect4")
    assert [brute_perft(game, d) for d in range(1, 6)] == published[:5]
    assert game.moves() == []


def test_othello_perft_matches_published_counts_and_brute_force():
    published = [4, 12, 56, 244, 1396]
    assert [joute.perft("othello", d) for d in range(1, 6)] == published
    game = joute.Game("othello")
    assert [brute_perft(game, d) for d in range(1, 6)] == published


def test_morpion_perft_matches_published_counts():
    # Tic-tac-toe: 9, 9*8, 9*8*7, ... until wins cut the tree (255168 games in all).
    published = [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]
    assert [joute.perft("morpion", d) for d in range(1, 10)] == published


def test_perft_from_a_game_or_a_position_with_passes_agrees_with_brute_force():
    # FFO #40, 20 empty squares: passes and game ends come up in the tree.
    ffo40 = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X"
    game = joute.Game("othello", position=ffo40)
    for d in range(1, 4):
        assert joute.perft(game, d) == brute_perft(game, d)
        assert joute.perft("othello", d, position=ffo40) == brute_perft(game, d)
    c4 = joute.Game("connect4", moves="4453")
    assert joute.perft(c4, 4) == brute_perft(c4, 4)


def test_perft_refuses_bad_depths_and_arguments():
    with pytest.raises(ValueError, match="0..=20"):
        joute.perft("connect4", 21)
    with pytest.raises(ValueError, match="0..=20"):
        joute.perft("connect4", -1)
    assert joute.perft("connect4", 0) == 1
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        joute.perft("chess", 1)
    with pytest.raises(ValueError, match="position= goes with a game's name"):
        joute.perft(joute.Game("othello"), 1, position="x")
    with pytest.raises(ValueError, match="game must be"):
        joute.perft(3, 1)


# Solving.


def test_tic_tac_toe_is_a_draw_as_brute_force_finds():
    assert negamax(joute.Game("morpion")) == 0
    solved = joute.solve("morpion")
    assert solved["exact"] and solved["value"] == "draw" and solved["score"] == 0
    assert solved["nodes"] > 0 and solved["seconds"] >= 0


def test_solve_agrees_with_brute_force_on_tic_tac_toe_positions():
    rng = random.Random(7)
    verdict = {1: "win", 0: "draw", -1: "loss"}
    checked = 0
    for _ in range(40):
        game = joute.Game("morpion")
        random_playout(game, rng, rng.randrange(1, 6))
        if game.is_over():
            continue
        value = negamax(game)
        solved = joute.solve(game)
        assert solved["value"] == verdict[value], game.position()
        assert solved["turn"] == game.turn()
        # The best move it names reaches the value.
        game.play(solved["best_move"])
        assert -negamax(game) == value
        checked += 1
    assert checked >= 20


def test_solve_refuses_what_joute_solve_refuses():
    with pytest.raises(ValueError, match="at most 30.*time= or nodes="):
        joute.solve("othello")
    with pytest.raises(ValueError, match="at most 25"):
        joute.solve("morpion-7x7-4")
    with pytest.raises(ValueError, match="nodes is 0"):
        joute.solve("morpion", nodes=0)
    with pytest.raises(ValueError, match="invalid othello position"):
        joute.solve("othello", position="XO")
    stopped = joute.solve("othello", nodes=1000)
    assert not stopped["exact"] and stopped["stopped_by"] == "nodes"
    assert stopped["value"] is None and stopped["lower"] <= stopped["upper"]


def test_solve_an_othello_endgame_from_a_game():
    # Two empty squares: brute force over the final disc difference.
    board = "X" * 30 + "O" * 32 + "--"
    game = joute.Game("othello", position=board + " X")

    def best_margin(g):
        if g.is_over():
            score = g.score()  # the first player's
            return score if g.turn() == 0 else -score
        best = -100
        for mv in g.legal_moves():
            g.play(mv)
            best = max(best, -best_margin(g))
            g.undo()
        return best

    solved = joute.solve(game)
    assert solved["exact"] and solved["score"] == best_margin(game)


# Playing and taking back.


@pytest.mark.parametrize("name", GAMES)
def test_play_and_undo_restore_the_position(name):
    rng = random.Random(name)
    game = joute.Game(name)
    seen = []
    for _ in range(30):
        moves = game.legal_moves()
        assert len(moves) == game.legal_move_count()
        if not moves:
            assert game.is_over()
            break
        seen.append((game.hash(), game.position(), game.turn(), moves))
        game.play(rng.choice(moves))
    assert len(game.moves()) == len(seen)
    for hash_, position, turn, moves in reversed(seen):
        game.undo()
        assert (game.hash(), game.position(), game.turn(), game.legal_moves()) == (
            hash_,
            position,
            turn,
            moves,
        )
    assert game.moves() == []
    with pytest.raises(IndexError):
        game.undo()


@pytest.mark.parametrize("name", GAMES)
def test_positions_read_back(name):
    rng = random.Random(1 + len(name))
    for plies in (0, 1, 5, 12):
        game = joute.Game(name)
        random_playout(game, rng, plies)
        again = joute.Game(name, position=game.position())
        assert again.hash() == game.hash()
        assert again.position() == game.position()
        assert again.legal_moves() == game.legal_moves()
        assert again.turn() == game.turn() and again.is_over() == game.is_over()
        # Moves played after a given position extend its text.
        if again.legal_moves():
            mv = again.legal_moves()[0]
            again.play(mv)
            game.play(mv)
            assert joute.Game(name, position=again.position()).hash() == game.hash()
        # The repr rebuilds the game.
        rebuilt = eval(repr(again), {"Game": joute.Game})
        assert rebuilt.hash() == again.hash() and rebuilt.moves() == again.moves()


def test_moves_and_play_sequence():
    game = joute.Game("othello", moves="f5d6c3")
    assert game.moves() == ["f5", "d6", "c3"]
    assert game.turn() == 1 and game.name == "othello"
    game.play_sequence("d3, c4")
    assert game.moves() == ["f5", "d6", "c3", "d3", "c4"]
    before = game.position()
    with pytest.raises(ValueError, match="invalid othello move 'a1'"):
        game.play_sequence("f4 a1")
    assert game.position() == before, "a refused sequence plays nothing"
    c4 = joute.Game("connect4", position="4453", moves="1 2")
    assert c4.position() == "445312" and c4.moves() == ["1", "2"]
    assert joute.Game("morpion-3x3-3").name == "morpion"
    # A list of moves, as moves() gives them.
    again = joute.Game("othello", moves=game.moves())
    assert again.hash() == game.hash() and again.moves() == game.moves()
    with pytest.raises(ValueError, match="invalid othello move 'a1'"):
        joute.Game("othello", moves=["f5", "a1"])
    with pytest.raises(TypeError):
        joute.Game("othello", moves=5)


def test_copies_are_independent():
    game = joute.Game("connect4", moves="44")
    for other in (game.copy(), copy.copy(game), copy.deepcopy(game)):
        other.play("1")
        assert game.moves() == ["4", "4"] and other.moves() == ["4", "4", "1"]


def test_a_won_game_says_so():
    game = joute.Game("connect4", moves="1212121")  # four in column 1
    assert game.is_over() and game.legal_moves() == []
    assert (game.result(), game.winner(), game.score()) == (1.0, 0, 1)
    assert "X wins" in game.board() and str(game) == game.board()
    fresh = joute.Game("connect4")
    assert (fresh.result(), fresh.winner(), fresh.score()) == (None, None, None)
    draw = joute.Game("morpion", moves="b2 a1 c1 a3 a2 c2 b1 b3 c3")
    assert draw.is_over() and (draw.result(), draw.winner()) == (0.5, None)


# Errors in the game's own words.


def test_unknown_games_and_bad_positions_are_value_errors():
    with pytest.raises(ValueError, match="unknown game 'chess'; expected othello"):
        joute.Game("chess")
    with pytest.raises(ValueError, match="k must be between 1 and 3"):
        joute.Game("morpion-3x3-9")
    with pytest.raises(ValueError, match="invalid othello position"):
        joute.Game("othello", position="XO")
    with pytest.raises(ValueError, match="column 1 is full"):
        joute.Game("connect4", position="1111111")


def test_illegal_moves_say_why():
    game = joute.Game("othello")
    with pytest.raises(ValueError, match="a1 flips nothing; legal moves: d3 c4 f5 e6"):
        game.play("a1")
    with pytest.raises(ValueError, match="a move is a square a1..h8"):
        game.play("z9")
    c4 = joute.Game("connect4", moves="111111")
    with pytest.raises(ValueError, match="column 1 is full"):
        c4.play("1")
    with pytest.raises(ValueError, match="a move is a column 1..7"):
        c4.play("8")
    ttt = joute.Game("morpion", moves="b2")
    with pytest.raises(ValueError, match="invalid morpion move 'b2'"):
        ttt.play("b2")
    assert ttt.moves() == ["b2"], "a refused move plays nothing"


def test_othello_passes_are_written_pass():
    # White a1, black b1, black to move: black has no move and passes; white then takes b1.
    game = joute.Game("othello", position="OX" + "-" * 62 + " X")
    assert game.legal_moves() == ["pass"] and game.turn() == 0
    with pytest.raises(ValueError, match="must pass"):
        game.play("c1")
    game.play("pass")
    assert game.turn() == 1 and game.legal_moves() == ["c1"]
    game.play("c1")
    assert game.moves() == ["pass", "c1"]
    assert game.is_over() and (game.winner(), game.score()) == (1, -64)
    assert joute.Game("othello").legal_moves() != ["pass"]
    with pytest.raises(ValueError, match="a pass, but there are moves"):
        joute.Game("othello").play("pass")


def gomoku_board(black, white):
    """A 15x15 board: row 1 on top, cells named column letter then row (`h8`)."""
    cells = ["."] * 225
    for names, mark in ((black, "X"), (white, "O")):
        for name in names:
            col, row = ord(name[0]) - ord("a"), int(name[1:])
            cells[(row - 1) * 15 + col] = mark
    return "/".join("".join(cells[r * 15 : (r + 1) * 15]) for r in range(15))


def test_renju_forbids_black_a_double_three():
    # From tests/it/perft.rs: h8 makes g8-h8-i8 and h6-h7-h8, both open threes.
    board = gomoku_board(["g8", "i8", "h6", "h7"], ["a1", "c1", "e1", "g1"])
    renju = joute.Game("renju", position=board)
    assert renju.turn() == 0
    assert "h8" not in renju.legal_moves() and "j8" in renju.legal_moves()
    with pytest.raises(ValueError, match="h8 is a forbidden point"):
        renju.play("h8")
    # Freestyle gomoku has no forbidden point.
    free = joute.Game("morpion-15x15-5", position=board)
    assert "h8" in free.legal_moves()
    free.play("h8")
