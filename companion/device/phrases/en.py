"""English: what the referee says, one phrase a key.

This table is the reference the others are translated from: every key used anywhere is here,
and a placeholder such as ``{player}`` is filled in by ``companion.device.announce`` (see the
table of placeholders in docs/device.md). A translation may leave a placeholder out, never
add one this table does not have.
"""

NAME = "English"

PHRASES: dict[str, str] = {
    # ----- words the phrases below are made of -----
    "white": "White",
    "black": "Black",
    "number.1": "one",
    "number.2": "two",
    "number.3": "three",
    "number.4": "four",
    "number.5": "five",
    "number.6": "six",
    "number.7": "seven",
    "number.8": "eight",
    "number.9": "nine",
    "list.and": "{rest} and {last}",
    "move.place.short": "{size} to {to}",
    "move.board.short": "{origin} to {to}",
    # ----- a move -----
    "move.place": "{player}: {size} to {to}",
    "move.place.gobble": "{player} gobbles {to} with a {size}",
    "move.board": "{player}: {origin} to {to}",
    "move.board.gobble": "{player} gobbles {to} with the {size} from {origin}",
    # ----- the end of a game -----
    "win": "{winner} wins",
    "loss.uncover": "Losing uncover: {owner}'s line {first} to {last}. {winner} wins",
    "loss.no-moves": "{loser} has no legal move. {winner} wins",
    "loss.touch": "{loser} lifted a cup that cannot move. {winner} wins",
    "loss.resignation": "{loser} resigns. {winner} wins",
    "draw": "Draw",
    "draw.repetition": "Draw by threefold repetition",
    "draw.agreed": "Draw agreed",
    # ----- an illegal move: what is wrong, then how to put it right -----
    "illegal": "Illegal: {why} — {restore}",
    "why.not-your-turn": "it is {player}'s turn",
    "why.covers-larger": "{square} holds a larger cup",
    "why.covers-same-size": "{square} holds a cup of the same size",
    "why.stack-empty-only": "a cup from a stack may go only on an empty square",
    "why.stack-gobble-own": "a stack piece may not gobble your own cup",
    "why.stack-gobble-line": "a stack piece may only gobble in a line of {count}",
    "why.no-such-size": "your stacks show no {size}",
    "why.all-placed": "all your cups are on the board",
    "why.origin-empty": "{square} is empty",
    "why.not-your-piece": "{square} shows a {color} cup",
    "why.same-square": "a lifted cup must go to another square",
    "why.touch-peek": "touch rule: {player} may not touch {square}",
    "why.touch-put-back": "touch rule: a lifted cup must move",
    "why.touch-wrong-piece": "touch rule: {player} must move the cup from {square}",
    "why.game-over": "the game is over",
    "why.other": "{reason}",
    "restore.place": "take the cup off {to}",
    "restore.board": "put the cup back on {origin}",
    "restore.must-move": "move the cup from {origin} to another square",
    "restore.other": "put the board back as it was",
    # ----- the referee's other news -----
    "lifted.uncovers": "Careful: lifting {square} uncovers {owner}'s line {first} to {last}",
    "restored": "Board restored. {turn} to play",
    "attention": "Check the board",
    "attention.at": "Check {squares}",
    "help": "The board and the game differ on {squares}. "
    "Put them right, or press three times to accept the board",
    "help.board": "The board and the game differ. Put it right, or press three times to accept the board",
    "takeback": "{move} taken back. {turn} to play",
    "takeback.offered": "Take back {move}? Press twice",
    "new-game": "New game. {turn} to play",
    "correction": "Correction: {moves}. {turn} to play",
    "resync": "I lost track of the board. The game goes on from what it shows",
    # ----- the hint button -----
    "hint.place": "Try a {size} on {to}",
    "hint.board": "Try moving {origin} to {to}",
    "hint.failed": "No hint this time",
    # ----- faults -----
    "fault": "Camera trouble. The game is kept",
    "fault.service": "The companion needs service",
}
