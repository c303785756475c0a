"""Ratings: how strong an agent is on a scale others know. The maths
(:mod:`enoch.ratings.maths`), the calibrated ladder shipped as data (:mod:`enoch.ratings.ladder`),
``enoch rate`` (:mod:`enoch.ratings.rate`) and ``enoch leaderboard``
(:mod:`enoch.ratings.leaderboard`)."""
