"""The game record format: text a person can read and edit, modelled on chess's PGN.

    [Variant "classic"]
    [White "Ann"]
    [Black "Bob"]
    [Date "2026.11.20"]
    [Place "Kitchen table"]
    [Result "1-0"]
    [Termination "line"]

    1. 4a2 {[%ts 2026-11-20T18:01:05.120Z]} 4c3 2. 3b2 {a comment} c3-b2?? {[%eval #3]} ... 1-0

Header tags are ``[Name "value"]`` lines (``\\"`` and ``\\\\`` escape). ``Start`` holds a
position text when the game did not begin at the variant's start. Move numbers (``1.``) are
optional on input. A move may end in an annotation symbol (``!``, ``?``, ``!!``, ``??``,
``!?``, ``?!``), as in chess. A brace after a move is a comment; ``[%ts ISO-8601]`` inside it
is the move's time stamp, ``[%eval E]`` the evaluation after it from White's side (``0.35``,
``#7``: White wins in 7 plies, ``#-4``: Black in 4). The last token is the result: ``1-0``,
``0-1``, ``1/2-1/2`` or ``*``.
``Termination`` is one of line, uncover, no-moves, repetition, agreed, resignation, touch;
for endings off the board (resignation, agreed draw, touch) it is what replay applies.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime

from companion.errors import CompanionError
from companion.rules.fen import PositionSyntaxError
from companion.rules.game import BaseGame
from companion.rules.games import (
    GOBBLET,
    kind_named,
    new_game,
    position_from_text,
    start_position,
    variant_from_spec,
)
from companion.rules.move import MoveError
from companion.rules.outcome import Outcome, Termination
from companion.rules.square import BLACK, WHITE
from companion.rules.variant import VariantError

TAG_ORDER = ("Game", "Variant", "White", "Black", "Date", "Place", "Result", "Termination", "Start")
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
_TAG = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
_TOKEN = re.compile(r"\{[^}]*\}|[^\s{}]+|\{")
_MOVE_NUMBER = re.compile(r"^\d+\.(\.\.)?$")
_TIMESTAMP = re.compile(r"\[%ts\s+([^\]]+)\]")
_EVALUATION = re.compile(r"\[%eval\s+([^\]]*)\]")
_EVALUATION_VALUE = re.compile(r"^([+-]?\d+(\.\d+)?|#-?\d+)$")
SYMBOLS = ("!!", "??", "!?", "?!", "!", "?")  # longest first: the suffix a move token may end in


class RecordSyntaxError(CompanionError, ValueError):
    """A record that does not parse, or whose moves do not replay."""


# ----- writing ------------------------------------------------------------------------------


def write_record(game: BaseGame) -> str:
    headers = dict(game.headers)
    headers["Variant"] = game.variant.spec
    headers["Result"] = game.result
    outcome = game.outcome()
    if outcome is not None:
        headers["Termination"] = str(outcome.termination)
    else:
        headers.pop("Termination", None)
    if game.start != start_position(game.variant) or game.start.ply:
        headers["Start"] = game.start.text()
    ordered = [k for k in TAG_ORDER if k in headers] + sorted(k for k in headers if k not in TAG_ORDER)
    lines = [f'[{key} "{_escape(headers[key])}"]' for key in ordered]
    return "\n".join(lines) + "\n\n" + _wrap(_movetext(game)) + "\n"


def _movetext(game: BaseGame) -> list[str]:
    tokens: list[str] = []
    ply = game.start.ply
    for played in game.played:
        if ply % 2 == 0 or not tokens:
            tokens.append(f"{ply // 2 + 1}." if ply % 2 == 0 else f"{ply // 2 + 1}...")
        tokens.append(played.move.text() + (played.symbol or ""))
        comment = _comment(played.timestamp, played.comment, played.evaluation)
        if comment:
            tokens.append(comment)
        ply += 1
    tokens.append(game.result)
    return tokens


def _comment(timestamp: float | None, text: str | None, evaluation: str | None = None) -> str:
    parts = []
    if evaluation is not None:
        parts.append(f"[%eval {evaluation}]")
    if timestamp is not None:
        parts.append(f"[%ts {format_timestamp(timestamp)}]")
    if text:
        parts.append(text.replace("}", ")"))
    return "{" + " ".join(parts) + "}" if parts else ""


def format_timestamp(timestamp: float) -> str:
    """ISO 8601 in UTC, rounded to the nearest millisecond."""
    seconds, millis = divmod(round(timestamp * 1000), 1000)
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{millis:03d}Z"


def _wrap(tokens: list[str], width: int = 88) -> str:
    lines, current = [], ""
    for token in tokens:
        if current and len(current) + 1 + len(token) > width:
            lines.append(current)
            current = token
        else:
            current = f"{current} {token}" if current else token
    lines.append(current)
    return "\n".join(lines)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


# ----- reading ------------------------------------------------------------------------------


def read_record(text: str) -> BaseGame:
    """Parse one record and replay its moves; errors name the line or the ply and say why."""
    games = list(read_records(text))
    if len(games) != 1:
        raise RecordSyntaxError(f"expected one game record, found {len(games)}")
    return games[0]


def read_records(text: str) -> Iterator[BaseGame]:
    """Every game in a text that holds one or more records, one after another."""
    headers: dict[str, str] = {}
    movetext: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("[") and not line.startswith("[%"):
            if movetext:
                yield _build(headers, " ".join(movetext))
                headers, movetext = {}, []
            match = _TAG.match(line)
            if not match:
                raise RecordSyntaxError(f'record line {number}: {line!r} is not a [Tag "value"] header')
            headers[match.group(1)] = re.sub(r"\\(.)", r"\1", match.group(2))
        elif line:
            movetext.append(line)
    if headers or movetext:
        yield _build(headers, " ".join(movetext))


def _build(headers: dict[str, str], movetext: str) -> BaseGame:
    try:
        kind = kind_named(headers.get("Game", GOBBLET))
        variant = variant_from_spec(headers.get("Variant", kind.spec_names[0]))
        start = position_from_text(headers["Start"]) if "Start" in headers else None
    except (VariantError, PositionSyntaxError) as error:
        raise RecordSyntaxError(f"record header: {error}") from None
    if not isinstance(variant, kind.variant_type):
        raise RecordSyntaxError(f"record header: Variant {variant.spec!r} is not a variant of {kind.name}")
    if start is not None and start.variant != variant:
        raise RecordSyntaxError("record header: Start position is of another variant than Variant")
    game = new_game(variant, start, headers)
    result = _replay(game, movetext)
    apply_result(game, result, headers.get("Termination"))
    return game


def _replay(game: BaseGame, movetext: str) -> str:
    result = "*"
    tokens = _TOKEN.findall(movetext)
    for index, token in enumerate(tokens):
        if token.startswith("{"):
            if not token.endswith("}"):
                raise RecordSyntaxError("record moves: a comment '{' is never closed")
            _attach_comment(game, token[1:-1])
            continue
        if _MOVE_NUMBER.match(token):
            continue
        if token in RESULTS:
            if index != len(tokens) - 1:
                raise RecordSyntaxError(f"record moves: result {token} must be the last token")
            result = token
            continue
        ply = game.ply + 1
        text, symbol = split_symbol(token)
        try:
            game.push_text(text)
        except MoveError as error:
            raise RecordSyntaxError(f"record move {token!r} at ply {ply}: {error}") from None
        if symbol:
            game.played[-1] = replace(game.played[-1], symbol=symbol)
    return result


def split_symbol(token: str) -> tuple[str, str | None]:
    """A move token without its annotation symbol, and the symbol (``"c3-b2??"`` gives
    ``("c3-b2", "??")``)."""
    for symbol in SYMBOLS:
        if token.endswith(symbol) and len(token) > len(symbol):
            return token[: -len(symbol)], symbol
    return token, None


def _attach_comment(game: BaseGame, body: str) -> None:
    if not game.played:
        return
    timestamp = evaluation = None
    if match := _TIMESTAMP.search(body):
        timestamp = parse_timestamp(match.group(1))
        body = _TIMESTAMP.sub("", body)
    if match := _EVALUATION.search(body):
        evaluation = match.group(1).strip()
        if not _EVALUATION_VALUE.match(evaluation):
            raise RecordSyntaxError(
                f"record: [%eval {evaluation}] at ply {game.ply} is not a score (0.35) or a win (#7, #-4)"
            )
        body = _EVALUATION.sub("", body)
    last = game.played[-1]
    game.played[-1] = replace(last, timestamp=timestamp, comment=body.strip() or None, evaluation=evaluation)


def parse_timestamp(text: str) -> float:
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise RecordSyntaxError(f"record: time stamp {text!r} is not ISO 8601") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def apply_result(game: BaseGame, result: str, termination: str | None) -> None:
    """End a replayed game as its record says. The moves decide it when they end it (and a
    result that contradicts them is a ``RecordSyntaxError``); otherwise ``1/2-1/2`` is an
    agreed draw, a win with ``termination`` ``touch`` the touch-rule forfeit, any other win
    a resignation, and ``*`` leaves the game unfinished. The game log ends a stored game with
    it too."""
    outcome = game.outcome()
    if outcome is not None:
        if result not in ("*", outcome.result):
            raise RecordSyntaxError(
                f"record says {result} but the moves end in {outcome.result} ({outcome.reason})"
            )
        return
    if result == "*":
        return
    if result == "1/2-1/2":
        game.agree_draw()
        return
    loser = BLACK if result == "1-0" else WHITE
    if termination == Termination.TOUCH:
        game.declare(Outcome(Termination.TOUCH, loser ^ 1))
        return
    game.resign(loser)
