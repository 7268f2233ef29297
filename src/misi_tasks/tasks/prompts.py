"""Question templates, one per task, written in misi's own words.

Every prompt states the PDB id, what each image shows, the colour, label and axis conventions,
the answer format with examples, and asks for the answer alone.
"""

from __future__ import annotations

from misi_render.labels import LIGAND_LABEL_RULE

__all__ = ["conventions", "labels_text", "image_list", "answer_only", "PROMPTS"]

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


def answer_only(fmt: str, examples: list[str]) -> str:
    ex = " or ".join(f"\"{e}\"" for e in examples)
    return f"Answer in the form {fmt} (for example {ex}), and reply with the answer only, nothing else."


_VIEWS3 = ["front view", "left view", "top view"]
_VIEWS6 = ["front view", "left view", "top view", "back view", "right view", "bottom view"]

#: task name -> function(**fields) -> question text
PROMPTS = {
    "translation": lambda pdb_id, **lab: " ".join([
        conventions(pdb_id, **lab),
        image_list(_VIEWS3 + ["the front view after the complex was moved along one axis"]),
        "One command of the form \"move x d\" or \"move y d\" (d a whole number of Å between -4 and 4, "
        "not 0) turns image 1 into image 4. Which command was it?",
        answer_only("move <x|y> <d>", ["move x 3", "move y -2"]),
    ]),
    "rotation": lambda pdb_id, **lab: " ".join([
        conventions(pdb_id, **lab),
        image_list(_VIEWS3 + ["the front view after the complex was turned about one axis through its centre"]),
        "One command \"roll <axis> <angle>\" (axis x, y or z; angle a multiple of 15 degrees between -90 and "
        "90, not 0) turns image 1 into image 4. Which command was it?",
        answer_only("roll <x|y|z> <angle>", ["roll y -30", "roll x 45"]),
    ]),
    "zooming": lambda pdb_id, distance_A, **lab: " ".join([
        conventions(pdb_id, **lab),
        image_list(_VIEWS3 + ["the front view after the complex was moved toward you along Z"]),
        f"The camera looks at the centre of the complex from a fixed distance D = {distance_A:.1f} Å; moving the "
        "complex d Å closer makes it look larger by the factor D / (D - d) (exactly so in the plane through "
        "its centre). How many Å (a whole number between 40 and 60) was it moved along Z between image 1 "
        "and image 4?",
        answer_only("move z <d>", ["move z 47"]),
    ]),
    "residue-ligand": lambda pdb_id, residue, **lab: " ".join([
        conventions(
            pdb_id, what=f"the ligand and one pocket residue, {residue}",
            labels=f"Labels: the residue is labelled \"{residue}\""
                   + (" (name, number and chain id, since the pocket spans more than one chain)" if lab.get("chains") else "")
                   + ", each of its atoms and each ligand atom carries its "
                   "atom name" + (f"; {LIGAND_LABEL_RULE}" if lab.get("numbered") else "") + ".",
        ),
        image_list(_VIEWS6),
        f"Does {residue} form hydrogen bonds with the ligand? If it does, list every bond as the residue's "
        "atom name, a comma, then the ligand's atom name, separating bonds with \"; \".",
        answer_only("No, or Yes: <RES> <residue atom>, <ligand atom>; ...",
                    ["No", "Yes: ARG NH2, O1B; ARG NE, O2G"]),
    ]),
    "translation-rotation": lambda pdb_id, other_id, **lab: " ".join([
        conventions(pdb_id, **lab),
        f"A second complex, {other_id.upper()}, is drawn with the same conventions.",
        image_list(
            [f"{pdb_id.upper()} {v}" for v in _VIEWS3]
            + [f"{pdb_id.upper()} front view after a move (along x or y) followed by a roll about its centre"]
            + [f"{other_id.upper()} {v}" for v in _VIEWS3]
            + ["option A", "option B", "option C", "option D (front views)"]
        ),
        f"The same move and then the same roll are applied to {other_id.upper()}. Which option shows the result?",
        "<<OPTIONS>>",
        answer_only("one letter", ["A", "C"]),
    ]),
    "rotation-rotation": lambda pdb_id, **lab: " ".join([
        conventions(pdb_id, **lab),
        image_list(
            _VIEWS3 + ["the front view after two rolls about different axes through the centre, one after the other",
                       "option A", "option B", "option C", "option D (front views)"]
        ),
        "The same two rolls, in the same order, are applied once more to the complex as it looks in image 4. "
        "Which option shows the result?",
        "<<OPTIONS>>",
        answer_only("one letter", ["B", "D"]),
    ]),
    "docking": lambda pdb_id, **lab: " ".join([
        conventions(pdb_id, what="a protein pocket and its ligand, which has been taken out of the pocket", **lab),
        image_list(
            ["the pocket alone, front view", "the pocket alone, left view", "the pocket alone, top view",
             "the displaced ligand alone, front view", "the displaced ligand alone, left view",
             "the displaced ligand alone, top view", "pocket and displaced ligand together, front view"]
        ),
        "The ligand was turned about its own centre and then moved along X, out of the pocket. Which roll about "
        "the ligand's centre (angle a multiple of 15 degrees between -90 and 90), followed by which move along "
        "X (whole Å), puts it back in its pocket?",
        answer_only("roll <x|y|z> <angle>, move x <d>", ["roll x 75, move x -14", "roll z -30, move x 21"]),
    ]),
    "interaction-location": lambda pdb_id, bond, **lab: " ".join([
        conventions(pdb_id, **lab),
        image_list(_VIEWS6),
        f"Consider the hydrogen bond between {bond}. Which translation of the complex in the front view, "
        "\"move x dx, move y dy\" in whole Å, brings the midpoint of the bond's two atoms to the centre of the image?",
        "<<OPTIONS>>",
        answer_only("one letter", ["A", "D"]),
    ]),
    "pocket-ligand": lambda pdb_id, **lab: " ".join([
        conventions(pdb_id, **lab),
        image_list(_VIEWS6),
        "List every hydrogen bond between the pocket and the ligand. Give each bond as residue name, residue "
        "number, residue atom name and chain id (\"?\" when the file gives no chain), a comma, then the ligand "
        "atom name; separate bonds with \"; \".",
        answer_only("<RES> <number> <atom> <chain>, <ligand atom>; ...",
                    ["ASN 460 ND2 A, O2; GLU 537 OE1 A, O2", "SER 70 OG ?, N"]),
    ]),
}
