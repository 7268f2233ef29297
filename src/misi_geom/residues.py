"""How a residue is named on the images, in the prompts and in the answers: one home for the text.

``"ASN 460"``, ``"GLY 184A"`` (the insertion code follows the number), or with its chain
``"ASP 29 A"`` (a blank chain id is written ``?``, as ChimeraX's ``/?``).  The renderer draws
these labels and the generators write them into prompts and answers, both through this module.

>>> residue_label("ASP", "29", "A"), residue_label("GLY", "184A"), residue_label("SER", "5", "")
('ASP 29 A', 'GLY 184A', 'SER 5 ?')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from misi_geom.complex import Complex

__all__ = ["atom_residue_label", "residue_label", "residue_number"]


def residue_label(res_name: str, res_num: str, chain: str | None = None) -> str:
    """A residue's label: name and number (with its insertion code); ``chain=None`` leaves the chain
    out, a blank chain id is written ``?``."""
    return f"{res_name} {res_num}" + ("" if chain is None else f" {chain or '?'}")


def residue_number(c: Complex, i: int) -> str:
    """Atom ``i``'s residue number with its insertion code (``"184A"``)."""
    return f"{c.res_id[i]}{c.ins_code[i]}"


def atom_residue_label(c: Complex, i: int, with_chain: bool = False) -> str:
    """The label of atom ``i``'s residue (:func:`residue_label`), with its chain if ``with_chain``."""
    return residue_label(str(c.res_name[i]), residue_number(c, i), str(c.chain_id[i]) if with_chain else None)
