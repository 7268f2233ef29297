"""X1 interaction type, X2 interaction list and X3 ring stacking, beside the paper's nine (the
declarations; the generators are :mod:`misi_tasks.tasks.interactions`).  Not paper tasks: ``misi-gen
--task all`` leaves them out, their columns ``X1``, ``X2`` and ``X3`` stay out of the paper's average.

>>> InteractionTypeSpec().report_columns()
('X1',)
>>> InteractionListSpec().column({"interaction_type": "salt_bridge"}, "No")
'X2'
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from misi_tasks.definitions.answers import ContactList, ParsedAnswer, contact_text
from misi_tasks.definitions.equivalence import canonical_contact_list
from misi_tasks.definitions.hbonds import chain_sentence
from misi_tasks.definitions.metrics import contact_f1
from misi_tasks.definitions.taskspec import TaskSpec

__all__ = ["InteractionListSpec", "InteractionTypeSpec", "LIST_TYPES", "RingStackingSpec", "TYPE_DEFINITIONS"]

#: How the prompt defines each interaction type (PLIP's definitions; H-bonds ChimeraX's).
TYPE_DEFINITIONS = (
    "hydrogen bond (donor and acceptor atoms within H-bond geometry), "
    "salt bridge (oppositely charged groups, charge centres within 5.5 Å), "
    "pi-stacking (two aromatic rings face to face or edge to face, centroids within 5.5 Å), "
    "cation-pi (a positive charge within 6 Å over an aromatic ring's face), "
    "halogen bond (a ligand C-F/Cl/Br/I pointing at an O, N or S within 4 Å), "
    "metal coordination (a metal ion within 3 Å of a coordinating ligand atom), "
    "hydrophobic contact (two carbons bonded only to carbon or hydrogen, within 4 Å)"
)


@dataclass(frozen=True)
class InteractionTypeSpec(TaskSpec):
    """X1: which interactions one residue, drawn with the ligand, makes with it; options A-D, each a
    set of types (``"hydrogen bond and salt bridge"``).  ``count`` residues per complex, those making a
    type other than hydrogen bonds and hydrophobic contacts first.  Metric: accuracy."""

    name = "interaction-type"
    code = "X1"
    summary = "Which interactions does this residue make with the ligand?"
    counts = {"train": 2, "test": 1}

    def ask(self, *, residue: str, **fields: Any) -> str:
        return (f"Which interactions does {residue} make with the ligand? The types are: {TYPE_DEFINITIONS}. "
                "Each option lists every type the residue makes, joined by \"and\".")

    def answer_format(self) -> tuple[str, list[str]]:
        return "one letter", ["A", "C"]


@dataclass(frozen=True)
class RingStackingSpec(TaskSpec):
    """X3: which (residue ring, ligand ring) pair pi-stacks; options A-D like ``"PHE 120 ring, ligand
    ring C1 C2 C3 C4 C5 C6"`` (TRP's rings: ``"TRP 84 six-membered ring"``, ``"five-membered ring"``).  One item per stacking pair (test 1, train 2 per
    complex); decoys never name another stacking pair.  Metric: accuracy."""

    name = "ring-stacking"
    code = "X3"
    summary = "Which residue ring and ligand ring pi-stack?"
    counts = {"train": 2, "test": 1}

    #: Decoy fairness: a decoy ring pair must fail the stacking test even with its distance and
    #: offset limits raised by ``decoy_margin_A`` (Å) and its angle window widened by
    #: ``decoy_margin_deg`` (°) -- centroids < 6.0 Å, normals within 40° of 0° or 90°, offset < 2.5 Å
    #: by default -- so no decoy looks like a stack in the images (a stack without three such decoys
    #: is not asked).  Every item records both (``metadata.decoy_margin_A`` / ``decoy_margin_deg``).
    decoy_margin_A: float = 0.5
    decoy_margin_deg: float = 10.0

    def validate(self) -> None:
        if not 0 <= self.decoy_margin_A <= 2:
            raise ValueError(f"task {self.name!r}: decoy_margin_A must be in [0, 2] Å, got {self.decoy_margin_A}")
        if not 0 <= self.decoy_margin_deg <= 20:
            raise ValueError(f"task {self.name!r}: decoy_margin_deg must be in [0, 20]°, got {self.decoy_margin_deg}")

    def ask(self, **fields: Any) -> str:
        return ("Which pocket residue ring and ligand ring pi-stack, face to face or edge to face (ring centroids "
                "within 5.5 Å, the rings parallel within 30° or perpendicular within 30°, one centroid over the "
                "other ring within 2 Å)? Each option names a residue's ring and a ligand ring by its atoms; "
                "exactly one pair stacks.")

    def answer_format(self) -> tuple[str, list[str]]:
        return "one letter", ["B", "D"]


_RING_NAMES = ("a pocket ring by all its atoms joined by \"-\" (PHE and TYR CG-CD1-CD2-CE1-CE2-CZ, HIS "
               "CG-ND1-CD2-CE1-NE2, TRP's six-membered ring CD2-CE2-CE3-CZ2-CZ3-CH2 or five-membered ring "
               "CG-CD1-NE1-CE2-CD2), a ligand ring by all its atoms joined by \"-\"")
_GROUP_NAMES = ("a charged group by any one of its atoms (or several, joined by \"-\"); positive groups: the "
                "side chains of ARG, LYS and HIS and on the ligand quaternary and tertiary amines, sulfonium and "
                "guanidine groups; negative groups: the side chains of ASP and GLU and on the ligand carboxylates, "
                "phosphates, sulfonates and sulfates")

#: X2: interaction type -> (its words, its definition, how its two sides are named, an example contact).
LIST_TYPES: dict[str, tuple[str, str, str, str]] = {
    "salt_bridge": ("salt bridge", "a positively and a negatively charged group, one in the pocket and one in the "
                    "ligand, whose charge centres lie within 5.5 Å", _GROUP_NAMES, "ARG 45 NH1 A, O2"),
    "pi_stacking": ("pi-stacking contact", "two aromatic rings, one in the pocket and one in the ligand, face to "
                    "face or edge to face: centroids within 5.5 Å, the rings parallel within 30° or perpendicular "
                    "within 30°, one centroid over the other ring within 2 Å", _RING_NAMES,
                    "PHE 120 CD1-CD2-CE1-CE2-CG-CZ A, C1-C2-C3-C4-C5-C6"),
    "cation_pi": ("cation-pi contact", "a positive charge within 6 Å of an aromatic ring's centroid and over its face "
                  "(projected within 2 Å of the centroid), one in the pocket and the other in the ligand",
                  f"{_RING_NAMES}; {_GROUP_NAMES}", "LYS 220 NZ A, C15-C16-C17-C18-C19-C20"),
    "halogen_bond": ("halogen bond", "a ligand C-F, C-Cl, C-Br or C-I pointing at a pocket O, N or S within 4 Å "
                     "(the angle C-X...A within 30° of 165°, and Y-A...X within 30° of 120° for the acceptor's "
                     "neighbour Y)",
                     "the pocket's acceptor atom and the ligand's halogen atom", "ASP 335 OD2 A, F34"),
    "metal": ("metal coordination contact", "a metal ion within 3 Å of a coordinating ligand atom (a carboxylate, "
              "phosphate or alcohol O, an O or S bonded to an aromatic ring, an N bonded to two carbons)",
              "the ion as its residue with its own atom name, then the ligand atom", "ZN 301 ZN A, O2"),
}
_EXAMPLES = ["ARG 45 NH1 A, O2; LYS 80 NZ A, O5", "PHE 120 CD1-CD2-CE1-CE2-CG-CZ A, C1-C2-C3-C4-C5-C6", "No"]
# what the random baseline guesses contacts from (it does not look at the complex)
_RANDOM_RESIDUES = (("ARG", "NH1"), ("LYS", "NZ"), ("HIS", "NE2"), ("ASP", "OD1"), ("GLU", "OE2"),
                    ("PHE", "CD1-CD2-CE1-CE2-CG-CZ"), ("TYR", "CD1-CD2-CE1-CE2-CG-CZ"), ("SER", "OG"))
_RANDOM_LIGAND = ("O1", "O2", "N1", "N2", "CL1", "F1", "C1-C2-C3-C4-C5-C6")


@dataclass(frozen=True)
class InteractionListSpec(TaskSpec):
    """X2: every contact of one interaction type (salt bridge, pi-stacking, cation-pi, halogen bond,
    metal coordination) between pocket and ligand, in T9's vocabulary with each side a set of atoms
    (:class:`~misi_tasks.definitions.answers.ContactList`), or ``No``.

    Per complex: every type it makes, at most ``count`` (test and train 5: all), asked in
    :data:`LIST_TYPES` order, and for an expected ``none_share`` of the items a type it does not
    make (answer ``No``): ``n_present * none_share / (1 - none_share)`` such items, the fraction
    drawn, at most the number of absent types.  A complex with none of the five types gives no item.
    Metric: F1 of the contacts (:func:`~misi_tasks.definitions.metrics.contact_f1`) after
    :func:`~misi_tasks.definitions.equivalence.canonical_contact_list` (symmetry-equivalent atoms as
    T9, a charged group named by any of its atoms, a ring by all of them); a listed contact naming a
    recorded near miss (``metadata.near_misses``, none in older datasets) is left out of the F1."""

    name = "interaction-list"
    code = "X2"
    summary = "List every salt bridge / pi-stack / cation-pi / halogen bond / metal contact of pocket and ligand."
    counts = {"train": 5, "test": 5}
    answer = ContactList
    metric = "F1 of the listed contacts (charged groups by any atom, rings by all atoms); none: 1 for No"

    #: Expected share of the items whose type the complex does not make (answer ``No``).
    none_share: float = 1 / 3
    #: State the images' scale (px per Å) in the prompt (the types are defined in Å).
    state_scale: bool = True
    #: ``No`` fairness: a type is not asked as ``No`` when a near miss of it exists -- a contact by the
    #: type's test with every distance limit raised by ``none_margin_A`` (Å) and every angle window
    #: widened by ``none_margin_deg`` (°); for metal coordination any ligand N, O or S counts as a
    #: target (a hydroxamate O 2.1 Å from a zinc is coordination to a chemist, though not PLIP's).
    #: Every item records both (``metadata.none_margin_A`` / ``none_margin_deg``).
    none_margin_A: float = 0.5
    none_margin_deg: float = 10.0

    def validate(self) -> None:
        if not 0 <= self.none_share <= 0.9:
            raise ValueError(f"task {self.name!r}: none_share must be in [0, 0.9], got {self.none_share}")
        if not 0 <= self.none_margin_A <= 2:
            raise ValueError(f"task {self.name!r}: none_margin_A must be in [0, 2] Å, got {self.none_margin_A}")
        if not 0 <= self.none_margin_deg <= 20:
            raise ValueError(f"task {self.name!r}: none_margin_deg must be in [0, 20]°, got {self.none_margin_deg}")

    def none_items(self, n_present: int, draw: float) -> int:
        """How many ``No`` items go with ``n_present`` asked types, given a uniform ``draw`` in [0, 1).

        >>> [InteractionListSpec().none_items(n, 0.7) for n in (1, 2, 3)], InteractionListSpec().none_items(1, 0.2)
        ([0, 1, 1], 1)
        """
        x = n_present * self.none_share / (1 - self.none_share)
        return int(x) + (draw < x - int(x))

    def ask(self, *, interaction: str, chain: str | None = None, **fields: Any) -> str:
        """The question about type ``interaction`` (a key of :data:`LIST_TYPES`); ``chain`` as T9's."""
        words, definition, naming, example = LIST_TYPES[interaction]
        where = chain_sentence(chain)
        return (f"List every {words} between the pocket and the ligand ({definition}). Give each as residue name, "
                "residue number, the residue's atom(s), chain id (\"?\" when the file gives no chain), a comma, "
                f"then the ligand's atom(s), separating them with \"; \" (for example \"{example}\"). Name "
                f"{naming}. Answer \"No\" if there is no {words}." + where)

    def answer_format(self) -> tuple[str, list[str]]:
        return "<RES> <number> <atoms> <chain>, <ligand atoms>; ..., or No", list(_EXAMPLES)

    def blurb(self) -> str:
        return f"{self.summary} Answer: {_EXAMPLES[0]} / No"

    def canonical(self, answer: ParsedAnswer, metadata: Mapping[str, Any]) -> ParsedAnswer:
        if isinstance(answer, ContactList):
            return canonical_contact_list(answer, metadata.get("equivalent_atoms") or [],
                                          metadata.get("interactions") or [], metadata.get("near_misses") or [])
        return super().canonical(answer, metadata)

    def score(self, pred: ParsedAnswer, truth: ParsedAnswer) -> float:
        assert isinstance(pred, ContactList) and isinstance(truth, ContactList)
        return contact_f1(pred, truth)

    def check_row(self, metadata: Mapping[str, Any], answer: str) -> str | None:
        kind = metadata.get("interaction_type")
        if kind not in LIST_TYPES:
            return f"interaction-list metadata needs interaction_type, one of {', '.join(LIST_TYPES)}"
        records = metadata.get("interactions")
        if not isinstance(records, list) or any(r.get("type") != kind for r in records):
            return f"interaction-list metadata needs its {kind} contacts in interactions"
        if (answer.strip() == "No") != (not records):
            return f"answer {answer!r} disagrees with the {len(records)} {kind} contacts of interactions"
        return None

    def random_reply(self, rng: random.Random) -> str:
        if rng.random() < self.none_share:
            return "No"
        contacts = []
        for _ in range(rng.randint(1, 2)):
            res, atoms = rng.choice(_RANDOM_RESIDUES)
            contacts.append(contact_text(res, str(rng.randint(1, 500)), atoms, "A", rng.choice(_RANDOM_LIGAND)))
        return str(ContactList(tuple(contacts)))
