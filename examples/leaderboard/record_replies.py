"""Write three recorded-reply files for a leaderboard example: a gold, a random and a noisy replier.

Usage::

    python examples/leaderboard/record_replies.py misi_out --out replies
    misi-eval --dataset misi_out --predictions replies/gold.jsonl --predictions replies/random.jsonl \
              --predictions replies/noisy.jsonl --reference

Each file is in misi-run's format (``id``, ``reply``, ``model``), so misi-eval names each model by
its ``model`` field. ``gold`` replies with the answer; ``random`` with the seeded random baseline's
reply; ``noisy`` reasons in a sentence and then gives the answer with probability 0.6, else the
random reply (seeded per item, so the files are the same on every run).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from misi_tasks.eval.baselines import baseline_predictions
from misi_tasks.dataset import read_items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    items = read_items(args.dataset, images=False)
    rand = baseline_predictions(items, "random", seed=args.seed)
    noisy = {}
    for it in items:
        right = random.Random(f"{args.seed}:{it['id']}").random() < 0.6
        noisy[it["id"]] = f"Looking at the views in turn. Answer: {it['answer'] if right else rand[it['id']]}"
    args.out.mkdir(parents=True, exist_ok=True)
    for name, replies in (("gold", {it["id"]: it["answer"] for it in items}), ("random", rand), ("noisy", noisy)):
        lines = [json.dumps({"id": i, "reply": r, "model": f"{name}-replier"}) for i, r in replies.items()]
        (args.out / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {', '.join(str(args.out / n) + '.jsonl' for n in ('gold', 'random', 'noisy'))}")


if __name__ == "__main__":
    main()
