"""Scan degradation: four capture devices, five tiers (severity within a device), 24 physical stages,
and evidence boxes carried through the geometry.

Every stage follows one protocol (``stages.protocol.Stage``) and sits in one registry (``STAGES``, in
the order of ``ir.vocab.STAGE_NAMES``). ``sample_profile`` fills the IR's perturbation profile from
the device's table at the tier (``devices.stage_table``); ``degrade_page`` replays a page's profile on its image; ``map_box``/``map_boxes``
carry pixel boxes to the scan image; ``encode_scan`` and ``scan_pdf`` write what a scanner would
produce.
"""

from .devices import DEVICE_OVERRIDES, stage_table
from .geometry import Compose, CurlWarp, Homography, Transform, map_box, map_boxes, map_points
from .marks import MarkTarget, choose_marks, mark_targets
from .pipeline import DegradedPage, apply_stage, degrade_page, resolve_params
from .sampling import FaxOrigin, page_captures, sample_profile, sample_stage
from .scan import encode_image, encode_scan, scan_extension, scan_format, scan_pdf
from .stages import (
    GEOMETRIC_STAGES,
    STAGES,
    GeometricStage,
    PixelStage,
    Plan,
    ResolutionStage,
    Stage,
    get_stage,
)
from .tiers import REFERENCE_DPI, SCAN_FORMAT, TIER_TABLE

__all__ = [
    "DEVICE_OVERRIDES", "GEOMETRIC_STAGES", "REFERENCE_DPI", "SCAN_FORMAT", "STAGES", "TIER_TABLE",
    "Compose", "CurlWarp", "DegradedPage", "FaxOrigin", "MarkTarget", "GeometricStage", "Homography", "PixelStage", "Plan",
    "ResolutionStage", "Stage", "Transform", "apply_stage", "choose_marks", "degrade_page", "encode_image", "encode_scan",
    "get_stage", "map_box", "map_boxes", "map_points", "mark_targets", "resolve_params", "sample_profile", "sample_stage",
    "page_captures", "scan_extension", "scan_format", "scan_pdf", "stage_table",
]
