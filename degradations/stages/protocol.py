"""The one stage protocol: every scan stage samples its parameters and applies them the same way.

As in albumentations, a stage is split in two: ``sample`` draws a page's parameters from the tier
table into the IR (``StageParams``), and ``apply(image, params, rng)`` is a pure function of those
recorded parameters and the stage's own stream, so replaying ``ir.json`` reproduces the scan. Three
kinds share the protocol:

* ``PixelStage``: changes pixel values only, nothing moves.
* ``GeometricStage``: ``plan(width, height, params, rng)`` returns the transform, and the image is
  resampled through that very transform (``render``), so evidence boxes move with the pixels.
* ``ResolutionStage``: changes the working resolution. The pipeline calls ``enter`` where the stage
  sits, runs the stages after it at that resolution, and calls ``leave`` last to restore the size.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

import cv2
import numpy as np

from synthdocqa.ir.perturbation import StageParams
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import STAGE_NAMES, StageName

from ..geometry import Homography, Transform, sampling_map
from .image_ops import border_value, like_image

Params = Mapping[str, Any]
"""A stage's parameters in image units (``*_px`` lengths already rescaled to the image's dpi)."""

_DECIMALS = 6  # rounded so the profile's JSON round-trips to the very same floats


def draw_param(spec: Any, rng: Rng) -> Any:
    """One parameter from its tier-table spec (the forms are listed in ``degradations/tiers.py``)."""
    if isinstance(spec, list):
        lo, hi = (float(v) for v in spec)
        return round(rng.uniform(lo, hi), _DECIMALS) if hi > lo else round(lo, _DECIMALS)
    if isinstance(spec, dict):
        if "int" in spec:
            lo, hi = (int(v) for v in spec["int"])
            return rng.integers(lo, hi + 1)
        if "choice" in spec:
            return rng.choice(list(spec["choice"]))
        if "p" in spec:
            return rng.bernoulli(float(spec["p"]))
        raise ValueError(f"unknown parameter spec {spec!r}")
    return spec


@contextmanager
def reading_params(name: str) -> Iterator[None]:
    """A parameter the stage looks up but the record lacks is a clear error naming both."""
    try:
        yield
    except KeyError as err:
        raise ValueError(f"stage {name!r}: missing parameter {err.args[0]!r}") from None


@dataclass(frozen=True)
class Plan:
    """What a geometric stage will do to an image of a given size: its transform (``None``: nothing
    moves) and the scanner-lid level (times the paper level) shown where the page uncovers."""

    transform: Transform | None
    border: float
    backdrop: np.ndarray | None = None
    """What lies around the page in the frame (a desk under a phone photo), RGB at any size (it is smooth: upsampled
    to the image's): shown where the page does not cover, with the page's edge shadow on it; ``None``: the
    scanner lid (``border``)."""


def render(image: np.ndarray, plans: Sequence[Plan]) -> tuple[np.ndarray, list[Transform]]:
    """Resample ``image`` once through the composed transforms of ``plans`` (bilinear, same size).

    The lid level is the first plan's that shows a lid (border < 1); with no transform at all the result
    is a copy. Returns the
    image and the transforms that moved it, in order (what boxes are mapped through)."""
    transforms = [p.transform for p in plans if p.transform is not None]
    if not transforms:
        return image.copy(), []
    h, w = image.shape[:2]
    backdrop = next((p.backdrop for p in plans if p.backdrop is not None), None)
    if backdrop is not None:
        return _on_backdrop(image, transforms, backdrop, _inner_rect(transforms, w, h)), transforms
    fill = border_value(image, next((p.border for p in plans if p.border < 1.0), plans[0].border))
    if _projective(transforms) is None and image.ndim == 3:  # 4-channel remap is ~3x faster than 3-channel
        out = _resample(cv2.cvtColor(image, cv2.COLOR_RGB2RGBA), transforms, fill[:3] + (255.0,))
        return cv2.cvtColor(out, cv2.COLOR_RGBA2RGB), transforms
    return _resample(image, transforms, fill), transforms


def _projective(transforms: Sequence[Transform]) -> np.ndarray | None:
    """The one 3x3 matrix of a chain of homographies (rotation, shift, perspective), or None when any
    transform is not projective (a curl, a fold's shift)."""
    if not all(isinstance(t, Homography) for t in transforms):
        return None
    m = np.eye(3)
    for t in transforms:
        m = t.matrix @ m
    return m


def _resample(image: np.ndarray, transforms: Sequence[Transform], fill: Sequence[float]) -> np.ndarray:
    """``image`` resampled through ``transforms`` at its own size (bilinear, ``fill`` beyond the page). A
    projective chain is one ``warpAffine``/``warpPerspective`` (no per-pixel maps: ~3x cheaper); anything
    else goes through ``sampling_map`` and ``remap``."""
    h, w = image.shape[:2]
    m = _projective(transforms)
    if m is not None:
        cv_m = Homography(m).cv_matrix()
        flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        inv = np.linalg.inv(cv_m)  # output -> input, as WARP_INVERSE_MAP reads it
        inv /= inv[2, 2]
        if np.allclose(inv[2, :2], 0.0, atol=1e-12):
            return cv2.warpAffine(image, inv[:2], (w, h), flags=flags, borderMode=cv2.BORDER_CONSTANT,
                                  borderValue=tuple(fill))
        return cv2.warpPerspective(image, inv, (w, h), flags=flags, borderMode=cv2.BORDER_CONSTANT,
                                   borderValue=tuple(fill))
    return cv2.remap(image, sampling_map(transforms, w, h), None, interpolation=cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT, borderValue=tuple(fill))


def _inner_rect(transforms: Sequence[Transform], w: int, h: int) -> tuple[int, int, int, int]:
    """A rectangle (x0, y0, x1, y1) of the output that the moved page surely covers: inside the page's mapped
    corners, less 4% of the size for a curled or bowed edge. Only outside it is the backdrop blended in."""
    from ..geometry import map_points

    c = map_points(np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]]), transforms)
    m = 0.04 * max(w, h)
    x0, x1 = max(c[0, 0], c[3, 0]) + m, min(c[1, 0], c[2, 0]) - m
    y0, y1 = max(c[0, 1], c[1, 1]) + m, min(c[2, 1], c[3, 1]) - m
    if not (np.isfinite([x0, x1, y0, y1]).all() and x1 > x0 and y1 > y0):
        return 0, 0, 0, 0
    return (int(min(max(x0, 0), w)), int(min(max(y0, 0), h)), int(max(min(x1, w), 0)), int(max(min(y1, h), 0)))


def _on_backdrop(image: np.ndarray, transforms: Sequence[Transform], backdrop: np.ndarray,
                 inner: tuple[int, int, int, int] = (0, 0, 0, 0)) -> np.ndarray:
    """The page resampled onto its backdrop: where the page covers (its footprint, anti-aliased at the edge)
    the page, elsewhere the backdrop darkened by the page's soft shadow, cast down and to the right. One remap
    of the page with an opaque alpha channel gives the footprint as the alpha (0 beyond the page); the shadow
    and the shaded backdrop are made at a quarter of the size (both are smooth) and upsampled once; one
    ``cv2.blendLinear`` puts the two together."""
    h, w = image.shape[:2]
    rgb = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2RGB)
    rgba = _resample(cv2.cvtColor(rgb, cv2.COLOR_RGB2RGBA), transforms, (0.0, 0.0, 0.0, 0.0))
    cover = cv2.extractChannel(rgba, 3)
    lw, lh = max(w // 4, 2), max(h // 4, 2)
    k = max(0.003 * max(h, w), 1.0)  # the shadow's offset and softness at the quarter size
    small = cv2.resize(cover, (lw, lh), interpolation=cv2.INTER_AREA)
    small = cv2.warpAffine(small, np.float32([[1, 0, 0.5 * k], [0, 1, 0.8 * k]]), (lw, lh), borderValue=0)
    ks = 2 * int(np.ceil(k)) + 1
    small = cv2.GaussianBlur(small, (ks, ks), k / 2.0)
    light = cv2.bitwise_not(cv2.multiply(small, 0.5))
    ground = cv2.multiply(cv2.resize(backdrop, (lw, lh), interpolation=cv2.INTER_LINEAR),
                          cv2.merge([light, light, light]), scale=1.0 / 255)
    ground = cv2.resize(ground, (w, h), interpolation=cv2.INTER_LINEAR)
    out = cv2.cvtColor(rgba, cv2.COLOR_RGBA2RGB)
    x0, y0, x1, y1 = inner
    if x1 <= x0 or y1 <= y0:
        x0 = y0 = x1 = y1 = 0
    for ys, xs in ((slice(0, y0 if y1 > y0 else h), slice(0, w)), (slice(y1, h), slice(0, w)),
                   (slice(y0, y1), slice(0, x0)), (slice(y0, y1), slice(x1, w))):
        part = out[ys, xs]
        if part.size == 0:
            continue
        w_page = cover[ys, xs].astype(np.float32)
        w_page *= np.float32(1.0 / 255.0)
        out[ys, xs] = cv2.blendLinear(part, np.ascontiguousarray(ground[ys, xs]), w_page, 1.0 - w_page)
    return out if image.ndim == 3 else cv2.cvtColor(out, cv2.COLOR_RGB2GRAY)


@dataclass(frozen=True)
class Stage:
    """A registered scan stage. ``apply`` never modifies its input and returns an image of its size."""

    name: StageName
    geometric: ClassVar[bool] = False
    changes_resolution: ClassVar[bool] = False

    def __post_init__(self) -> None:
        if self.name not in STAGE_NAMES:
            raise ValueError(f"unknown stage {self.name!r}; expected one of {', '.join(STAGE_NAMES)}")

    def sample(self, entry: Mapping[str, Any], rng: Rng, force: bool = False) -> StageParams:
        """This stage's record for one page from its tier-table ``entry`` (``{"p": .., "params": {..}}``).

        Whether it is on comes from ``rng.fork("enabled")`` and each parameter from
        ``rng.fork("param", name)``, so adding a parameter shifts no other draw. ``force=True`` turns
        the stage on regardless of its probability (tests, contact sheets)."""
        p = float(entry["p"])
        enabled = force or (p > 0 and rng.fork("enabled").bernoulli(p))
        params = {k: draw_param(v, rng.fork("param", k)) for k, v in entry["params"].items()} if enabled else {}
        return StageParams(name=self.name, enabled=enabled, params=params)

    def apply(self, image: np.ndarray, params: Params, rng: Rng) -> np.ndarray:
        raise NotImplementedError

    def run(self, image: np.ndarray, params: Params, rng: Rng) -> tuple[np.ndarray, Transform | None]:
        """The stage on its own: the image and the transform that moved its content (``None``: nothing did)."""
        return self.apply(image, params, rng), None


@dataclass(frozen=True)
class PixelStage(Stage):
    """A stage that changes pixel values only: ``fn(image, params, rng) -> image``."""

    fn: Callable[[np.ndarray, Params, Rng], np.ndarray]

    def apply(self, image: np.ndarray, params: Params, rng: Rng) -> np.ndarray:
        return self.fn(image, params, rng)


@dataclass(frozen=True)
class GeometricStage(Stage):
    """A stage that moves content: ``planner(width, height, params, rng) -> Plan``, then ``render``."""

    planner: Callable[[int, int, Params, Rng], Plan]
    geometric: ClassVar[bool] = True

    def plan(self, width: int, height: int, params: Params, rng: Rng) -> Plan:
        return self.planner(width, height, params, rng)

    def apply(self, image: np.ndarray, params: Params, rng: Rng) -> np.ndarray:
        return self.run(image, params, rng)[0]

    def run(self, image: np.ndarray, params: Params, rng: Rng) -> tuple[np.ndarray, Transform | None]:
        h, w = image.shape[:2]
        out, transforms = render(image, [self.plan(w, h, params, rng)])
        return out, (transforms[0] if transforms else None)


@dataclass(frozen=True)
class ResolutionStage(Stage):
    """A stage that changes the working resolution (the scanner's native dpi).

    ``enter(image, params)`` goes to the working resolution; ``leave(image, width, height, params)``
    comes back to ``width x height``. Both resizes are pixel-centre aligned, so the pair is the identity
    on coordinates and maps no box. Applied on its own the stage is ``leave(enter(image))``."""

    enter: Callable[[np.ndarray, Params], np.ndarray]
    leave: Callable[[np.ndarray, int, int, Params], np.ndarray]
    changes_resolution: ClassVar[bool] = True

    def apply(self, image: np.ndarray, params: Params, rng: Rng) -> np.ndarray:
        h, w = image.shape[:2]
        return like_image(self.leave(self.enter(image, params), w, h, params), image)
