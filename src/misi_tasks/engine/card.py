"""The dataset card (``OUT/README.md``): metadata, configs, load example, fields, counts, provenance,
licence and citation.

The card is part of the output, so it holds nothing that varies between identical runs (no time,
no host, no worker count, no output path).
"""

from __future__ import annotations

import json
import threading

from misi_tasks.dataset import dataset_card_configs_yaml, list_splits
from misi_tasks.engine.config import DEFAULT_GROUP_SIZE
from misi_tasks.engine.provenance import card_sources_section
from misi_tasks.definitions.registry import SPLITS, task_codes, task_names
from misi_tasks._atomic import atomic_write_bytes
from misi_tasks.version import package_version

__all__ = ["preload_figures", "render_card", "write_card"]

#: Hugging Face card metadata that does not depend on the run.
_PRETTY_NAME = "MiSI-style protein-ligand spatial reasoning (misi)"
_LICENSE = "cc-by-nc-4.0"
_TASK_CATEGORIES = ("visual-question-answering", "image-text-to-text")
_TAGS = ("biology", "chemistry", "protein-ligand", "spatial-reasoning", "multi-image", "synthetic")

_FIELDS = """| field | type | content |
|---|---|---|
| `id` | string | unique item id `<task>/<split>/<complex>/<index>` |
| `task`, `task_code` | string | registry name and paper code (T1–T9) |
| `split` | string | `train` or `test` (by complex: no complex is in two splits) |
| `complex_id` | string | PDB id |
| `question` | string | the prompt |
| `images` | list of images | PNG images, in the order the question describes |
| `image_roles` | list of string | what each image is (`front`, `c2 top`, `option B`, ...) |
| `options` | list of string | the four options A–D of a multiple-choice item, else empty |
| `answer` | string | the exact answer (MiSI-Bench format) |
| `metadata` | string (JSON) | transforms, camera, H-bonds and screen coordinates behind the answer |
"""

_LICENCE_TEXT = (
    "The images, questions and answers are released under CC BY-NC 4.0 (`license: cc-by-nc-4.0`), "
    "because they are derived from PDBbind files. Atomic coordinates originate from the Protein Data Bank "
    "(wwPDB data are public domain, CC0 1.0). The PDBbind-processed structure files the images were drawn "
    "from (pockets, ligand files) are PDBbind's, free for academic and non-commercial use under PDBbind's "
    "terms (registration at PDBbind); this dataset holds renderings, atom and residue names and answers "
    "derived from them, not the structure files — check PDBbind's terms before any other use. If you "
    "generated it from structures of your own, set the licence that fits them. The misi code is MIT-licensed."
)

_PAPER_BIBTEX = """@misc{misibench2025,
  title         = {From Macro to Micro: Benchmarking Microscopic Spatial Intelligence on Molecules via Vision-Language Models},
  author        = {Li, Zongzhao and Kong, Xiangzhe and Su, Jiahui and Ma, Zongyang and Li, Mingze and Li, Songyou and Zhang, Yuelin and Rong, Yu and Xu, Tingyang and Zhao, Deli and Huang, Wenbing},
  year          = {2025},
  eprint        = {2512.10867},
  archivePrefix = {arXiv},
  url           = {https://arxiv.org/abs/2512.10867},
}"""



def _size_category(n: int) -> str:
    """Hugging Face ``size_categories`` bucket of ``n`` items."""
    for bound, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                         (1_000_000, "100K<n<1M")):
        if n < bound:
            return label
    return "1M<n<10M"


def _front_matter(present: dict[str, list[str]], n_items: int) -> str:
    """The card's YAML front matter: ``configs`` first (one per task and ``all``), then metadata."""
    lines = [dataset_card_configs_yaml(present).rstrip("\n") if present else "configs: []",
             f"pretty_name: {json.dumps(_PRETTY_NAME)}",
             f"license: {_LICENSE}",
             "language:", "- en",
             "task_categories:", *(f"- {c}" for c in _TASK_CATEGORIES),
             "tags:", *(f"- {t}" for t in _TAGS),
             "size_categories:", f"- {_size_category(n_items)}"]
    return "---\n" + "\n".join(lines) + "\n---\n"


def _load_example(present: dict[str, list[str]]) -> list[str]:
    """A load example naming a config and a split that exist in this folder."""
    if not present:
        return ["This run wrote no items."]
    task = next(t for t in task_names() if t in present)
    split = next(s for s in ("test", "train") if s in present[task])
    all_splits = [s for s in SPLITS if any(s in v for v in present.values())]
    bench = "test" if "test" in all_splits else all_splits[0]
    return [
        "```python",
        "from datasets import load_dataset",
        f"ds = load_dataset(\"path/to/this/folder\", \"{task}\", split=\"{split}\")  # one task",
        f"everything = load_dataset(\"path/to/this/folder\", split=\"{bench}\")  # config \"all\"",
        "```",
        "",
        f"Configs: `all` and one per task ({', '.join(f'`{t}`' for t in present)}); splits present: "
        f"{', '.join(f'`{s}`' for s in all_splits)}. After `hf upload <user>/<name> . --repo-type dataset`, "
        "load it as `load_dataset(\"<user>/<name>\", ...)`.",
        "",
        "Run a model and score it (see misi's README, \"Evaluate a model\"):",
        "",
        "```bash",
        f"misi-run path/to/this/folder --base-url http://localhost:8000/v1 --model MODEL --split {bench} --out preds.jsonl",
        f"misi-eval --dataset path/to/this/folder --split {bench} --predictions preds.jsonl",
        "```",
        "",
        "Scoring credits symmetry-equivalent atoms: in T4 and T9 an answer may name an atom the images "
        "cannot tell from the true one (ASP OD1/OD2, GLU OE1/OE2, ARG NH1/NH2, PHE/TYR ring pairs, LEU CD1/CD2, "
        "VAL CG1/CG2, and ligand atoms equivalent by the molecule's graph, such as a carboxylate's oxygens); "
        "each item lists these classes in `metadata.equivalent_atoms`, so any scorer can do the same.",
    ]


def _command(cfg) -> str:
    """The ``misi-gen`` command that writes this dataset (input named by its folder, output as OUT)."""
    parts = ["misi-gen", "--task", ",".join(task_codes()[t] for t in cfg.tasks)]
    from misi_geom.samples import sample_root

    if cfg.input_dir is not None and str(cfg.input_dir) != str(sample_root()):
        parts += ["--input", cfg.input_dir.name or str(cfg.input_dir)]
    for opt in ("ligand", "smiles", "poses"):  # the single-entry / multi-pose input options, when set
        if getattr(cfg, opt, None) is not None:
            parts += [f"--{opt}", f"'{getattr(cfg, opt)}'"]
    parts += ["--out", "OUT", "--split", cfg.split, "--seed", str(cfg.seed), "--size", str(cfg.size),
              "--projection", cfg.projection, "--style", cfg.style]
    if cfg.limit is not None:
        parts += ["--limit", str(cfg.limit)]
    if cfg.tiny:
        parts.append("--tiny")
    if getattr(cfg, "group_size", DEFAULT_GROUP_SIZE) != DEFAULT_GROUP_SIZE:
        parts += ["--group-size", str(cfg.group_size)]
    if cfg.task_params:
        parts += ["--task-params", "'" + json.dumps(cfg.task_params, sort_keys=True) + "'"]
    return " ".join(parts)


def render_card(cfg, summary) -> str:
    """Markdown text of the card for a finished run."""
    present = list_splits(cfg.out_dir)
    n_items = sum(summary.items.values())
    rows = ["| task | code | split | items | images |", "|---|---|---|---|---|"]
    for (task, split), n in sorted(summary.items.items(), key=lambda kv: (task_names().index(kv[0][0]), kv[0][1])):
        rows.append(f"| {task} | {task_codes()[task]} | {split} | {n} | {summary.images[(task, split)]} |")
    skipped = [f"- `{cid}`: {why}" for cid, why in sorted(summary.failed_complexes.items())]
    version = package_version()
    return "\n".join([
        _front_matter(present, n_items).rstrip("\n"),
        "",
        "# MiSI-style benchmark generated by misi",
        "",
        "Multi-view images of protein–ligand complexes with questions and exact answers in the format of "
        "MiSI-Bench (Li, Kong et al., arXiv 2512.10867), generated by the `misi` engine (its own geometry, "
        "rasterizer and hydrogen-bond detector instead of ChimeraX).",
        "",
        "## Load",
        "",
        *_load_example(present),
        "",
        "## Fields",
        "",
        _FIELDS,
        "## Counts",
        "",
        *rows,
        "",
        "## Generation",
        "",
        f"Generated by misi {version} with:",
        "",
        "```bash",
        _command(cfg),
        "```",
        "",
        f"- tasks: {', '.join(cfg.tasks)}; split: {cfg.split}"
        f"{' (test fraction ' + str(cfg.test_fraction) + ', by complex id)' if cfg.split == 'auto' else ''}"
        f"{'; Tiny subset (50 items per task from the test split)' if cfg.tiny else ''}",
        f"- seed {cfg.seed}; images {cfg.size} px, {cfg.projection} projection, {cfg.style}",
        f"- task parameters: {cfg.task_params or 'defaults'}",
        f"- complexes: {summary.complexes}; skipped: {len(summary.failed_complexes)}",
        *skipped,
        "",
        *card_sources_section(getattr(summary, "sources", {})),
        "## Provenance",
        "",
        "Structures are PDBbind-layout complexes (coordinates from the Protein Data Bank; PDBbind processing "
        "is PDBbind's and free for academic use). Hydrogen-bond answers follow ChimeraX's `hbonds` criteria "
        "(relaxed by 0.4 Å and 20°) as re-implemented by misi. Letters of multiple-choice answers are "
        "balanced over A–D within each task and split.",
        "",
        "## Licence",
        "",
        _LICENCE_TEXT,
        "",
        "## Citation",
        "",
        "The benchmark design is MiSI-Bench's (its own data: `zongzhao/MiSI-bench` on the Hugging Face Hub); "
        "cite the paper, and misi for this generated data:",
        "",
        "```bibtex",
        _PAPER_BIBTEX,
        "",
        "@software{misi,",
        "  title   = {misi: MiSI-Bench-style vision-language benchmarks from protein-ligand structures},",
        "  author  = {{misi contributors}},",
        "  year    = {2026},",
        f"  version = {{{version}}},",
        "  license = {MIT},",
        "  note    = {pure-Python geometry, rendering, hydrogen bonds, tasks and scoring},",
        "}",
        "```",
        "",
    ])


def preload_figures() -> threading.Thread:
    """Start importing matplotlib and loading its font in a background thread; join it before
    :func:`write_card`.

    misi-gen calls this while the workers write the shards, when the driver waits: the imports and
    the first text drawn (~0.6 s) then no longer hold up the end of the run.  Nothing is drawn
    into the card here, and the join keeps matplotlib to one thread at a time.
    """
    def load() -> None:
        try:
            from misi_tasks._mpl import figure_png, have_matplotlib, new_figure

            if have_matplotlib():
                import misi_tasks.engine.card_figures  # noqa: F401

                fig = new_figure(0.5, 0.5)
                fig.text(0.5, 0.5, "misi")
                figure_png(fig)
        except Exception:  # noqa: BLE001 - a failure shows, with its message, when the card is drawn
            pass

    thread = threading.Thread(target=load, name="misi-card-preload", daemon=True)
    thread.start()
    return thread


def write_card(cfg, summary, image_source=None, atoms=None) -> None:
    """Write ``OUT/README.md`` atomically (``image_source``, ``atoms``: see
    :func:`misi_tasks.engine.card_figures.write_card_figures`)."""
    from misi_tasks.engine.card_figures import card_figures_markdown  # OUT/figures/*.png (needs misi[viz])

    figures = card_figures_markdown(cfg.out_dir, cfg.input_dir, image_source, atoms)
    atomic_write_bytes(cfg.out_dir / "README.md", (render_card(cfg, summary) + "\n" + figures).encode())
