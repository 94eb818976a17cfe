"""A reader that cannot tell two sizes of a cup apart: how the referee holds up.

    PYTHONPATH=. python benchmarks/size_doubts.py [GAMES] [--share 0.3] [--seed 0]

The rendered bench's commonest misread is a cup read between two of its sizes (0.84 a 4,
0.16 a 3), reading after reading, as long as the cup stays on top: the faults of
``reconciler_faults.py`` are independent per reading and never do that. Here every reading of
a random legal game (classic, classic, storer, rogers in turn, up to ``MAX_PLIES`` plies, one
reading a ply, no other fault) is clean but for the squares where a placed cup is in doubt:
``--share`` of the placements leave their square read between the cup's size and a
neighbouring one of the same colour until the cup is covered or moved, the truth keeping a
share drawn once in ``TRUTH_SHARE`` (so the wrong size is the likelier reading about a third
of the time, every time) and jittered by ``JITTER`` a reading.

It prints moves right, unknown (held unsure or missing) and wrong (held as known and not the
truth), scored like ``reconciler_faults.py``, and each game with a wrong move. A wrong move
here is a size the camera read as the other one on most readings: no referee can tell it from
the board; the figure to watch is that the referee adds none of its own (run it on another
checkout of the referee for the comparison).
"""

from __future__ import annotations

import argparse
import random
import sys

import numpy as np

from companion.reconciler.reconciler import Reconciler
from companion.rules import Game, Move
from companion.rules.square import Square, board_squares
from companion.rules.variant import Variant
from companion.testing.faults import choose_move, score_record, tops_of
from companion.vision.observation import Observation, Top, class_count, class_index

VARIANTS = ("classic", "classic", "storer", "rogers")
MAX_PLIES = 40
TRUTH_SHARE = (0.25, 0.9)  # the truth's share of a doubted square's reading, drawn once a doubt
JITTER = 0.08  # how much that share moves from one reading to the next
FLOOR = 0.002  # what every other class keeps
SURE = 0.98  # a clean square's share on the truth

Doubt = tuple[Top, Top, float]  # (the cup there, the size it may be read as, the truth's share)


def reading(game: Game, doubts: dict[Square, Doubt], rng: random.Random) -> Observation:
    """The board as it is, each doubted square (while its cup is still the top) read between
    its cup and the other size."""
    variant = game.variant
    tops = tops_of(game.position)
    rows = []
    for sq in board_squares(variant.size):
        top = tops.get(sq)
        row = np.full(class_count(variant.max_piece), FLOOR)
        doubt = doubts.get(sq)
        if doubt is not None and doubt[0] == top:
            share = min(max(doubt[2] + rng.uniform(-JITTER, JITTER), 0.05), 0.95)
            row[class_index(top, variant.max_piece)] += share
            row[class_index(doubt[1], variant.max_piece)] += 1.0 - share
        else:
            row[class_index(top, variant.max_piece)] += SURE
        rows.append(row / row.sum())
    return Observation(variant.size, variant.max_piece, np.array(rows), False)


def play_game(seed: int, share: float) -> tuple[list[str], list[str], set[int], int]:
    """One game: (the record held, the truth's moves, the plies held unsure, resyncs)."""
    rng = random.Random(seed)
    variant = Variant.from_spec(VARIANTS[seed % len(VARIANTS)])
    game = Game(variant)
    reconciler = Reconciler(variant)
    doubts: dict[Square, Doubt] = {}
    for _ in range(MAX_PLIES):
        if game.is_over():
            break
        move = Move.from_text(choose_move(game, rng))
        game.push(move)
        size = move.size
        if size is not None and rng.random() < share:
            others = [s for s in (size - 1, size + 1) if 1 <= s <= variant.max_piece]
            top = game.position.top(move.to_square)
            assert top is not None
            doubts[move.to_square] = (top, (top[0], rng.choice(others)), rng.uniform(*TRUTH_SHARE))
        reconciler.feed(reading(game, doubts, rng))
    record = [m.text() for m in reconciler.game.moves]
    return record, [m.text() for m in game.moves], set(reconciler.unsure), reconciler.resyncs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("games", nargs="?", type=int, default=200, help="games (default 200)")
    parser.add_argument("--share", type=float, default=0.3, help="placements left in doubt (default 0.3)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    args = parser.parse_args()
    if args.games < 1 or not 0.0 <= args.share <= 1.0:
        print("size_doubts: GAMES must be at least 1 and --share between 0 and 1", file=sys.stderr)
        return 2
    right = unknown = wrong = resynced = 0
    for seed in range(args.seed, args.seed + args.games):
        record, truth, unsure, resyncs = play_game(seed, args.share)
        if resyncs:  # (a resync restarts the record: not scored here, counted apart)
            resynced += 1
            continue
        r, w, u = score_record(record, truth, unsure)
        right, unknown, wrong = right + r, unknown + u, wrong + w
        if w:
            print(f"  seed {seed}: {w} wrong; held {' '.join(record)}; truth {' '.join(truth)}")
    print(
        f"{args.games} games, {args.share:.0%} of placements read between two sizes: "
        f"right {right}, unknown {unknown}, wrong {wrong}; games resynced (not scored) {resynced}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
