"""``misi-audit``: a dataset that proves its own fairness.

For every item the audit re-derives the answer along a second path, independent of the generator's
code: its own projection from the item's recorded camera (:mod:`.geometry`) finds the atoms in the
pixels by their colours (:mod:`.pixels`, :mod:`.views`); its own rigid motions re-apply the answers
(:mod:`.motion_checks`); its own distance and angle test checks the recorded H-bonds
(:mod:`.hbond_checks`); option images are compared with each other and with the question's images.
Structures are read with misi_geom's loaders (:mod:`.structures`).  :func:`audit_dataset` returns
per-task counts and failures; :func:`write_audit_section` puts them into the dataset card.
"""

from misi_tasks.audit.card import audit_section, write_audit_section
from misi_tasks.audit.report import AuditError, AuditReport, TaskAudit, audit_dataset

__all__ = ["AuditError", "AuditReport", "TaskAudit", "audit_dataset", "audit_section", "write_audit_section"]
