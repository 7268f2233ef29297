"""The parts of a prompt that describe the images: the drawing conventions and the image list.

Every prompt states the PDB id, what each image shows, the colour, label and axis conventions
(built here), then the task's question and answer format with examples, rendered by the task's
spec (:meth:`misi_tasks.definitions.taskspec.TaskSpec.ask`,
:meth:`~misi_tasks.definitions.taskspec.TaskSpec.answer_sentence`) from the same numbers the generator
samples from, and asks for the answer alone.  :meth:`misi_tasks.tasks.base.TaskGenerator.prompt` puts them
together; a task says only what its images show (``image_descriptions``) and, if it must, its preamble.
"""

from __future__ import annotations

from misi_render.labels import LIGAND_LABEL_RULE

__all__ = ["VIEWS3", "VIEWS6", "conventions", "labels_text", "image_list", "one_residue_labels_text",
           "one_residue_preamble", "scale_text"]

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


def one_residue_labels_text(residue: str, chains: bool = False, numbered: bool = False) -> str:
    """The label convention of images that show one residue (T4) and the ligand, every atom named."""
    return (f"Labels: the residue is labelled \"{residue}\""
            + (" (name, number and chain id, since the pocket spans more than one chain)" if chains else "")
            + ", each of its atoms and each ligand atom carries its "
            "atom name" + (f"; {LIGAND_LABEL_RULE}" if numbered else "") + ".")


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


def scale_text(scales: list[tuple[float, str | None]], perspective: bool = False) -> str:
    """The images' scale, for tasks answered in Å (T1, T5, T8): ``scales`` holds (px per Å, which
    images, or None for all of them), e.g. ``"Scale: 1 Å is 17.0 px in every image."``."""
    where = " in the plane through the centre of rotation" if perspective else ""
    parts = [f"{px:.1f} px" + (f" in {images}" if images else " in every image") for px, images in scales]
    return f"Scale: 1 Å is {' and '.join(parts)}{where}."


def image_list(roles: list[str]) -> str:
    """``"Image 1: ...; image 2: ..."`` from human-readable descriptions."""
    return "The images, in order: " + "; ".join(f"image {k + 1}: {r}" for k, r in enumerate(roles)) + "."


#: What images 1-3 (or 1-6) of most items show.
VIEWS3 = ["front view", "left view", "top view"]
VIEWS6 = ["front view", "left view", "top view", "back view", "right view", "bottom view"]


def one_residue_preamble(pdb_id: str, residue: str, lab: dict) -> str:
    """The preamble of a task that draws one pocket residue with the ligand (T4, X1); ``lab`` holds the
    item's label flags (``chains``, ``numbered``)."""
    labels = one_residue_labels_text(residue, bool(lab.get("chains")), bool(lab.get("numbered")))
    return conventions(pdb_id, what=f"the ligand and one pocket residue, {residue}", labels=labels)
