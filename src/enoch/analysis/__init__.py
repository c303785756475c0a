"""Game analysis: every move of a chess game judged by an engine, as lichess judges moves
(:mod:`enoch.analysis.judge`), with enoch's engine or any UCI engine
(:mod:`enoch.analysis.engines`); ``enoch analyse`` is :mod:`enoch.analysis.analyse`.

This module stays tiny: the command line imports it to build its parser (the cold start)."""

from __future__ import annotations

# Default node budget per position: depth 6-7 in the middlegame for enoch's engine, a few
# positions a second in CPython (bench/bench_analyse.py measures it).
DEFAULT_NODES = 10_000
