"""Corrupted complex folders built from the bundled samples (the loader's and misi-gen's fuzz tests).

:func:`corrupt` copies one sample folder and applies one named corruption with a seeded
``random.Random``; :data:`KINDS` lists every corruption with what ``load_complex`` must do with it:
``"reject"`` (a :class:`MisiInputError`), ``"load"`` (a clean complex), or ``"either"`` (any of the
two, the point being that nothing else happens).
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path
from typing import Callable

__all__ = ["KINDS", "corrupt"]


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")


def _atom_line_indices(lines: list[bytes]) -> list[int]:
    return [k for k, line in enumerate(lines) if line.startswith((b"ATOM", b"HETATM")) and len(line) >= 54]


def _set_field(line: bytes, lo: int, hi: int, value: bytes) -> bytes:
    line = line.ljust(hi)
    return line[:lo] + value.rjust(hi - lo)[: hi - lo] + line[hi:]


def _edit_pdb(d: Path, rng: random.Random, fn: Callable[[bytes, random.Random], bytes], n: int = 1) -> None:
    path = d / f"{d.name}_pocket.pdb"
    lines = _lines(path)
    for k in rng.sample(_atom_line_indices(lines), n):
        lines[k] = fn(lines[k], rng)
    path.write_bytes(b"\n".join(lines))


def _mol2_atom_indices(lines: list[bytes]) -> list[int]:
    out, inside = [], False
    for k, line in enumerate(lines):
        if line.startswith(b"@<TRIPOS>"):
            inside = line.strip() == b"@<TRIPOS>ATOM"
        elif inside and len(line.split()) >= 6:
            out.append(k)
    return out


def _edit_mol2(d: Path, rng: random.Random, fn: Callable[[list[bytes], random.Random], list[bytes]]) -> None:
    path = d / f"{d.name}_ligand.mol2"
    lines = _lines(path)
    k = rng.choice(_mol2_atom_indices(lines))
    lines[k] = b" ".join(fn(lines[k].split(), rng))
    path.write_bytes(b"\n".join(lines))


def _edit_sdf_coord(d: Path, rng: random.Random, value: bytes) -> None:
    path = d / f"{d.name}_ligand.sdf"
    lines = _lines(path)
    k = rng.randrange(4, 4 + int(lines[3][:3]))
    lines[k] = _set_field(lines[k], 0, 10, value)
    path.write_bytes(b"\n".join(lines))


_BAD_BYTES = [b"\xff", b"\xfe\xfe", b"\xc3", b"\x80", b"\xe9"]
_HUGE = [b"1e155", b"1e30", b"9999.999", b"-999.999", b"1e308", b"5000.0"]


# --- the corruptions: (d, rng) -> None -----------------------------------------------------------------
def non_utf8_pdb_name(d, rng):
    col = rng.choice([(12, 16), (17, 20), (21, 22)])  # atom name, residue name, chain
    _edit_pdb(d, rng, lambda line, r: line[: col[0]] + r.choice(_BAD_BYTES)[: col[1] - col[0]].ljust(
        col[1] - col[0], b"A") + line[col[1]:])


def non_utf8_mol2_name(d, rng):
    _edit_mol2(d, rng, lambda parts, r: [parts[0], parts[1][:2] + r.choice(_BAD_BYTES), *parts[2:]])


def non_utf8_mol2_residue(d, rng):
    _edit_mol2(d, rng, lambda parts, r: [*parts[:7], b"L" + r.choice(_BAD_BYTES), *parts[8:]] if len(parts) > 7
               else parts)


def huge_pocket_coord(d, rng):
    value = rng.choice(_HUGE)
    col = rng.choice([(30, 38), (38, 46), (46, 54)])
    _edit_pdb(d, rng, lambda line, r: _set_field(line, *col, value))


def huge_pocket_all(d, rng):  # every pocket atom far away: must blame the pocket, not the ligand
    value = rng.choice([b"1e30", b"9999.999"])
    path = d / f"{d.name}_pocket.pdb"
    lines = _lines(path)
    for k in _atom_line_indices(lines):
        lines[k] = _set_field(lines[k], 30, 38, value)
    path.write_bytes(b"\n".join(lines))


def huge_ligand_mol2(d, rng):
    value = rng.choice(_HUGE)
    _edit_mol2(d, rng, lambda parts, r: [*parts[:2], value, *parts[3:]])
    _edit_sdf_coord(d, rng, value)


def huge_ligand_sdf_only(d, rng):
    (d / f"{d.name}_ligand.mol2").unlink()
    _edit_sdf_coord(d, rng, rng.choice(_HUGE))


def blank_residue_number(d, rng):
    _edit_pdb(d, rng, lambda line, r: _set_field(line, 22, 26, b"    "))


def garbage_residue_number(d, rng):
    _edit_pdb(d, rng, lambda line, r: _set_field(line, 22, 26, r.choice([b"ab", b"-", b"1e9", b"\xff"])))


def duplicated_atom_lines(d, rng):
    path = d / f"{d.name}_pocket.pdb"
    lines = _lines(path)
    for k in sorted(rng.sample(_atom_line_indices(lines), 3), reverse=True):
        lines.insert(k + 1, lines[k])
    path.write_bytes(b"\n".join(lines))


def pocket_symlink_loop(d, rng):
    p = d / f"{d.name}_pocket.pdb"
    p.unlink()
    os.symlink(p.name, p)


def pocket_is_folder(d, rng):
    p = d / f"{d.name}_pocket.pdb"
    p.unlink()
    p.mkdir()
    if rng.random() < 0.5:  # a protein file beside it must not silently replace the pocket
        (d / f"{d.name}_protein.pdb").write_text("ATOM      1  N   GLY A   1       0.000   0.000   0.000  1.00  0.00           N\n")


def pocket_broken_link(d, rng):
    p = d / f"{d.name}_pocket.pdb"
    p.unlink()
    os.symlink("nowhere.pdb", p)


def ligand_is_folder(d, rng):
    for ext in rng.choice([(".mol2",), (".sdf",), (".mol2", ".sdf")]):
        p = d / f"{d.name}_ligand{ext}"
        p.unlink()
        p.mkdir()


def truncated_file(d, rng):
    p = rng.choice(sorted(d.iterdir()))
    data = p.read_bytes()
    p.write_bytes(data[: rng.randrange(len(data))])


def byte_flips(d, rng):
    p = rng.choice(sorted(d.iterdir()))
    data = bytearray(p.read_bytes())
    for _ in range(rng.randint(1, 20)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    p.write_bytes(bytes(data))


def line_shuffle(d, rng):
    p = rng.choice(sorted(d.iterdir()))
    lines = _lines(p)
    k = rng.randrange(len(lines))
    j = rng.randrange(len(lines))
    lines[k], lines[j] = lines[j], lines[k]
    if rng.random() < 0.5:
        del lines[rng.randrange(len(lines))]
    p.write_bytes(b"\n".join(lines))


def nan_coordinates(d, rng):
    if rng.random() < 0.5:
        _edit_pdb(d, rng, lambda line, r: _set_field(line, 30, 38, r.choice([b"nan", b"inf", b"-inf"])))
    else:
        value = rng.choice([b"nan", b"inf"])
        _edit_mol2(d, rng, lambda parts, r: [*parts[:3], value, *parts[4:]])
        _edit_sdf_coord(d, rng, value)


def protein_only_huge(d, rng):
    pocket = d / f"{d.name}_pocket.pdb"
    protein = d / f"{d.name}_protein.pdb"
    pocket.rename(protein)
    lines = _lines(protein)
    for k in rng.sample(_atom_line_indices(lines), 2):
        lines[k] = _set_field(lines[k], 30, 38, rng.choice([b"1e155", b"1e300", b"9999.999"]))
    protein.write_bytes(b"\n".join(lines))


def random_bytes_file(d, rng):
    p = rng.choice(sorted(d.iterdir()))
    p.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randint(1, 3000))))


def binary_names_everywhere(d, rng):
    non_utf8_pdb_name(d, rng)
    non_utf8_mol2_name(d, rng)


#: name -> (corruption, expected outcome)
KINDS: dict[str, tuple[Callable[[Path, random.Random], None], str]] = {
    "non_utf8_pdb_name": (non_utf8_pdb_name, "reject"),
    "non_utf8_mol2_name": (non_utf8_mol2_name, "load"),  # the SDF beside it is used
    "non_utf8_mol2_residue": (non_utf8_mol2_residue, "load"),
    "huge_pocket_coord": (huge_pocket_coord, "reject"),
    "huge_pocket_all": (huge_pocket_all, "reject"),
    "huge_ligand_mol2": (huge_ligand_mol2, "reject"),
    "huge_ligand_sdf_only": (huge_ligand_sdf_only, "reject"),
    "blank_residue_number": (blank_residue_number, "reject"),
    "garbage_residue_number": (garbage_residue_number, "either"),
    "duplicated_atom_lines": (duplicated_atom_lines, "load"),
    "pocket_symlink_loop": (pocket_symlink_loop, "reject"),
    "pocket_is_folder": (pocket_is_folder, "reject"),
    "pocket_broken_link": (pocket_broken_link, "reject"),
    "ligand_is_folder": (ligand_is_folder, "reject"),
    "truncated_file": (truncated_file, "either"),
    "byte_flips": (byte_flips, "either"),
    "line_shuffle": (line_shuffle, "either"),
    "nan_coordinates": (nan_coordinates, "reject"),
    "protein_only_huge": (protein_only_huge, "reject"),
    "random_bytes_file": (random_bytes_file, "either"),
    "binary_names_everywhere": (binary_names_everywhere, "reject"),
}


def corrupt(sample: Path, root: Path, kind: str, seed: int, name: str | None = None) -> Path:
    """Copy ``sample`` into ``root`` (as ``name``, default the sample's id) and apply ``kind``."""
    pdb_id = name or sample.name
    d = root / pdb_id
    d.mkdir(parents=True)
    for f in sample.iterdir():
        shutil.copyfile(f, d / f.name.replace(sample.name, pdb_id, 1))
    KINDS[kind][0](d, random.Random(f"{kind}/{seed}"))
    return d
