"""The web page: play, watch and review chess and Enochian games in a browser (``enoch serve``).

A Starlette application under uvicorn (:mod:`enoch.web.server`) over the arena: every game is
refereed by :mod:`enoch.arena`, every legal target the page shows comes from the game API
(:mod:`enoch.web.views`), and live boards reach the page as server-sent events. Nothing here is
imported by the rest of enoch; ``enoch serve`` imports it on first use (the CLI's cold start).
"""
