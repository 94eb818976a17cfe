"""Matches between two players: engine settings in this process, or engine commands spoken
to over the protocol. Colours alternate; each random legal opening is played twice, once
with each player as White, so neither gains from a lucky opening.

The result is wins/draws/losses from the first player's view with the Elo difference and its
95% error margin (from the spread of per-game scores, as chess testing tools report it).
"""

from __future__ import annotations

import math
import random
import shlex
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.engine.engine import Engine
from companion.rules.games import start_position
from companion.rules.state import GameMove, GameState, GameVariant

MAX_PLIES = 200  # a game still going after this many plies is scored as a draw

State = GameState[Any]
Player = Callable[[State], GameMove]


def engine_player(
    variant: GameVariant, level: str, seconds: float | None, seed: int = 0, nodes: int | None = None
) -> Player:
    """An engine at ``level``; ``strong`` searches ``seconds`` a move, or ``nodes`` nodes (the
    same on a loaded machine as on an idle one)."""
    engine = Engine(variant, level, seed)
    fixed = engine.level.depth is not None

    def play(position: State) -> GameMove:
        if fixed:
            return engine.search(position).move
        return engine.search(position, time=None if nodes else seconds, nodes=nodes).move

    return play


def random_player(seed: int = 0) -> Player:
    """A player that picks a legal move uniformly at random: the floor of the benchmarks."""
    rng = random.Random(seed)

    def play(position: State) -> GameMove:
        return position.move_from_code(rng.choice(position.legal_codes()))

    return play


class CommandPlayer:
    """An engine program driven over the protocol (``gobblet-companion engine`` or another)."""

    def __init__(self, command: str, variant: GameVariant, movetime_ms: int) -> None:
        self.process = subprocess.Popen(
            shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        # Popen gives both pipes when asked for PIPE; the types cannot say so
        assert self.process.stdin is not None and self.process.stdout is not None
        self.to_engine, self.from_engine = self.process.stdin, self.process.stdout
        self.movetime_ms = movetime_ms
        self._send(f"variant {variant.spec}")
        self._send("isready")
        self._wait_for("readyok")

    def _send(self, line: str) -> None:
        self.to_engine.write(line + "\n")
        self.to_engine.flush()

    def _wait_for(self, prefix: str) -> str:
        for line in self.from_engine:
            if line.startswith(prefix):
                return line.strip()
        raise RuntimeError(f"engine command ended before answering {prefix!r}")

    def __call__(self, position: State) -> GameMove:
        texts = _game_moves(position)
        self._send("position startpos" + (" moves " + " ".join(texts) if texts else ""))
        self._send(f"go movetime {self.movetime_ms}")
        return position.parse_move(self._wait_for("bestmove").split()[1])

    def close(self) -> None:
        self._send("quit")
        self.process.wait(timeout=10)


def _game_moves(position: State) -> list[str]:
    """The moves from the start to ``position`` as text (replayed on a fresh start)."""
    replay = start_position(position.variant)
    texts = []
    for code in position.move_codes:
        texts.append(replay.move_from_code(code).text())
        replay.push_code(code)
    return texts


def random_opening(variant: GameVariant, plies: int, rng: random.Random) -> list[int]:
    """Random legal move codes that do not end the game."""
    position = start_position(variant)
    codes = []
    for _ in range(plies):
        choices = []
        for code in position.legal_codes():
            position.push_code(code)
            if position.outcome() is None:
                choices.append(code)
            position.pop_code()
        if not choices:
            break
        code = rng.choice(choices)
        position.push_code(code)
        codes.append(code)
    return codes


def play_game(variant: GameVariant, white: Player, black: Player, opening: list[int]) -> float:
    """White's score: 1, 0.5 or 0."""
    position = start_position(variant)
    for code in opening:
        position.push_code(code)
    while position.outcome() is None and position.ply < MAX_PLIES:
        player = white if position.turn == 0 else black
        position.push_code(position.code_from_move(player(position)))
    outcome = position.outcome()
    if outcome is None or outcome.winner is None:
        return 0.5
    return 1.0 if outcome.winner == 0 else 0.0


@dataclass
class MatchResult:
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    def elo(self) -> tuple[float, float]:
        """(Elo difference, 95% margin) of the first player over the second."""
        n = self.games
        s = self.score
        variance = (self.wins * (1 - s) ** 2 + self.draws * (0.5 - s) ** 2 + self.losses * s**2) / max(n, 1)
        margin = 1.96 * math.sqrt(variance / max(n, 1))
        return elo_of(s), (elo_of(min(s + margin, 1.0)) - elo_of(max(s - margin, 0.0))) / 2

    def text(self, first: str, second: str) -> str:
        elo, margin = self.elo()
        return (
            f"{first} vs {second}: +{self.wins} ={self.draws} -{self.losses} in {self.games} games, "
            f"score {100 * self.score:.1f}%, Elo {elo:+.0f} ± {margin:.0f}"
        )


def elo_of(score: float) -> float:
    """The Elo difference that expects this score; clipped at ±999 for a clean sweep."""
    if score <= 0.0:
        return -999.0
    if score >= 1.0:
        return 999.0
    return max(-999.0, min(999.0, -400 * math.log10(1 / score - 1)))


def run_match(
    variant: GameVariant,
    first: Player,
    second: Player,
    games: int,
    seed: int = 0,
    opening_plies: int = 2,
    report: Callable[[int, MatchResult], None] | None = None,
) -> MatchResult:
    """``games`` games (an even number is fairest), each opening once with each colour."""
    rng = random.Random(seed)
    result = MatchResult()
    opening: list[int] = []
    for game in range(games):
        if game % 2 == 0:
            opening = random_opening(variant, opening_plies, rng)
        first_is_white = game % 2 == 0
        white, black = (first, second) if first_is_white else (second, first)
        score = play_game(variant, white, black, opening)
        mine = score if first_is_white else 1 - score
        if mine == 1:
            result.wins += 1
        elif mine == 0:
            result.losses += 1
        else:
            result.draws += 1
        if report is not None:
            report(game + 1, result)
    return result
