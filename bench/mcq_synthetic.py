"""Write a SYNTHETIC multiple-choice benchmark and its spec, with planted cues, for timing
`buzzprobe audit` and for showing that the audit finds what was planted.

    python bench/mcq_synthetic.py --items 10000 --out /tmp/mcq-bench
    buzzprobe audit /tmp/mcq-bench/synthetic-mcq.yaml

Planted: in `--cue-share` of the items (default all) the gold is the strictly longest option
by characters; in the published order the gold sits at position C in `--position-bias` of
the items (default 0.4) and uniformly elsewhere. Words are random pseudo-words; nothing is
real data. Output goes to `--out` only: never commit it.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

SYLLABLES = ("ka", "lo", "mi", "ter", "sun", "vo", "pra", "den", "qui", "ros", "ba", "nel", "tiv", "or")


def word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 3)))


def phrase(rng: random.Random, words: int) -> str:
    return " ".join(word(rng) for _ in range(words))


def item(rng: random.Random, index: int, k: int, cue: bool, bias: float) -> dict[str, object]:
    distractors = [phrase(rng, rng.randint(2, 5)) for _ in range(k - 1)]
    gold = phrase(rng, rng.randint(2, 5))
    if cue:
        longest = max(len(d) for d in distractors)
        while len(gold) <= longest:
            gold += " " + word(rng)
    position = 2 if rng.random() < bias else rng.randrange(k)
    choices = distractors[:position] + [gold] + distractors[position:]
    return {"id": f"syn-{index:05d}", "question": f"Synthetic question {index}: {phrase(rng, 6)}?",
            "choices": choices, "answer": gold, "split": "test" if index % 5 == 0 else "train"}


def write(out: Path, items: int, *, k: int = 4, cue_share: float = 1.0, bias: float = 0.4,
          splits: bool = False, seed: int = 13) -> Path:
    """Write data.jsonl and synthetic-mcq.yaml into `out`; returns the spec's path."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "data.jsonl").open("w", encoding="utf-8") as f:
        for i in range(items):
            f.write(json.dumps(item(rng, i, k, rng.random() < cue_share, bias)) + "\n")
    spec = {"name": "synthetic-mcq", "title": "Synthetic MCQ (planted length cue)", "language": "en",
            "dataset_path": str((out / "data.jsonl").resolve()), "id": "id", "doc_to_text": "question",
            "doc_to_choice": "choices", "doc_to_target": "answer"}
    if splits:
        spec |= {"split": "split", "train_split": "train", "test_split": "test"}
    path = out / "synthetic-mcq.yaml"
    path.write_text("".join(f"{key}: {json.dumps(value)}\n" for key, value in spec.items()), encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--options", type=int, default=4)
    parser.add_argument("--cue-share", type=float, default=1.0)
    parser.add_argument("--position-bias", type=float, default=0.4)
    parser.add_argument("--splits", action="store_true", help="declare the train/test split (80/20)")
    args = parser.parse_args()
    print(write(args.out, args.items, k=args.options, cue_share=args.cue_share, bias=args.position_bias,
                splits=args.splits))


if __name__ == "__main__":
    main()
