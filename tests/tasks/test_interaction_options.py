"""I1's options: the answer and the decoys follow the task's rules for any type sets."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import pytest

from misi_tasks.tasks.interaction_options import TYPE_WORDS, enough_decoys, type_decoys, type_set_text

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


@given(type_sets, st.frozensets(st.sampled_from(TYPES)), st.frozensets(st.sampled_from(TYPES)),
       st.integers(0, 2**32 - 1))
def test_decoys_use_only_types_the_residue_could_make(truth, others, possible, seed):
    possible = possible | truth  # a residue can make the types it makes
    if not enough_decoys(truth, possible):
        with pytest.raises(ValueError, match="fewer than three"):
            type_decoys(truth, others, np.random.default_rng(seed), possible)
        return
    decoys = type_decoys(truth, others, np.random.default_rng(seed), possible)
    assert len(decoys) == 3 and len({truth, *decoys}) == 4 and all(decoys)
    assert all(d <= possible for d in decoys)
    if (others & possible) - truth:  # the hard negative takes a neighbour's type this residue could make
        first = decoys[0]
        assert len(first - truth) == 1 and (first - truth) <= others & possible


def test_a_ring_less_residue_is_never_offered_pi_stacking():
    ala = frozenset({"hbond", "halogen_bond", "hydrophobic"})  # possible_types of ALA
    for seed in range(200):
        # a neighbour pi-stacks and makes cation-pi: tempting hard negatives, impossible for ALA
        for d in type_decoys(frozenset({"hydrophobic"}), frozenset({"pi_stacking", "cation_pi"}),
                             np.random.default_rng(seed), ala):
            assert not d & {"pi_stacking", "cation_pi", "salt_bridge", "metal"}
    assert not enough_decoys(frozenset({"hbond"}), frozenset({"hbond", "halogen_bond"}))  # GLY: 2 sets left
    assert enough_decoys(frozenset({"hbond"}), frozenset({"hbond", "halogen_bond", "hydrophobic"}))


def test_option_text_order_and_errors():
    assert type_set_text(frozenset({"hydrophobic", "pi_stacking"})) == "pi-stacking and hydrophobic contact"
    try:
        type_set_text(frozenset())
    except ValueError as exc:
        assert "non-empty" in str(exc)
    else:
        raise AssertionError("an empty set has no option text")
