"""Game analysis: every move of a chess game judged by an engine, as lichess judges moves
(:mod:`enoch.analysis.judge`), with enoch's engine or any UCI engine
(:mod:`enoch.analysis.engines`); ``enoch analyse`` is :mod:`enoch.analysis.analyse`."""
