"""The Enochian armies' pieces: chessground's cburnett SVGs, recoloured per army.

Enochian chess has four armies, not two, so the page cannot use chess's white and black men
as they are. Each army's men are the vendored white cburnett pieces with their fill changed to
the army's colour (Air yellow, Water blue, Fire red, Earth black, the Golden Dawn's colours),
read from the vendored stylesheet so that a re-vendored chessground brings its own drawings.
"""

from __future__ import annotations

import base64
import re
from functools import lru_cache
from importlib import resources

#: fill and outline of each army's men
ARMY_COLOURS = {
    "air": ("#f3cf3a", "#000"),
    "water": ("#3d7fd9", "#000"),
    "fire": ("#d8432c", "#000"),
    "earth": ("#2e2a26", "#d8d8d8"),
}
_RULE = re.compile(
    r"piece\.(\w+)\.white \{\s*background-image: url\('data:image/svg\+xml;base64,([^']+)'\)"
)


@lru_cache(maxsize=1)
def army_pieces() -> dict[str, dict[str, str]]:
    """``{army: {kind: data URI}}`` for the six kinds of men."""
    css = (
        resources.files("enoch.web")
        / "static"
        / "vendor"
        / "chessground"
        / "chessground.cburnett.css"
    ).read_text(encoding="utf-8")
    white = {m.group(1): base64.b64decode(m.group(2)).decode() for m in _RULE.finditer(css)}
    out: dict[str, dict[str, str]] = {}
    for army, (fill, stroke) in ARMY_COLOURS.items():
        out[army] = {}
        for kind, svg in white.items():
            text = re.sub(r'fill="#fff(fff)?"', f'fill="{fill}"', svg)
            text = text.replace("fill:#fff;", f"fill:{fill};").replace(
                "fill:#ffffff;", f"fill:{fill};"
            )
            if stroke != "#000":
                text = text.replace('stroke="#000"', f'stroke="{stroke}"')
                text = text.replace("stroke:#000", f"stroke:{stroke}")
            encoded = base64.b64encode(text.encode()).decode()
            out[army][kind] = "data:image/svg+xml;base64," + encoded
    return out


__all__ = ["ARMY_COLOURS", "army_pieces"]
