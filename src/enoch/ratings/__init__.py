"""Ratings: how strong an agent is on a scale others know, and how it played."""
