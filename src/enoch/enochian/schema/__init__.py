"""JSON Schemas of the Enochian agent protocol (package data)."""
