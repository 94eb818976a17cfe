"""Français : les phrases de l'arbitre, traduites de ``en.py`` (clé par clé).

The words are those French players use for Gobblet: the cups are "gobelets", a larger one
"gobe" a smaller one, the stacks off the board are the "réserve", a line is an "alignement",
and the touch rule is "pièce touchée, pièce jouée". Sizes are said as numbers ("un trois").
"""

NAME = "Français"

PHRASES: dict[str, str] = {
    # ----- les mots -----
    "white": "Blanc",
    "black": "Noir",
    "number.1": "un",
    "number.2": "deux",
    "number.3": "trois",
    "number.4": "quatre",
    "number.5": "cinq",
    "number.6": "six",
    "number.7": "sept",
    "number.8": "huit",
    "number.9": "neuf",
    "list.and": "{rest} et {last}",
    "move.place.short": "{size} en {to}",
    "move.board.short": "{origin} en {to}",
    # ----- un coup -----
    "move.place": "{player} : {size} en {to}",
    "move.place.gobble": "{player} gobe {to} avec un {size}",
    "move.board": "{player} : {origin} en {to}",
    "move.board.gobble": "{player} gobe {to} avec le {size} de {origin}",
    # ----- la fin d'une partie -----
    "win": "{winner} gagne",
    "loss.uncover": "Découverte perdante : l'alignement de {owner}, de {first} à {last}. {winner} gagne",
    "loss.no-moves": "{loser} n'a plus de coup permis. {winner} gagne",
    "loss.touch": "{loser} a soulevé un gobelet qui ne peut pas être joué. {winner} gagne",
    "loss.resignation": "{loser} abandonne. {winner} gagne",
    "draw": "Partie nulle",
    "draw.repetition": "Partie nulle par triple répétition",
    "draw.agreed": "Partie nulle par accord",
    # ----- un coup interdit : ce qui ne va pas, puis comment le réparer -----
    "illegal": "Interdit : {why} — {restore}",
    "why.not-your-turn": "c'est au tour de {player}",
    "why.covers-larger": "{square} porte un gobelet plus grand",
    "why.covers-same-size": "{square} porte un gobelet de même taille",
    "why.stack-empty-only": "un gobelet de la réserve ne se pose que sur une case vide",
    "why.stack-gobble-own": "un gobelet de la réserve ne peut pas gober un des vôtres",
    "why.stack-gobble-line": "un gobelet de la réserve ne gobe que dans un alignement de {count}",
    "why.no-such-size": "vos piles ne montrent pas de {size}",
    "why.all-placed": "tous vos gobelets sont déjà sur le plateau",
    "why.origin-empty": "{square} est vide",
    "why.not-your-piece": "{square} montre un gobelet de {color}",
    "why.same-square": "un gobelet soulevé doit aller sur une autre case",
    "why.touch-peek": "pièce touchée, pièce jouée : {player} ne peut pas toucher {square}",
    "why.touch-put-back": "pièce touchée, pièce jouée : un gobelet soulevé doit être joué",
    "why.touch-wrong-piece": "pièce touchée, pièce jouée : {player} doit jouer le gobelet de {square}",
    "why.game-over": "la partie est terminée",
    "why.other": "ce coup n'est pas permis",
    "restore.place": "retirez le gobelet de {to}",
    "restore.board": "remettez le gobelet sur {origin}",
    "restore.must-move": "jouez le gobelet de {origin} sur une autre case",
    "restore.other": "remettez le plateau comme avant",
    # ----- les autres nouvelles de l'arbitre -----
    "lifted.uncovers": "Attention : soulever {square} découvre l'alignement de {owner}, de {first} à {last}",
    "restored": "Plateau rétabli. Au tour de {turn}",
    "attention": "Vérifiez le plateau",
    "attention.at": "Vérifiez {squares}",
    "help": "Le plateau et la partie diffèrent en {squares}. Corrigez le plateau, "
    "ou appuyez trois fois pour l'accepter",
    "help.board": "Le plateau et la partie diffèrent. Corrigez le plateau, "
    "ou appuyez trois fois pour l'accepter",
    "takeback": "{move} annulé. Au tour de {turn}",
    "takeback.offered": "Annuler {move} ? Appuyez deux fois",
    "new-game": "Nouvelle partie. Au tour de {turn}",
    "correction": "Correction : {moves}. Au tour de {turn}",
    "resync": "J'ai perdu le fil du plateau. La partie continue à partir de ce qu'il montre",
    # ----- le bouton de conseil -----
    "hint.place": "Essayez un {size} en {to}",
    "hint.board": "Essayez {origin} en {to}",
    "hint.failed": "Pas de conseil cette fois",
    # ----- les pannes -----
    "fault": "Problème de caméra. La partie est conservée",
    "fault.service": "L'appareil a besoin d'entretien",
}
