"""The voice's queue and thread with a fake speaker (order, cancelling, never blocking, silent
once), espeak-ng's command and failures with a stand-in program, and the real espeak-ng
writing WAV files where it is installed."""

from __future__ import annotations

import logging
import shutil
import stat
import threading
import time
import wave
from pathlib import Path

import pytest

from companion.device.announce import Announcement, Narrator, Topic
from companion.device.config import DeviceConfig, SpeechConfig
from companion.device.panel import Panel, mock_pin_factory
from companion.device.phrases import LANGUAGES, phrasebook
from companion.device.presenter import Presenter
from companion.device.speech import (
    STALE,
    EspeakSpeaker,
    Speaker,
    SpeakerError,
    Speech,
    espeak_problem,
    open_speech,
    sound_device_problem,
)
from companion.reconciler.events import Event, EventType
from companion.rules.move import Move

WAIT = 5.0  # seconds a test waits for the speech thread at most (it normally takes milliseconds)
CARD = " 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n"


class FakeSpeaker(Speaker):
    """Says a sentence until the test releases it (or it is cut short); notes what happened."""

    def __init__(self, *, hold: bool = True, unavailable: str | None = None, fail: str | None = None) -> None:
        self.hold = hold
        self._unavailable = unavailable
        self.fail = fail
        self.started: list[str] = []
        self.finished: list[str] = []
        self.cut: list[str] = []
        self.release = threading.Semaphore(0)
        self.speaking = threading.Event()
        self.closed = False

    def unavailable(self) -> str | None:
        return self._unavailable

    def say(self, text: str, cancel: threading.Event) -> bool:
        if self.fail:
            raise SpeakerError(self.fail)
        self.started.append(text)
        self.speaking.set()
        deadline = time.monotonic() + WAIT
        while self.hold and time.monotonic() < deadline:
            if cancel.wait(0.005):
                self.cut.append(text)
                return False
            if self.release.acquire(timeout=0.005):
                break
        self.finished.append(text)
        return True

    def close(self) -> None:
        self.closed = True


def speech_with(speaker: Speaker | None, **kwargs) -> Speech:
    return Speech(Narrator(phrasebook("en")), speaker, **kwargs)


def until(condition) -> bool:
    """Wait until ``condition()`` holds (the speech thread acts a moment later)."""
    deadline = time.monotonic() + WAIT
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.002)
    return bool(condition())


def said(speaker: FakeSpeaker, count: int) -> None:
    """Wait until ``count`` sentences were begun."""
    assert until(lambda: len(speaker.started) >= count), speaker.started


def say(text: str, topic: Topic) -> Announcement:
    return Announcement(text, topic)


def test_sentences_are_said_in_order_and_announcing_never_waits():
    speaker = FakeSpeaker()
    with speech_with(speaker) as speech:
        started = time.perf_counter()
        for n in range(4):
            speech.announce(say(f"move {n}", Topic.MOVE))
        assert time.perf_counter() - started < 0.5  # the loop was not held while a sentence is said
        said(speaker, 1)
        assert speech.waiting == ["move 1", "move 2", "move 3"]
        for _ in range(4):
            speaker.release.release()
        assert speech.idle(WAIT)
    assert speaker.finished == ["move 0", "move 1", "move 2", "move 3"] and speaker.closed


def test_a_move_cuts_a_stale_hint_short_and_drops_a_waiting_one():
    speaker = FakeSpeaker()
    with speech_with(speaker) as speech:
        speech.announce(say("Try moving c3 to b2", Topic.HINT))
        said(speaker, 1)
        speech.announce(say("White: four to a1", Topic.MOVE))  # the hint being said is stale
        said(speaker, 2)
        speech.announce(say("Try a three on b2", Topic.HINT))  # waits: a move is being said
        speech.announce(say("Take back four to a1? Press twice", Topic.OFFER))  # outdates that hint
        assert speech.waiting == ["Take back four to a1? Press twice"]
        speech.announce(say("Black: c1 to d3", Topic.MOVE))  # outdates the offer
        assert speech.waiting == ["Black: c1 to d3"]
        speaker.hold = False
        speaker.release.release()
        assert speech.idle(WAIT)
    assert speaker.cut == ["Try moving c3 to b2"]
    assert speaker.finished == ["White: four to a1", "Black: c1 to d3"]
    assert speech.cut_short == 1 and speech.dropped == 2


def test_moves_and_results_are_never_outdated_but_by_a_new_game():
    speaker = FakeSpeaker()
    with speech_with(speaker) as speech:
        speech.announce(say("Black: c1 to d3", Topic.MOVE))
        said(speaker, 1)
        speech.announce(say("White: four to a1", Topic.MOVE))
        speech.announce(say("Board restored. White to play", Topic.RESTORED))
        speech.announce(say("Illegal: c4", Topic.PROBLEM))  # outdates "restored", waiting
        assert speech.waiting == ["White: four to a1", "Illegal: c4"] and speaker.cut == []
        speech.announce(say("New game. White to play", Topic.NEW_GAME))
        assert until(lambda: speaker.cut == ["Black: c1 to d3"])
        assert speech.waiting in (["New game. White to play"], [])
        speaker.hold = False
        assert speech.idle(WAIT)
    assert speaker.finished == ["New game. White to play"]


def test_the_stale_policy_covers_every_topic_and_never_outdates_moves_but_by_a_new_game():
    assert set(STALE) == set(Topic)
    for topic, stale in STALE.items():
        assert (Topic.MOVE in stale or Topic.OUTCOME in stale) == (topic is Topic.NEW_GAME)


def test_a_backlog_beyond_its_size_drops_the_oldest():
    speaker = FakeSpeaker()
    with speech_with(speaker, backlog=2) as speech:
        speech.announce(say("move 0", Topic.MOVE))
        said(speaker, 1)
        for n in range(1, 5):
            speech.announce(say(f"move {n}", Topic.MOVE))
        assert speech.waiting == ["move 3", "move 4"] and speech.dropped == 2
        speaker.hold = False
        speaker.release.release()
        assert speech.idle(WAIT)
    assert speaker.finished == ["move 0", "move 3", "move 4"]


def test_closing_cuts_short_unless_it_may_drain():
    speaker = FakeSpeaker()
    speech = speech_with(speaker)
    speech.announce(say("White wins", Topic.OUTCOME))
    speech.announce(say("waiting", Topic.MOVE))
    said(speaker, 1)
    speech.close()
    assert speaker.cut == ["White wins"] and speaker.finished == [] and speech.waiting == []
    speech.announce(say("after close", Topic.MOVE))
    assert speaker.started == ["White wins"]

    draining = FakeSpeaker(hold=False)
    speech = speech_with(draining, drain_seconds=WAIT)
    for n in range(3):
        speech.announce(say(f"move {n}", Topic.MOVE))
    speech.close()
    assert draining.finished == ["move 0", "move 1", "move 2"]


def test_without_a_speaker_it_only_echoes():
    lines: list[str] = []
    speech = speech_with(None, echo=lines.append)
    speech.event(Event(EventType.MOVE, move="4a1", detail={"color": "white"}), "black")
    speech.hint(Move.from_text("c3-b2"), "white")
    speech.close()
    assert lines == ["White: four to a1", "Try moving c3 to b2"] and speech.silent is None


@pytest.mark.parametrize("fail_at", ["start", "say"])
def test_a_voice_that_cannot_speak_says_why_once_and_the_rest_goes_on(caplog, fail_at):
    speaker = FakeSpeaker(
        hold=False,
        unavailable="no sound device" if fail_at == "start" else None,
        fail="no sound device" if fail_at == "say" else None,
    )
    lines: list[str] = []
    with caplog.at_level(logging.WARNING), speech_with(speaker, echo=lines.append) as speech:
        for n in range(3):
            speech.announce(say(f"move {n}", Topic.MOVE))
            speech.idle(WAIT)
        assert speech.silent == "no sound device"
    warnings = [r.getMessage() for r in caplog.records if r.name == "gobblet-companion.speech"]
    assert warnings == ["speech: silent: no sound device"]
    assert lines == ["move 0", "move 1", "move 2"] and speaker.finished == []


# ----- the presenter tells the voice what it shows -------------------------------------------


def test_the_presenter_tells_the_voice_the_events_it_shows():
    lines: list[str] = []
    panel = Panel(DeviceConfig(), pin_factory=mock_pin_factory())
    try:
        presenter = Presenter(panel, speech_with(None, echo=lines.append))
        presenter.event(Event(EventType.MOVE, move="4a1", detail={"color": "white"}), "black")
        presenter.event(
            Event(EventType.LIFTED, squares=("a1",)), "black"
        )  # shown by nothing, said by nothing
        presenter.hint(Move.from_text("3b2"), "black")
        presenter.takeback_offered("4a1", "white")
        presenter.hint_failed("white", "the engine crashed")
        presenter.fault("camera lost")
        presenter.fault("camera lost")
        presenter.event(Event(EventType.WIN, winner="white", line=("a1", "b1", "c1", "d1")), "black")
    finally:
        panel.close()
    assert lines == [
        "White: four to a1",
        "Try a three on b2",
        "Take back four to a1? Press twice",
        "No hint this time",
        "Camera trouble. The game is kept",
        "White wins",
    ]


def test_open_speech_follows_the_configuration():
    assert open_speech(SpeechConfig(enabled=False), aloud=True) is None
    quiet = open_speech(SpeechConfig(voice="de"), aloud=False)
    assert quiet is not None and quiet.speaker is None and quiet.narrator.phrases.language == "de"
    fake = FakeSpeaker(hold=False)
    loud = open_speech(SpeechConfig(), aloud=True, speaker=fake)
    assert loud is not None and loud.speaker is fake
    loud.close()
    real = open_speech(SpeechConfig(voice="en-us", rate=200, volume=50), aloud=True)
    assert real is not None and isinstance(real.speaker, EspeakSpeaker)
    assert real.speaker.command()[1:7] == ["-v", "en-us", "-s", "200", "-a", "50"]
    real.close()


# ----- espeak-ng, with a stand-in program ----------------------------------------------------


def stand_in(tmp_path: Path, script: str) -> str:
    """A program in the place of espeak-ng: a shell script."""
    path = tmp_path / "espeak-ng"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs a POSIX shell for the stand-in program")
def test_espeak_without_a_sound_device_is_a_speaker_error(tmp_path):
    alsa = (
        "ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM default\nerror: No such file or directory\n"
    )
    program = stand_in(tmp_path, f"cat >/dev/null\nprintf '{alsa}' >&2\nexit 0\n")
    speaker = EspeakSpeaker("en", 160, 100, program=program)
    with pytest.raises(SpeakerError, match=r"espeak-ng: No such file or directory$"):
        speaker.say("White wins", threading.Event())


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs a POSIX shell for the stand-in program")
def test_a_sentence_being_said_is_cut_short_by_ending_its_process(tmp_path):
    heard = tmp_path / "heard.txt"
    program = stand_in(tmp_path, f"cat >'{heard}'\nexec sleep 30\n")
    speaker = EspeakSpeaker("de", 160, 100, program=program)
    cancel = threading.Event()

    def cancel_once_heard() -> None:  # the program has read the sentence: now it only sleeps
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline and not (
            heard.exists() and heard.read_text(encoding="utf-8") == "Weiß gewinnt"
        ):
            time.sleep(0.005)
        cancel.set()

    threading.Thread(target=cancel_once_heard, daemon=True).start()
    started = time.monotonic()
    assert speaker.say("Weiß gewinnt", cancel) is False
    assert time.monotonic() - started < 5.0
    assert heard.read_text(encoding="utf-8") == "Weiß gewinnt"  # the sentence goes in on stdin, as UTF-8


def test_why_espeak_cannot_speak(tmp_path):
    speaker = EspeakSpeaker("en", 160, 100, program=str(tmp_path / "no-such-program"))
    assert (
        speaker.unavailable()
        == f"{tmp_path / 'no-such-program'} is not installed (sudo apt-get install espeak-ng)"
    )
    cards = tmp_path / "cards"
    assert "is missing" in (sound_device_problem(cards) or "")
    cards.write_text("--- no soundcards ---\n")
    assert "ALSA lists no sound card" in (sound_device_problem(cards) or "")
    cards.write_text(CARD)
    assert sound_device_problem(cards) is None
    assert espeak_problem(0, "") is None
    assert espeak_problem(1, "Error: The specified espeak-ng voice does not exist.\n") == (
        "The specified espeak-ng voice does not exist."
    )
    assert espeak_problem(2, "") == "exit status 2"


# ----- the real espeak-ng --------------------------------------------------------------------

needs_espeak = pytest.mark.skipif(
    shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (apt-get install espeak-ng)"
)


def wav_seconds(speaker: EspeakSpeaker, text: str, path: Path) -> float:
    speaker.write_wav(text, path)
    with wave.open(str(path), "rb") as wav:
        assert wav.getnchannels() == 1 and wav.getsampwidth() == 2
        return wav.getnframes() / wav.getframerate()


@needs_espeak
@pytest.mark.parametrize("voice", LANGUAGES)
def test_espeak_ng_says_a_sentence_for_as_long_as_its_words_take(tmp_path, voice):
    narrator = Narrator(phrasebook(voice))
    short = narrator.event_text(Event(EventType.WIN, winner="white"), "black") or ""
    long = narrator.event_text(Event(EventType.HELP, squares=("a1", "b2", "c3")), "white") or ""
    normal = EspeakSpeaker(voice, 160, 100)
    brief = wav_seconds(normal, short, tmp_path / "short.wav")
    lengthy = wav_seconds(normal, long, tmp_path / "long.wav")
    assert 0.4 < brief < 3.0, brief  # "White wins": about a second at 160 words a minute
    assert lengthy > 3 * brief and lengthy < 20.0, (brief, lengthy)
    fast = wav_seconds(EspeakSpeaker(voice, 320, 100), long, tmp_path / "fast.wav")
    assert fast < 0.75 * lengthy, (fast, lengthy)  # twice the rate: a shorter sentence


@needs_espeak
def test_espeak_ng_refuses_a_voice_it_does_not_have(tmp_path):
    with pytest.raises(SpeakerError, match="voice does not exist"):
        EspeakSpeaker("xx-nowhere", 160, 100).write_wav("White wins", tmp_path / "x.wav")
