"""The terminal board: four armies in their colours (rich), frozen men marked."""

from __future__ import annotations

from rich.text import Text

from enoch.enochian.geometry import ARMY_NAMES, KIND_LETTERS, NKINDS, SQUARE_NAMES, THRONES
from enoch.enochian.state import State

STYLES = ("bold yellow", "bold blue", "bold red", "bold black on grey70")


def board_text(st: State) -> Text:
    """Rank 8 at the top; ``*`` marks a frozen man, ``+`` a shared throne, ``◊`` the Ptah square."""
    text = Text()
    ptah = st.config.divination.ptah if st.config.divination else -1
    for r in range(7, -1, -1):
        text.append(f"{r + 1} ")
        for f in range(8):
            s = r * 8 + f
            c = st.board[s]
            bg = "on grey23" if (r + f) % 2 == 0 else "on grey35"
            if c < 0:
                text.append(" ◊ " if s == ptah else "   ", style=bg)
                continue
            a, k = divmod(c, NKINDS)
            letter = KIND_LETTERS[k]
            if st.shared >> a & 1 and s == THRONES[a]:
                letter = "K" + letter
            mark = "*" if st.frozen >> a & 1 else ("+" if len(letter) > 1 else " ")
            cell = (letter + mark) if len(letter) == 1 else letter + "+"
            text.append(
                f"{cell:<3}"[:3],
                style=STYLES[a]
                + ("" if "on" in STYLES[a] else " " + bg)
                + (" dim" if st.frozen >> a & 1 else ""),
            )
        text.append("\n")
    text.append("   " + "  ".join("abcdefgh") + "\n")
    legend = "  ".join(f"{n}" for n in ARMY_NAMES)
    text.append(f"armies: {legend}; * frozen, K+ shared throne\n")
    return text


def status_line(st: State) -> str:
    """Whose turn, the die, frozen armies, the outcome."""
    parts = [f"ply {st.ply}", f"to move: {ARMY_NAMES[st.army_to_move]}"]
    if st.die:
        parts.append(f"die: {st.die} ({st.config.die_table[st.die - 1]})")
    frozen = [ARMY_NAMES[a] for a in range(4) if st.frozen >> a & 1]
    if frozen:
        parts.append("frozen: " + ", ".join(frozen))
    if st.verdict:
        parts.append(f"divination: {st.verdict}")
    if st.outcome:
        o = st.outcome.as_dict()
        # Teams have plural names (actives, passives): "passives win"; a draw has no winner.
        verdict = f"{o['winner']} win" if o.get("winner") else "drawn"
        parts.append(f"game over: {verdict} ({o.get('reason')})")
    return " | ".join(parts)


def last_action(entry: object) -> str:
    """One line for the last logged action (``{'army': 'air', 'move': 'Ra7xa5'}`` ->
    ``air: Ra7xa5``), whatever extra keys the log entry carries."""
    if isinstance(entry, dict):
        army = entry.get("army", "?")
        rest = [str(v) for k, v in entry.items() if k != "army"]
        return f"{army}: {' '.join(rest)}"
    return str(entry)


__all__ = ["SQUARE_NAMES", "board_text", "last_action", "status_line"]
