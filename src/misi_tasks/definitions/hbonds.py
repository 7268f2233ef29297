"""T4 residue–ligand, T8 interaction location and T9 pocket–ligand hydrogen bonds (the
declarations); the generators are :mod:`misi_tasks.tasks.hbonds`.

>>> ResidueLigandSpec().column({"label": "negative"}, "No")
'T4-'
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from misi_tasks.definitions.answers import BondList, ParsedAnswer, bond_t4, bond_t9
from misi_tasks.definitions.metrics import bond_score
from misi_tasks.definitions.taskspec import TaskSpec

__all__ = ["ResidueLigandSpec", "InteractionLocationSpec", "PocketLigandSpec", "chain_sentence"]

# what the random baseline guesses bonds from (it does not look at the complex)
_RESIDUES = ("ARG", "ASN", "ASP", "GLN", "GLU", "HIS", "LYS", "SER", "THR", "TYR", "TRP", "GLY")
_RES_ATOMS = ("N", "O", "OG", "OG1", "OD1", "OD2", "ND2", "OE1", "NE2", "NZ", "NH1", "NH2", "OH")
_LIG_ATOMS = ("O1", "O2", "O3", "O4", "N1", "N2", "N3")
_BOND_METRIC = "over 2x the true bonds: 0; every true bond plus extras: 0.5; else share of true bonds found"



def chain_sentence(chain: str | None) -> str:
    """The prompt's sentence that makes a chain id derivable (T9, X2): ``chain`` is the one chain of a
    single-chain pocket (``"?"``: the file gives none), None when the residue labels carry chains."""
    if chain is None:
        return ""
    if chain == "?":
        return " The file gives the pocket residues no chain id: write \"?\" as their chain."
    return f" Every pocket residue is in chain {chain}."

@dataclass(frozen=True)
class ResidueLigandSpec(TaskSpec):
    """T4: ``No`` or ``Yes: ARG NH2, O1B; ARG NE, O2G`` about one residue drawn with the ligand;
    ``count`` residues with H-bonds and ``count`` without per complex.  ``hard_negatives``: the
    residues without are taken near the ligand (within ``hard_negative_cutoff_A``, 4.5 Å) where a
    complex has such residues.
    Report columns T4+ and T4- by the item's ``label``."""

    name = "residue-ligand"
    code = "T4"
    paper = True
    paper_average = True
    columns = ("T4+", "T4-")  # bonded residues and non-bonded ones, scored apart
    summary = "Does this residue hydrogen-bond the ligand, and through which atoms?"
    counts = {"train": 2, "test": 1}
    answer = BondList
    answer_kw = MappingProxyType({"with_yes": True})
    metric = _BOND_METRIC + "; a negative scores 1 for No"

    hard_negatives: bool = True
    #: A hard negative has a heavy atom within this distance (Å) of a ligand heavy atom.
    hard_negative_cutoff_A: float = 4.5

    def validate(self) -> None:
        if not self.hard_negative_cutoff_A > 0:
            raise ValueError(f"task {self.name!r}: hard_negative_cutoff_A must be > 0, got {self.hard_negative_cutoff_A}")

    def ask(self, *, residue: str, **fields: Any) -> str:
        return (f"Does {residue} form hydrogen bonds with the ligand? If it does, list every bond as the residue's "
                "atom name, a comma, then the ligand's atom name, separating bonds with \"; \".")

    def answer_format(self) -> tuple[str, list[str]]:
        return "No, or Yes: <RES> <residue atom>, <ligand atom>; ...", ["No", "Yes: ARG NH2, O1B; ARG NE, O2G"]

    def score(self, pred: ParsedAnswer, truth: ParsedAnswer) -> float:
        assert isinstance(pred, BondList) and isinstance(truth, BondList)
        return bond_score(pred, truth)

    def blurb(self) -> str:
        return f"{self.summary} Answer: {' / '.join(self.answer_format()[1])}"

    def column(self, metadata: Mapping[str, Any], answer: str) -> str:
        label = metadata.get("label")
        if label is None:
            label = "negative" if answer.strip() == "No" else "positive"
        return "T4-" if label == "negative" else "T4+"

    def check_row(self, metadata: Mapping[str, Any], answer: str) -> str | None:
        label = metadata.get("label")
        if label not in ("positive", "negative"):
            return "residue-ligand metadata needs label 'positive' or 'negative'"
        if (label == "negative") != (answer.strip() == "No"):
            return f"label {label!r} disagrees with answer {answer!r}"
        return None

    def random_reply(self, rng: random.Random) -> str:
        if rng.random() < 0.5:
            return "No"
        return str(BondList((bond_t4(rng.choice(_RESIDUES), rng.choice(_RES_ATOMS), rng.choice(_LIG_ATOMS)),)))


@dataclass(frozen=True)
class InteractionLocationSpec(TaskSpec):
    """T8: which move (options like ``move x 7, move y 5``) brings the midpoint of a named H-bond
    to the screen centre in the front view.  Metric: accuracy."""

    name = "interaction-location"
    code = "T8"
    paper = True
    paper_average = True
    summary = "Where on screen is the hydrogen bond?"
    counts = {"train": 2, "test": 1}

    #: A magnitude decoy changes one component by 1 .. decoy_max_step Å (shrinking it only when it is
    #: larger than that, so its sign stays).
    decoy_max_step: int = 3
    #: Every decoy leaves the bond's midpoint at least this many Å farther from the centre than the
    #: answer does (a decoy that does not is redrawn; a bond with no such decoys is not asked), so a
    #: midpoint near a half-Å never makes a neighbouring whole-Å move practically as good as the answer.
    decoy_margin_A: float = 0.5
    #: State the images' scale (px per Å) in the prompt; false gives the paper's wording (no scale).
    state_scale: bool = True

    def validate(self) -> None:
        if self.decoy_max_step < 1:
            raise ValueError(f"task {self.name!r}: decoy_max_step must be >= 1, got {self.decoy_max_step}")
        if not 0 <= self.decoy_margin_A <= 2:
            raise ValueError(f"task {self.name!r}: decoy_margin_A must be in [0, 2] Å, got {self.decoy_margin_A}")

    def ask(self, *, bond: str, **fields: Any) -> str:
        return (f"Consider the hydrogen bond between {bond}. Which translation of the complex in the front view, "
                "\"move x dx, move y dy\" in whole Å, brings the midpoint of the bond's two atoms to the centre of "
                "the image?")

    def answer_format(self) -> tuple[str, list[str]]:
        return "one letter", ["A", "D"]


@dataclass(frozen=True)
class PocketLigandSpec(TaskSpec):
    """T9: every pocket–ligand H-bond, ``ASN 460 ND2 A, O2; GLU 537 OE1 A, O2``; one item per
    complex with at least one."""

    name = "pocket-ligand"
    code = "T9"
    paper = True
    paper_average = True
    summary = "List every pocket-ligand hydrogen bond."
    counts = {"train": 1, "test": 1}
    answer = BondList
    answer_kw = MappingProxyType({"with_yes": False})
    metric = _BOND_METRIC

    def ask(self, *, chain: str | None = None, **fields: Any) -> str:
        """The question; ``chain`` is the one chain of a single-chain pocket (``"?"``: none in the file),
        stated since the residue labels then do not carry it."""
        where = chain_sentence(chain)
        return ("List every hydrogen bond between the pocket and the ligand. Give each bond as residue name, residue "
                "number, residue atom name and chain id (\"?\" when the file gives no chain), a comma, then the "
                "ligand atom name; separate bonds with \"; \"." + where)

    def answer_format(self) -> tuple[str, list[str]]:
        return ("<RES> <number> <atom> <chain>, <ligand atom>; ...",
                ["ASN 460 ND2 A, O2; GLU 537 OE1 A, O2", "SER 70 OG ?, N"])

    def score(self, pred: ParsedAnswer, truth: ParsedAnswer) -> float:
        assert isinstance(pred, BondList) and isinstance(truth, BondList)
        return bond_score(pred, truth)

    def random_reply(self, rng: random.Random) -> str:
        bonds = [bond_t9(rng.choice(_RESIDUES), str(rng.randint(1, 500)), rng.choice(_RES_ATOMS), "A",
                         rng.choice(_LIG_ATOMS)) for _ in range(rng.randint(1, 3))]
        return str(BondList(tuple(bonds), with_yes=False))
