"""The referee's voice: the presenter's events said aloud through ``espeak-ng``, beside the
LEDs and the buzzer, for a player who watches the board rather than the panel.

Speaking takes seconds and the camera loop may not wait that long, so ``Speech`` keeps its own
queue and thread: the loop hands over a sentence and goes on. Sentences are said in order,
except that a newer one makes the older ones it outdates stale (``STALE``): a stale sentence
still waiting is dropped, and one being said is cut short. A move outdates a hint, an offer,
a complaint about the board and "board restored"; the board put right (or found right: a
request to confirm it closed) outdates the complaint; a new game outdates everything. Moves
and results are never outdated by anything but a new game, so every move is heard, in order.
A queue that still grows (moves faster than they can be said) drops its oldest sentence
beyond ``BACKLOG``.

The speaker is a contract of its own (``Speaker``: ``say``, ``close``, a context manager like
a gpiozero device), so the tests give ``Speech`` a fake one and the device ``EspeakSpeaker``.
When there is no ``espeak-ng`` or no sound device, the referee goes on without a voice and
says why, once, in the journal.
"""

from __future__ import annotations

import collections
import logging
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.component import Component
from companion.device.announce import Announcement, Narrator, Topic
from companion.device.config import SpeechConfig
from companion.device.phrases import phrasebook
from companion.reconciler.events import Event
from companion.rules.move import Move

log = logging.getLogger("gobblet-companion.speech")

ESPEAK = "espeak-ng"
ALSA_CARDS = Path("/proc/asound/cards")  # the sound cards ALSA knows; espeak-ng plays through ALSA's default
NO_CARDS = "no soundcards"
POLL_SECONDS = 0.05  # how soon a sentence being said notices it was cut short
BACKLOG = 8  # sentences waiting at most; beyond, the oldest is dropped
STOP_SECONDS = 1.0  # closing: how long to wait for the thread once it is told to stop

_EVERYTHING = frozenset(Topic)
_SUPERSEDED_BY_PLAY = frozenset({Topic.HINT, Topic.OFFER, Topic.PROBLEM, Topic.RESTORED, Topic.DOUBT})
STALE: dict[Topic, frozenset[Topic]] = {
    Topic.MOVE: _SUPERSEDED_BY_PLAY,
    Topic.OUTCOME: _SUPERSEDED_BY_PLAY,
    Topic.NEW_GAME: _EVERYTHING,
    Topic.RESTORED: frozenset({Topic.PROBLEM, Topic.OFFER}),
    Topic.PROBLEM: frozenset({Topic.PROBLEM, Topic.RESTORED}),
    Topic.HINT: frozenset({Topic.HINT}),
    Topic.OFFER: frozenset({Topic.OFFER, Topic.HINT}),
    Topic.FAULT: frozenset({Topic.FAULT}),
    Topic.DOUBT: frozenset({Topic.DOUBT}),  # (how a doubt settled outdates the doubt, nothing else)
}
"""What each topic's newest sentence makes stale (dropped if waiting, cut short if being said)."""


class SpeakerError(RuntimeError):
    """The speaker cannot speak (no program, no sound device, a voice it lacks): the words say why."""


class Speaker(Component):
    """Says one sentence at a time. ``say`` returns when the sentence is said (True) or when
    ``cancel`` is set (False, as soon as it can: the sentence is cut short); it raises
    ``SpeakerError`` when it cannot speak at all. ``unavailable`` says before any sentence
    why the speaker cannot work here, when that can be known in advance."""

    def unavailable(self) -> str | None:
        return None

    def say(self, text: str, cancel: threading.Event) -> bool:  # pragma: no cover - overridden
        raise NotImplementedError


class EspeakSpeaker(Speaker):
    """``espeak-ng`` in a subprocess per sentence, out of the default sound device (ALSA's, the
    Pi's headphone jack or HDMI). A sentence is cut short by ending its process."""

    def __init__(
        self,
        voice: str,
        rate: int,
        volume: int,
        *,
        program: str = ESPEAK,
        cards: Path | None = None,
    ) -> None:
        self.voice, self.rate, self.volume = voice, rate, volume
        self.program = program
        self.cards = cards or ALSA_CARDS
        self._closed = threading.Event()

    def command(self, wav: Path | None = None) -> list[str]:
        """The command line; the sentence goes in on stdin (UTF-8), so no text is read as an option."""
        argv = [self.program, "-v", self.voice, "-s", str(self.rate), "-a", str(self.volume), "-b", "1"]
        if wav is not None:
            argv += ["-w", str(wav)]
        return [*argv, "--stdin"]

    def unavailable(self) -> str | None:
        if shutil.which(self.program) is None:
            return f"{self.program} is not installed (sudo apt-get install espeak-ng)"
        return sound_device_problem(self.cards)

    def say(self, text: str, cancel: threading.Event) -> bool:
        return self._run(text, self.command(), cancel)

    def write_wav(self, text: str, path: Path) -> None:
        """The sentence as a WAV file instead of sound (``espeak-ng -w``): what the tests hear."""
        self._run(text, self.command(path), threading.Event())

    def _run(self, text: str, argv: list[str], cancel: threading.Event) -> bool:
        with tempfile.TemporaryFile() as errors:
            try:
                process = subprocess.Popen(
                    argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=errors
                )
            except OSError as error:
                raise SpeakerError(f"cannot start {self.program}: {error.strerror or error}") from None
            assert process.stdin is not None
            try:
                process.stdin.write(text.encode("utf-8"))
                process.stdin.close()
            except OSError:
                pass  # it ended before reading: its errors say why
            while True:
                try:
                    process.wait(POLL_SECONDS)
                    break
                except subprocess.TimeoutExpired:
                    if cancel.is_set() or self._closed.is_set():
                        process.terminate()
                        process.wait()
                        return False
            errors.seek(0)
            said = errors.read().decode("utf-8", "replace")
        problem = espeak_problem(process.returncode, said)
        if problem is not None:
            raise SpeakerError(f"{self.program}: {problem}")
        return True

    def close(self) -> None:
        self._closed.set()


def sound_device_problem(cards: Path) -> str | None:
    """Why there is no sound device to play through, or None: ALSA lists its cards in ``cards``."""
    try:
        listed = cards.read_text(errors="replace")
    except OSError:
        return "no sound device (the kernel lists no sound card: /proc/asound/cards is missing)"
    if NO_CARDS in listed or not listed.strip():
        return "no sound device (ALSA lists no sound card): connect a speaker or HDMI audio and restart"
    return None


def espeak_problem(returncode: int, stderr: str) -> str | None:
    """What went wrong in one ``espeak-ng`` run, from its exit status and messages. It exits 0
    even when it found no sound device (ALSA's complaints are only printed), so an ``error``
    line counts as a failure too."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    if returncode == 0 and not errors:
        return None
    last = (errors or lines or [f"exit status {returncode}"])[-1]
    return last.removeprefix("Error: ").removeprefix("error: ")


class Speech(Component):
    """The voice beside the panel: takes the presenter's events (the same calls the panel's
    presenter gets), words them with an ``Narrator`` and says them through a ``Speaker`` on
    its own thread. ``echo`` gets each sentence as it is announced (the console's ``say:``
    lines), whether or not a speaker says it; with no speaker, that is all it does."""

    def __init__(
        self,
        narrator: Narrator,
        speaker: Speaker | None,
        *,
        echo: Callable[[str], None] | None = None,
        drain_seconds: float = 0.0,
        backlog: int = BACKLOG,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.narrator = narrator
        self.speaker = speaker
        self.echo = echo
        self.drain_seconds = drain_seconds  # closing: how long the sentences waiting may still be said
        self.backlog = backlog
        self._clock = clock
        self._queue: collections.deque[Announcement] = collections.deque()
        self._current: tuple[Announcement, threading.Event] | None = None
        self._changed = threading.Condition()
        self._closing = False
        self._thread: threading.Thread | None = None
        self.silent: str | None = None  # why nothing is said aloud, once known
        self.dropped = 0  # sentences dropped as stale or beyond the backlog
        self.cut_short = 0  # sentences cut short as stale
        if speaker is not None:
            self._check(speaker.unavailable())

    # ----- the presenter's calls -----------------------------------------------------------

    def event(self, event: Event, turn: str) -> None:
        self.announce(self.narrator.event(event, turn))

    def hint(self, move: Move, turn: str) -> None:
        self.announce(self.narrator.hint(move, turn))

    def takeback_offered(self, move_text: str, turn: str) -> None:
        self.announce(self.narrator.takeback_offered(move_text, turn))

    def hint_failed(self, turn: str, reason: str) -> None:
        self.announce(self.narrator.hint_failed(turn, reason))

    def accept_refused(self, turn: str, reason: str) -> None:
        self.announce(self.narrator.accept_refused(turn, reason))

    def fault(self, text: str | None, service: str | None = None) -> None:
        self.announce(self.narrator.fault(text, service))

    # ----- the queue -------------------------------------------------------------------------

    def announce(self, announcement: Announcement | None) -> None:
        """Queue a sentence (never waits for speech): what it outdates is dropped or cut short."""
        if announcement is None:
            return
        if self.echo is not None:
            self.echo(announcement.text)
        if self.speaker is None or self.silent is not None:
            return
        stale = STALE[announcement.topic]
        with self._changed:
            if self._closing:
                return
            kept = [waiting for waiting in self._queue if waiting.topic not in stale]
            self.dropped += len(self._queue) - len(kept)
            self._queue = collections.deque(kept)
            current = self._current
            if current is not None and current[0].topic in stale and not current[1].is_set():
                current[1].set()
                self.cut_short += 1
            self._queue.append(announcement)
            while len(self._queue) > self.backlog:
                self._queue.popleft()
                self.dropped += 1
            self._changed.notify_all()
        self.start()

    @property
    def waiting(self) -> list[str]:
        """The sentences not yet begun, in the order they will be said."""
        with self._changed:
            return [waiting.text for waiting in self._queue]

    def start(self) -> Speech:
        with self._changed:
            if self._thread is None and self.speaker is not None and not self._closing:
                self._thread = threading.Thread(target=self._speak, name="speech", daemon=True)
                self._thread.start()
        return self

    def _speak(self) -> None:
        assert self.speaker is not None
        while True:
            with self._changed:
                while not self._queue and not self._closing:
                    self._changed.wait()
                if not self._queue:
                    return
                announcement = self._queue.popleft()
                cancel = threading.Event()
                self._current = (announcement, cancel)
            try:
                self.speaker.say(announcement.text, cancel)
            except SpeakerError as error:
                self._check(str(error))
            except Exception as error:  # a broken speaker must not end the voice's thread quietly
                self._check(f"{type(error).__name__}: {error}")
            finally:
                with self._changed:
                    self._current = None
                    self._changed.notify_all()

    def _check(self, problem: str | None) -> None:
        """Go silent for good, saying why once in the journal; the referee goes on."""
        if problem is None or self.silent is not None:
            return
        self.silent = problem
        log.warning("speech: silent: %s", problem)
        with self._changed:
            self.dropped += len(self._queue)
            self._queue.clear()

    def idle(self, timeout: float) -> bool:
        """Wait until every sentence is said (or dropped); False if ``timeout`` passed first."""
        deadline = self._clock() + timeout
        with self._changed:
            while self._queue or self._current is not None:
                left = deadline - self._clock()
                if left <= 0:
                    return False
                self._changed.wait(min(left, POLL_SECONDS))
        return True

    def close(self) -> None:
        """Let the waiting sentences be said for up to ``drain_seconds``, then stop: the one
        being said is cut short, the rest dropped."""
        if self.drain_seconds > 0 and self.silent is None:
            self.idle(self.drain_seconds)
        with self._changed:
            self._closing = True
            self.dropped += len(self._queue)
            self._queue.clear()
            if self._current is not None:
                self._current[1].set()
            self._changed.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(STOP_SECONDS)
        if self.speaker is not None:
            self.speaker.close()


def open_speech(
    config: SpeechConfig,
    *,
    aloud: bool,
    echo: Callable[[str], None] | None = None,
    drain_seconds: float = 0.0,
    speaker: Any = None,
) -> Speech | None:
    """The voice the configuration asks for: None when ``speech.enabled`` is false; words
    only (``echo``) unless ``aloud``, where ``espeak-ng`` says them (or ``speaker``, a stand-in)."""
    if not config.enabled:
        return None
    narrator = Narrator(phrasebook(config.voice))
    if aloud and speaker is None:
        speaker = EspeakSpeaker(config.voice, config.rate, config.volume)
    return Speech(narrator, speaker if aloud else None, echo=echo, drain_seconds=drain_seconds).start()
