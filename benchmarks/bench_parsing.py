"""Worst-case time of ``parse_answer`` on adversarial replies (parsing must be linear).

Builds replies of many shapes (keywords followed by long white space, punctuation-only lines,
repeated almost-answers, long bond lists, huge words...) at ``--size`` characters, parses each for
every task, and prints the slowest cases and the worst time per MB.

    python benchmarks/bench_parsing.py                # 1 MB replies
    python benchmarks/bench_parsing.py --size 200000
"""

from __future__ import annotations

import argparse
import time

from misi_tasks.definitions.registry import TASK_NAMES
from misi_tasks.eval.parse import parse_answer

OPTIONS = ["move x 1, move y 2", "move y 2", "roll x 3", "roll y 4"]
REAL = "Looking at the two views, the ligand moved to the right.\n\nThe answer is roll x 75, move x -14"


def shapes(n: int) -> dict[str, str]:
    """Reply name -> text of about ``n`` characters."""
    def rep(unit: str, prefix: str = "", suffix: str = "") -> str:
        return prefix + unit * max(1, (n - len(prefix) - len(suffix)) // len(unit)) + suffix

    return {
        "move x + spaces": rep(" ", "move x"),
        "roll y + spaces + 3": rep(" ", "roll y", "3"),
        "move x - + spaces": rep(" ", "move x -", "3"),
        "answer + spaces": rep(" ", "answer"),
        "yes + spaces": rep(" ", "yes"),
        "no + spaces": rep(" ", "no"),
        "real reply + newlines": rep("\n", REAL),
        "newlines then reply": rep("\n", "", REAL),
        "spaces": rep(" "),
        "CR spaces": rep("\r "),
        "VT spaces": rep(" \x0b"),
        "unicode spaces": rep("\u2028\u3000\u00a0"),
        "tab newline": rep("\t\n"),
        "dash lines": rep("-\n"),
        "paren lines": rep("(\n"),
        "dot space lines": rep(". \n"),
        "letter lines": rep("C\n"),
        "letters": rep("A "),
        "lower letters": rep("a. "),
        "word": rep("a"),
        "digits": rep("1"),
        "dashes": rep("-"),
        "move repeated": rep("move "),
        "move x repeated": rep("move x "),
        "roll x 5 and": rep("and ", "roll x 5 ", "move"),
        "roll then": rep("then ", "roll x 5 "),
        "roll x 5 repeated": rep("roll x 5 "),
        "answer is repeated": rep("the answer is "),
        "answer - repeated": rep(" -", "answer"),
        "choose repeated": rep("choose "),
        "option repeated": rep("option "),
        "no repeated": rep("no "),
        "yes bonds": rep("ARG NH2, O1B; ", "Yes: "),
        "yes bonds + spaces": rep(" ", "Yes: ARG NH2, O1B"),
        "yes bond lines": rep("ARG NH2, O1B;\n- ", "Yes:\n- "),
        "bond9 list": rep("ASN 460 ND2 A, O2; "),
        "bond9 no separator": rep("ARG 12 NH2 A, O1B "),
        "bond9 + spaces": rep(" ", "ARG 12 NH2 A"),
        "bond9 semicolons": rep(";", "ARG 12 NH2 A, O1"),
        "ARG 12 repeated": rep("ARG 12 "),
        "atoms repeated": rep("ARG "),
        "bullets": rep("1. "),
        "quotes": rep("'"),
        "minus numbers": rep("-1 "),
        "deg": rep("roll x 5 deg"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=1_000_000, help="reply length in characters (default 1 MB)")
    ap.add_argument("--top", type=int, default=10, help="slowest cases to print")
    args = ap.parse_args()
    times = []
    for name, text in shapes(args.size).items():
        for task in TASK_NAMES:
            t0 = time.perf_counter()
            parse_answer(task, text, options=OPTIONS)
            times.append((time.perf_counter() - t0, name, task, len(text)))
    times.sort(reverse=True)
    print(f"{len(times)} parses of {len(shapes(args.size))} shapes x {len(TASK_NAMES)} tasks, ~{args.size:,} chars each")
    for dt, name, task, n in times[: args.top]:
        print(f"{dt * 1000:9.1f} ms  {name:<24} {task:<22} {n:,} chars")
    worst = times[0]
    print(f"worst case: {worst[0]:.3f} s for {worst[3]:,} chars ({worst[1]!r}, {worst[2]}): "
          f"{worst[0] / worst[3] * 1e6:.3f} s per MB")


if __name__ == "__main__":
    main()
