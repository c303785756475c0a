"""The Enochian rule file (package data; a copy of docs/enochian-rules.yaml)."""
