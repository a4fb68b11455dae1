"""Our REML/ML solver for linear mixed models with crossed random effects (lme4's formulation).

Model ``y = X beta + Z b + e``, ``b = Lambda(theta) u``, ``u ~ N(0, sigma^2 I)``, ``e ~ N(0, sigma^2 I)``.
For a term ``(1 | g)`` the block of ``Lambda`` is ``theta_g I``; for ``(1 + x | g)`` it is
``I_levels (x) T`` with ``T`` lower triangular (theta = T's lower triangle, column-major, as lme4).
With ``N = [Z X y]`` and its cross product ``G = N'N`` computed once, one evaluation of the profiled
deviance is a single dense Cholesky factor of ``D'GD + diag(I_q, 0)`` (``D = diag(Lambda, I)``):
its diagonal gives ``log|L_theta|^2``, ``log|R_X|^2`` and the penalised residual sum of squares, exactly
the quantities of Bates et al. (2015, eqs. 34 and 41). With 17 raters and 88 items the system is
~110 x 110, so a fit costs milliseconds after the cross products.

Global optimum, not a claim of convergence: the profiled criterion is minimised by L-BFGS-B with its
analytic gradient from two starts (lme4's ``theta = 1`` and a small start) and by bounded Powell; every
run's criterion is kept in the fit, the best is polished (L-BFGS-B with tight tolerances) and used, and
a spread above ``AGREE_TOL`` is reported as a disagreement. A diagonal element of ``theta`` below ``SINGULAR_TOL`` marks a singular fit (as
``lme4::isSingular``).

One module, though long: the model, its profiled deviance and gradient, the optimizer runs and the fit's
inference are one computation over the same cross products.
"""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_solve, solve_triangular
from scipy.linalg.lapack import dpotrf, dpotri, dtrtri
from scipy.optimize import minimize

from .design import RandomTerm

SINGULAR_TOL = 1e-4
AGREE_TOL = 1e-4  # deviance units (-2 log-likelihood)
CONFIRM_GAP = 0.05
"""A run that stopped this close to the best (deviance units) is polished from where it stopped: Powell and
L-BFGS-B often halt a little short of an optimum on the boundary (a variance at 0); if the polished run reaches
the best it confirms the optimum. A run further off stays a disagreement."""
_LOG2PI = float(np.log(2 * np.pi))


@cache
def _blas_controller():  # noqa: ANN202 (threadpoolctl object, or None when it is not installed)
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


@contextlib.contextmanager
def single_blas_thread() -> Iterator[None]:
    """Run with one BLAS thread: on ~100 x 100 systems extra threads only spin (40-80x more CPU)."""
    ctl = _blas_controller()
    if ctl is None:
        yield
        return
    with ctl.limit(limits=1, user_api="blas"):
        yield


class LmmError(ValueError):
    """The model cannot be fitted as specified (e.g. no residual degrees of freedom)."""


@dataclass(frozen=True)
class OptimizerRun:
    optimizer: str
    start: str
    criterion: float
    iterations: int
    message: str
    theta: tuple[float, ...]


@dataclass
class LmmModel:
    """Cross products and the theta -> Lambda map of one model; evaluates the profiled deviance."""

    X: np.ndarray
    y: np.ndarray
    terms: Sequence[RandomTerm]
    reml: bool = True
    eliminate: bool = True
    """Eliminate the largest random intercept (``ELIMINATE_MIN_LEVELS`` levels or more) in closed form: see
    ``_elimination``. False: the dense factor only (what the tests compare it with)."""
    n: int = field(init=False)
    p: int = field(init=False)
    q: int = field(init=False)

    def __post_init__(self) -> None:
        X = np.asarray(self.X, dtype=float)
        y = np.asarray(self.y, dtype=float)
        self.n, self.p = X.shape
        if self.n - (self.p if self.reml else 0) <= 0:
            raise LmmError(f"no residual degrees of freedom (n={self.n}, p={self.p})")
        rows, cols, vals, offsets = [], [], [], []
        off = 0
        self._theta_pos: list[tuple[np.ndarray, np.ndarray]] = []
        self._theta_diag: list[bool] = []
        self._theta_names: list[tuple[str, str, str]] = []
        for t in self.terms:
            offsets.append(off)
            k = t.k
            for j in range(k):
                rows.append(np.arange(self.n))
                cols.append(off + t.codes * k + j)
                vals.append(t.columns[:, j])
            lv = np.arange(t.n_levels)
            for b in range(k):
                for a in range(b, k):
                    self._theta_pos.append((off + lv * k + a, off + lv * k + b))
                    self._theta_diag.append(a == b)
                    self._theta_names.append((t.group, t.column_names[a], t.column_names[b]))
            off += t.n_levels * k
        self.q = off
        self._offsets = offsets
        Z = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                          shape=(self.n, self.q)) if self.terms else sp.csr_matrix((self.n, 0))
        m = self.q + self.p
        G = np.empty((m + 1, m + 1))
        G[: self.q, : self.q] = (Z.T @ Z).toarray()
        zx = np.asarray(Z.T @ X)
        zy = np.asarray(Z.T @ y).ravel()
        G[: self.q, self.q: m] = zx
        G[self.q: m, : self.q] = zx.T
        G[: self.q, m] = G[m, : self.q] = zy
        G[self.q: m, self.q: m] = X.T @ X
        G[self.q: m, m] = G[m, self.q: m] = X.T @ y
        G[m, m] = float(y @ y)
        self.G = G
        self.diagonal = all(t.k == 1 for t in self.terms)
        self._sizes = np.array([t.n_levels for t in self.terms], dtype=np.int64)
        self._elim = self._elimination() if self.eliminate else None

    # ------------------------------------------------------------------ parameters
    @property
    def n_theta(self) -> int:
        return len(self._theta_pos)

    @property
    def theta_names(self) -> list[tuple[str, str, str]]:
        return list(self._theta_names)

    @property
    def bounds(self) -> list[tuple[float | None, float | None]]:
        return [(0.0, None) if d else (None, None) for d in self._theta_diag]

    @property
    def theta_diagonal(self) -> np.ndarray:
        return np.array(self._theta_diag, dtype=bool)

    def default_start(self) -> np.ndarray:
        """lme4's start: 1 on the diagonal of every T, 0 elsewhere."""
        return self.theta_diagonal.astype(float)

    def lam_diag(self, theta: np.ndarray) -> np.ndarray:
        return np.repeat(np.asarray(theta, dtype=float), self._sizes)

    def lam_matrix(self, theta: np.ndarray) -> np.ndarray:
        """Dense ``Lambda`` (q x q)."""
        lam = np.zeros((self.q, self.q))
        for th, (r, c) in zip(theta, self._theta_pos, strict=True):
            lam[r, c] = th
        return lam

    def theta_indicator(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows, cols) where ``theta[j]`` sits in ``Lambda``."""
        return self._theta_pos[j]

    # ------------------------------------------------------------------ deviance
    def _system(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """``D'GD + diag(I_q, 0)`` and the dense Lambda (None when Lambda is diagonal)."""
        q = self.q
        if self.diagonal:
            d = np.concatenate([self.lam_diag(theta), np.ones(self.p + 1)])
            M = self.G * d[:, None] * d[None, :]
            lam = None
        else:
            lam = self.lam_matrix(theta)
            M = self.G.copy()
            M[:q, :] = lam.T @ self.G[:q, :]
            M[:, :q] = M[:, :q] @ lam
        M[np.arange(q), np.arange(q)] += 1.0
        return M, lam

    def factor(self, theta: np.ndarray) -> np.ndarray:
        M, _ = self._system(theta)
        return _chol(M)

    def _criterion(self, L: np.ndarray) -> float:
        q, p, n = self.q, self.p, self.n
        d = np.diag(L)
        r2 = d[-1] ** 2
        if not r2 > 0:
            return np.inf
        ld = 2.0 * np.sum(np.log(d[:q]))
        if self.reml:
            nr = n - p
            return float(ld + 2.0 * np.sum(np.log(d[q: q + p])) + nr * (1.0 + _LOG2PI + np.log(r2 / nr)))
        return float(ld + n * (1.0 + _LOG2PI + np.log(r2 / n)))

    def deviance(self, theta: np.ndarray) -> float:
        """Profiled criterion: -2 REML log-likelihood (REMLcrit) or -2 log-likelihood (ML)."""
        try:
            if self._elim is not None:
                return self._elim.criterion(self, np.asarray(theta, dtype=float))[0]
            return self._criterion(self.factor(theta))
        except np.linalg.LinAlgError:
            return np.inf

    def _elimination(self) -> _Elimination | None:
        if not self.diagonal or not self.terms:
            return None
        j = int(np.argmax(self._sizes))
        if self._sizes[j] < ELIMINATE_MIN_LEVELS:
            return None
        return _Elimination.build(self, j)

    def deviance_and_gradient(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """Criterion and its exact gradient (envelope theorem over sigma; see module doc)."""
        theta = np.asarray(theta, dtype=float)
        if self._elim is not None and self.reml:
            try:
                return self._elim.deviance_and_gradient(self, theta)
            except np.linalg.LinAlgError:
                return np.inf, np.zeros_like(theta)
        q, p = self.q, self.p
        m = q + p
        try:
            M, lam = self._system(theta)
            L = _chol(M)
        except np.linalg.LinAlgError:
            return np.inf, np.zeros_like(theta)
        f = self._criterion(L)
        if not np.isfinite(f):
            return f, np.zeros_like(theta)
        r2 = L[-1, -1] ** 2
        s2 = r2 / (self.n - p) if self.reml else r2 / self.n
        Ainv = _chol_inverse(L[:m, :m])
        G = self.G[:m, :m]
        Gz = G[:q]
        Ny = self.G[:m, m]
        if lam is None:
            dl = np.concatenate([self.lam_diag(theta), np.ones(p)])
            S = Ainv * dl[:, None] * dl[None, :]
        else:
            S = Ainv.copy()
            S[:q, :] = lam @ S[:q, :]
            S[:, :q] = S[:, :q] @ lam.T
        R = Gz @ S
        w = Ny[:q] - R @ Ny
        grad = np.empty(self.n_theta)
        if lam is None and self.reml:  # only diag(Q) is needed
            qdiag = np.diag(G)[:q] - np.einsum("ij,ij->i", R, Gz)
            contrib = self.lam_diag(theta) * (qdiag - w * w / s2)
            grad[:] = 2.0 * np.add.reduceat(contrib, np.concatenate([[0], np.cumsum(self._sizes)[:-1]]))
            return f, grad
        if self.reml:
            Q = G[:q, :q] - R @ Gz.T
        else:
            Lz = L[:q, :q]
            if lam is None:
                ld = self.lam_diag(theta)
                B = cho_solve((Lz, True), np.diag(ld), check_finite=False) * ld[:, None]
            else:
                B = lam @ cho_solve((Lz, True), lam.T, check_finite=False)
            Q = G[:q, :q] - G[:q, :q] @ B @ G[:q, :q]
        if lam is None:
            contrib = self.lam_diag(theta) * (np.diag(Q) - w * w / s2)
            grad[:] = 2.0 * np.add.reduceat(contrib, np.concatenate([[0], np.cumsum(self._sizes)[:-1]]))
        else:
            ltq = lam.T @ Q
            ltw = lam.T @ w
            for j, (r, c) in enumerate(self._theta_pos):
                grad[j] = 2.0 * (np.sum(ltq[c, r]) - np.sum(w[r] * ltw[c]) / s2)
        return f, grad

    # ------------------------------------------------------------------ fitting
    def _lbfgsb(self, start: np.ndarray, label: str, tight: bool = False) -> OptimizerRun:
        tol = {"ftol": 1e-15, "gtol": 1e-10} if tight else {"ftol": 1e-12, "gtol": 1e-7}
        res = minimize(self.deviance_and_gradient, start, jac=True, method="L-BFGS-B", bounds=self.bounds,
                       options={**tol, "maxiter": 2000, "maxfun": 10000})
        return OptimizerRun("L-BFGS-B", label, float(res.fun), int(res.nfev), _msg(res.message), tuple(map(float, res.x)))

    def _powell(self, start: np.ndarray, label: str) -> OptimizerRun:
        res = minimize(self.deviance, start, method="Powell", bounds=self.bounds,
                       options={"xtol": 1e-6, "ftol": 1e-12, "maxfev": 2000})
        return OptimizerRun("Powell", label, float(res.fun), int(res.nfev), _msg(res.message), tuple(map(float, res.x)))

    def fit(self, optimizers: Sequence[str] = ("lbfgsb", "lbfgsb_small", "powell")) -> LmmFit:
        """Minimise the criterion with every optimizer in ``optimizers``; polish and keep the best run.

        The criterion is inf where the factor fails (a degenerate design: no residual left); the optimizers'
        line searches then do arithmetic on inf and numpy warns. Every run's outcome is recorded instead, and a
        fit with nothing left to estimate is a stated exclusion (``analysis.degenerate_fit``), so the warnings
        are silenced here."""
        with warnings.catch_warnings(), np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            return self._fit(optimizers)

    def _fit(self, optimizers: Sequence[str]) -> LmmFit:
        c0, t0 = time.process_time(), time.perf_counter()
        polish = None
        if self.n_theta == 0:
            runs = [OptimizerRun("none", "no random effects", self.deviance(np.zeros(0)), 0, "closed form", ())]
        else:
            start = self.default_start()
            runs = []
            for name in optimizers:
                if name == "lbfgsb":
                    runs.append(self._lbfgsb(start, "theta=1 (lme4 start)"))
                elif name == "lbfgsb_small":
                    runs.append(self._lbfgsb(start * 0.1, "theta=0.1"))
                elif name == "powell":
                    runs.append(self._powell(start, "theta=1 (lme4 start)"))
                else:
                    raise ValueError(f"unknown optimizer {name!r} (known: lbfgsb, lbfgsb_small, powell)")
        finite = [r for r in runs if np.isfinite(r.criterion)]
        if not finite:
            raise LmmError("every optimizer run ended at a non-finite criterion")
        best = min(finite, key=lambda r: r.criterion)
        theta = np.array(best.theta, dtype=float)
        confirmed: dict[int, OptimizerRun] = {}
        if self.n_theta:
            polish = self._lbfgsb(theta, f"the best run ({best.optimizer} from {best.start})", tight=True)
            if polish.criterion <= best.criterion:
                theta = np.array(polish.theta, dtype=float)
            for i, r in enumerate(runs):
                gap = r.criterion - best.criterion
                if r is not best and AGREE_TOL < gap <= CONFIRM_GAP:
                    confirmed[i] = self._lbfgsb(np.array(r.theta), f"{r.optimizer} from {r.start}, polished",
                                                tight=True)
            kept = min(polish.criterion, best.criterion)
            lower = min(confirmed.values(), key=lambda c: c.criterion, default=None)
            if lower is not None and lower.criterion < kept:  # a polished run went lower still: keep it
                theta = np.array(lower.theta, dtype=float)
        # a diagonal element of T is only defined up to sign; lme4 reports it >= 0
        theta[self.theta_diagonal] = np.abs(theta[self.theta_diagonal])
        return LmmFit(model=self, theta=theta, runs=runs, best=best, polish=polish, confirmed=confirmed,
                      cpu_seconds=time.process_time() - c0, seconds=time.perf_counter() - t0)


ELIMINATE_MIN_LEVELS = 64
MAX_COUNT_GROUPS = 16


@dataclass
class _Elimination:
    """The profiled criterion and its gradient with one large random intercept eliminated in closed form.

    An intercept term's block of ``Z'Z`` is diagonal (each observation sits in one of its levels), so with that
    term's indices ``U`` first, ``D'GD + diag(I, 0)`` is ``[[diag(a), C], [C', E]]`` with ``a = theta_u^2 n + 1``
    and its Cholesky factor is ``diag(sqrt(a))`` beside the factor of the Schur complement
    ``E - C' diag(1/a) C`` (all the other terms, X and y: ~110 x 110 for the study's design). The term's
    log-determinant is ``sum(log a)``. The gradient needs ``diag(K A^-1 K')`` and ``K A^-1 v`` (``K = G_z D``),
    which the block inverse of ``A`` gives with products no larger than (levels x Schur size): the dialogue or
    answer effect (440 levels on the study's design) costs ~1/10 of a dense factor and its inverse."""

    term: int
    U: np.ndarray
    Vz: np.ndarray  # the other random-effect columns, in order
    V: np.ndarray  # Vz, then X, then y
    nU: np.ndarray
    GUV: np.ndarray
    GVV: np.ndarray
    GZU: np.ndarray  # G[Vz, U]: the other terms' rows against the eliminated columns
    GZV: np.ndarray  # G[Z, V']: every random-effect row against Vz and X (Z in its own order)
    by_count: list[tuple[float, np.ndarray]] | None = None
    """Levels grouped by their number of observations n, with ``G_VU G_UV`` summed over each group: ``C' diag(1/a)
    C`` is then a weighted sum of these few matrices (a balanced design has one group), not a product over every
    level at each evaluation. None when the levels have too many different counts."""

    @classmethod
    def build(cls, model: LmmModel, j: int) -> _Elimination:
        start = model._offsets[j]
        U = np.arange(start, start + int(model._sizes[j]))
        m = model.q + model.p
        rest = np.setdiff1d(np.arange(m + 1), U)
        Vz = rest[rest < model.q]
        G = model.G
        nU = np.diag(G)[U].copy()
        GUV = G[np.ix_(U, rest)]
        counts = np.unique(nU)
        by_count = ([(float(c), GUV[nU == c].T @ GUV[nU == c]) for c in counts]
                    if len(counts) <= MAX_COUNT_GROUPS else None)
        return cls(term=j, U=U, Vz=Vz, V=rest, nU=nU, GUV=GUV, GVV=G[np.ix_(rest, rest)], GZU=G[np.ix_(Vz, U)],
                   GZV=G[np.ix_(np.arange(model.q), rest[:-1])], by_count=by_count)

    def criterion(self, model: LmmModel, theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
        """(criterion, a, the Schur complement's factor, its scaling dV)."""
        lu = float(theta[self.term])
        a = lu * lu * self.nU + 1.0
        dV = np.concatenate([model.lam_diag(theta)[self.Vz], np.ones(model.p + 1)])
        if self.by_count is not None:
            CtC = sum(lu * lu / (lu * lu * n + 1.0) * block for n, block in self.by_count)
        else:
            W = self.GUV * (lu / np.sqrt(a))[:, None]
            CtC = W.T @ W
        S = (self.GVV - CtC) * dV[:, None] * dV[None, :]
        qv = len(self.Vz)
        S[np.arange(qv), np.arange(qv)] += 1.0
        LS = _chol(S)
        d = np.diag(LS)
        r2 = d[-1] ** 2
        if not r2 > 0:
            return np.inf, a, LS, dV
        ld = float(np.sum(np.log(a))) + 2.0 * float(np.sum(np.log(d[:qv])))
        n, p = model.n, model.p
        if model.reml:
            nr = n - p
            f = ld + 2.0 * float(np.sum(np.log(d[qv: qv + p]))) + nr * (1.0 + _LOG2PI + np.log(r2 / nr))
        else:
            f = ld + n * (1.0 + _LOG2PI + np.log(r2 / n))
        return float(f), a, LS, dV

    def deviance_and_gradient(self, model: LmmModel, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """The REML criterion and its gradient, as ``LmmModel.deviance_and_gradient``'s diagonal REML branch."""
        f, a, LS, dV = self.criterion(model, theta)
        if not np.isfinite(f):
            return f, np.zeros_like(theta)
        q, p = model.q, model.p
        m = q + p
        mp = len(self.V) - 1
        G = model.G
        lu = float(theta[self.term])
        s2 = LS[-1, -1] ** 2 / (model.n - p)
        LSp = LS[:mp, :mp]
        dVp = dV[:mp]
        P = (lu * self.GUV[:, :mp] * dVp[None, :]) / a[:, None]  # diag(1/a) C
        KV = self.GZV * dVp[None, :]  # K's columns V', every Z row
        kUU = lu * self.nU  # K_U on the eliminated rows is diagonal
        KZU = lu * self.GZU  # K_U on the other rows
        Y = np.empty((q, mp))
        Y[self.U] = kUU[:, None] * P - KV[self.U]
        Y[self.Vz] = KZU @ P - KV[self.Vz]
        h = np.empty(q)
        h[self.U] = kUU * kUU / a
        h[self.Vz] = (KZU * KZU) @ (1.0 / a)
        Linv, info = dtrtri(LSp, lower=1)  # one small triangular inverse, then a matrix product (~3x a solve)
        if info != 0:
            raise np.linalg.LinAlgError(f"singular Schur factor (dtrtri info {info})")
        YL = Y @ Linv.T
        h += np.einsum("ij,ij->i", YL, YL)
        v = np.concatenate([model.lam_diag(theta), np.ones(p)]) * G[:m, m]
        vU, vV = v[self.U], v[self.V[:-1]]
        t = cho_solve((LSp, True), vV - P.T @ vU, check_finite=False)
        head = vU / a - P @ t
        r = KV @ t
        r[self.U] += kUU * head
        r[self.Vz] += KZU @ head
        w = G[:q, m] - r
        qdiag = np.diag(G)[:q] - h
        contrib = model.lam_diag(theta) * (qdiag - w * w / s2)
        grad = 2.0 * np.add.reduceat(contrib, np.concatenate([[0], np.cumsum(model._sizes)[:-1]]))
        return f, grad


def _chol(M: np.ndarray) -> np.ndarray:
    """Lower Cholesky factor (LAPACK directly: scipy's wrapper costs as much as a 110 x 110 factor)."""
    c, info = dpotrf(M, lower=1, clean=1, overwrite_a=0)
    if info != 0:
        raise np.linalg.LinAlgError(f"matrix not positive definite (dpotrf info {info})")
    return c


def _chol_inverse(L: np.ndarray) -> np.ndarray:
    """``(L L')^-1`` from a lower Cholesky factor."""
    inv, info = dpotri(L, lower=1)
    if info != 0:
        raise np.linalg.LinAlgError(f"singular factor (dpotri info {info})")
    return np.tril(inv) + np.tril(inv, -1).T


def _msg(message: object) -> str:
    return " ".join(str(message).split())[:120]


@dataclass
class LmmFit:
    """Estimates at the kept optimum, plus everything the report and the Satterthwaite df need."""

    model: LmmModel
    theta: np.ndarray
    runs: list[OptimizerRun]
    best: OptimizerRun
    polish: OptimizerRun | None
    cpu_seconds: float
    seconds: float
    confirmed: dict[int, OptimizerRun] = field(default_factory=dict)
    """Runs that stopped within ``CONFIRM_GAP`` of the best, polished from where they stopped (by run index)."""

    def __post_init__(self) -> None:
        mdl = self.model
        q, p = mdl.q, mdl.p
        m = q + p
        L = mdl.factor(self.theta)
        self.criterion = mdl._criterion(L)
        r2 = L[-1, -1] ** 2
        self.sigma2 = float(r2 / (mdl.n - p) if mdl.reml else r2 / mdl.n)
        LA = L[:m, :m]
        x = solve_triangular(LA, L[m, :m], trans="T", lower=True, check_finite=False)
        self.beta = x[q:]
        self.u = x[:q]
        LX = L[q:m, q:m]
        self.cov_beta = self.sigma2 * cho_solve((LX, True), np.eye(p), check_finite=False)

    @property
    def sigma(self) -> float:
        return float(np.sqrt(self.sigma2))

    @property
    def loglik(self) -> float:
        """REML (or ML) log-likelihood at the optimum: ``-criterion / 2`` as lme4's ``logLik``."""
        return -self.criterion / 2.0

    @property
    def spread(self) -> float:
        """Largest criterion difference between the optimizer runs and the kept one."""
        vals = [r.criterion for r in self.runs if np.isfinite(r.criterion)]
        return float(max(vals) - min(vals)) if vals else float("nan")

    @property
    def agree(self) -> bool:
        """Every run reached the kept optimum, directly or once polished."""
        return len(self.reached) == len(self.runs)

    @property
    def reached(self) -> list[OptimizerRun]:
        """The runs that reached the kept optimum within ``AGREE_TOL``, directly or once polished."""
        out = []
        for i, r in enumerate(self.runs):
            c = self.confirmed[i].criterion if i in self.confirmed else r.criterion
            if np.isfinite(r.criterion) and min(r.criterion, c) - self.criterion <= AGREE_TOL:
                out.append(r)
        return out

    @property
    def singular(self) -> list[str]:
        """Random-effect terms with a diagonal theta at ~0 (lme4's isSingular, tol 1e-4)."""
        out = []
        for th, diag, (g, a, _) in zip(self.theta, self.model.theta_diagonal, self.model.theta_names, strict=True):
            if diag and th < SINGULAR_TOL:
                out.append(g if a == "(Intercept)" and self._scalar(g) else f"{g}: {a}")
        return out

    def _scalar(self, group: str) -> bool:
        return any(t.group == group and t.k == 1 for t in self.model.terms)

    def variance_components(self) -> dict[str, float]:
        """``sigma^2 T T'`` per term: ``group`` for an intercept, ``group: a`` / ``group: a ~ b`` otherwise."""
        out: dict[str, float] = {}
        j = 0
        for t in self.model.terms:
            k = t.k
            T = np.zeros((k, k))
            for b in range(k):
                for a in range(b, k):
                    T[a, b] = self.theta[j]
                    j += 1
            cov = self.sigma2 * T @ T.T
            if k == 1:
                out[t.group] = float(cov[0, 0])
                continue
            for a in range(k):
                out[f"{t.group}: {t.column_names[a]}"] = float(cov[a, a])
            for b in range(k):
                for a in range(b + 1, k):
                    out[f"{t.group}: {t.column_names[a]} ~ {t.column_names[b]}"] = float(cov[a, b])
        return out

    @cached_property
    def varpar(self):  # noqa: ANN201 (SatterthwaiteParts, imported lazily to keep modules small)
        from .satterthwaite import satterthwaite_parts

        return satterthwaite_parts(self.model, self.theta, self.sigma)

    def contrast(self, L: np.ndarray) -> tuple[float, float, float]:
        """``(estimate, se, Satterthwaite df)`` of ``L beta``."""
        L = np.asarray(L, dtype=float)
        est = float(L @ self.beta)
        var = float(L @ self.cov_beta @ L)
        return est, float(np.sqrt(max(var, 0.0))), self.varpar.ddf(L, self.cov_beta)


__all__ = ["AGREE_TOL", "SINGULAR_TOL", "LmmError", "LmmFit", "LmmModel", "OptimizerRun", "single_blas_thread"]
