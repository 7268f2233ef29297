"""Array aliases shared by the misi packages (documentation only; numpy does not check shapes)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["Coords", "FloatArray", "IntArray", "BoolArray", "Matrix3"]

#: (N, 3) float64 coordinates in Å.
Coords = npt.NDArray[np.float64]
#: Any float64 array.
FloatArray = npt.NDArray[np.float64]
#: Any integer array.
IntArray = npt.NDArray[np.integer]
#: Any boolean array.
BoolArray = npt.NDArray[np.bool_]
#: (3, 3) float64 rotation matrix.
Matrix3 = npt.NDArray[np.float64]
