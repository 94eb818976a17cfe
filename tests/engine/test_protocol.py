"""The engine protocol and the hint command, driven as another program would drive them: in
process for the answers, and as a real subprocess over pipes (with a timeout on every wait)
for what a UCI driver relies on: the reader always reads, ``stop`` ends a search, the end of
input is ``quit``, and no line, however wrong, stops the answers."""

from __future__ import annotations

import io
import json
import os
import queue
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.cli import main
from companion.engine.protocol import ProtocolError, ProtocolSession, parse_go, parse_position
from companion.rules import PRESETS, Move, Position
from tests.budgets import budgets

ROOT = Path(__file__).resolve().parents[2]
ANSWER_SECONDS = 10.0  # generous: a loaded 2-core machine; a hang fails long before the suite's end


class Answers(io.StringIO):
    """The session's output, with an event set when a ``bestmove`` line is written."""

    def __init__(self) -> None:
        super().__init__()
        self.best = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if "bestmove" in text:
            self.best.set()
        return written


class WaitingLines:
    """Input that ends only once the search answered ``bestmove`` (as a GUI waits for the
    answers before it quits), or after ANSWER_SECONDS; else it ends at once."""

    def __init__(self, text: str, out: Answers, wait: bool) -> None:
        self.lines = text.splitlines(keepends=True)
        self.out = out
        self.wait = wait

    def __iter__(self):
        yield from self.lines
        if self.wait:
            self.out.best.wait(ANSWER_SECONDS)


def converse(lines: str, until_bestmove: bool = False) -> list[str]:
    out = Answers()
    ProtocolSession(out=out).run(WaitingLines(lines, out, until_bestmove))
    return out.getvalue().splitlines()


def test_protocol_answers_isready_and_a_legal_bestmove_with_info():
    lines = converse(
        "uci\nisready\nvariant classic\nposition startpos moves 4a1 4b2\ngo depth 3\nisready\n",
        until_bestmove=True,
    )
    assert "uciok" in lines and lines.count("readyok") == 2
    infos = [line for line in lines if line.startswith("info depth")]
    assert infos and all(
        " score " in line and " nodes " in line and " nps " in line and " pv " in line for line in infos
    )
    best = [line for line in lines if line.startswith("bestmove")]
    assert len(best) == 1
    position = Position(PRESETS["classic"])
    for text in ("4a1", "4b2"):
        position.push(Move.from_text(text))
    assert Move.from_text(best[0].split()[1]) in position.legal_moves


def test_protocol_junior_movetime_and_errors_keep_the_engine_alive():
    lines = converse(
        "variant junior\nposition startpos moves 2b2\ngo movetime 500\nbogus\n"
        "position startpos moves 9z9\nisready\n"
    )
    # the bad position stops the search (it answers bestmove) and is refused; isready answers
    assert any(line.startswith("bestmove ") for line in lines)
    assert sum(line.startswith("info string error") for line in lines) == 2
    assert lines[-1] == "readyok"


def test_protocol_junior_reports_a_proven_win():
    lines = converse("variant junior\nposition startpos moves 2b2\ngo movetime 500\n", until_bestmove=True)
    assert any(line.startswith("info depth") and "mate" in line for line in lines)


@pytest.mark.parametrize(
    ("args", "wrong"),
    [
        (["depth"], "needs a value"),
        (["movetime"], "needs a value"),
        (["depth", "0"], "must be 1"),
        (["depth", "-3"], "whole number"),
        (["movetime", "nan"], "whole number"),
        (["nodes", "٤"], "whole number"),
        (["depth", "2", "bogus", "1"], "unknown limit"),
    ],
)
def test_go_refuses_missing_and_impossible_limits(args, wrong):
    with pytest.raises(ProtocolError, match=wrong):
        parse_go(args)


def test_go_limits_and_the_clock():
    assert parse_go(["depth", "5", "nodes", "1000"]).depth == 5
    assert parse_go(["movetime", "1500"]).time == 1.5
    assert parse_go(["infinite"]).depth and parse_go(["infinite"]).time is None
    white = parse_go(["wtime", "60000", "btime", "1000", "winc", "1000"], white_to_move=True)
    black = parse_go(["wtime", "60000", "btime", "1000", "winc", "1000"], white_to_move=False)
    assert 1.0 < white.time < 30.0 and black.time <= 0.5


@pytest.mark.parametrize(
    "args", [["startpos", "junk"], [], ["text"], ["somewhere"], ["startpos", "4a1", "moves"]]
)
def test_position_refuses_what_it_cannot_read(args):
    with pytest.raises(ProtocolError):
        parse_position(args)


def test_a_bad_level_or_variant_keeps_the_old_one():
    out = io.StringIO()
    session = ProtocolSession(out=out)
    session.handle("level godlike")
    session.handle("variant nonsense")
    assert out.getvalue().count("info string error") == 2
    assert session.level == "strong" and session.engine.level.name == "strong"
    assert session.engine.variant.spec == "classic"
    session.handle("uci")
    assert "option name Level type combo default strong" in out.getvalue()


# ----- a real driver: the engine as a subprocess on pipes --------------------------------------


class Driver:
    """Talks to ``gobblet-companion engine`` over pipes the way a GUI does."""

    def __init__(self, *args: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion", "engine", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            env=env,
        )
        self.answers: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self.answers.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.answers.put(None)

    def send(self, *lines: str | bytes) -> None:
        assert self.process.stdin is not None
        for line in lines:
            data = line if isinstance(line, bytes) else line.encode()
            self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def expect(self, prefix: str, timeout: float = ANSWER_SECONDS) -> list[str]:
        """Every line up to the first that starts with ``prefix``; fails on a timeout."""
        deadline = time.monotonic() + timeout
        got = []
        while True:
            left = deadline - time.monotonic()
            try:
                line = self.answers.get(timeout=max(left, 0.001))
            except queue.Empty:
                pytest.fail(f"no {prefix!r} within {timeout} s; got {got[-5:]}")
            if line is None:
                pytest.fail(f"the engine ended before {prefix!r}; got {got[-5:]}")
            got.append(line)
            self.seen.append(line)
            if line.startswith(prefix):
                return got

    def close_input(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.wait()

    def wait(self, timeout: float = ANSWER_SECONDS) -> int:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"the engine did not exit within {timeout} s")

    def rest(self) -> list[str]:
        out = []
        while True:
            try:
                line = self.answers.get(timeout=ANSWER_SECONDS)
            except queue.Empty:
                return out
            if line is None:
                return out
            out.append(line)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)


@pytest.fixture
def driver():
    engines: list[Driver] = []

    def start(*args: str) -> Driver:
        engines.append(Driver(*args))
        return engines[-1]

    yield start
    for engine in engines:
        engine.kill()


def test_commands_during_a_search_are_read_at_once(driver):
    """The issue's reproduction: a position sent during a search, then stop, isready, quit."""
    engine = driver()
    engine.send("uci")
    engine.expect("uciok")
    engine.send("go depth 100000")
    engine.expect("info depth 1 ")
    engine.send("position startpos moves 4a1", "stop", "isready")
    got = engine.expect("readyok")
    assert sum(line.startswith("bestmove ") for line in got) == 1
    engine.send("go depth 2")
    best = engine.expect("bestmove")[-1].split()[1]
    position = Position(PRESETS["classic"])
    position.push(Move.from_text("4a1"))
    assert Move.from_text(best) in position.legal_moves  # the new position's move, Black's
    engine.send("quit")
    assert engine.wait() == 0


def test_isready_during_a_search_does_not_stop_it_and_stop_does(driver):
    engine = driver()
    engine.send("go infinite")
    engine.expect("info depth 1 ")
    engine.send("isready")
    assert not any(line.startswith("bestmove") for line in engine.expect("readyok"))
    started = time.monotonic()
    engine.send("stop")
    engine.expect("bestmove")
    assert time.monotonic() - started < 5.0
    engine.send("quit")
    assert engine.wait() == 0


def test_the_end_of_input_during_a_search_is_quit_with_a_bestmove(driver):
    engine = driver()
    engine.send("go depth 100000")
    engine.expect("info depth 1 ")
    assert engine.close_input() == 0
    assert any(line.startswith("bestmove ") for line in engine.rest())


def test_a_go_sent_during_a_search_ends_the_first_and_answers_both(driver):
    engine = driver()
    engine.send("go depth 100000", "go depth 1")
    engine.expect("bestmove")
    engine.expect("bestmove")
    engine.send("isready")
    engine.expect("readyok")
    assert engine.close_input() == 0


COMMANDS = ["uci", "isready", "stop", "ucinewgame", "go", "position", "variant", "level", "setoption"]
WORDS = [
    "startpos", "moves", "text", "fen", "depth", "movetime", "nodes", "infinite", "wtime", "btime",
    "winc", "binc", "movestogo", "name", "value", "Variant", "Level", "classic", "junior", "moku",
    "storer:stacks=543.543.543", "classic:size=3", "easy", "strong", "greedy", "4a1", "4b2", "a1-b2",
    "3c3", "1", "2", "0", "-1", "nan", "99999999999999999999", "(none)", "٤",
]  # fmt: skip


def random_line(rng: random.Random) -> bytes:
    """A command with random words, or plain garbage (non-UTF-8 bytes included)."""
    roll = rng.random()
    if roll < 0.1:
        return bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 40))).replace(b"\n", b" ")
    if roll < 0.2:
        return "".join(rng.choice("abcdgo 01-:=.\t") for _ in range(rng.randrange(0, 30))).encode()
    words = [rng.choice(COMMANDS)] + [rng.choice(WORDS) for _ in range(rng.randrange(0, 6))]
    if words[0] == "go" and rng.random() < 0.7:
        words = ["go", rng.choice(["depth", "nodes"]), str(rng.randrange(1, 4))]
    return " ".join(words).encode()


@pytest.mark.parametrize("rounds", budgets(5, 20))
def test_a_thousand_random_lines_never_stop_the_answers(driver, rounds):
    """``rounds`` of 50 random lines and an ``isready``: 5 in the quick loop, 20 (a thousand
    lines) in the full suite."""
    rng = random.Random(12)
    engine = driver()
    for _ in range(rounds):
        engine.send(*(random_line(rng) for _ in range(50)))
        engine.send("isready")
        engine.expect("readyok")
    engine.send("stop", "isready")
    engine.expect("readyok")
    assert engine.close_input() == 0
    seen = engine.seen + engine.rest()
    assert not any("internal error" in line for line in seen), [x for x in seen if "internal" in x]
    assert sum(line.startswith("info string error") for line in seen) > 5 * rounds  # the garbage was refused


def test_hint_json(capsys):
    assert main(["hint", "--variant", "junior", "--moves", "2b2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"move", "score", "depth", "nodes", "pv", "seconds", "value"}
    assert data["value"] == "win"


def test_hint_rejects_an_illegal_move_with_one_line(capsys):
    assert main(["hint", "--moves", "4a1 4a1"]) == 2
    assert "illegal" in capsys.readouterr().err
