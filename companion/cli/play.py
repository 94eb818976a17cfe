"""``gobblet-companion play``: a game at the terminal, of Gobblet or of Cups (``--variant cups``).

Two people type moves in turn; a side may be played by the computer (``--ai``). Illegal
moves are refused with the reason, ``undo`` takes a move back, ``show a1`` reveals a stack
(Gobblet), and the record can be saved at any time and is offered when the game ends. With
``--log`` the game goes into the game log as it is played (``companion.log.recorder``), where
``games list`` and the web page find it.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

from companion.cli.common import add_game_arguments, game_from_args, seconds
from companion.cli.games import add_database_arguments, database_from_args
from companion.errors import CompanionError
from companion.log import GameStore
from companion.log.recorder import GameRecorder
from companion.rules import Game, MoveError, color_name, parse_square
from companion.rules.diagram import stack_text
from companion.rules.game import BaseGame
from companion.rules.games import kind_of
from companion.rules.record import write_record
from companion.rules.square import on_board
from companion.rules.state import GameMove

# Who plays one side at the terminal: a computer gets the game and returns its move; a person is None.
SidePlayer = Callable[[BaseGame], GameMove] | None

SHOW_HELP = "\n  show a1        show every piece in the stack on a1, hidden ones included"
HELP = """Commands:
  {moves}
  moves          list the legal moves{show}
  board          draw the board again
  undo           take back the last move
  draw           the players agree a draw
  resign         the side to move resigns
  save FILE      save the game record
  help           this text
  quit           leave (the record is offered first)"""


def register(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "play",
        help="play a game at the terminal",
        description="Play Gobblet or Cups at the terminal: two people, or a person against the engine.",
    )
    add_game_arguments(parser)
    parser.add_argument("--white", default="White", help="White player's name for the record")
    parser.add_argument("--black", default="Black", help="Black player's name for the record")
    parser.add_argument("--ai", choices=["white", "black"], default=None, help="the colour the engine plays")
    parser.add_argument("--level", default="strong", help="engine level: easy, medium, strong (default)")
    parser.add_argument("--think", type=seconds, default=1.0, help="engine seconds per move (default: 1)")
    parser.add_argument(
        "--log", action="store_true", help="write the game to the game log as it is played (see --db)"
    )
    add_database_arguments(parser)
    parser.set_defaults(handler=run)


def make_players(args: argparse.Namespace, game: BaseGame) -> tuple[SidePlayer, SidePlayer]:
    """Who plays each colour: ``None`` is a person at the keyboard."""
    if not getattr(args, "ai", None):
        return (None, None)
    from companion.engine import Engine

    engine = Engine(game.variant, args.level)

    def computer(current: BaseGame) -> GameMove:
        move = engine.search(current.position, time=args.think).move
        if move is None:  # a search finds no move only in a finished game, never asked here
            raise CompanionError("the engine found no move")
        return move

    return (computer, None) if args.ai == "white" else (None, computer)


def run(args: argparse.Namespace) -> int:
    game = game_from_args(args)
    game.headers.setdefault("White", args.white)
    game.headers.setdefault("Black", args.black)
    game.headers.setdefault("Date", date.today().strftime("%Y.%m.%d"))
    players = make_players(args, game)
    print(kind_of(game.variant).diagram(game.position))
    print("Type a move, or 'help'.")
    if not args.log:
        Session(game, players).loop()
        return 0
    with GameStore(database_from_args(args)) as store:
        recorder = GameRecorder(store, game)
        Session(game, players, on_change=recorder.sync).loop()
        recorder.abandon("left unfinished at the terminal")
        print(f"logged as game {recorder.game_id}")
    return 0


class Session:
    def __init__(
        self,
        game: BaseGame,
        players: tuple[SidePlayer, SidePlayer],
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.game = game
        self.players = players
        self.on_change = on_change  # after every move, takeback and declared ending
        self.announced = False
        kind = kind_of(game.variant)
        self.draw = kind.diagram
        self.help = HELP.format(moves=kind.move_help, show=SHOW_HELP if isinstance(game, Game) else "")

    def loop(self) -> None:
        while True:
            if self.game.is_over() and not self.announced:
                self.announce()
            player = self.players[self.game.turn]
            if player is not None and not self.game.is_over():
                self.play_computer(player)
                continue
            prompt = "game over> " if self.game.is_over() else f"{color_name(self.game.turn)}> "
            try:
                line = input(prompt).strip()
            except EOFError:
                print()
                return
            if line in ("quit", "exit"):
                self.offer_save()
                return
            if line:
                self.handle(line)

    def play_computer(self, player: Callable[[BaseGame], GameMove]) -> None:
        mover = self.game.turn
        move = self.game.push(player(self.game), time.time())
        self.changed()
        print(f"{color_name(mover)} plays {move.text()}")
        print(self.draw(self.game.position))

    def handle(self, line: str) -> None:
        command, _, rest = line.partition(" ")
        try:
            match command:
                case "help" | "?":
                    print(self.help)
                case "board":
                    print(self.draw(self.game.position))
                case "moves":
                    print(" ".join(m.text() for m in self.game.legal_moves) or "no legal moves")
                case "show" if isinstance(self.game, Game):
                    print(stack_text(self.game.position, self.square_on_board(rest)))
                case "undo":
                    self.undo()
                case "draw":
                    print(self.game.agree_draw().reason)
                    self.changed()
                case "resign":
                    print(self.game.resign(self.game.turn).reason)
                    self.changed()
                case "save":
                    self.save(rest.strip())
                case _:
                    self.play(line)
        except CompanionError as error:
            print(f"! {error}")
        except Exception as error:  # a bug must not cost the players their game
            print(f"! that did not work ({type(error).__name__}: {error}); the game is kept")

    def square_on_board(self, text: str) -> int:
        square = parse_square(text)
        assert isinstance(self.game, Game)  # only Gobblet has squares: "show" is refused otherwise
        size = self.game.variant.size
        if not on_board(square, size):
            raise CompanionError(f"{text.strip()} is not on the {size}x{size} board")
        return square

    def play(self, text: str) -> None:
        mover = self.game.turn
        move = self.game.push_text(text, time.time())
        self.changed()
        print(f"{color_name(mover)} plays {move.text()}")
        print(self.draw(self.game.position))

    def undo(self) -> None:
        humans = [p is None for p in self.players]
        count = 1 if all(humans) or len(self.game.played) < 2 else 2  # back to a person's turn
        for _ in range(count):
            print(f"took back {self.game.pop().text()}")
        self.changed()
        self.announced = False
        print(self.draw(self.game.position))

    def changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def announce(self) -> None:
        outcome = self.game.outcome()
        assert outcome is not None
        print(f"*** {outcome.reason} ***")
        self.announced = True
        self.offer_save()

    def offer_save(self) -> None:
        try:
            name = input("save the record to (Enter to skip): ").strip()
        except EOFError:
            return
        if name:
            try:
                self.save(name)
            except CompanionError as error:
                print(f"! {error}")

    def save(self, name: str) -> None:
        if not name:
            raise CompanionError("say where: save FILE")
        try:
            Path(name).write_text(write_record(self.game), encoding="utf-8")
        except OSError as error:
            raise CompanionError(f"cannot save to {name}: {error.strerror}") from None
        print(f"saved {name}")


__all__ = ["MoveError", "Session", "run"]
