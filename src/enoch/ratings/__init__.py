"""Ratings on a scale others know: the maths (:mod:`enoch.ratings.maths`), the calibrated
ladder shipped as data (:mod:`enoch.ratings.ladder`) and ``enoch rate``
(:mod:`enoch.ratings.rate`)."""
