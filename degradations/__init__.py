"""Scan degradation: 15 physical stages, five tiers, and evidence boxes carried through the geometry.

``sample_profile`` fills the IR's perturbation profile from the tier table; ``degrade_page`` replays a
page's profile on its image; ``map_box``/``map_boxes`` carry pixel boxes to the scan image;
``encode_scan`` and ``scan_pdf`` write what a scanner would produce.
"""

from .geometry import Compose, CurlWarp, Homography, Transform, map_box, map_boxes, map_points
from .pipeline import DegradedPage, apply_stage, degrade_page, resolve_params
from .sampling import sample_profile, sample_stage
from .scan import encode_image, encode_scan, scan_extension, scan_format, scan_pdf
from .stages import GEOMETRIC_STAGES, STAGE_ORDER, STAGES
from .tiers import REFERENCE_DPI, SCAN_FORMAT, TIER_NAMES, TIER_TABLE

__all__ = [
    "GEOMETRIC_STAGES", "REFERENCE_DPI", "SCAN_FORMAT", "STAGES", "STAGE_ORDER", "TIER_NAMES", "TIER_TABLE",
    "Compose", "CurlWarp", "DegradedPage", "Homography", "Transform", "apply_stage", "degrade_page",
    "encode_image", "encode_scan", "map_box", "map_boxes", "map_points", "resolve_params",
    "sample_profile", "sample_stage", "scan_extension", "scan_format", "scan_pdf",
]
