"""FIDE chess as a game of the arena (``--variant chess``, the default).

:mod:`enoch.fide.game` puts the rules core (:mod:`enoch.rules`) and the JSON protocol
(:mod:`enoch.protocol`) behind the game API; the rest are chess's own players (the fast path
for in-process agents, UCI engines, a person at the terminal), its PGN records and its board.
"""
