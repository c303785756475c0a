"""Enochian chess: the four-army Golden Dawn game (Zalewski rules by default)."""
