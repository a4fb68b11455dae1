"""Fixed-effects designs and random-effects terms, with columns named and ordered as R names them.

Treatment coding against each factor's first level, main effects then the interaction with the first
factor varying fastest: ``(Intercept), resp<b>, ..., strat<x>, ..., resp<b>:strat<x>, ...`` is exactly
``model.matrix(~ resp * strat)``, so coefficients can be compared with lme4 by name. Rank deficiency (a
responder never rated in a stratum) is resolved as lme4 does: aliased columns are dropped (pivoted QR)
and a contrast is only reported when it is estimable (its row lies in the row space of X).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.linalg import qr

RANK_TOL = 1e-7


@dataclass(frozen=True)
class FixedDesign:
    """Treatment-coded design of one or two factors (the second crossed with the first)."""

    factors: tuple[str, ...]
    levels: Mapping[str, tuple[str, ...]]
    names: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        if not 1 <= len(self.factors) <= 2:
            raise ValueError("a fixed design has one or two factors")
        names = ["(Intercept)"]
        for f in self.factors:
            names += [f"{f}{lv}" for lv in self.levels[f][1:]]
        if len(self.factors) == 2:
            a, b = self.factors
            names += [f"{a}{la}:{b}{lb}" for lb in self.levels[b][1:] for la in self.levels[a][1:]]
        object.__setattr__(self, "names", tuple(names))

    def codes(self, frame: pd.DataFrame) -> dict[str, np.ndarray]:
        """Level index of every row per factor (-1 for a value outside the design's levels)."""
        out = {}
        for f in self.factors:
            values = frame[f].astype(str).to_numpy(dtype=object)
            out[f] = pd.Categorical(values, categories=list(self.levels[f])).codes.astype(np.int64)
        return out

    def matrix_from_codes(self, codes: Mapping[str, np.ndarray]) -> np.ndarray:
        n = len(next(iter(codes.values())))
        cols = [np.ones(n)]
        dummies = {}
        for f in self.factors:
            d = [(codes[f] == j).astype(float) for j in range(1, len(self.levels[f]))]
            dummies[f] = d
            cols += d
        if len(self.factors) == 2:
            a, b = self.factors
            cols += [da * db for db in dummies[b] for da in dummies[a]]
        return np.column_stack(cols)

    def matrix(self, frame: pd.DataFrame) -> np.ndarray:
        return self.matrix_from_codes(self.codes(frame))

    def row(self, cell: Mapping[str, str]) -> np.ndarray:
        """The design row of one cell, e.g. ``{"resp": "llm_a", "strat": "open"}``."""
        codes = {f: np.array([self.levels[f].index(str(cell[f]))]) for f in self.factors}
        return self.matrix_from_codes(codes)[0]


@dataclass(frozen=True)
class RandomTerm:
    """``(columns | group)``: one k-vector of random effects per level of ``group``."""

    group: str
    levels: tuple[str, ...]
    codes: np.ndarray  # (n,) level index of every row
    columns: np.ndarray  # (n, k) the term's model matrix ((Intercept) alone: ones)
    column_names: tuple[str, ...] = ("(Intercept)",)

    @property
    def k(self) -> int:
        return int(self.columns.shape[1])

    @property
    def n_levels(self) -> int:
        return len(self.levels)

    @property
    def n_theta(self) -> int:
        return self.k * (self.k + 1) // 2


def intercept_term(group: str, values: Sequence[object] | pd.Series) -> RandomTerm:
    codes, uniques = pd.factorize(pd.Series(values).astype(str), sort=True)
    return RandomTerm(group=group, levels=tuple(map(str, uniques)), codes=codes.astype(np.int64),
                      columns=np.ones((len(codes), 1)))


def slope_term(group: str, values: Sequence[object] | pd.Series, design: FixedDesign,
               frame: pd.DataFrame) -> RandomTerm:
    """``(1 + factor | group)`` for the one-factor treatment design ``design`` (e.g. responder)."""
    codes, uniques = pd.factorize(pd.Series(values).astype(str), sort=True)
    return RandomTerm(group=group, levels=tuple(map(str, uniques)), codes=codes.astype(np.int64),
                      columns=design.matrix(frame), column_names=design.names)


def independent_columns(X: np.ndarray, tol: float = RANK_TOL) -> np.ndarray:
    """Indices of a maximal set of linearly independent columns (pivoted QR, original order kept)."""
    if X.shape[1] == 0:
        return np.arange(0)
    _, r, piv = qr(X, mode="economic", pivoting=True)
    diag = np.abs(np.diag(r))
    rank = int(np.sum(diag > tol * max(diag[0], 1e-300)))
    return np.sort(piv[:rank])


def null_space(X: np.ndarray, tol: float = RANK_TOL) -> np.ndarray:
    """Rows spanning the null space of ``X`` (from the p x p cross product: n may be large)."""
    if X.shape[1] == 0:
        return np.zeros((0, 0))
    xtx = X.T @ X
    w, v = np.linalg.eigh(xtx)
    keep = w <= (tol ** 2) * max(float(w[-1]), 1e-300)
    return v[:, keep].T


def is_estimable(L: np.ndarray, null: np.ndarray, tol: float = 1e-6) -> bool:
    """True when ``L beta`` does not depend on which solution of the normal equations is taken."""
    if null.size == 0:
        return True
    return bool(np.max(np.abs(null @ L)) <= tol * max(1.0, float(np.max(np.abs(L)))))


__all__ = ["FixedDesign", "RandomTerm", "independent_columns", "intercept_term", "is_estimable", "null_space", "slope_term"]
