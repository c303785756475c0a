"""MicroChess (1976): the original's move evaluator, faithful to the byte, and an agent on it.

Modules: ``slots`` (men, slots, assignment and tracking through a game), ``arith`` (the 6502
carry/borrow chain that scores a move), ``evaluator`` (generator, COUNT, exchange tree, choice),
``explain`` (the ``enoch microchess explain`` report), ``agent`` (``builtin:microchess``).
Nothing is imported here, so that ``enoch`` starts fast; import the module you need.
"""
