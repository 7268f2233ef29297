"""48 drug-like molecules whose IDATM types ChimeraX was asked for: a typing check on chemistry
misi's rules were not written against (run by hand; the tests read only the outputs).

``chemistry.sdf`` holds the molecules with hydrogens (RDKit 2026.09: SMILES -> ETKDG embedding,
seed 42 -> MMFF; written Kekulé); ``chemistry_idatm.json`` ChimeraX 1.7.1's type for every heavy
atom, read from each record as its own SDF file, with hydrogens and with every hydrogen removed
(``benchmarks/strip_hydrogens.py``), and read as a HETATM residue ``XXX`` of a PDB file
(:func:`pdb_text`: no bond orders, as for a cofactor in a pocket file).  Regenerate::

    python tests/hbonds/data/make_chemistry.py write OUT_DIR
    VENV/bin/python tests/hbonds/data/make_chemistry.py probe OUT_DIR   # venv of shared/tools/hbond_oracle
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SMILES = [
    ("imatinib", "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"),
    ("caffeine", "Cn1cnc2c1c(=O)n(C)c(=O)n2C"),
    ("histamine", "NCCc1c[nH]cn1"),
    ("benzimidazole", "c1ccc2[nH]cnc2c1"),
    ("tetrazole", "Cc1ccc(-c2nn[nH]n2)cc1"),
    ("triazole", "OCc1c[nH]nn1"),
    ("pyrazole", "Cc1cc(C)[nH]n1"),
    ("uracil", "O=c1cc[nH]c(=O)[nH]1"),
    ("guanine", "Nc1nc2[nH]cnc2c(=O)[nH]1"),
    ("adenine", "Nc1ncnc2[nH]cnc12"),
    ("cytosine", "Nc1cc[nH]c(=O)n1"),
    ("sulfonamide", "NS(=O)(=O)c1ccc(C(=O)O)cc1"),
    ("hydroxamic", "O=C(NO)c1ccccc1"),
    ("benzamidine", "NC(=N)c1ccccc1"),
    ("arginine_like", "CCCNC(=N)N"),
    ("phenol", "Oc1ccc(CCN)cc1"),
    ("salicylic", "O=C(O)c1ccccc1O"),
    ("paracetamol", "CC(=O)Nc1ccc(O)cc1"),
    ("ibuprofen", "CC(C)Cc1ccc(C(C)C(=O)O)cc1"),
    ("indole_acid", "OC(=O)Cc1c[nH]c2ccccc12"),
    ("quinoline", "Oc1cccc2cccnc12"),
    ("pyridone", "O=c1cccc[nH]1"),
    ("oxazole", "Cc1ncc(C(=O)N)o1"),
    ("thiazole", "Nc1nc(C)cs1"),
    ("furan_amide", "O=C(NC)c1ccco1"),
    ("thiophene_acid", "OC(=O)c1cccs1"),
    ("nitro_phenol", "Oc1ccc([N+](=O)[O-])cc1"),
    ("ester", "COC(=O)c1ccc(N)cc1"),
    ("ketone", "CC(=O)c1ccc(O)cc1"),
    ("nitrile", "N#Cc1ccc(CO)cc1"),
    ("phosphate", "OP(=O)(O)OCC1OC(O)C(O)C1O"),
    ("sugar", "OCC1OC(O)C(O)C(O)C1O"),
    ("morpholine", "C1COCCN1CCO"),
    ("piperazine_amide", "CN1CCN(C(=O)c2ccccc2)CC1"),
    ("urea", "NC(=O)Nc1ccccc1"),
    ("carbamate", "CC(C)(C)OC(=O)NCC(=O)O"),
    ("purine_nucleoside", "Nc1ncnc2c1ncn2C1OC(CO)C(O)C1O"),
    ("flavone", "O=c1cc(-c2ccccc2)oc2ccccc12"),
    ("coumarin", "O=c1ccc2ccccc2o1"),
    ("lactam", "O=C1CCCN1c1ccccc1"),
    ("imidazole_ring_sub", "Cn1ccnc1"),
    ("pyrimidine_amine", "Nc1ncccn1"),
    ("naphthyridinone", "O=c1ccc2cccnc2[nH]1"),
    ("oxime", "CC(=NO)c1ccccc1"),
    ("hydrazide", "NNC(=O)c1ccncc1"),
    ("sulfone", "CS(=O)(=O)c1ccc(N)cc1"),
    ("quinazolinone", "O=c1[nH]cnc2ccccc12"),
    ("isoxazole", "Cc1cc(C(=O)O)no1"),
]


def pdb_text(sdf_block: str, hydrogen_free: bool) -> str:
    """The molecule of one SDF record as HETATM lines of residue XXX 1 (atoms named element + index)."""
    lines = sdf_block.split("\n")
    n = int(lines[3][0:3])
    rows, counts = [], {}
    for line in lines[4:4 + n]:
        el = line[31:34].strip()
        if hydrogen_free and el in ("H", "D"):
            continue
        counts[el] = counts.get(el, 0) + 1
        name = f"{el}{counts[el]}"
        x, y, z = (float(line[k:k + 10]) for k in (0, 10, 20))
        rows.append("HETATM%5d %-4s XXX A   1    %8.3f%8.3f%8.3f  1.00  0.00          %2s"
                    % (len(rows) + 1, name if len(name) == 4 else " " + name, x, y, z, el))
    return "\n".join(rows) + "\nEND\n"


def write(out: Path) -> None:
    import importlib.util

    from rdkit import Chem
    from rdkit.Chem import AllChem

    spec = importlib.util.spec_from_file_location("strip", HERE.parents[2] / "benchmarks" / "strip_hydrogens.py")
    strip = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(strip)
    records = []
    for sub in ("h", "nh"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for name, smi in SMILES:
        mol = Chem.AddHs(Chem.MolFromSmiles(smi))
        AllChem.EmbedMolecule(mol, randomSeed=42)
        AllChem.MMFFOptimizeMolecule(mol)
        Chem.Kekulize(mol, clearAromaticFlags=True)
        block = Chem.MolToMolBlock(mol, kekulize=True) + "$$$$\n"
        block = name + block[block.index("\n"):]
        records.append(block)
        (out / "h" / f"{name}.sdf").write_text(block)
        (out / "nh" / f"{name}.sdf").write_text(strip.strip_sdf(block))
        (out / "h" / f"{name}.pdb").write_text(pdb_text(block, False))
        (out / "nh" / f"{name}.pdb").write_text(pdb_text(block, True))
    (HERE / "chemistry.sdf").write_text("".join(records))


def probe(out: Path) -> None:
    sys.path.insert(0, str(HERE.parents[2].parent / "shared" / "tools" / "hbond_oracle"))
    import oracle  # noqa: E402  (the oracle's headless ChimeraX session)

    session = oracle._bootstrap_chimerax()
    result = {"source": "ChimeraX core 1.7.1 idatm_type of each heavy atom (SDF reader, names element+index), "
                        "with hydrogens as written and with every hydrogen removed (benchmarks/strip_hydrogens.py)",
              "with_h": {}, "hydrogen_free": {}, "het_with_h": {}, "het_hydrogen_free": {}}
    for key, sub, ext in (("with_h", "h", "sdf"), ("hydrogen_free", "nh", "sdf"),
                          ("het_with_h", "h", "pdb"), ("het_hydrogen_free", "nh", "pdb")):
        result[key] = {}
        for name, _ in SMILES:
            path = str(out / sub / f"{name}.{ext}")
            models = oracle._open_ligand(session, "sdf", path) if ext == "sdf" else oracle._open_pocket(session, path)
            session.models.add(models)
            result[key][name] = [(a.name, a.idatm_type) for a in models[0].atoms if a.element.number > 1]
            session.models.close(models)
    (HERE / "chemistry_idatm.json").write_text(json.dumps(result, indent=0, sort_keys=True) + "\n")


if __name__ == "__main__":
    {"write": write, "probe": probe}[sys.argv[1]](Path(sys.argv[2]))
