"""The ids of a corpus, in one place: how each is written and how a checker reads it back.

``doc-00017`` (a document: its index, zero-padded to 5), ``doc-00017-q0003`` (its fourth QA pair),
``doc-00017-q0003-a1`` (that pair's second assertion). Ids become folder names and report text, so the
checkers (``corpus.verify``) accept only these forms, anchored to the id they belong to.
"""

from __future__ import annotations

import re

DOC_ID = re.compile(r"doc-\d{5,}")
"""A document id: ``doc-`` and the zero-padded index (``doc_id``)."""


def doc_id(index: int) -> str:
    """The id (and folder name) of the document at ``index``."""
    return f"doc-{index:05d}"


def qa_id(doc: str, n: int) -> str:
    """The id of the ``n``-th QA pair (0-based) of document ``doc``."""
    return f"{doc}-q{n:04d}"


def assertion_id(qa: str, k: int) -> str:
    """The id of the ``k``-th assertion (0-based) of QA pair ``qa``."""
    return f"{qa}-a{k}"


def qa_id_pattern(doc: str) -> re.Pattern[str]:
    """What ``qa_id`` writes for document ``doc``."""
    return re.compile(re.escape(doc) + r"-q\d{4,}")


def assertion_id_pattern(qa: str) -> re.Pattern[str]:
    """What ``assertion_id`` writes for QA pair ``qa``."""
    return re.compile(re.escape(qa) + r"-a\d+")
