"""Satterthwaite denominator degrees of freedom for ``L beta``, exactly as lmerTest defines them.

lmerTest (Kuznetsova et al. 2017) takes the variance parameters ``varpar = (theta, sigma)``, the
Hessian ``H`` of the (unprofiled) deviance in ``varpar`` at the optimum, ``A = 2 H^+`` (pseudo-inverse
over eigenvalues > 1e-8) and the Jacobian of ``C(varpar) = cov(beta)``; then
``df = 2 (L'CL)^2 / (g' A g)`` with ``g_i = L' dC/dvarpar_i L``. lmerTest differentiates numerically
(numDeriv); here both are exact.

The n x n matrices never appear. Every operator involved is ``a I_n + N A N'`` with ``N = [Z X]``;
such operators multiply, take traces and apply to vectors ``c y + N alpha`` through the cross products
``G = N'N``, ``N'y`` and ``y'y`` only. With ``V = sigma^2 (I + Z Lambda Lambda' Z')``,
``P = V^-1 - V^-1 X C X' V^-1`` and ``V_i = dV/dvarpar_i``, the deviance's derivatives are

    grad_i = tr(T V_i) - y'P V_i P y
    H_ij   = tr(T V_ij) - tr(T V_i T V_j) - y'P V_ij P y + 2 y'P V_i P V_j P y

with ``T = P`` for REML and ``T = V^-1`` for ML (beta profiled out).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_solve, cholesky

from .lmm_solver import LmmModel

EIGEN_TOL = 1e-8  # lmerTest's tolerance for the Hessian's eigenvalues


@dataclass
class SatterthwaiteParts:
    """``A = cov(varpar)``, ``dC/dvarpar``, the Hessian and gradient (for diagnostics and tests)."""

    hessian: np.ndarray
    gradient: np.ndarray
    vcov_varpar: np.ndarray
    jacobian: np.ndarray  # (n_varpar, p, p)
    negative_eigenvalues: int

    def ddf(self, L: np.ndarray, cov_beta: np.ndarray) -> float:
        var = float(L @ cov_beta @ L)
        g = np.einsum("i,kij,j->k", L, self.jacobian, L)
        den = float(g @ self.vcov_varpar @ g)
        if not (den > 0 and var > 0):
            return float("nan")
        return 2.0 * var * var / den


def _indicator(model: LmmModel, j: int) -> sp.csr_matrix:
    r, c = model.theta_indicator(j)
    return sp.csr_matrix((np.ones(len(r)), (r, c)), shape=(model.q, model.q))


def satterthwaite_parts(model: LmmModel, theta: np.ndarray, sigma: float) -> SatterthwaiteParts:
    q, p, n = model.q, model.p, model.n
    m = q + p
    G = model.G[:m, :m]
    Ny = model.G[:m, m]
    yy = model.G[m, m]
    s2 = sigma * sigma
    lam = model.lam_matrix(theta)
    gam = lam @ lam.T
    D = np.eye(m)
    D[:q, :q] = lam
    A = D.T @ G @ D
    A[np.arange(q), np.arange(q)] += 1.0
    LA = cholesky(A, lower=True, check_finite=False)
    S = D @ cho_solve((LA, True), D.T, check_finite=False)
    Lz = cholesky(A[:q, :q], lower=True, check_finite=False) if q else np.zeros((0, 0))
    B = np.zeros((m, m))
    if q:
        B[:q, :q] = lam @ cho_solve((Lz, True), lam.T, check_finite=False)
    aP, AP = 1.0 / s2, -S / s2
    aV, AV = 1.0 / s2, -B / s2
    aT, AT = (aP, AP) if model.reml else (aV, AV)

    # trace-side quantities of T: tr T, tr T^2, (N'TN)_zz, (N'T^2N)_zz
    ATG = AT @ G
    trT = aT * n + np.trace(ATG)
    trT2 = aT * aT * n + 2 * aT * np.trace(ATG) + np.sum(ATG * ATG.T)
    Gz = G[:q]
    R = Gz @ AT
    QT = aT * G[:q, :q] + R @ Gz.T
    QT2 = aT * aT * G[:q, :q] + 2 * aT * (R @ Gz.T) + R @ G @ R.T

    # u = P y as c y + N alpha; w = N'u
    def op_vec(a: float, Amat: np.ndarray, c: float, al: np.ndarray) -> tuple[float, np.ndarray]:
        return a * c, a * al + Amat @ (c * Ny + G @ al)

    def dot(v1: tuple[float, np.ndarray], v2: tuple[float, np.ndarray]) -> float:
        c1, a1 = v1
        c2, a2 = v2
        return float(c1 * c2 * yy + c1 * (Ny @ a2) + c2 * (Ny @ a1) + a1 @ G @ a2)

    u = op_vec(aP, AP, 1.0, np.zeros(m))
    w = u[0] * Ny + G @ u[1]
    wz = w[:q]
    uu = dot(u, u)

    # V_i = v_i I + N E_i N' (E_i lives in the z-block); varpar = (theta..., sigma)
    k_theta = model.n_theta
    P_ind = [_indicator(model, j) for j in range(k_theta)]
    dgam = []
    for j in range(k_theta):
        pl = (P_ind[j] @ lam.T) if q else np.zeros((0, 0))
        dgam.append(np.asarray(pl + pl.T))
    E = [s2 * dg for dg in dgam] + [2.0 * sigma * gam]
    v = [0.0] * k_theta + [2.0 * sigma]
    K = k_theta + 1

    def second(i: int, j: int) -> tuple[float, np.ndarray]:
        if i == k_theta and j == k_theta:
            return 2.0, 2.0 * gam
        if i == k_theta or j == k_theta:
            t = j if i == k_theta else i
            return 0.0, 2.0 * sigma * dgam[t]
        pp = (P_ind[i] @ P_ind[j].T).toarray()
        return 0.0, s2 * (pp + pp.T)

    Y = [Ei @ QT for Ei in E]
    s = [(v[i] * u[0], v[i] * u[1] + np.concatenate([E[i] @ wz, np.zeros(p)])) for i in range(K)]
    Ps = [op_vec(aP, AP, *si) for si in s]
    grad = np.array([v[i] * trT + np.sum(E[i] * QT) - (v[i] * uu + wz @ E[i] @ wz) for i in range(K)])
    H = np.empty((K, K))
    for i in range(K):
        for j in range(i, K):
            vij, Eij = second(i, j)
            tr_tvij = vij * trT + np.sum(Eij * QT)
            tr_tvtv = (v[i] * v[j] * trT2 + v[i] * np.sum(E[j] * QT2) + v[j] * np.sum(E[i] * QT2)
                       + np.sum(Y[i] * Y[j].T))
            quad_ij = vij * uu + wz @ Eij @ wz
            H[i, j] = H[j, i] = tr_tvij - tr_tvtv - quad_ij + 2.0 * dot(s[i], Ps[j])

    evals, evecs = np.linalg.eigh(H)
    pos = evals > EIGEN_TOL
    vcov = 2.0 * (evecs[:, pos] / evals[pos]) @ evecs[:, pos].T

    # dC/dvarpar_i = C X'V^-1 V_i V^-1 X C with V^-1 X = N Phi
    EX = np.zeros((m, p))
    EX[q:, :] = np.eye(p)
    Phi = aV * EX + AV @ G[:, q:]
    GPhi = G @ Phi
    C = np.linalg.inv(G[q:, :] @ Phi)
    C = (C + C.T) / 2
    PtGP = Phi.T @ GPhi
    GPz = GPhi[:q]
    jac = np.empty((K, p, p))
    for i in range(K):
        mid = v[i] * PtGP + GPz.T @ E[i] @ GPz
        jac[i] = C @ mid @ C
    return SatterthwaiteParts(hessian=H, gradient=grad, vcov_varpar=vcov, jacobian=jac,
                              negative_eigenvalues=int(np.sum(evals < -EIGEN_TOL)))


__all__ = ["SatterthwaiteParts", "satterthwaite_parts"]
