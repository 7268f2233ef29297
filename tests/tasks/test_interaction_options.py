"""I1's options: the answer and the decoys follow the task's rules for any type sets."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from misi_tasks.tasks.interaction_options import TYPE_WORDS, type_decoys, type_set_text

TYPES = sorted(TYPE_WORDS)
type_sets = st.frozensets(st.sampled_from(TYPES), min_size=1, max_size=4)


@given(type_sets, st.frozensets(st.sampled_from(TYPES)), st.integers(0, 2**32 - 1))
def test_three_distinct_decoys_by_the_rules(truth, others, seed):
    decoys = type_decoys(truth, others, np.random.default_rng(seed))
    texts = [type_set_text(truth)] + [type_set_text(d) for d in decoys]
    assert len(decoys) == 3 and len(set(texts)) == 4
    first = decoys[0]
    if others - truth:  # (1) a hard negative: one true type swapped for a neighbour's type
        assert len(first & truth) == len(truth) - 1 and len(first - truth) == 1 and (first - truth) <= others


def test_option_text_order_and_errors():
    assert type_set_text(frozenset({"hydrophobic", "pi_stacking"})) == "pi-stacking and hydrophobic contact"
    try:
        type_set_text(frozenset())
    except ValueError as exc:
        assert "non-empty" in str(exc)
    else:
        raise AssertionError("an empty set has no option text")
