"""``misi-run``: ask a model (any OpenAI-compatible server) every item of a misi dataset.

Examples::

    # a vLLM server on this machine (see the README, "Evaluate a model")
    misi-run OUT --base-url http://localhost:8000/v1 --model Qwen/Qwen2.5-VL-7B-Instruct --out preds.jsonl
    # OpenAI, 4 requests at a time, images at most 768 px, the first 20 items of two tasks
    misi-run OUT --base-url https://api.openai.com/v1 --model gpt-4o --api-key-env OPENAI_API_KEY \\
             --concurrency 4 --max-image-px 768 --task T1,docking --limit 20 --out gpt4o.jsonl
    misi-eval --dataset OUT --predictions preds.jsonl

Answers are appended to ``--out`` as they arrive (one JSON line each: id, reply, model, latency_s,
usage); rerunning the same command skips the ids already answered, so an interrupted or partly failed
run is finished by running it again. Items the server rejects for good (HTTP 400: context length,
image count) are recorded with its reason in OUT.failed and the run goes on; the summary names the
flags that fix the common cases, and --retry-failed asks them again. The run stops early only when
the server looks unusable (a refused key, an unknown model, many items in a row failing after their
retries). Exit status: 0 all answered, 1 some items failed, 2 bad input or a refused request,
130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

from misi_tasks._cli import new_parser, run
from misi_tasks.dataset import DatasetError
from misi_tasks.definitions.registry import SPLITS
from misi_tasks.run.advice import fix_hints
from misi_tasks.run.client import ChatClient, RetryPolicy
from misi_tasks.export.source import iter_items_with_images, parse_tasks, select_items
from misi_tasks.run.runner import RunStats, run_items
from misi_tasks.run.store import PredictionStore, StoreError, failures_path

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``misi-run``."""
    doc = __doc__ or ""
    p = new_parser(
        "misi-run",
        "Query a vision-language model through the OpenAI chat-completions API and write its "
        "replies as predictions for misi-eval.",
        epilog=doc[doc.index("Examples::"):].replace("Examples::", "examples:").replace("``", ""), raw=True,
    )
    p.add_argument("dataset", type=Path, help="misi dataset folder (holding data/)")
    p.add_argument("--base-url", required=True, help="API root, e.g. http://localhost:8000/v1")
    p.add_argument("--model", required=True, help="model name as the server knows it")
    p.add_argument("--out", required=True, type=Path, help="predictions file (JSONL); appended to and resumed")
    p.add_argument("--task", action="append", metavar="TASK",
                   help="task name or code (repeatable or comma-separated; default: all)")
    p.add_argument("--split", choices=[*SPLITS, "all"], default=None,
                   help="split to run (default: test when the dataset has one, else all)")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="only the first N items of each task")
    p.add_argument("--concurrency", type=int, default=8, metavar="N", help="requests in flight (default 8)")
    p.add_argument("--max-image-px", type=int, default=None, metavar="PX",
                   help="downscale images whose longer side exceeds PX (default: send them as they are)")
    p.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default 0)")
    p.add_argument("--max-tokens", type=int, default=None, metavar="N",
                   help="cap on reply tokens (default: the server's)")
    p.add_argument("--system-prompt", default=None, metavar="TEXT", help="system prompt sent before every item")
    p.add_argument("--api-key-env", default=None, metavar="VAR",
                   help="environment variable holding the API key (default: OPENAI_API_KEY if set, else no key)")
    p.add_argument("--timeout", type=float, default=300.0, metavar="S",
                   help="total seconds per request, from sending it to the reply's last byte (default 300)")
    p.add_argument("--retries", type=int, default=5, metavar="N",
                   help="retries per item on 429/5xx/timeouts/dropped connections (default 5)")
    p.add_argument("--backoff", type=float, default=1.0, metavar="S",
                   help="first retry delay in seconds, doubled each retry up to 60 s (default 1)")
    p.add_argument("--retry-failed", action="store_true",
                   help="ask again the items the server rejected for good in an earlier run (recorded in OUT.failed)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def _api_key(var: str | None) -> str | None:
    if var is None:
        return os.environ.get("OPENAI_API_KEY") or None
    key = os.environ.get(var)
    if not key:
        raise ValueError(f"--api-key-env {var}: the environment variable is not set")
    return key


def _check(args: argparse.Namespace) -> None:
    for name in ("limit", "concurrency", "max_image_px", "max_tokens"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {value}")
    if args.retries < 0 or args.timeout <= 0 or args.backoff < 0:
        raise ValueError("--retries must be >= 0, --timeout > 0 and --backoff >= 0")


def _summary(stats: RunStats, already: int, args: argparse.Namespace, earlier: dict[str, str]) -> str:
    lines = [f"misi-run: {stats.answered} answered now, {already} already in {args.out}, "
             f"{len(stats.failed)} failed ({len(stats.rejected)} rejected by the server), "
             f"{stats.todo - stats.answered - len(stats.failed)} not asked; {stats.retries} retries"]
    if stats.latencies:
        lat = sorted(stats.latencies)
        p95 = lat[min(len(lat) - 1, int(0.95 * len(lat)))]
        rate = stats.answered / stats.elapsed_s if stats.elapsed_s > 0 else 0.0
        lines.append(f"misi-run: {rate:.2f} items/s; latency mean {statistics.fmean(lat):.2f} s, p95 {p95:.2f} s; "
                     f"tokens {stats.prompt_tokens} prompt + {stats.completion_tokens} completion")
    for item_id, why in list(stats.failed.items())[:3]:
        lines.append(f"misi-run: failed {item_id}: {why}")
    if len(stats.failed) > 3:
        lines.append(f"misi-run: ... and {len(stats.failed) - 3} more failed")
    rejected = {**earlier, **stats.rejected}
    if rejected:
        lines.append(f"misi-run: {len(rejected)} item(s) rejected by the server are recorded in "
                     f"{failures_path(args.out)}; asking again unchanged cannot help. Fix:")
        lines += [f"misi-run:   - {hint}" for hint in fix_hints(rejected.values())]
        lines.append("misi-run: then rerun the same command with --retry-failed")
    transient = len(stats.failed) - len(stats.rejected)
    if transient or stats.aborted or stats.answered + len(stats.failed) < stats.todo:
        lines.append("misi-run: rerun the same command to ask the missing items again")
    else:
        lines.append(f"misi-run: score with: misi-eval --dataset {args.dataset} --predictions {args.out}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``misi-run``; return the exit status."""
    args = build_parser().parse_args(argv)
    return run("misi-run", lambda: _main(args),  # an interrupt before the run started: nothing to save
               interrupted=f"interrupted; rerun the same command to resume from {args.out}")


def _main(args: argparse.Namespace) -> int:
    try:
        plan = _Plan.open(args)
    except (DatasetError, StoreError, ValueError, OSError) as exc:
        print(f"misi-run: error: {exc}", file=sys.stderr)
        return 2
    if not plan.todo:
        return plan.nothing_to_ask(args)
    client = _client(args, plan.key)
    bar = None if args.quiet else _ProgressBar(len(plan.todo))
    print(f"misi-run: {len(plan.todo)} of {len(plan.selected)} items to ask ({plan.already} already answered), "
          f"split {args.split}, model {args.model}", file=sys.stderr)
    rows = iter_items_with_images(args.dataset, set(plan.todo))
    try:
        stats = run_items(rows, len(plan.todo), client, plan.store, concurrency=args.concurrency,
                          max_image_px=args.max_image_px, system=args.system_prompt,
                          progress=bar.update if bar is not None else None)
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        print(f"\nmisi-run: interrupted; {len(plan.store.answered) - plan.already} new answers are saved in "
              f"{args.out}; rerun the same command to resume", file=sys.stderr)
        return 130
    except (DatasetError, OSError, ValueError) as exc:
        if bar is not None:
            bar.close()
        print(f"misi-run: error: {exc}", file=sys.stderr)
        return 2
    finally:
        plan.store.close()
    if bar is not None:
        bar.close()
    client.close()
    return _report(stats, plan, args)


class _Plan:
    """What a ``misi-run`` call asks: the selected items, those left to ask and the open store.

    ``earlier`` holds the items the server rejected for good in an earlier run (skipped unless
    ``--retry-failed``); ``already`` counts the selected items answered before.
    """

    def __init__(self, args: argparse.Namespace, key: str | None, selected: list[str],
                 store: PredictionStore) -> None:
        self.key, self.selected, self.store = key, selected, store
        self.earlier = {} if args.retry_failed else {i: store.failed[i] for i in selected if i in store.failed}
        self.todo = [i for i in selected if i not in store.answered and i not in self.earlier]
        self.already = len(selected) - len(self.todo) - len(self.earlier)
        if self.earlier:
            print(f"misi-run: skipping {len(self.earlier)} item(s) the server rejected in an earlier run "
                  f"(recorded in {failures_path(args.out)}; --retry-failed asks them again)", file=sys.stderr)

    @classmethod
    def open(cls, args: argparse.Namespace) -> "_Plan":
        """Check the arguments, select the items and open the predictions store (sets ``args.split``)."""
        _check(args)
        key = _api_key(args.api_key_env)
        items, all_ids, args.split = select_items(args.dataset, parse_tasks(args.task), args.split, args.limit)
        store = PredictionStore.open(args.out, model=args.model, known_ids=all_ids)
        return cls(args, key, [it["id"] for it in items], store)

    def nothing_to_ask(self, args: argparse.Namespace) -> int:
        """Every selected item is answered or was rejected before: say so; the exit status."""
        self.store.close()
        if self.earlier:
            sys.stderr.write(_summary(RunStats(), self.already, args, self.earlier))
            return 1
        print(f"misi-run: all {len(self.selected)} selected items are already answered in {args.out}", file=sys.stderr)
        return 0


def _client(args: argparse.Namespace, key: str | None) -> ChatClient:
    """The chat client the arguments describe."""
    params: dict = {"temperature": args.temperature}
    if args.max_tokens:
        params["max_tokens"] = args.max_tokens
    return ChatClient(args.base_url, args.model, api_key=key, timeout_s=args.timeout, params=params,
                      policy=RetryPolicy(retries=args.retries, base_delay_s=args.backoff))


class _ProgressBar:
    """A tqdm bar on stderr counting answered and failed items, with errors and retries."""

    def __init__(self, total: int) -> None:
        from tqdm import tqdm

        self._bar = tqdm(total=total, unit="item", desc="misi-run", dynamic_ncols=True, file=sys.stderr)

    def update(self, stats: RunStats) -> None:
        done = stats.answered + len(stats.failed)
        if done > self._bar.n:
            self._bar.update(done - self._bar.n)
            self._bar.set_postfix(errors=len(stats.failed), retries=stats.retries, refresh=False)

    def close(self) -> None:
        self._bar.close()


def _report(stats: RunStats, plan: _Plan, args: argparse.Namespace) -> int:
    """Print why the run stopped early (if it did) and the summary; the exit status."""
    if stats.fatal:
        print(f"misi-run: error: the server refused the request: {stats.fatal}", file=sys.stderr)
    elif stats.aborted:
        print(f"misi-run: stopped: {stats.aborted}; the server looks unusable, check it", file=sys.stderr)
    sys.stderr.write(_summary(stats, plan.already, args, plan.earlier))
    if stats.fatal:
        return 2
    return 0 if stats.answered == stats.todo and not plan.earlier else 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
