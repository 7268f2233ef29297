"""Backends that run ``misi-gen``'s per-complex jobs: a local process pool or a Ray cluster.

A backend maps a module-level function over a list of independent jobs and yields each job's
(small) result as it arrives; what a job writes goes to disk, never through the backend.  The
caller must not depend on the order of results (the local pool yields them in input order, Ray in
completion order).  Nothing here imports Ray until a :class:`RayBackend` is used.

>>> backend = make_backend("local", workers=1)
>>> sorted(backend.map(abs, [-2, 1, -3]))
[1, 2, 3]
"""

from __future__ import annotations

from misi_tasks.engine.backends.base import BACKEND_NAMES, WORKER_ENV, Backend, BackendError
from misi_tasks.engine.backends.local import LocalBackend

__all__ = [
    "BACKEND_NAMES",
    "WORKER_ENV",
    "Backend",
    "BackendError",
    "LocalBackend",
    "RayBackend",
    "make_backend",
]


def make_backend(name: str, *, workers: int = 1, ray_address: str | None = None) -> Backend:
    """The backend called ``name`` (one of :data:`BACKEND_NAMES`).

    ``workers`` is the size of the local pool, or the CPUs of the Ray instance started on this
    machine when ``ray_address`` is None (an existing cluster brings its own CPUs).
    """
    if name == "local":
        if ray_address is not None:
            raise ValueError("--ray-address needs --backend ray")
        return LocalBackend(workers=workers)
    if name == "ray":
        from misi_tasks.engine.backends.ray_cluster import RayBackend

        return RayBackend(address=ray_address, num_cpus=workers)
    raise ValueError(f"unknown backend {name!r}; valid: {', '.join(BACKEND_NAMES)}")


def __getattr__(name: str):
    if name == "RayBackend":  # imported on use: the module itself imports Ray only when run
        from misi_tasks.engine.backends.ray_cluster import RayBackend

        return RayBackend
    raise AttributeError(f"module 'misi_tasks.engine.backends' has no attribute {name!r}")
