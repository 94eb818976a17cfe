"""The referee's doubts put into words: what a path says happened, which announced plies a
close rival plays differently, and why a reading is left unclear.

Kept apart from the reconciler's path tracking because these only read paths; they decide
nothing. See docs/reconciler.md.
"""

from __future__ import annotations

import difflib

from companion.reconciler.accounts import Kind, Settings
from companion.reconciler.decoder import fits, unexplained_reason
from companion.reconciler.paths import GamePath, Group, accuses, code_text, common_prefix
from companion.rules.square import Square


def history(path: GamePath, shown: GamePath) -> str:
    """The moves a path plays since the announced game ``shown`` (before this reading)."""
    assert path.before is not None
    announced = shown.codes if path.root == shown.root else ()
    codes = path.before.codes
    return " ".join(code_text(code) for code in codes[common_prefix(announced, codes) :]) or "no move"


def describe(path: GamePath, shown: GamePath) -> str:
    """What a path says happened since the announced game ``shown``: moves, or an action."""
    e = path.explanation
    assert e is not None and path.before is not None
    announced = shown.codes if path.root == shown.root else ()
    moved = e.kind in (Kind.MOVE, Kind.TWO_MOVES, Kind.NO_CHANGE)
    codes = path.codes if moved else path.before.codes
    texts = [code_text(code) for code in codes[common_prefix(announced, codes) :]]
    if moved:
        return " ".join(texts) or "no change"
    action = f"{e.kind} {e.action.text()}" if e.action is not None else str(e.kind)
    return " ".join([*texts, action])


def unclear_reason(
    best: GamePath, groups: list[Group], shown: GamePath, settings: Settings, rival: GamePath | None
) -> tuple[str, tuple[Square, ...]]:
    """Why no path is announced from this reading, and the squares that contradict the best."""
    assert best.view is not None and best.explanation is not None
    ok, contradicting, _ = fits(best.view, best.explanation, settings)
    if not ok:
        return unexplained_reason(best.view, contradicting), contradicting
    leader = groups[0][1][0]
    gap = groups[0][0] - (groups[1][0] if len(groups) > 1 else -float("inf"))
    if rival is not None and gap >= settings.margin:
        reason = (
            f"the board shows {describe(leader, shown)}, but not which moves led there: "
            f"{history(leader, shown)} or {history(rival, shown)}"
        )
    elif len(groups) > 1 and gap < settings.margin:
        reason = f"cannot tell {describe(leader, shown)} from {describe(groups[1][1][0], shown)}"
    else:
        reason = (
            f"{describe(best, shown)} explains the board only if earlier readings were wrong "
            "on several squares: waiting for a reading that confirms it"
        )
    return reason, contradicting


def plies_played_otherwise(path: GamePath, shown: GamePath, base_ply: int) -> set[int]:
    """The plies (1-based) of the announced game ``shown`` that ``path`` plays otherwise,
    aligned as ``unsure_plies`` aligns them (a path that adds or drops moves somewhere agrees
    again on the moves after them)."""
    return _played_otherwise_past(path, shown, base_ply, common_prefix(path.codes, shown.codes))


def _played_otherwise_past(path: GamePath, shown: GamePath, base_ply: int, common: int) -> set[int]:
    """``plies_played_otherwise`` once the announced moves ``path`` shares (``common``, the
    prefix's length) are known: the callers that know it do not work it out again."""
    matcher = difflib.SequenceMatcher(None, shown.codes[common:], path.codes[common:], autojunk=False)
    return {
        base_ply + i + 1
        for tag, s0, s1, _p0, _p1 in matcher.get_opcodes()
        if tag != "equal"
        for i in range(common + s0, common + s1)
    }


def instead(path: GamePath) -> str:
    """What a path that drops announced moves has in their place: an illegal action standing
    on the board (an accusation held back, the lawful account played), or no move."""
    return f"illegal {path.pending.text()}" if path.pending is not None else "no move"


def plies_held_in_doubt(
    path: GamePath, shown: GamePath, base_ply: int, best: float, settings: Settings
) -> set[int]:
    """The plies (1-based) of the announced game ``shown`` that ``path`` holds in doubt beside
    the best path's score ``best``: the ones it plays otherwise (``plies_played_otherwise``)
    when it is from the announced game's start, within ``settings.doubt`` of ``best`` and holds
    one in doubt as ``first_held_in_doubt`` says; none otherwise."""
    if path.root != shown.root or path.score < best - settings.doubt:
        return set()
    common = first_held_in_doubt(path, shown, best, settings)
    return set() if common is None else _played_otherwise_past(path, shown, base_ply, common)


def first_held_in_doubt(path: GamePath, shown: GamePath, best: float, settings: Settings) -> int | None:
    """The first announced ply of ``shown`` (its index) that ``path`` plays otherwise, when it
    holds it in doubt; None when it holds none. ``path`` is from the same start and within
    ``settings.doubt`` of the best path's score ``best``: it holds an earlier ply so, the latest
    alone only within the margin (one reading cannot tell an earlier ply again, while the
    latest is weighed as any claim is). The index is where ``unsure_plies`` aligns the rest of
    the path from: worked out once."""
    common = common_prefix(path.codes, shown.codes)
    latest_alone = common == len(shown.codes) - 1
    if common == len(shown.codes) or (latest_alone and path.score < best - settings.margin):
        return None
    return common


def unsure_plies(
    beam: list[GamePath], shown: GamePath, base_ply: int, guard: int, settings: Settings
) -> dict[int, set[str]]:
    """Plies (1-based) of the announced game that another live path plays differently while
    it is close to the best, with the moves played there. The latest move is in doubt while a
    path is within the margin; an earlier one while a path is within ``settings.doubt`` (a
    single reading, however sure, cannot tell it: the square that told it was not read again,
    say the cup was covered).

    A path that accuses a player (``accuses``: an illegal action standing on the board, not
    called) holds only the plies its accusation stands in for, as a claim about the latest
    reading is held: within the margin. The moves its line plays otherwise before them are
    no doubt of their own: that line explains the board since only by a rule broken, which
    the referee does not presume (no accusation without certainty). A size no stack could
    give is the stacks telling an earlier size: in ``size_doubts.py`` seed 65, White's 3 on
    d2 read 0.6 a 3 stayed in doubt against "2d2" to the game's end, held by "2d2, then an
    illegal 2a4" (no 2 left in White's stacks for the 2 that won), 6.44 nats behind."""
    best = beam[0].score
    unsure: dict[int, set[str]] = {}
    for path in beam:
        if path.score < best - settings.doubt:
            continue
        if path.root != shown.root:
            # another start (the other side to move after a resync, or a new game):
            # nothing announced since the start is sure
            for i, code in enumerate(shown.codes):
                unsure.setdefault(base_ply + i + 1, {code_text(code)}).add("another start")
            continue
        common = first_held_in_doubt(path, shown, best, settings)
        if common is None:
            continue
        accusing = accuses(path) and shown.pending is None
        if accusing and path.score < best - settings.margin:
            continue  # (an accusation not called holds only the ply it accuses: the latest)
        # the announced moves this path replaces (aligned as a diff: a path that adds
        # or drops moves somewhere agrees again on the moves after them)
        matcher = difflib.SequenceMatcher(None, shown.codes[common:], path.codes[common:], autojunk=False)
        for tag, s0, s1, p0, p1 in matcher.get_opcodes():
            if tag == "equal":
                continue
            others = [code_text(code) for code in path.codes[common + p0 : common + p1]] or [instead(path)]
            for i in range(common + s0, common + s1):
                if accusing and i < len(path.codes):
                    continue  # (a move its line plays otherwise before it: its story needs the rule broken)
                texts = unsure.setdefault(base_ply + i + 1, {code_text(shown.codes[i])})
                if s1 - s0 == p1 - p0:  # as many moves replaced: each ply by its own
                    texts.add(others[i - common - s0])
                elif p0 == p1 and i > common + s0:  # (an illegal action stands for the first only)
                    texts.add("no move")
                else:
                    texts.update(others)
    for why, indices in shown.lasting.by_why():
        for i in indices:
            if i < len(shown.codes):
                unsure.setdefault(base_ply + i + 1, {code_text(shown.codes[i])}).add(why.value)
    if guard and len(shown.codes) >= guard:
        first = shown.codes[guard - 1]
        unsure.setdefault(guard, {code_text(first)}).add("the end of a move under way at the resync")
    return {ply: texts for ply, texts in unsure.items() if len(texts) > 1}  # not just aligned apart
