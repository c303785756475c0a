"""enoch: a chess system for AI agents.

The package is split by layer (see ``docs/`` and the README's "Development" section):
``rules`` (the FIDE position), ``protocol`` (the JSON state and answer), ``agents`` (built-in
players), ``arena`` (referee, matches), ``engine``, ``microchess``, ``enochian``. A layer
imports only the layers below it, so that ``enoch agent`` starts fast and each part can be
tested alone.
"""

__version__ = "0.1.0"
