"""Match statistics as engine testers report them: score, Elo with a 95% interval, LOS, SPRT.

Elo is the logistic model: a score fraction ``s`` means ``-400·log10(1/s - 1)``. The interval
maps the score's normal 95% interval through that function. Its per-game variance comes from
the observed wins/draws/losses with half a pseudo-game of each added (the SPRT's regularisation
below): without it two draws have variance 0 and the interval "± 0", a certainty two games
cannot give; with it they get about ± 330 Elo, and over hundreds of games the pseudo-games
vanish into the data. LOS, the likelihood of superiority, is ``Φ((W-L)/sqrt(W+L))``: draws
say nothing about which side is stronger. The SPRT is the trinomial GSPRT of fishtest and
cutechess (normal approximation of the log-likelihood ratio between Elo ``elo0`` and
``elo1``): it *decides* between two hypotheses, it does not measure (the Elo line does that).

Games come in pairs (one start played with colours swapped), and the two games of a pair are
not independent: a start that favours white helps each agent once. The pentanomial model of
fishtest counts each *pair* by its total (0, ½, 1, 1½ or 2 points) and takes the variance over
pairs, so that the start's bias cancels instead of inflating the variance: the same Elo
difference is decided with fewer games (bench/bench_dask.py measures how many fewer).
:class:`PairScore` is that model; :class:`Score`, the trinomial, stays for single games.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from enoch.errors import InputError


def elo_from_score(score: float) -> float:
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: never -0.0


def signed(value: float, digits: int = 1) -> str:
    """An Elo figure with its sign, ``0.0`` (not ``+0.0`` or ``-0.0``) when it rounds to zero."""
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    text = f"{value:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + float(10.0 ** (-elo / 400.0)))


@dataclass
class Score:
    """Wins, draws and losses from one player's point of view."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def fraction(self) -> float:
        return self.points / self.games if self.games else 0.5

    def add(self, points: float) -> None:
        if points == 1.0:
            self.wins += 1
        elif points == 0.0:
            self.losses += 1
        else:
            self.draws += 1

    def variance(self) -> float:
        """Per-game variance of the score."""
        n = self.games
        if not n:
            return 0.0
        s = self.fraction
        return (
            self.wins * (1 - s) ** 2 + self.draws * (0.5 - s) ** 2 + self.losses * (0 - s) ** 2
        ) / n

    def elo(self) -> tuple[float, float, float]:
        """(Elo difference, lower, upper) with a 95% interval (see the module docstring)."""
        n = self.games
        s = self.fraction
        if not n:
            return 0.0, -math.inf, math.inf
        w, d, l_ = self.wins + 0.5, self.draws + 0.5, self.losses + 0.5
        var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l_ * s**2) / (w + d + l_)
        margin = 1.959964 * math.sqrt(var / n)
        return elo_from_score(s), elo_from_score(s - margin), elo_from_score(s + margin)

    def los(self) -> float:
        """Likelihood of superiority, 0..1."""
        decisive = self.wins + self.losses
        if not decisive:
            return 0.5
        return 0.5 * (1.0 + math.erf((self.wins - self.losses) / math.sqrt(2.0 * decisive)))


# Half a pseudo-pair in every bin of the variance (the trinomial's regularisation, per pair):
# it keeps the variance positive after a run of equal pairs. fishtest adds only a thousandth,
# with which one drawn pair alone "accepts" H0 (its variance is ~0); with half a pair, a few
# pairs decide nothing and thousands are unmoved.
PAIR_PRIOR = 0.5
PAIR_TOTALS = (0.0, 0.5, 1.0, 1.5, 2.0)  # the five bins of the pentanomial


@dataclass
class PairScore:
    """Game pairs from one player's point of view: how many pairs it scored 0, ½, 1, 1½, 2."""

    counts: list[int] = field(default_factory=lambda: [0] * 5)

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def games(self) -> int:
        return 2 * self.pairs

    @property
    def points(self) -> float:
        return sum(c * t for c, t in zip(self.counts, PAIR_TOTALS, strict=True))

    @property
    def fraction(self) -> float:
        return self.points / self.games if self.games else 0.5

    def add(self, points: float) -> None:
        """One pair, by the player's total over its two games (0 .. 2)."""
        k = round(points * 2)
        if not 0 <= k <= 4:
            raise ValueError(f"a pair scores 0 to 2 points, not {points}")
        self.counts[k] += 1

    def mean_variance(self, prior: float = 0.0) -> tuple[float, float]:
        """The mean and the variance over pairs of the per-game score (a pair's total / 2);
        ``prior`` pseudo-pairs per bin enter the variance only."""
        if not self.pairs:
            return 0.5, 0.0
        mu = self.fraction
        weights = [c + prior for c in self.counts]
        var = sum(w * (t / 2 - mu) ** 2 for w, t in zip(weights, PAIR_TOTALS, strict=True))
        return mu, var / sum(weights)

    def elo(self) -> tuple[float, float, float]:
        """(Elo difference, lower, upper) with a 95% interval over pairs. Half a pseudo-pair
        in each bin enters the variance (as for single games and in the SPRT), so that a few
        identical pairs do not claim an interval of zero."""
        n = self.pairs
        if not n:
            return 0.0, -math.inf, math.inf
        mu, var = self.mean_variance(prior=0.5)
        margin = 1.959964 * math.sqrt(var / n)
        return elo_from_score(mu), elo_from_score(mu - margin), elo_from_score(mu + margin)


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of ``elo1`` against ``elo0`` (logistic Elo)."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str) -> Sprt:
        """``elo0=0,elo1=10,alpha=0.05,beta=0.05`` (any subset, the rest default)."""
        values: dict[str, float] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, eq, value = part.partition("=")
            if not eq or key not in ("elo0", "elo1", "alpha", "beta"):
                raise InputError(
                    f"bad --sprt part {part!r} (expected elo0=0,elo1=10,alpha=0.05,beta=0.05)"
                )
            try:
                values[key] = float(value)
            except ValueError:
                raise InputError(f"bad --sprt value {part!r}") from None
        sprt = cls(**values)
        if not (0 < sprt.alpha < 1 and 0 < sprt.beta < 1) or sprt.elo0 >= sprt.elo1:
            raise InputError("--sprt needs 0 < alpha, beta < 1 and elo0 < elo1")
        return sprt

    def bounds(self) -> tuple[float, float]:
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, score: Score | PairScore) -> float:
        s0, s1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        if isinstance(score, PairScore):
            # fishtest's pentanomial GSPRT: the trinomial's formula over pairs, each pair one
            # observation of the per-game score.
            if not score.pairs:
                return 0.0
            mu, var = score.mean_variance(PAIR_PRIOR)
            return score.pairs * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
        n = score.games
        if n == 0:
            return 0.0
        # Half a pseudo-game of each kind keeps the variance positive after a run of equal
        # results (all wins would otherwise give 0/0), the usual regularisation.
        sc = score.fraction
        w, d, l_ = score.wins + 0.5, score.draws + 0.5, score.losses + 0.5
        var = (w * (1 - sc) ** 2 + d * (0.5 - sc) ** 2 + l_ * sc**2) / (w + d + l_)
        return n * (s1 - s0) * (2 * score.fraction - s0 - s1) / (2 * var)

    def decision(self, score: Score | PairScore) -> str | None:
        """``"H1"`` (elo1 accepted), ``"H0"`` (elo0 accepted), or None (play on)."""
        lower, upper = self.bounds()
        llr = self.llr(score)
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None


def ratings(
    names: list[str], games: list[tuple[int, int, float]], iterations: int = 200
) -> dict[str, tuple[float, float]]:
    """Elo ratings (mean 0) with a 95% error margin for a tournament.

    ``games`` holds ``(i, j, points of i)``. Ratings are the maximum-likelihood Bradley-Terry
    fit (a draw counts as half a win each way), found by the MM iteration; each margin comes
    from the player's own score variance against the field, mapped through the logistic slope.
    """
    k = len(names)
    r = [0.0] * k
    if not games:
        return {n: (0.0, math.inf) for n in names}
    points = [0.0] * k
    count = [[0] * k for _ in range(k)]
    per_player: list[Score] = [Score() for _ in range(k)]
    for i, j, p in games:
        points[i] += p
        points[j] += 1 - p
        count[i][j] += 1
        count[j][i] += 1
        per_player[i].add(p)
        per_player[j].add(1 - p)
    # MM for Bradley-Terry strengths with a light prior (one draw against a 0-rated virtual
    # opponent) so that perfect scores stay finite.
    gamma = [1.0] * k
    for _ in range(iterations):
        new = []
        for i in range(k):
            denom = 1.0 / (gamma[i] + 1.0)
            for j in range(k):
                if count[i][j]:
                    denom += count[i][j] / (gamma[i] + gamma[j])
            new.append((points[i] + 0.5) / denom)
        mean_log = sum(math.log(g) for g in new) / k
        gamma = [g / math.exp(mean_log) for g in new]
    r = [400.0 * math.log10(g) for g in gamma]
    out = {}
    for i, name in enumerate(names):
        sc = per_player[i]
        n = sc.games
        s = min(max(sc.fraction, 0.01), 0.99)
        slope = 400.0 / (math.log(10) * s * (1 - s))  # d elo / d score
        margin = 1.959964 * math.sqrt(max(sc.variance(), 0.25 / max(n, 1)) / n) * slope
        out[name] = (r[i], margin)
    return out
