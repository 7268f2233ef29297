"""Bad inputs raise MisiInputError with one line naming the file; load_complexes reports and skips them.

Every case starts from a copy of a bundled complex (2pyy: small, blank chain ids, an SDF that
RDKit cannot sanitise) and breaks one file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from misi_geom import MisiInputError, load_complex, load_complexes, read_ligand, read_structure

ID = "2pyy"
POCKET, MOL2, SDF = f"{ID}_pocket.pdb", f"{ID}_ligand.mol2", f"{ID}_ligand.sdf"

# SDF of a hydrogen molecule sitting in the 2pyy pocket: parses, but has no heavy atom.
H2_SDF = """\
h2
  hand-written

  2  1  0  0  0  0  0  0  0  0999 V2000
   53.3338   20.1229   33.8307 H   0  0  0  0  0  0  0  0  0  0  0  0
   53.3338   20.1229   34.5707 H   0  0  0  0  0  0  0  0  0  0  0  0
  1  2  1  0
M  END
$$$$
"""


def _edit(path: Path, fn) -> None:
    path.write_text(fn(path.read_text()))


def _shift_mol2(text: str, dx: float) -> str:
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("@<TRIPOS>"):
            inside = line.strip() == "@<TRIPOS>ATOM"
        elif inside and line.split():
            x = line.split()[2]
            line = line.replace(x, f"{float(x) + dx:.4f}".rjust(len(x)), 1)
        out.append(line)
    return "\n".join(out) + "\n"


def _shift_sdf(text: str, dx: float) -> str:
    lines = text.splitlines()
    n_atoms = int(lines[3][:3])
    for k in range(4, 4 + n_atoms):
        lines[k] = f"{float(lines[k][:10]) + dx:10.4f}" + lines[k][10:]
    return "\n".join(lines) + "\n"


def _remove(*names):
    def go(d: Path) -> None:
        for n in names:
            (d / n).unlink()
    return go


def _write(name, text):
    def go(d: Path) -> None:
        (d / name).write_text(text)
    return go


def _both(*steps):
    def go(d: Path) -> None:
        for s in steps:
            s(d)
    return go


def _nan_ligand(d: Path) -> None:
    _edit(d / MOL2, lambda s: s.replace("53.2820", "    nan", 1))
    _edit(d / SDF, lambda s: s.replace("53.2820", "    nan", 1))


def _far_ligand(d: Path) -> None:
    _edit(d / MOL2, lambda s: _shift_mol2(s, 50.0))
    _edit(d / SDF, lambda s: _shift_sdf(s, 50.0))


def _edit_first_atom(columns: slice, text: str):
    """Overwrite PDB columns of the pocket's first ATOM record."""
    def go(d: Path) -> None:
        lines = (d / POCKET).read_text().splitlines(keepends=True)
        k = next(i for i, line in enumerate(lines) if line.startswith("ATOM"))
        lines[k] = lines[k][: columns.start] + text + lines[k][columns.stop :]
        (d / POCKET).write_text("".join(lines))
    return go


_nan_pocket = _edit_first_atom(slice(30, 38), "     nan")  # x coordinate
_unknown_element_pocket = _edit_first_atom(slice(76, 78), "Xx")  # element symbol


def _unknown_element_ligand(d: Path) -> None:
    # an element RDKit knows but misi has no radii for (technetium, as in radiotracer entries)
    _remove(MOL2)(d)
    _edit(d / SDF, lambda s: s.replace("   53.2820   21.0470   34.2300  N ", "   53.2820   21.0470   34.2300 Tc ", 1))


def _garbage_ligand_type_mol2(d: Path) -> None:
    _edit(d / MOL2, lambda s: s.replace(" N.4 ", " Xx  ", 1))
    _edit(d / SDF, lambda s: s.replace("  N 0  3", "  Xx0  3", 1))


# (case, how to break the folder, the file the message must name, words the message must contain)
CASES = [
    ("empty-pocket", _write(POCKET, ""), POCKET, "empty"),
    ("empty-ligands", _both(_write(MOL2, ""), _write(SDF, "")), MOL2, "unreadable"),
    ("pocket-not-a-pdb", _write(POCKET, "This is not a structure file.\nJust some text.\n"), POCKET, "not a PDB"),
    ("pocket-binary-junk", _write(POCKET, "\x00\x01\x02\x7f junk " * 20), POCKET, "not a PDB"),
    ("ligand-unreadable", _both(_write(MOL2, "garbage\n"), _write(SDF, "garbage\n")), MOL2, "unreadable in every format"),
    ("ligand-bad-atom-type", _garbage_ligand_type_mol2, MOL2, "unreadable"),
    ("ligand-missing", _remove(MOL2, SDF), MOL2, "missing ligand"),
    ("ligand-no-heavy-atoms", _both(_remove(MOL2), _write(SDF, H2_SDF)), SDF, "no heavy atoms"),
    ("pocket-only-hydrogens", _write(POCKET, "ATOM      1  H   GLY A   1      53.000  21.000  34.000  1.00 10.00           H\n"),
     POCKET, "no pocket heavy atoms"),
    ("pocket-only-water", _write(POCKET, "HETATM    1  O   HOH A   1      53.000  21.000  34.000  1.00 10.00           O\n"),
     POCKET, "no atoms left"),
    ("ligand-50A-away", _far_ligand, MOL2, "from the nearest pocket atom"),
    ("nan-pocket", _nan_pocket, POCKET, "NaN"),
    ("nan-ligand", _nan_ligand, MOL2, "NaN"),
    ("unknown-element-pocket", _unknown_element_pocket, POCKET, "unknown element"),
    ("unknown-element-ligand", _unknown_element_ligand, SDF, "unknown element"),
]


@pytest.mark.parametrize("case, breaks, named, words", CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises_one_line_error_naming_the_file(sample_copy, case, breaks, named, words):
    folder = sample_copy(ID)
    breaks(folder)
    with pytest.raises(MisiInputError) as info:
        load_complex(folder)
    msg = str(info.value)
    assert "\n" not in msg and "\r" not in msg
    assert named in msg, msg
    assert words.lower() in msg.lower(), msg
    assert info.value.path.endswith(named) and msg.startswith(info.value.path)


def test_ligand_file_of_an_unknown_kind(tmp_path):
    p = tmp_path / "x_ligand.pdbqt"
    p.write_text("ATOM\n")
    with pytest.raises(MisiInputError, match="x_ligand.pdbqt: ligand must be"):
        read_ligand(p)


def test_missing_files_and_folders(tmp_path):
    with pytest.raises(MisiInputError, match="file not found"):
        read_structure(tmp_path / "nope_pocket.pdb")
    with pytest.raises(MisiInputError, match="not a folder"):
        load_complex(tmp_path / "nope")
    (tmp_path / "1abc").mkdir()
    (tmp_path / "1abc" / "1abc_ligand.mol2").write_text("x")
    with pytest.raises(MisiInputError, match="missing ligand|unreadable"):
        load_complex(tmp_path / "1abc")


def test_pocket_only_folder_names_the_missing_ligand(sample_copy):
    folder = sample_copy(ID, [POCKET])
    with pytest.raises(MisiInputError, match=f"{MOL2}: missing ligand"):
        load_complex(folder)


def test_no_pocket_and_no_protein(sample_copy):
    folder = sample_copy(ID, [MOL2, SDF])
    with pytest.raises(MisiInputError, match=f"no {POCKET} and no {ID}_protein.pdb"):
        load_complex(folder)


def test_load_complexes_skips_and_reports_the_bad_one(sample_copy, tmp_path):
    root = tmp_path / "set"
    sample_copy("1h1d", root=root)
    sample_copy("4cjq", root=root)
    bad = sample_copy(ID, root=root)
    (bad / POCKET).write_text("")
    ok, failed = load_complexes(root)
    assert sorted(c.pdb_id for c in ok) == ["1h1d", "4cjq"]
    assert len(failed) == 1 and failed[0].pdb_id == ID
    assert POCKET in failed[0].message and "empty" in failed[0].message and "\n" not in failed[0].message
    # the same through an explicit list of folders
    ok2, failed2 = load_complexes(sorted(root.iterdir()))
    assert [c.pdb_id for c in ok2] == [c.pdb_id for c in ok] and failed2 == failed


def test_sdf_that_rdkit_cannot_sanitise_falls_back_to_mol2_names(sample_copy):
    """2pyy's SDF does not sanitise; reading SDF only (mol2 corrupt) still gives mol2 names."""
    folder = sample_copy(ID)
    good = load_complex(folder)
    mol2_text = (folder / MOL2).read_text()
    # keep the ATOM block (names) but break the BOND block so RDKit cannot read the mol2
    _edit(folder / MOL2, lambda s: s.replace("@<TRIPOS>BOND", "@<TRIPOS>BOND\n     x y z w"))
    c = load_complex(folder)
    assert c.ligand.atom_name.tolist() == good.ligand.atom_name.tolist()
    assert np.allclose(c.ligand.coord, good.ligand.coord)
    assert mol2_text != (folder / MOL2).read_text()
