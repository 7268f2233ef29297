"""``misi-interactions``: profile one complex's pocket–ligand interactions (:mod:`.cli`)."""
