"""``synthdocqa degrade IMAGE --tier T [--device D] --seed S --out OUT``: one page image through the scan
pipeline."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from synthdocqa.flows.cli import MAX_SEED, CliError, check_range, check_writable

_IMAGE_SUFFIXES = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".pdf": "pdf"}


_DEVICE_HELP = {
    "flatbed": "a sheet on a flatbed or ADF scanner's glass",
    "photocopy": "a copy of a copy, then scanned: grey, contrasty, toner streaks, roller bands",
    "fax": "a received fax: 1-bit error diffusion at 200x100 (or 200x200) dpi, line noise; written as PNG",
    "phone": "a phone photo: perspective, curl, uneven light, vignetting, blur, moire, strong JPEG",
}


MAX_PIXELS = 200_000_000
"""The largest page image ``degrade`` decodes (a 1,200-dpi A3 page is ~140 million pixels): a file that claims
more is refused from its header, before any decoder allocates for it."""


def read_image(src: Path):  # noqa: ANN201 (a BGR numpy array; numpy is imported lazily)
    """The image at ``src`` as BGR, or one CliError: the size is read from the header (PIL, lazily) and checked
    against ``MAX_PIXELS`` first; OpenCV decodes with its log silenced (a truncated file is our one line, not
    OpenCV's warnings)."""
    import cv2
    import numpy as np
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(src) as im:
            w, h = im.size
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as err:
        raise CliError(f"IMAGE: cannot decode {src} as an image ({str(err).splitlines()[0][:80]})") from None
    except Image.DecompressionBombError:
        raise CliError(f"IMAGE: {src} is too large to decode (over {MAX_PIXELS:,} pixels)") from None
    if w * h > MAX_PIXELS:
        raise CliError(f"IMAGE: {src} is {w} x {h} = {w * h:,} pixels, over the {MAX_PIXELS:,} pixels degrade "
                       "decodes")
    log = cv2.utils.logging
    level = log.getLogLevel()
    log.setLogLevel(log.LOG_LEVEL_SILENT)  # a broken file is reported below in one line
    try:
        bgr = cv2.imdecode(np.fromfile(str(src), np.uint8), cv2.IMREAD_COLOR)
    finally:
        log.setLogLevel(level)
    if bgr is None:
        raise CliError(f"IMAGE: cannot decode {src} as an image")
    return bgr


def _epilog() -> str:
    from synthdocqa.ir.vocab import DEVICES, OCCLUDING_STAGES, STAGE_NAMES, TIERS

    lines = ["devices (--device):"]
    lines += [f"  {d:<10} {_DEVICE_HELP[d]}" for d in DEVICES]
    lines += ["", f"tiers (--tier), severity within a device: {', '.join(TIERS)} (pristine: no stage on)", "",
              f"stages, in physical order ({len(STAGE_NAMES)}; * marks over the page, recorded as occlusion):"]
    names = [f"{n}*" if n in OCCLUDING_STAGES else n for n in STAGE_NAMES]
    lines += ["  " + ", ".join(names[i:i + 8]) for i in range(0, len(names), 8)]
    return "\n".join(lines)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "degrade",
        help="degrade one page image as a capture device would at a scan tier",
        description="Sample the device's stages at the tier for one page from SEED, apply them, and write the "
        "scan. OUT's extension picks the file: .jpg/.jpeg (JPEG at the tier's quality), .png, or .pdf "
        "(an image-only scan PDF).",
        epilog=_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("image", metavar="IMAGE", help="page image (PNG/JPEG, any size)")
    p.add_argument("--tier", required=True, help="pristine | good | fair | degraded | poor")
    p.add_argument("--device", default="flatbed", help="flatbed | photocopy | fax | phone (default flatbed)")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--out", required=True, help="output scan file (.jpg, .jpeg, .png or .pdf)")
    p.add_argument("--dpi", type=int, default=200, help="resolution of IMAGE (default 200)")
    p.add_argument("--params-out", default=None, help="write the sampled perturbation profile (JSON) here")
    p.set_defaults(func=_degrade)


def _load_blas_unthreaded() -> None:
    """Load numpy and cv2 (each ships its own OpenBLAS) with one BLAS thread unless the caller chose a
    count: one page multiplies only 3x3 matrices, and two spinning BLAS pools cost a short call ~0.2 s
    of CPU. The variable is put back at once, so nothing started later inherits it."""
    if "OPENBLAS_NUM_THREADS" in os.environ or {"numpy", "cv2"} <= set(sys.modules):
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        import cv2  # noqa: F401 - loaded here (numpy with it) for the thread count above
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]


def _degrade(args: argparse.Namespace) -> int:
    _load_blas_unthreaded()
    import cv2

    from synthdocqa.degradations import degrade_page, encode_image, encode_scan, sample_profile, scan_pdf
    from synthdocqa.ir.files import atomic_write_bytes
    from synthdocqa.ir.rng import Rng
    from synthdocqa.ir.vocab import DEVICES, TIERS

    if args.tier not in TIERS:
        raise CliError(f"--tier: unknown tier {args.tier!r}; expected one of {', '.join(TIERS)}")
    if args.device not in DEVICES:
        raise CliError(f"--device: unknown device {args.device!r}; expected one of {', '.join(DEVICES)}")
    check_range("--seed", args.seed, 0, MAX_SEED)
    if not 50 <= args.dpi <= 1200:
        raise CliError(f"--dpi must be in [50, 1200], got {args.dpi}")
    out = Path(args.out)
    kind = _IMAGE_SUFFIXES.get(out.suffix.lower())
    if kind is None:
        raise CliError(f"--out: unsupported extension {out.suffix!r}; use .jpg, .jpeg, .png or .pdf")
    check_writable(out)
    if args.params_out:
        check_writable(args.params_out, "--params-out")
    src = Path(args.image)
    if not src.is_file():
        raise CliError(f"IMAGE: no such file: {src}")
    bgr = read_image(src)
    if min(bgr.shape[:2]) < 8:
        raise CliError(f"IMAGE: too small ({bgr.shape[1]}x{bgr.shape[0]} px)")
    image = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)

    profile = sample_profile(args.tier, 1, Rng(args.seed, ("degrade",)), args.device)
    scan = degrade_page(image, profile.pages[0], args.seed, args.dpi)
    if kind == "pdf":
        h, w = scan.image.shape[:2]
        data = scan_pdf([encode_scan(scan.image, args.tier, device=args.device)],
                        [(w * 72.0 / args.dpi, h * 72.0 / args.dpi)])
    elif kind == "png":
        data = encode_image(scan.image, "png")
    else:
        data = (encode_image(scan.image, "jpeg", 95) if args.tier == "pristine" or args.device == "fax"
                else encode_scan(scan.image, args.tier))
    if args.params_out:
        atomic_write_bytes(Path(args.params_out), profile.to_json().encode("utf-8"))
    atomic_write_bytes(out, data)
    enabled = [s.name for s in profile.pages[0].stages if s.enabled]
    print(f"wrote {out} ({args.device}, {args.tier}, seed {args.seed}): {len(enabled)} stages on "
          f"[{', '.join(enabled) or 'none'}], {len(scan.transforms)} geometric transform(s)")
    return 0
