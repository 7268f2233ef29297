"""Suite-wide pytest set-up, kept minimal: hypothesis profiles only.

- ``ci`` (used by ``.ci/run``): no per-example deadline (2-core CI runners are slow and numba may
  compile mid-test), derandomised so a red build is reproducible.
- ``dev`` (default): no deadline, random examples.

Select with ``HYPOTHESIS_PROFILE=ci``.  Package-specific fixtures live in each test folder's own
``conftest.py``.
"""

import os

from hypothesis import settings

settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
