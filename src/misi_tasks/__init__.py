"""misi_tasks: the nine MiSI-Bench task generators, dataset writers, scoring and CLIs."""
