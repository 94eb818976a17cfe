"""Deutsch: die Sätze des Schiedsrichters, übersetzt aus ``en.py`` (Schlüssel für Schlüssel).

The words are those of the German editions' rules: the cups are "Gobblets", a larger one is
put over ("überstülpt") a smaller one, the external stacks are the "Vorrat", and the touch
rule is "berührt, geführt". Sizes are said as numerals used as nouns ("eine Drei").
"""

NAME = "Deutsch"

PHRASES: dict[str, str] = {
    # ----- Wörter -----
    "white": "Weiß",
    "black": "Schwarz",
    "number.1": "Eins",
    "number.2": "Zwei",
    "number.3": "Drei",
    "number.4": "Vier",
    "number.5": "Fünf",
    "number.6": "Sechs",
    "number.7": "Sieben",
    "number.8": "Acht",
    "number.9": "Neun",
    "list.and": "{rest} und {last}",
    "move.place.short": "{size} auf {to}",
    "move.board.short": "{origin} nach {to}",
    # ----- ein Zug -----
    "move.place": "{player}: {size} auf {to}",
    "move.place.gobble": "{player} überstülpt {to} mit einer {size}",
    "move.board": "{player}: {origin} nach {to}",
    "move.board.gobble": "{player} überstülpt {to} mit der {size} von {origin}",
    # ----- das Ende einer Partie -----
    "win": "{winner} gewinnt",
    "loss.uncover": "Aufgedeckt: die Reihe von {owner}, {first} bis {last}. {winner} gewinnt",
    "loss.no-moves": "{loser} hat keinen erlaubten Zug. {winner} gewinnt",
    "loss.touch": "{loser} hat ein Gobblet angehoben, das nicht ziehen kann. {winner} gewinnt",
    "loss.resignation": "{loser} gibt auf. {winner} gewinnt",
    "draw": "Unentschieden",
    "draw.repetition": "Unentschieden durch dreifache Wiederholung",
    "draw.agreed": "Unentschieden vereinbart",
    # ----- ein unerlaubter Zug: was falsch ist, dann wie man es richtet -----
    "illegal": "Nicht erlaubt: {why} – {restore}",
    "why.not-your-turn": "{player} ist am Zug",
    "why.covers-larger": "auf {square} steht ein größeres Gobblet",
    "why.covers-same-size": "auf {square} steht ein gleich großes Gobblet",
    "why.stack-empty-only": "ein Gobblet aus dem Vorrat darf nur auf ein leeres Feld",
    "why.stack-gobble-own": "aus dem Vorrat darfst du kein eigenes Gobblet überstülpen",
    "why.stack-gobble-line": "aus dem Vorrat darfst du nur in einer gegnerischen Reihe "
    "von {count} überstülpen",
    "why.no-such-size": "oben auf deinen Stapeln ist keine {size}",
    "why.all-placed": "alle deine Gobblets sind schon auf dem Brett",
    "why.origin-empty": "{square} ist leer",
    "why.not-your-piece": "auf {square} ist oben ein Gobblet von {color}",
    "why.same-square": "ein angehobenes Gobblet muss auf ein anderes Feld",
    "why.touch-peek": "berührt, geführt: {player} darf {square} nicht anfassen",
    "why.touch-put-back": "berührt, geführt: ein angehobenes Gobblet muss ziehen",
    "why.touch-wrong-piece": "berührt, geführt: {player} muss das Gobblet von {square} ziehen",
    "why.game-over": "die Partie ist vorbei",
    "why.other": "dieser Zug ist nicht erlaubt",
    "restore.place": "nimm das Gobblet von {to} wieder weg",
    "restore.board": "stell das Gobblet zurück auf {origin}",
    "restore.must-move": "zieh das Gobblet von {origin} auf ein anderes Feld",
    "restore.other": "stell das Brett wieder her",
    # ----- was der Schiedsrichter sonst sagt -----
    "lifted.uncovers": "Vorsicht: wer {square} anhebt, deckt die Reihe von {owner} auf, {first} bis {last}",
    "restored": "Brett wiederhergestellt. {turn} ist am Zug",
    "attention": "Bitte das Brett prüfen",
    "attention.at": "Bitte {squares} prüfen",
    "help": "Brett und Partie stimmen auf {squares} nicht überein. Stell das Brett richtig, "
    "oder drück dreimal, um das Brett zu übernehmen",
    "help.board": "Brett und Partie stimmen nicht überein. Stell das Brett richtig, "
    "oder drück dreimal, um das Brett zu übernehmen",
    "takeback": "{move} zurückgenommen. {turn} ist am Zug",
    "takeback.offered": "{move} zurücknehmen? Zweimal drücken",
    "new-game": "Neue Partie. {turn} ist am Zug",
    "correction": "Korrektur: {moves}. {turn} ist am Zug",
    "resync": "Ich konnte dem Brett nicht folgen. Die Partie geht weiter, wie das Brett steht",
    # ----- der Tipp-Knopf -----
    "hint.place": "Versuch eine {size} auf {to}",
    "hint.board": "Versuch {origin} nach {to}",
    "hint.failed": "Diesmal kein Tipp",
    # ----- Störungen -----
    "fault": "Die Kamera hat eine Störung. Die Partie bleibt erhalten",
    "fault.service": "Das Gerät braucht Wartung",
}
