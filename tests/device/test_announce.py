"""What the referee says aloud: a sentence for every event the presenter gets, in every shipped
language, in the words players use; the rules' reasons for an illegal move all recognised."""

from __future__ import annotations

import random
import re

import pytest

from companion.device.announce import EVENT_TOPICS, REASONS, Narrator, Topic, reason_kind
from companion.device.phrases import LANGUAGES, Phrasebook, phrasebook, placeholders
from companion.reconciler.events import Event, EventType
from companion.reconciler.referee import (
    Action,
    ActionKind,
    illegal_reason,
    put_back_reason,
    touch_reason,
    wrong_piece_reason,
)
from companion.rules import Game, Variant
from companion.rules.move import Move
from companion.rules.square import opponent

SAMPLES: dict[EventType, list[Event]] = {
    EventType.MOVE: [
        Event(EventType.MOVE, move="4a1", detail={"color": "white"}),
        Event(EventType.MOVE, move="c3-b2", detail={"color": "black"}),
    ],
    EventType.ILLEGAL: [
        Event(
            EventType.ILLEGAL,
            move="3c4",
            reason="White may gobble c4 from a stack only if c4 is one of three black pieces in a line",
            detail={"action": "3c4", "color": "white"},
        ),
        Event(
            EventType.ILLEGAL,
            move="a1-b1",
            reason="b1 holds a larger piece",
            detail={"action": "a1-b1", "color": "black"},
        ),
        Event(
            EventType.ILLEGAL,
            reason="touch rule: White lifted the piece on a2 and put it back; a lifted piece must move to "
            "another square",
            detail={"must_move": "a2"},
        ),
        Event(
            EventType.ILLEGAL,
            reason="touch rule: White may not touch b3: it shows a black piece",
            detail={"action": "lift b3", "color": "white"},
        ),
        Event(EventType.ILLEGAL, reason="something new", detail={"action": "?"}),
    ],
    EventType.NEEDS_ATTENTION: [
        Event(EventType.NEEDS_ATTENTION, squares=("b2", "c3", "d4"), reason="unclear"),
        Event(EventType.NEEDS_ATTENTION, reason="unclear"),
    ],
    EventType.SETTLED: [Event(EventType.SETTLED, moves=("4b1",), detail={"settled": {"7": "4b1"}})],
    EventType.LIFTED: [
        Event(
            EventType.LIFTED,
            squares=("b2",),
            detail={"color": "black", "uncovers": ["a1", "b2", "c3", "d4"]},
        )
    ],
    EventType.RESTORED: [Event(EventType.RESTORED)],
    EventType.CLEARED: [
        Event(EventType.CLEARED, detail={"plies": [7], "accepted": False}),
        Event(EventType.CLEARED, detail={"plies": [7], "accepted": True}),
    ],
    EventType.TAKEBACK: [Event(EventType.TAKEBACK, move="b2-c3")],
    EventType.WIN: [Event(EventType.WIN, winner="white", line=("a1", "b1", "c1", "d1"))],
    EventType.LOSS: [
        Event(
            EventType.LOSS,
            winner="black",
            line=("a4", "b3", "c2", "d1"),
            detail={"termination": "uncover"},
        ),
        Event(EventType.LOSS, winner="white", detail={"termination": "no-moves"}),
        Event(EventType.LOSS, winner="white", detail={"termination": "touch"}),
        Event(EventType.LOSS, winner="black", detail={"termination": "resignation"}),
    ],
    EventType.DRAW: [
        Event(EventType.DRAW, detail={"termination": "repetition"}),
        Event(EventType.DRAW, detail={"termination": "agreed"}),
        Event(EventType.DRAW),
    ],
    EventType.NEW_GAME: [Event(EventType.NEW_GAME)],
    EventType.CORRECTION: [Event(EventType.CORRECTION, moves=("4a1", "b2-c3", "2d4"))],
    EventType.RESYNC: [Event(EventType.RESYNC)],
    EventType.HELP: [Event(EventType.HELP, squares=("a1", "b2")), Event(EventType.HELP)],
    EventType.HINT: [Event(EventType.HINT, move="c3-b2"), Event(EventType.HINT, move="3b2")],
}


class Recording(Phrasebook):
    """A phrase table that notes every phrase id asked of it."""

    used: set[str]

    def template(self, phrase_id: str) -> str:
        self.used.add(phrase_id)
        return super().template(phrase_id)


def recording(language: str) -> Recording:
    table = phrasebook(language)
    book = Recording(table.language, table.name, table.phrases)
    object.__setattr__(book, "used", set())
    return book


def every_sentence(narrator: Narrator) -> list[str]:
    """One sentence for each sample of every event type, and each of the presenter's other calls."""
    said = [narrator.event_text(event, "white") for samples in SAMPLES.values() for event in samples]
    said += [narrator.hint(Move.from_text(text), "white").text for text in ("c3-b2", "2a4")]
    said.append(narrator.hint_failed("white", "the engine crashed").text)
    said.append(narrator.accept_refused("white", "hands off the board").text)
    said.append(narrator.takeback_offered("3c2", "black").text)
    for text, service in (("camera lost", None), (None, None), (None, "log: disk full")):
        announcement = narrator.fault(text, service)
        said.append(announcement.text if announcement else "")
    said += [narrator.why(reason) for reason in REASON_SAMPLES]
    said += [narrator.event_text(event, "white") for event in _gobbling_moves()]
    said.append(narrator.event_text(DOUBT, "white") or "")
    return [text for text in said if text]


REASON_SAMPLES = (
    "it is White's turn: Black may not move twice",
    "b1 holds a same-size piece",
    "a piece from an external stack may go only on an empty square",
    "White may not gobble its own piece on c4 from a stack",
    "you have no 3 off the board; you have sizes 4 and 2",
    "all your pieces are on the board",
    "c2 is empty",
    "c2 shows a black piece: White may move or touch only stacks showing white",
    "a piece may not return to the square it was lifted from",
    "touch rule: White lifted the piece on a2 and must move it, not play 4b1",
    "the game is over (White wins with a full line a1 b1 c1 d1)",
)


DOUBT = Event(EventType.NEEDS_ATTENTION, reason="not sure", detail={"unsure": {"7": ["3b1", "4b1"]}})


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_ply_in_doubt_and_its_settling_are_said_as_such_not_as_a_board_to_check(language):
    narrator = Narrator(phrasebook(language))
    doubt = narrator.event(DOUBT, "white")
    settled = narrator.event(SAMPLES[EventType.SETTLED][0], "white")
    unclear = narrator.event(SAMPLES[EventType.NEEDS_ATTENTION][1], "white")
    assert doubt is not None and settled is not None and unclear is not None
    assert doubt.topic is settled.topic is Topic.DOUBT and "7" in doubt.text
    assert doubt.text != unclear.text and unclear.topic is Topic.PROBLEM


def test_every_event_type_has_a_topic_and_samples():
    assert set(EVENT_TOPICS) == set(EventType)  # a new event type must be given a topic and words
    assert set(SAMPLES) == set(EventType)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_event_type_has_a_sentence_in_every_language(language):
    narrator = Narrator(phrasebook(language))
    for event_type in EventType:
        for event in SAMPLES[event_type]:
            announcement = narrator.event(event, "white")
            assert announcement is not None, (language, event)
            assert announcement.topic is EVENT_TOPICS[event_type]
            assert announcement.text.strip() and not re.search(r"[{}]", announcement.text)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_table_has_every_phrase_and_no_placeholder_of_its_own(language):
    english, table = phrasebook("en"), phrasebook(language)
    assert set(table.phrases) == set(english.phrases), set(table.phrases) ^ set(english.phrases)
    for phrase_id, template in table.phrases.items():
        assert placeholders(template) <= placeholders(english.phrases[phrase_id]), phrase_id


def test_every_english_phrase_is_used_and_every_phrase_used_exists():
    book = recording("en")
    every_sentence(Narrator(book))
    numbers = {f"number.{n}" for n in range(1, 10)}  # sizes 1 to 9: variants have up to nine
    assert book.used | numbers == set(book.phrases), set(book.phrases) ^ book.used


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            [
                "White: four to a1",
                "Black gobbles b2 with the four from c3",
                "Black gobbles b2 with a four",
                "Illegal: a stack piece may only gobble in a line of three — take the cup off c4",
                "Illegal: b1 holds a larger cup — put the cup back on a1",
                "Losing uncover: Black's line a4 to d1. Black wins",
                "White wins",
                "Try moving c3 to b2",
                "Try a two on a4",
                "Careful: lifting b2 uncovers White's line a1 to d4",
                "Correction: four to a1, b2 to c3 and two to d4. White to play",
                "Nothing to put right. White to play",
                "Thank you. White to play",
            ],
        ),
        (
            "de",
            [
                "Weiß: Vier auf a1",
                "Schwarz überstülpt b2 mit der Vier von c3",
                "Schwarz überstülpt b2 mit einer Vier",
                "Nicht erlaubt: aus dem Vorrat darfst du nur in einer gegnerischen Reihe von drei "
                "überstülpen – nimm das Gobblet von c4 wieder weg",
                "Aufgedeckt: die Reihe von Schwarz, a4 bis d1. Schwarz gewinnt",
                "Weiß gewinnt",
                "Versuch c3 nach b2",
                "Versuch eine Zwei auf a4",
            ],
        ),
        (
            "fr",
            [
                "Blanc : quatre en a1",
                "Noir gobe b2 avec le quatre de c3",
                "Noir gobe b2 avec un quatre",
                "Interdit : un gobelet de la réserve ne gobe que dans un alignement de trois "
                "— retirez le gobelet de c4",
                "Découverte perdante : l'alignement de Noir, de a4 à d1. Noir gagne",
                "Blanc gagne",
                "Essayez c3 en b2",
            ],
        ),
    ],
)
def test_the_sentences_players_expect(language, expected):
    narrator = Narrator(phrasebook(language))
    said = every_sentence(narrator)
    for sentence in expected:
        assert sentence in said, (sentence, said)


def _gobbling_moves() -> list[Event]:
    """Black's 4 from c3 over White's 3 on b2; Black's 4 from a stack over White's 3 on b2,
    one of White's three in a line."""
    board = _played("4a1", "4c3", "3b2", "c3-b2")
    stack = _played("4a2", "4a4", "4c2", "4d4", "3b2", "4b2")
    return [
        Event(EventType.MOVE, move="c3-b2", position=board.position.text(), detail={"color": "black"}),
        Event(EventType.MOVE, move="4b2", position=stack.position.text(), detail={"color": "black"}),
    ]


def _played(*moves: str) -> Game:
    game = Game(Variant.from_spec("classic"))
    for text in moves:
        game.push(Move.from_text(text))
    return game


def test_a_fault_is_said_once_when_it_starts():
    narrator = Narrator(phrasebook("en"))
    said = [narrator.fault(text, None) for text in ("camera lost", "camera lost", "garbage", None)]
    assert [a.text if a else None for a in said] == ["Camera trouble. The game is kept", None, None, None]
    again = narrator.fault(None, "log: disk full")
    assert again is not None and again.text == "The companion needs service" and again.topic is Topic.FAULT


def test_a_lift_that_uncovers_nothing_is_not_said():
    narrator = Narrator(phrasebook("en"))
    assert (
        narrator.event(Event(EventType.LIFTED, squares=("b2",), detail={"color": "white"}), "white") is None
    )


def test_a_regional_voice_speaks_its_language():
    assert phrasebook("en-us").language == "en" and phrasebook("de").name == "Deutsch"


def test_a_missing_phrase_falls_back_to_english():
    partial = Phrasebook("xx", "Test", {"white": "Blanc"})
    narrator = Narrator(partial)
    assert narrator.event_text(Event(EventType.MOVE, move="4a1", detail={"color": "white"}), "black") == (
        "Blanc: four to a1"
    )


# ----- the rules' reasons, recognised --------------------------------------------------------

REASON_VARIANTS = ("classic", "junior", "storer", "classic:gobble=never", "classic:order=any")


def _illegal_reasons(spec: str, seed: int) -> set[str]:
    """Every reason the referee gives for the physical actions that are illegal along one random
    game: placements and board moves of either colour, touches, put-backs and wrong pieces."""
    rng = random.Random(seed)
    game = Game(Variant.from_spec(spec))
    reasons: set[str] = set()
    squares = list(game.position.squares)
    while not game.is_over() and game.ply < 24:
        position = game.position
        for color in (game.turn, opponent(game.turn)):
            for size in range(1, game.variant.max_piece + 1):
                to = rng.choice(squares)
                move = Move.place(size, to)
                if color != game.turn or game.check(move) is not None:
                    reasons.add(illegal_reason(game, Action(ActionKind.PLACE, color, size, to=to)))
        for origin in rng.sample(squares, min(4, len(squares))):
            top = position.top(origin)
            for to in rng.sample(squares, min(4, len(squares))):
                reasons.add(position.check(Move.board(origin, to)) or "")  # the rules' own words
                if top is None:
                    continue
                if top[0] != game.turn or game.check(Move.board(origin, to)) is not None:
                    action = Action(ActionKind.MOVE, top[0], top[1], to=to, origin=origin)
                    reasons.add(illegal_reason(game, action))
            peek = touch_reason(game, origin)  # the reconciler says it as "touch rule: ..."
            reasons.add(f"touch rule: {peek}" if peek else "")
            reasons.add(put_back_reason(game, origin) or "")
            reasons.add(wrong_piece_reason(game, origin, "4a1"))
        game.push(rng.choice(list(position.legal_moves)))
    if game.is_over():
        reasons.add(illegal_reason(game, Action(ActionKind.PLACE, game.turn, 1, to=squares[0])))
    return reasons - {""}


def test_the_rules_reasons_for_illegal_moves_are_all_recognised():
    seen: dict[str, str] = {}
    for spec in REASON_VARIANTS:
        for seed in range(3):
            for reason in _illegal_reasons(spec, seed):
                kind, _ = reason_kind(reason)
                assert kind != "other", f"{spec}: no phrase recognises {reason!r}"
                seen.setdefault(kind, reason)
    kinds = {kind for kind, _ in REASONS}
    assert kinds - set(seen) <= {"no-such-size", "game-over", "all-placed"}, sorted(kinds - set(seen))
