"""The random side of the demo data: the default seed and fixed distributions to draw from.

Every draw goes through a `random.Random` passed in, never the module-level one, so that the same seed gives
the same rows.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from typing import Generic, TypeVar

DEFAULT_SEED = 7

T = TypeVar("T")


class Weighted(Generic[T]):
    """A fixed discrete distribution."""

    def __init__(self, weights: Mapping[T, float]) -> None:
        self._values = tuple(weights)
        self._cumulative = tuple(itertools.accumulate(weights.values()))

    def pick(self, rng: random.Random) -> T:
        return rng.choices(self._values, cum_weights=self._cumulative)[0]
