"""The "Audit" section of the dataset card (``DATASET/README.md``), written idempotently and atomically.

The section replaces an earlier "## Audit" section, else goes before "## Provenance", else at the
end; the card is rewritten through a temporary file, and not at all when nothing changes.  It holds
only counts (no times, hosts or paths), so the same dataset and input give the same card.
"""

from __future__ import annotations

import re
from pathlib import Path

from misi_tasks._atomic import atomic_write_bytes
from misi_tasks.audit.report import AuditReport

__all__ = ["audit_section", "write_audit_section"]

_SECTION = re.compile(r"^## Audit\n.*?(?=^## |\Z)", re.S | re.M)


def audit_section(report: AuditReport) -> str:
    """Markdown of the section, ending in a blank line."""
    verdict = ("Every item passed." if report.ok else
               f"{report.failed} of {report.checked} items failed; `misi-audit` lists each with its reason.")
    return (
        "## Audit\n\n"
        "`misi-audit` re-derived every answer along a second path, without the generator's code: its own "
        "projection from each item's recorded camera finds the atoms in the pixels by their colours, its own "
        "rigid motions re-apply the answers, its own distance and angle test checks the recorded H-bonds, and "
        "option images are compared with each other and with the question's images (misi's `docs/audit.md`).\n\n"
        f"{report.table()}\n\n{verdict}\n\n"
    )


def write_audit_section(card: Path, report: AuditReport) -> bool:
    """Put the section into ``card``; returns whether the file changed.  A missing card is created."""
    old = card.read_text(encoding="utf-8") if card.is_file() else ""
    section = audit_section(report)
    if _SECTION.search(old):
        new = _SECTION.sub(lambda _: section, old, count=1)
    elif "\n## Provenance\n" in old:
        new = old.replace("\n## Provenance\n", "\n" + section + "## Provenance\n", 1)
    else:
        new = old + ("" if old.endswith("\n\n") or not old else "\n" if old.endswith("\n") else "\n\n") + section
    if new == old:
        return False
    atomic_write_bytes(card, new.encode("utf-8"))
    return True
