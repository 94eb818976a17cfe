"""What the simulated table plays: a random legal game, as the sequence of boards a camera
would see, with the moments a player's hands are over the board and the moments the player
presses the button.

Pure data from a seed, so the embedded default, the end-to-end test and a person reading the
output all see the same game. Besides the plain moves it stages what a referee is for: a hint
asked for and waited on, an illegal placement put right, a move taken back with a double
press (each only where the game offers a chance).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import StrEnum

from companion.rules.game import Game
from companion.rules.move import Move
from companion.rules.position import Piece, Position
from companion.rules.square import Square
from companion.rules.variant import Variant

Board = dict[Square, tuple[Piece, ...]]  # every stack, bottom first


class Press(StrEnum):
    HINT = "press"  # a short press: ask for a hint
    CONFIRM = "double"  # a double press: confirm a takeback


@dataclass(frozen=True)
class Shot:
    """One board state held in front of the camera for ``frames`` frames."""

    board: Board
    frames: int
    hand: Square | None = None  # a hand (and a lifted cup) over this square
    wait_before: str | None = None  # after these frames the player waits for this scene,
    press: Press | None = None  # presses the button,
    wait_after: str | None = None  # and waits for this scene before going on
    fault: str | None = None  # the camera fails for these frames ("unplugged", "garbage")
    note: str = ""


@dataclass
class Scenario:
    variant: Variant
    game: Game  # the game the table plays, to the end
    shots: list[Shot] = field(default_factory=list)
    staged: list[str] = field(default_factory=list)  # what besides moves was staged, in words


def board_of(position: Position) -> Board:
    return {sq: position.stack(sq) for sq in position.squares if position.stack(sq)}


def random_game(variant: Variant, seed: int, max_plies: int = 60) -> Game:
    """A random legal game that ends: each side takes an immediate win when it has one and
    otherwise plays at random. Tries seeds from ``seed`` on until a game ends in time."""
    for attempt in range(100):
        rng = random.Random(seed * 1000 + attempt)
        game = Game(variant)
        while not game.is_over() and game.ply < max_plies:
            game.push(_pick(game, rng))
        if game.is_over():
            return game
    raise RuntimeError(f"no random {variant.spec} game ended within {max_plies} plies")  # pragma: no cover


def _pick(game: Game, rng: random.Random) -> Move:
    position = game.position
    codes = position.legal_codes()
    for code in codes:  # make and unmake: fast enough for moku's hundreds of moves
        position.push_code(code)
        result = position.line_result()
        position.pop_code()
        if result is not None and result.winner == game.turn:
            return position.move_from_code(code)
    return position.move_from_code(rng.choice(codes))


def build_scenario(
    variant: Variant,
    seed: int = 0,
    *,
    stable_frames: int = 4,
    hand_frames: int = 2,
    hint_every: int = 0,
    stage_illegal: bool = True,
    stage_takeback: bool = True,
    stage_camera_fault: bool = True,
    fault_frames: int = 14,
) -> Scenario:
    """The shots for one random game. ``hint_every`` > 0 asks for a hint every that many
    plies (waiting for it, as a person would); 0 asks once, early."""
    game = random_game(variant, seed)
    scenario = Scenario(variant, game)
    replay = Game(variant)
    shots = scenario.shots
    shots.append(Shot({}, stable_frames, note="empty board"))
    illegal_done = not stage_illegal
    takeback_done = not stage_takeback
    fault_done = not stage_camera_fault
    for index, played in enumerate(game.played):
        before = board_of(replay.position)
        if _wants_hint(index, hint_every):
            shots.append(Shot(before, 1, press=Press.HINT, wait_after="hint", note="player asks for a hint"))
        if not illegal_done and index >= 4:
            wrong = _illegal_board(replay.position)
            if wrong is not None:
                shots.append(Shot(wrong, stable_frames, note="an illegal placement"))
                shots.append(Shot(before, stable_frames, note="the board put right"))
                scenario.staged.append(f"illegal placement before ply {index + 1}, then restored")
                illegal_done = True
        if not fault_done and index >= 8:
            shots.append(Shot(before, fault_frames // 2, fault="garbage", note="the camera sends garbage"))
            shots.append(
                Shot(
                    before,
                    fault_frames - fault_frames // 2,
                    fault="unplugged",
                    note="the camera is unplugged",
                )
            )
            scenario.staged.append(
                f"camera failure before ply {index + 1} (garbage, then unplugged), game kept"
            )
            fault_done = True
        move = played.move
        after_position = replay.position.copy()
        after_position.push(move)
        after = board_of(after_position)
        shots.extend(_hand_shots(replay.position, move, hand_frames))
        shots.append(Shot(after, stable_frames, note=f"ply {index + 1}: {move.text()}"))
        last = index == len(game.played) - 1
        if not takeback_done and index >= 6 and not last:
            shots.append(
                Shot(
                    before,
                    stable_frames,
                    wait_before="takeback-offered",
                    press=Press.CONFIRM,
                    wait_after="takeback",
                    note=f"{move.text()} taken back",
                )
            )
            shots.extend(_hand_shots(replay.position, move, hand_frames))
            shots.append(Shot(after, stable_frames, note=f"ply {index + 1} again: {move.text()}"))
            scenario.staged.append(f"takeback of ply {index + 1} ({move.text()}), confirmed, then replayed")
            takeback_done = True
        replay.push(move)
    shots.append(Shot(board_of(replay.position), stable_frames, note="final position"))
    return scenario


def _wants_hint(index: int, hint_every: int) -> bool:
    if hint_every > 0:
        return index % hint_every == hint_every - 1
    return index == 2


def _hand_shots(position: Position, move: Move, frames: int) -> list[Shot]:
    """Mid-move: the hand over the board; a cup lifted from a square uncovers what it hid."""
    if frames <= 0:
        return []
    board = board_of(position)
    if move.from_square is not None:
        rest = board[move.from_square][:-1]
        if rest:
            board[move.from_square] = rest
        else:
            del board[move.from_square]
    return [Shot(board, frames, hand=move.to_square, note="hand over the board")]


def _illegal_board(position: Position) -> Board | None:
    """The mover covering one of their own cups with a bigger one from a stack (rule 4 says
    never), a mistake a beginner makes and a referee must catch."""
    mover = position.turn
    sizes = sorted({stack[0] for stack in position.reserve(mover)}, reverse=True)
    for sq in position.squares:
        top = position.top(sq)
        if top is None or top[0] != mover:
            continue
        for size in sizes:
            if size > top[1] and not position.is_legal(Move.place(size, sq)):
                board = board_of(position)
                board[sq] = (*board[sq], (mover, size))
                return board
    return None
