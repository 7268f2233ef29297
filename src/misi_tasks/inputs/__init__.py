"""The input side of ``misi-gen``: which complexes an input names, manifests, and ``--check``.

The structures themselves are read by :mod:`misi_geom.inputs` (sources that load into a
:class:`~misi_geom.complex.Complex`); this package turns a command line or a manifest into those
sources, assigns splits, and validates inputs without rendering.
"""

from misi_tasks.inputs.check import CheckRow, check_inputs, format_check_table
from misi_tasks.inputs.discover import InputPlan, assign_splits, discover_inputs
from misi_tasks.inputs.manifest import MANIFEST_COLUMNS, ManifestRead, read_manifest

__all__ = [
    "CheckRow",
    "InputPlan",
    "MANIFEST_COLUMNS",
    "ManifestRead",
    "assign_splits",
    "check_inputs",
    "discover_inputs",
    "format_check_table",
    "read_manifest",
]
