"""Reading PDBbind-layout complexes into :class:`~misi_geom.complex.Complex`.

A complex folder ``<id>/`` holds ``<id>_pocket.pdb`` (or ``.cif``), optionally ``<id>_protein.pdb``,
and ``<id>_ligand.mol2`` and/or ``<id>_ligand.sdf``.  gemmi reads the pocket/protein (PDB or
mmCIF), RDKit reads the ligand.  Clean-up steps, each a small function:

- waters and solvent (:data:`SOLVENT_NAMES`) are removed; metal ions and cofactors stay;
- alternate locations: per residue, the conformer with the highest (mean) occupancy is kept
  (ties: the first altloc letter);
- hydrogens (and deuterium) are kept and flagged ``is_hydrogen``;
- only the first model of a multi-model file is used;
- the copies of a blank chain (two monomers of a dimer without chain ids, whose residue numbers
  repeat) get the first unused chain letters in file order (:mod:`misi_geom.blank_chains`).

Ligand reading order (the first that works wins): mol2 sanitised, SDF sanitised, mol2 without
sanitisation, SDF without sanitisation (partial sanitisation: ring info and implicit valences
only).  mol2 atoms keep their file names; SDF atoms are named element + running index per element
(``C1``, ``C2``, ``O1``, as ChimeraX does) -- unless a mol2 file of the same atoms sits beside the
SDF, whose names (and SYBYL types) are then used, so labels and answers keep the mol2 names even
when RDKit can only parse the SDF.  Ligand rows take their residue names from the mol2
substructures as ChimeraX names them (``ALA19`` -> ``ALA``; ``LIG`` without a mol2 file); the ligand
is still one residue of the complex (one ``res_index``).

Validation (each a one-line :class:`~misi_geom.errors.MisiInputError` naming the file):

- names must be UTF-8 text: a PDB atom, residue or chain name with other bytes is an error; a mol2
  file with such atom names is skipped for the SDF beside it (and its names are not used);
- every residue needs a number;
- a ligand atom repeated exactly (same element at the same coordinates, in a mol2 or an SDF) is
  removed, keeping the first and its bonds (:func:`_drop_duplicate_atoms`);
- duplicated atom records (same chain, residue number, insertion code, residue name, atom name,
  alt-loc *and* coordinates) are removed, keeping the first: a repeated line would otherwise list
  every H-bond twice and hide a real bond.  Same-named atoms at other coordinates are kept (two
  blank-chain monomers of a dimer share residue numbers);
- coordinates must be finite and within :data:`MAX_ABS_COORD` Å of the origin, and the pocket and
  the ligand no larger than :data:`MAX_POCKET_EXTENT` and :data:`MAX_LIGAND_EXTENT` Å across:
  values no real complex has (``9999.999`` placeholders, overflowed numbers) would draw black
  images with answers;
- a pocket, protein or ligand path that exists but is a folder, a broken link or a link loop is an
  error, never silently skipped;
- the folder name (the complex id) must be valid UTF-8.

Every problem with a file raises :class:`~misi_geom.errors.MisiInputError` with one line naming the
file and the problem; :func:`load_complex` turns any other exception into one too (naming the file
being read), so a batch never stops on one complex.  :func:`load_complexes` loads many folders and
reports failures instead.
"""

from __future__ import annotations

import errno
import glob
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Literal

import numpy as np

from misi_geom._mol2 import LIGAND_RES_NAME, MOL2_MATCH_TOLERANCE, annotate_from_mol2
from misi_geom.blank_chains import blank_copies, copy_letters
from misi_geom.bonds import covalent_bonds
from misi_geom.complex import Complex
from misi_geom.elements import KNOWN_ELEMENTS, normalize_element
from misi_geom.errors import MisiInputError, printable

__all__ = [
    "SOLVENT_NAMES",
    "LIGAND_RES_NAME",
    "MOL2_MATCH_TOLERANCE",
    "LigandFormat",
    "LoadFailure",
    "read_structure",
    "read_ligand",
    "find_ligand_file",
    "read_ligand_candidates",
    "assemble_complex",
    "load_complex",
    "find_complex_dirs",
    "load_complexes",
    "pocket_from_protein",
]

LigandFormat = Literal["auto", "mol2", "sdf"]

#: Residue names removed as solvent.
SOLVENT_NAMES: frozenset[str] = frozenset(
    "HOH WAT H2O DOD D2O TIP TIP3 TIP4 TIP5 SPC SOL T3P T4P T5P".split()
)
#: Largest pocket/protein (atoms) accepted, to fail fast on a mistaken input.
MAX_ATOMS = 500_000
#: Largest gap (Å) between the ligand and the nearest pocket heavy atom.
MAX_LIGAND_GAP = 8.0
#: Largest coordinate magnitude (Å) accepted in any file (the PDB format's field ends at 9999.999).
MAX_ABS_COORD = 9999.0
#: Largest extent (Å, bounding-box diagonal) of a pocket: residues within ~10 Å of a ligand span
#: well under 150 Å even for peptide ligands.
MAX_POCKET_EXTENT = 250.0
#: Largest extent (Å, bounding-box diagonal) of a ligand (PDBbind's largest span about 60 Å).
MAX_LIGAND_EXTENT = 150.0


# --- proteins and pockets (gemmi) -----------------------------------------------------------
def _present(path: Path) -> bool:
    """True if ``path`` is a regular file; False if nothing is there; an error for anything else
    (a folder, a broken link, a link loop), which must not pass for a missing file."""
    try:
        if path.is_file():
            return True
        if not path.is_symlink() and not path.exists():
            return False
    except OSError as exc:  # e.g. ELOOP, permission denied on the folder
        raise MisiInputError(path, f"cannot be read ({exc.strerror or exc})") from None
    if path.is_dir():
        raise MisiInputError(path, "is a folder, not a file")
    try:
        path.resolve(strict=True)
    except RuntimeError:  # symlink loop (Python < 3.13)
        raise MisiInputError(path, "is a symbolic link loop") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise MisiInputError(path, "is a symbolic link loop") from None
        raise MisiInputError(path, "is a broken symbolic link") from None
    raise MisiInputError(path, "is not a regular file")


def _check_file(path: Path) -> None:
    if not _present(path):
        raise MisiInputError(path, "file not found")
    if path.stat().st_size == 0:
        raise MisiInputError(path, "file is empty")


def _atom_records(path: Path) -> list[tuple]:
    """Raw atom rows of the first model: (chain, seq, icode, resname, name, element, altloc, occ, x, y, z)."""
    import gemmi

    try:
        st = gemmi.read_structure(str(path), merge_chain_parts=True)
    except Exception as exc:  # gemmi raises RuntimeError/ValueError with multi-line text
        raise MisiInputError(path, f"not a readable PDB/mmCIF file ({str(exc).splitlines()[0]})") from None
    if len(st) == 0:
        raise MisiInputError(path, "no atoms (not a PDB/mmCIF file?)")
    rows = []
    line_of: dict[int, int] = {}  # row -> file position, for the rows of renamed blank-chain copies
    try:
        copies = blank_copies(path, SOLVENT_NAMES) if any(ch.name == "" for ch in st[0]) else {}
        n_copies = 1 + max(cp for v in copies.values() for cp, _ in v) if copies else 0
        letters = copy_letters(n_copies, {ch.name for ch in st[0]}) if copies else None
        for chain in st[0]:
            for res in chain:
                if res.seqid.num is None:
                    raise MisiInputError(path, f"blank residue number ({res.name.strip() or '?'} in chain "
                                               f"{chain.name or '?'})")
                seen: dict[tuple, tuple] = {}
                lines = (copies.get((res.seqid.num, res.seqid.icode.strip(), res.name.strip()))
                         if letters and not chain.name else None)
                for k, at in enumerate(res):
                    p = at.pos
                    name = letters[lines[k][0]] if lines and k < len(lines) else chain.name
                    row = (name, res.seqid.num, res.seqid.icode.strip(), res.name.strip(), at.name,
                           at.element.name, at.altloc, at.occ, p.x, p.y, p.z)
                    if not _is_repeat(seen, row):
                        if lines and k < len(lines):
                            line_of[len(rows)] = lines[k][1]
                        rows.append(row)
                    if len(rows) > MAX_ATOMS:
                        raise MisiInputError(path, f"more than {MAX_ATOMS} atoms: too large for a pocket")
    except UnicodeDecodeError:
        raise MisiInputError(path, f"an atom, residue or chain name is not UTF-8 text{_first_bad_line(path)}") from None
    if not rows:  # gemmi reads any text as an empty PDB
        raise MisiInputError(path, "no ATOM/HETATM records (not a PDB/mmCIF file?)")
    if line_of:  # the renamed copies' rows in file order (in the slots they hold), each copy contiguous
        slots = sorted(line_of)
        placed = [rows[k] for k in sorted(slots, key=line_of.__getitem__)]
        for k, row in zip(slots, placed):
            rows[k] = row
    return rows


def _first_bad_line(path: Path) -> str:
    """`` (line N)`` for the first ATOM/HETATM line of ``path`` that is not UTF-8, else ``""``."""
    try:
        with open(path, "rb") as fh:
            for n, line in enumerate(fh, start=1):
                if line.startswith((b"ATOM", b"HETATM")):
                    try:
                        line.decode("utf-8")
                    except UnicodeDecodeError:
                        return f" (line {n})"
    except OSError:
        pass
    return ""


def _is_repeat(seen: dict[tuple, tuple], row: tuple) -> bool:
    """True if ``row`` repeats an earlier atom record of its residue: same atom name and alt-loc and
    the same coordinates (within 0.001 Å).  Same-named atoms elsewhere are kept: gemmi merges two
    residues of one number and chain (e.g. the blank-chain monomers of a dimer) into one."""
    key = (row[4], row[6], round(row[8], 3), round(row[9], 3), round(row[10], 3))
    return seen.setdefault(key, row) is not row


def _check_coords(path: Path, coord: np.ndarray, what: str, max_extent: float | None = None) -> None:
    """Reject non-finite coordinates, values beyond :data:`MAX_ABS_COORD` and (with ``max_extent``)
    a bounding box larger than ``max_extent`` Å."""
    if not np.all(np.isfinite(coord)):
        raise MisiInputError(path, "non-finite (NaN or infinite) coordinates")
    big = float(np.abs(coord).max()) if len(coord) else 0.0
    if big > MAX_ABS_COORD:
        raise MisiInputError(path, f"coordinate {big:.4g} Å is out of range (|x| > {MAX_ABS_COORD:g} Å): corrupt file?")
    if max_extent is not None and len(coord):
        extent = float(np.linalg.norm(coord.max(axis=0) - coord.min(axis=0)))
        if extent > max_extent:
            raise MisiInputError(path, f"{what} spans {extent:.0f} Å (more than {max_extent:g} Å): corrupt coordinates?")


def _drop_solvent(rows: list[tuple]) -> list[tuple]:
    return [r for r in rows if r[3].upper() not in SOLVENT_NAMES]


def _keep_best_altloc(rows: list[tuple]) -> list[tuple]:
    """Per residue, keep atoms without altloc plus those of the highest-occupancy altloc.

    A conformer's occupancy is the mean over its atoms, so a conformer modelled with more atoms
    (e.g. a Lys tail built out to NZ in A but only to CD in B) does not win by atom count.
    """
    occ: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r[6] not in ("\x00", " ", ""):
            occ[r[:3]][r[6]].append(r[7])
    if not occ:
        return rows
    mean = {key: {a: sum(v) / len(v) for a, v in alts.items()} for key, alts in occ.items()}
    best = {key: min(alts, key=lambda a: (-round(alts[a], 6), a)) for key, alts in mean.items()}
    return [r for r in rows if r[6] in ("\x00", " ", "") or best[r[:3]] == r[6]]


def read_structure(path: str | Path, *, pdb_id: str = "") -> Complex:
    """Read a pocket or protein file (PDB or mmCIF) as a non-ligand :class:`Complex`.

    Waters/solvent are removed, alt-locs resolved, bonds assigned from covalent radii.
    ``res_index`` numbers residues 0..R-1 in file order.
    """
    path = Path(path)
    _check_file(path)
    rows = _keep_best_altloc(_drop_solvent(_atom_records(path)))
    if not rows:
        raise MisiInputError(path, "no atoms left after removing waters and solvent")
    chain, seq, icode, resname, name, elem, _alt, _occ, x, y, z = zip(*rows)
    element = np.array([normalize_element("H" if e.upper() == "D" else e) for e in elem], dtype="<U2")
    unknown = ~np.isin(element, list(KNOWN_ELEMENTS))
    if unknown.any():
        k = int(np.flatnonzero(unknown)[0])
        raise MisiInputError(path, f"unknown element {elem[k]!r} for atom {name[k]} of {resname[k]} {seq[k]}")
    coord = np.column_stack([x, y, z]).astype(np.float64)
    _check_coords(path, coord, "structure")
    key = list(zip(chain, seq, icode, resname))
    res_index = np.zeros(len(rows), dtype=np.int32)
    for k in range(1, len(rows)):
        res_index[k] = res_index[k - 1] + (key[k] != key[k - 1])
    c = Complex.from_atoms(
        coord,
        element,
        list(name),
        res_name=list(resname),
        res_id=list(seq),
        ins_code=list(icode),
        chain_id=list(chain),
        res_index=res_index,
        is_ligand=False,
        pdb_id=pdb_id,
    )
    bonds = covalent_bonds(c)
    return replace(c, bonds=bonds, bond_order=np.ones(len(bonds), np.float32))


# --- ligands (RDKit) ------------------------------------------------------------------------
def _mol_from_file(path: Path, sanitize: bool):
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    try:
        if path.suffix.lower() == ".mol2":
            mol = Chem.MolFromMol2File(str(path), sanitize=sanitize, removeHs=False)
        else:
            suppl = Chem.SDMolSupplier(str(path), sanitize=sanitize, removeHs=False)
            mol = next(iter(suppl), None) if len(suppl) else None
    finally:
        RDLogger.EnableLog("rdApp.*")
    if mol is not None and not sanitize:
        mol.UpdatePropertyCache(strict=False)
        Chem.FastFindRings(mol)
    return mol


def _ligand_atom_names(mol, from_mol2: bool) -> list[str]:
    names, counts = [], defaultdict(int)
    for atom in mol.GetAtoms():
        if from_mol2 and atom.HasProp("_TriposAtomName"):
            names.append(atom.GetProp("_TriposAtomName").strip())
        else:
            sym = atom.GetSymbol()
            counts[sym] += 1
            names.append(f"{sym}{counts[sym]}")
    return names


def read_ligand(path: str | Path, *, sanitize: bool | None = None, pdb_id: str = "") -> tuple[Complex, object]:
    """Read one ligand file (mol2 or SDF) as a ligand :class:`Complex` plus its RDKit ``Mol``.

    The Mol's atoms are in the same order as the Complex's rows (hydrogens included).
    ``sanitize=None`` tries sanitised first, then unsanitised.
    """
    path = Path(path)
    _check_file(path)
    if path.suffix.lower() not in (".mol2", ".sdf", ".mol"):
        raise MisiInputError(path, "ligand must be a .mol2 or .sdf file")
    mol = None
    try:
        for s in ([True, False] if sanitize is None else [sanitize]):
            mol = _mol_from_file(path, s)
            if mol is not None:
                break
        if mol is None or mol.GetNumAtoms() == 0:
            raise MisiInputError(path, "RDKit cannot read a molecule from this file")
        mol = _drop_duplicate_atoms(mol)
        return ligand_complex(path, mol, pdb_id), mol
    except UnicodeDecodeError:
        raise MisiInputError(path, "an atom or molecule name is not UTF-8 text") from None


def _drop_duplicate_atoms(mol):
    """``mol`` without atoms that repeat an earlier one exactly (same element, same coordinates to
    1e-4 Å: no two atoms sit there); the first copy keeps the bonds either copy had.  The same Mol
    when there is none (the usual case)."""
    if mol.GetNumConformers() == 0:
        return mol
    xyz = np.round(np.asarray(mol.GetConformer().GetPositions()), 4)
    first: dict[tuple, int] = {}
    dup: dict[int, int] = {}
    for a in mol.GetAtoms():
        key = (a.GetAtomicNum(), *xyz[a.GetIdx()].tolist())
        if key in first:
            dup[a.GetIdx()] = first[key]
        else:
            first[key] = a.GetIdx()
    if not dup:
        return mol
    from rdkit import Chem

    rw = Chem.RWMol(mol)
    for b in mol.GetBonds():
        i, j = b.GetBeginAtomIdx(), b.GetEndAtomIdx()
        i2, j2 = dup.get(i, i), dup.get(j, j)
        if (i2, j2) != (i, j) and i2 != j2 and rw.GetBondBetweenAtoms(i2, j2) is None:
            rw.AddBond(i2, j2, b.GetBondType())
    for idx in sorted(dup, reverse=True):
        rw.RemoveAtom(idx)
    out = rw.GetMol()
    out.UpdatePropertyCache(strict=False)
    return out


def ligand_complex(path: Path, mol, pdb_id: str) -> Complex:
    """The ligand ``Complex`` of an RDKit molecule read from ``path`` (atoms checked, names kept)."""
    if mol.GetNumConformers() == 0:
        raise MisiInputError(path, "ligand has no 3D coordinates")
    coord = np.asarray(mol.GetConformer().GetPositions(), dtype=np.float64)
    _check_coords(path, coord, "ligand", MAX_LIGAND_EXTENT)
    symbols = [a.GetSymbol() for a in mol.GetAtoms()]
    bad = [s for s in symbols if s not in KNOWN_ELEMENTS]
    if bad:
        raise MisiInputError(path, f"unknown element {bad[0]!r}")
    symbols = ["H" if s == "D" else s for s in symbols]
    is_mol2 = path.suffix.lower() == ".mol2"
    bonds = [(b.GetBeginAtomIdx(), b.GetEndAtomIdx()) for b in mol.GetBonds()]
    order = [b.GetBondTypeAsDouble() for b in mol.GetBonds()]
    types = [a.GetProp("_TriposAtomType") if a.HasProp("_TriposAtomType") else "" for a in mol.GetAtoms()]
    c = Complex.from_atoms(
        coord,
        symbols,
        _ligand_atom_names(mol, is_mol2),
        res_name=LIGAND_RES_NAME,
        res_id=1,
        res_index=np.zeros(len(coord), np.int32),
        is_ligand=True,
        formal_charge=[a.GetFormalCharge() for a in mol.GetAtoms()],
        atom_type=types,
        bonds=bonds,
        bond_order=order,
        pdb_id=pdb_id,
    )
    if c.is_hydrogen.all():
        raise MisiInputError(path, "ligand has no heavy atoms")
    return c


def find_ligand_file(folder: Path, pdb_id: str, fmt: str) -> list[Path]:
    """Candidate ligand files in reading order for ``fmt`` ("auto", "mol2" or "sdf")."""
    exts = {"auto": [".mol2", ".sdf"], "mol2": [".mol2"], "sdf": [".sdf"]}[fmt]
    return [folder / f"{pdb_id}_ligand{e}" for e in exts if _present(folder / f"{pdb_id}_ligand{e}")]


def _read_ligand_any(folder: Path, pdb_id: str, fmt: LigandFormat) -> tuple[Complex, object, Path]:
    files = find_ligand_file(folder, pdb_id, fmt)
    if not files:
        raise MisiInputError(folder / f"{pdb_id}_ligand.mol2", f"missing ligand (no {pdb_id}_ligand.mol2 or .sdf)")
    return read_ligand_candidates(files, pdb_id=pdb_id, names_from=folder / f"{pdb_id}_ligand.mol2")


def read_ligand_candidates(files: list[Path], *, pdb_id: str = "", names_from: Path | None = None,
                           notes: list[str] | None = None) -> tuple[Complex, object, Path]:
    """Read the first of ``files`` that RDKit parses: every file sanitised, then every file unsanitised.

    ``names_from`` is a mol2 file whose atom names, SYBYL types and residue names are given to the
    ligand when it holds the same atoms (:func:`annotate_from_mol2`).  Returns the ligand, its RDKit
    Mol and the file it came from.  When that is not ``files[0]``, a line saying why ``files[0]`` was
    passed over is appended to ``notes`` (a complex's warnings), e.g. a mol2 whose names are not UTF-8.
    """
    errors = []
    for sanitize in (True, False):
        for f in files:
            try:
                lig, mol = read_ligand(f, sanitize=sanitize, pdb_id=pdb_id)
                if names_from is not None and names_from.is_file():
                    lig = annotate_from_mol2(lig, names_from)
            except MisiInputError as exc:
                errors.append(exc.problem)
                continue
            if notes is not None and f != files[0]:
                notes.append(f"ligand read from {f.name}, not {files[0].name}: {files[0].name} "
                             f"{'; '.join(dict.fromkeys(errors))}")
            return lig, mol, f
    raise MisiInputError(files[0], f"ligand unreadable in every format ({'; '.join(dict.fromkeys(errors))})")


# --- whole complexes ------------------------------------------------------------------------
def pocket_from_protein(protein: Complex, ligand: Complex, cutoff: float = 10.0) -> Complex:
    """Whole residues of ``protein`` with a heavy atom within ``cutoff`` Å of a ligand heavy atom.

    Hydrogens are not counted on either side (PDBbind's convention), so the pocket of a structure
    does not depend on whether its hydrogens were modelled.
    """
    from scipy.spatial import cKDTree

    heavy = ligand.coord[~ligand.is_hydrogen]
    near = cKDTree(heavy).query(protein.coord, k=1, distance_upper_bound=cutoff)[0] <= cutoff
    near &= ~protein.is_hydrogen
    keep = np.isin(protein.res_index, np.unique(protein.res_index[near]))
    pocket = protein[keep]
    # renumber residues 0..R-1 so neighbouring pocket residues alternate colours
    _, res_index = np.unique(pocket.res_index, return_inverse=True)
    return replace(pocket, res_index=res_index.astype(np.int32))


def _pocket_file(folder: Path, pdb_id: str) -> Path | None:
    for name in (f"{pdb_id}_pocket.pdb", f"{pdb_id}_pocket.cif", f"{pdb_id}_pocket.ent"):
        if _present(folder / name):
            return folder / name
    return None


def load_complex(
    folder: str | Path,
    *,
    ligand_format: LigandFormat = "auto",
    pocket_cutoff: float = 10.0,
    max_ligand_gap: float = MAX_LIGAND_GAP,
    with_mol: bool = False,
):
    """Load ``folder`` (named after the PDB id) as pocket + ligand.

    Without a pocket file, the pocket is built from ``<id>_protein.pdb`` (:func:`pocket_from_protein`).
    The ligand's ``res_index`` is one past the last pocket residue.  With ``with_mol=True`` returns
    ``(complex, rdkit_mol)``, the Mol's atoms matching the complex's ligand rows in order.
    """
    folder = Path(folder)
    pdb_id = folder.name
    try:
        pdb_id.encode("utf-8")
    except UnicodeEncodeError:
        raise MisiInputError(folder, "folder name (the complex id) is not UTF-8 text") from None
    if not folder.is_dir():
        raise MisiInputError(folder, "not a folder")
    reading = folder  # the file being read, named if something unexpected goes wrong
    try:
        ligand, mol, lig_path = _read_ligand_any(folder, pdb_id, ligand_format)
        pocket_path = reading = _pocket_file(folder, pdb_id) or folder / f"{pdb_id}_protein.pdb"
        if pocket_path.name.startswith(f"{pdb_id}_pocket"):
            pocket = read_structure(pocket_path, pdb_id=pdb_id)
        else:
            if not _present(pocket_path):
                raise MisiInputError(folder, f"no {pdb_id}_pocket.pdb and no {pdb_id}_protein.pdb")
            pocket = pocket_from_protein(read_structure(pocket_path, pdb_id=pdb_id), ligand, pocket_cutoff)
        c = assemble_complex(pocket, ligand, pdb_id=pdb_id, pocket_path=pocket_path, ligand_path=lig_path,
                             max_ligand_gap=max_ligand_gap)
    except MisiInputError:
        raise
    except Exception as exc:  # a bug or a library failure: still one line, still this complex only
        text = str(exc).splitlines()[0] if str(exc) else ""
        raise MisiInputError(reading, f"unexpected {type(exc).__name__} while loading: {text}") from exc
    return (c, mol) if with_mol else c


def assemble_complex(pocket: Complex, ligand: Complex, *, pdb_id: str, pocket_path: str | Path,
                     ligand_path: str | Path, max_ligand_gap: float = MAX_LIGAND_GAP) -> Complex:
    """Pocket + ligand as one :class:`Complex`, the ligand's ``res_index`` one past the last pocket residue.

    Raises :class:`MisiInputError` if the pocket has no heavy atom or the ligand sits more than
    ``max_ligand_gap`` Å from it (the files do not belong together).
    """
    heavy_pocket = pocket.coord[~pocket.is_hydrogen]
    if len(heavy_pocket) == 0:
        raise MisiInputError(pocket_path, "no pocket heavy atoms (near the ligand)")
    _check_coords(pocket_path, pocket.coord, "pocket", MAX_POCKET_EXTENT)
    from scipy.spatial import cKDTree

    gap = float(cKDTree(heavy_pocket).query(ligand.coord[~ligand.is_hydrogen], k=1)[0].min())
    if gap > max_ligand_gap:
        raise MisiInputError(
            ligand_path, f"ligand is {gap:.1f} Å from the nearest pocket atom (in {Path(pocket_path).name}) "
                         f"(more than {max_ligand_gap:g} Å): wrong files?"
        )
    n_res = int(pocket.res_index.max()) + 1
    ligand = replace(ligand, res_index=np.full(len(ligand), n_res, np.int32))
    return Complex.concatenate([pocket, ligand], pdb_id=pdb_id)


def find_complex_dirs(root: str | Path) -> list[Path]:
    """``root`` itself if it is a complex folder, else its complex sub-folders, sorted by name."""
    root = Path(root)
    if not root.is_dir():
        raise MisiInputError(root, "input folder not found")

    def is_complex(d: Path) -> bool:
        name = glob.escape(d.name)  # a folder "a[1]" is found by its own name
        return any(d.glob(f"{name}_ligand.*")) or any(d.glob(f"{name}_pocket.*")) or any(
            d.glob(f"{name}_protein.*")
        )

    if is_complex(root):
        return [root]
    return sorted((d for d in root.iterdir() if d.is_dir() and is_complex(d)), key=lambda d: d.name)


@dataclass(frozen=True)
class LoadFailure:
    """A complex that could not be loaded: its id and the one-line reason."""

    pdb_id: str
    message: str


def load_complexes(folders: Iterable[str | Path] | str | Path, **kwargs) -> tuple[list[Complex], list[LoadFailure]]:
    """Load many complexes; bad ones are skipped and reported, never fatal.

    ``folders`` is a root folder (see :func:`find_complex_dirs`) or an iterable of complex folders.
    """
    dirs = find_complex_dirs(folders) if isinstance(folders, (str, Path)) else [Path(f) for f in folders]
    ok, failed = [], []
    for d in dirs:
        try:
            ok.append(load_complex(d, **kwargs))
        except Exception as exc:  # load_complex raises MisiInputError; anything else is still one line
            msg = str(exc) if isinstance(exc, MisiInputError) else f"{d}: unexpected {type(exc).__name__}: {exc}"
            failed.append(LoadFailure(printable(d.name), printable(" ".join(msg.split()))))
    return ok, failed
