"""A deliberately simple, independent Gobblet move generator, written straight from docs/rules.md.

It shares nothing with ``companion.rules`` but the notation: a board is a dict from square
name to a list of (colour, size) bottom first, reserves are plain lists, lines are walked
square by square, and every move is tried on a deep copy. Slow and obvious on purpose, so
that perft and move-list agreement with the fast generator means something.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from functools import cache

FILES = "abcdefghijklmnop"


@dataclass
class RefState:
    size: int
    win: int
    gobble: str  # threat-line | storer | always | never
    any_order: bool
    board: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    reserves: dict[str, list[list[int]]] = field(default_factory=dict)  # stacks, top first
    turn: str = "white"
    winner: str | None = None


@cache
def names(size: int) -> list[str]:
    return [f"{FILES[f]}{r + 1}" for r in range(size) for f in range(size)]


@cache
def lines(size: int, win: int) -> list[list[str]]:
    out = []
    for df, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        for r in range(size):
            for f in range(size):
                cells = [(f + df * k, r + dr * k) for k in range(win)]
                if all(0 <= x < size and 0 <= y < size for x, y in cells):
                    out.append([f"{FILES[x]}{y + 1}" for x, y in cells])
    return out


def top(state: RefState, sq: str) -> tuple[str, int] | None:
    stack = state.board.get(sq) or []
    return stack[-1] if stack else None


def other(color: str) -> str:
    return "black" if color == "white" else "white"


def shows_line(state: RefState, color: str) -> bool:
    for line in lines(state.size, state.win):
        if all((top(state, sq) or ("", 0))[0] == color for sq in line):
            return True
    return False


def stack_gobble_allowed(state: RefState, sq: str) -> bool:
    if state.gobble == "always":
        return True
    if state.gobble == "never":
        return False
    them = other(state.turn)
    for line in lines(state.size, state.win):
        if sq not in line:
            continue
        theirs = [s for s in line if (top(state, s) or ("", 0))[0] == them]
        if len(theirs) >= state.win - 1 and (state.gobble == "storer" or sq in theirs):
            return True
    return False


def available_sizes(state: RefState) -> list[int]:
    stacks = state.reserves[state.turn]
    if state.any_order:
        return sorted({s for stack in stacks for s in stack}, reverse=True)
    return sorted({stack[0] for stack in stacks if stack}, reverse=True)


def fits(state: RefState, sq: str, size: int) -> bool:
    t = top(state, sq)
    return t is None or t[1] < size


def legal_moves(state: RefState) -> list[str]:
    if state.winner is not None:
        return []
    moves = []
    for size in available_sizes(state):
        for sq in names(state.size):
            if fits(state, sq, size) and (top(state, sq) is None or stack_gobble_allowed(state, sq)):
                moves.append(f"{size}{sq}")
    for origin in names(state.size):
        t = top(state, origin)
        if t is None or t[0] != state.turn:
            continue
        for dest in names(state.size):
            if dest != origin and fits(state, dest, t[1]):
                moves.append(f"{origin}-{dest}")
    return moves


def play(state: RefState, move: str) -> RefState:
    new = copy.copy(state)
    new.board = {sq: list(stack) for sq, stack in state.board.items()}
    new.reserves = {color: [list(s) for s in stacks] for color, stacks in state.reserves.items()}
    mover = new.turn
    if "-" in move:
        origin, dest = move.split("-")
        piece = new.board[origin].pop()
    else:
        size, dest = int(move[0]), move[1:]
        stacks = new.reserves[mover]
        for stack in stacks:
            if (new.any_order and size in stack) or (not new.any_order and stack and stack[0] == size):
                stack.remove(size)
                break
        piece = (mover, size)
    new.board.setdefault(dest, []).append(piece)
    new.turn = other(mover)
    if shows_line(new, other(mover)):
        new.winner = other(mover)
    elif shows_line(new, mover):
        new.winner = mover
    return new


def perft(state: RefState, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(perft(play(state, m), depth - 1) for m in legal_moves(state))


def from_position(position) -> RefState:
    """The reference state for a companion position (read through its public views only)."""
    from companion.rules import square_name

    variant = position.variant
    state = RefState(
        size=variant.size,
        win=variant.win_length,
        gobble=str(variant.gobble_rule),
        any_order=variant.any_order,
        turn=("white", "black")[position.turn],
    )
    for sq in position.squares:
        stack = position.stack(sq)
        if stack:
            state.board[square_name(sq)] = [(("white", "black")[c], s) for c, s in stack]
    for color in (0, 1):
        state.reserves[("white", "black")[color]] = [list(stack) for stack in position.reserve(color)]
    outcome = position.line_result()
    if outcome is not None:
        state.winner = ("white", "black")[outcome.winner]
    return state
