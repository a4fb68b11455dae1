"""Every number a document prints is a query of its issuer's world (issue 50: one world, many views).

A numeric fact is a query (``Fact.query``: asked again by ``verify``), a derivation of other facts (a total,
a share, a change: recomputed from its operands), or a property of the document itself (the page a section
starts on). Anything else would be a number drawn inside one document, which nothing else of its issuer has to
agree with."""

from __future__ import annotations

import collections
import re

import pytest

from synthdocqa.generation.planner import plan_document
from synthdocqa.ir.derivations import derivation_problems, unsourced_problems, world_problems
from synthdocqa.ir.spec import spec_for_profile


@pytest.mark.parametrize(("profile", "seed", "n"), [("reference", 65, 14), ("demo", 66, 12)])
def test_every_number_is_a_query_of_the_world_a_derivation_or_a_page_number(profile, seed, n):
    spec = spec_for_profile(profile, seed, n)
    leaks: collections.Counter = collections.Counter()
    queries = 0
    for i in range(n):
        doc = plan_document(spec, i)
        assert world_problems(doc.facts, doc.world) == []
        assert derivation_problems(doc.facts) == []
        queries += sum(f.query is not None for f in doc.facts)
        for p in unsourced_problems(doc.facts):
            leaks[(doc.recipe, re.sub(r"\d+", "#", p.split(": ")[0]))] += 1
    assert queries > 100 * n / 10
    assert not leaks, f"numbers drawn inside a document: {leaks.most_common(12)}"
