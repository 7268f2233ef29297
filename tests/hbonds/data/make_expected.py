"""Regenerate ``expected_hbonds.json`` from the ChimeraX oracle fixtures (run by hand, not by tests).

    python tests/hbonds/data/make_expected.py [/work/shared/data/pdbbind_dev]

Copies, for each bundled sample complex, the relaxed and precise ``misi_answer`` strings, the
directed H-bonds (donor/acceptor atom, side, IDATM type, hydrogen, distances) and the IDATM types of
the ligand heavy atoms and pocket N/O/S, from ``hbonds_chimerax.json`` and
``hbonds_chimerax_precise.json`` (made by ``shared/tools/hbond_oracle/oracle.py``, ChimeraX 1.7.1).
"""

import json
import sys
from pathlib import Path

SAMPLES = ("1h1d", "2pyy", "2w9r", "3pvu", "4cjq")
KEEP = ("misi_answer", "hbonds", "ligand_idatm", "pocket_idatm", "counts")


def main(src: str) -> None:
    src = Path(src)
    out = {"source": {}, "complexes": {}}
    for mode, name in (("relaxed", "hbonds_chimerax.json"), ("precise", "hbonds_chimerax_precise.json")):
        doc = json.loads((src / name).read_text())
        out["source"][mode] = {"file": name, "chimerax": doc["chimerax"], "command": doc["protocol"]["command"]}
        for cid in SAMPLES:
            rec = doc["complexes"][cid]
            entry = out["complexes"].setdefault(cid, {})
            entry[mode] = {k: rec[k] for k in KEEP if mode == "relaxed" or k in ("misi_answer", "hbonds")}
    path = Path(__file__).with_name("expected_hbonds.json")
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/data/pdbbind_dev")
