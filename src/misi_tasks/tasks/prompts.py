"""Prompts: what the images show and how they are drawn, around the task's own question.

Every prompt states the PDB id, what each image shows, the colour, label and axis conventions,
then the task's question and answer format with examples, rendered by the task's spec
(:meth:`misi_tasks.spec.taskspec.TaskSpec.ask`, :meth:`~misi_tasks.spec.taskspec.TaskSpec.answer_sentence`)
from the same numbers the generator samples from, and asks for the answer alone.
"""

from __future__ import annotations

from misi_render.labels import LIGAND_LABEL_RULE
from misi_tasks.spec.items import OPTIONS_MARK
from misi_tasks.spec.taskspec import TaskSpec

__all__ = ["conventions", "labels_text", "image_list", "prompt", "PROMPTS"]

_COLOURS = (
    "Colours: oxygen is red, nitrogen blue, ligand carbon grey; the carbon atoms of the pocket residues "
    "alternate between purple (#BF99F2) and orange (#F2B366) from one residue to the next; other elements "
    "use the usual CPK colours. Hydrogens and water molecules are not drawn; the background is black."
)
def labels_text(chains: bool | None = False, numbered: bool = False) -> str:
    """The label convention: residue labels with the chain when the pocket spans several chains
    (``chains=None``: say so conditionally, for prompts about two complexes); ligand atoms by name,
    with the numbering rule when the ligand file repeats a name."""
    if chains is None:
        residues = ("every pocket residue carries its name and number (for example \"ASN 460\"), followed by its "
                    "chain id (\"ASP 29 A\") when that complex's pocket spans more than one chain")
    elif chains:
        residues = ("every pocket residue carries its name, number and chain id (for example \"ASP 29 A\"), since "
                    "the pocket spans more than one chain")
    else:
        residues = "every pocket residue carries its name and number (for example \"ASN 460\")"
    atoms = "every ligand atom its atom name" + (f"; {LIGAND_LABEL_RULE}" if numbered else "")
    return f"Labels: {residues}, and {atoms}."


_LABELS = labels_text()
_AXES = (
    "Axes, as seen in the front view: X points to the right, Y points up and Z points out of the screen "
    "toward you. Rotations follow the right-hand rule: a positive angle turns counter-clockwise when the "
    "axis points at you. \"move <axis> d\" shifts the molecules by d Å along that screen axis (positive "
    "\"move z\" brings them closer, so they look larger); \"roll <axis> a\" turns them by a degrees about "
    "that axis through their centre. The left view is the front view turned 90° about Y (you then see the "
    "side that faced -X), the top view is the front view turned 90° about X (you see the side that faced "
    "+Y); back, right and bottom are turned 180° about Y, -90° about Y and -90° about X."
)


def conventions(
    pdb_id: str, *, what: str = "the ligand bound in its protein pocket", labels: str | None = None,
    chains: bool | None = False, numbered: bool = False,
) -> str:
    """The shared preamble: the complex and the drawing conventions (``labels`` overrides the
    label sentence built by :func:`labels_text` from ``chains`` and ``numbered``)."""
    labels = labels_text(chains, numbered) if labels is None else labels
    return (
        f"The images show the protein-ligand complex {pdb_id.upper()}: {what}, drawn as balls and sticks. "
        f"{_COLOURS} {labels} {_AXES}"
    )


def image_list(roles: list[str]) -> str:
    """``"Image 1: ...; image 2: ..."`` from human-readable descriptions."""
    return "The images, in order: " + "; ".join(f"image {k + 1}: {r}" for k, r in enumerate(roles)) + "."


_VIEWS3 = ["front view", "left view", "top view"]
_VIEWS6 = ["front view", "left view", "top view", "back view", "right view", "bottom view"]

#: task name -> function(spec, **fields) -> prompt text
PROMPTS = {
    "translation": lambda spec, pdb_id, **lab: " ".join([
        conventions(pdb_id, **lab),
        image_list(_VIEWS3 + ["the front view after the complex was moved along one axis"]),
        spec.ask(),
        spec.answer_sentence(),
    ]),
    "rotation": lambda spec, pdb_id, **lab: " ".join([
        conventions(pdb_id, **lab),
        image_list(_VIEWS3 + ["the front view after the complex was turned about one axis through its centre"]),
        spec.ask(),
        spec.answer_sentence(),
    ]),
    "zooming": lambda spec, pdb_id, distance_A, **lab: " ".join([
        conventions(pdb_id, **lab),
        image_list(_VIEWS3 + ["the front view after the complex was moved toward you along Z"]),
        spec.ask(distance_A=distance_A),
        spec.answer_sentence(),
    ]),
    "residue-ligand": lambda spec, pdb_id, residue, **lab: " ".join([
        conventions(
            pdb_id, what=f"the ligand and one pocket residue, {residue}",
            labels=f"Labels: the residue is labelled \"{residue}\""
                   + (" (name, number and chain id, since the pocket spans more than one chain)" if lab.get("chains") else "")
                   + ", each of its atoms and each ligand atom carries its "
                   "atom name" + (f"; {LIGAND_LABEL_RULE}" if lab.get("numbered") else "") + ".",
        ),
        image_list(_VIEWS6),
        spec.ask(residue=residue),
        spec.answer_sentence(),
    ]),
    "translation-rotation": lambda spec, pdb_id, other_id, **lab: " ".join([
        conventions(pdb_id, **lab),
        f"A second complex, {other_id.upper()}, is drawn with the same conventions.",
        image_list(
            [f"{pdb_id.upper()} {v}" for v in _VIEWS3]
            + [f"{pdb_id.upper()} front view after a move (along x or y) followed by a roll about its centre"]
            + [f"{other_id.upper()} {v}" for v in _VIEWS3]
            + ["option A", "option B", "option C", "option D (front views)"]
        ),
        spec.ask(pdb_id=pdb_id, other_id=other_id),
        OPTIONS_MARK,
        spec.answer_sentence(),
    ]),
    "rotation-rotation": lambda spec, pdb_id, **lab: " ".join([
        conventions(pdb_id, **lab),
        image_list(
            _VIEWS3 + ["the front view after two rolls about different axes through the centre, one after the other",
                       "option A", "option B", "option C", "option D (front views)"]
        ),
        spec.ask(),
        OPTIONS_MARK,
        spec.answer_sentence(),
    ]),
    "docking": lambda spec, pdb_id, **lab: " ".join([
        conventions(pdb_id, what="a protein pocket and its ligand, which has been taken out of the pocket", **lab),
        image_list(
            ["the pocket alone, front view", "the pocket alone, left view", "the pocket alone, top view",
             "the displaced ligand alone, front view", "the displaced ligand alone, left view",
             "the displaced ligand alone, top view", "pocket and displaced ligand together, front view"]
        ),
        spec.ask(),
        spec.answer_sentence(),
    ]),
    "interaction-location": lambda spec, pdb_id, bond, **lab: " ".join([
        conventions(pdb_id, **lab),
        image_list(_VIEWS6),
        spec.ask(bond=bond),
        OPTIONS_MARK,
        spec.answer_sentence(),
    ]),
    "pocket-ligand": lambda spec, pdb_id, **lab: " ".join([
        conventions(pdb_id, **lab),
        image_list(_VIEWS6),
        spec.ask(),
        spec.answer_sentence(),
    ]),
}


def prompt(spec: TaskSpec, **fields) -> str:
    """The full prompt of an item of ``spec``'s task (``fields``: ``pdb_id``, label fields and the
    task's own, e.g. ``residue`` for T4, ``bond`` for T8, ``distance_A`` for T3)."""
    return PROMPTS[spec.name](spec, **fields)
