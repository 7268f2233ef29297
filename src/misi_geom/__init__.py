"""misi_geom: structures and geometry for misi.

Complexes as flat numpy arrays (:class:`Complex`), PDBbind loading, SE(3) motions, canonical views,
camera frames (in Å; pixels are ``misi_render``'s), and the geometric hydrogen-bond detector.
"""

from misi_geom.camera import CameraFrame, fit_frame
from misi_geom.complex import (
    Complex,
    Residue,
    heavy_mask,
    ligand_mask,
    pocket_mask,
    residue_mask,
    residue_starts,
)
from misi_geom.errors import MisiInputError
from misi_geom.hbonds import (
    AcceptorClass,
    DirectionVerdict,
    DonorClass,
    HBond,
    HBondTyping,
    PairVerdict,
    assign_hbond_types,
    bonded_pairs,
    explain,
    find_hbonds,
    hbond_pairs,
)
from misi_geom.io import (
    LoadFailure,
    find_complex_dirs,
    load_complex,
    load_complexes,
    pocket_from_protein,
    read_ligand,
    read_structure,
)
from misi_geom.transform import (
    SE3,
    SIX_VIEWS,
    THREE_VIEWS,
    VIEW_NAMES,
    Axis,
    ViewName,
    rotation_matrix,
    view_rotation,
)

__all__ = [
    "AcceptorClass",
    "DonorClass",
    "HBond",
    "HBondTyping",
    "assign_hbond_types",
    "find_hbonds",
    "bonded_pairs",
    "DirectionVerdict",
    "explain",
    "hbond_pairs",
    "PairVerdict",
    "Axis",
    "CameraFrame",
    "Complex",
    "MisiInputError",
    "Residue",
    "SE3",
    "SIX_VIEWS",
    "THREE_VIEWS",
    "VIEW_NAMES",
    "ViewName",
    "find_complex_dirs",
    "fit_frame",
    "load_complex",
    "load_complexes",
    "LoadFailure",
    "pocket_from_protein",
    "read_ligand",
    "read_structure",
    "heavy_mask",
    "ligand_mask",
    "pocket_mask",
    "residue_mask",
    "residue_starts",
    "rotation_matrix",
    "view_rotation",
]
