"""Which run subjects are one model across benchmarks, by one stated rule (the models page
prints RULE): each benchmark's upstream spells its models its own way (`gpt-4`, `GPT4`,
`Meta-Llama-3_1-70B-Instruct`, `llama3.1-70b-instruct`), and a reader following one model
across the shelf needs those spellings joined, and only those."""

from __future__ import annotations

import re

RULE = ("Two runs are of one model when their subject names are equal after: lower-casing; dropping "
        "an organisation prefix ending in \"/\" and a leading \"meta-\"; dropping a trailing \"-hf\" "
        "(a Hugging Face conversion of the same weights); and removing spaces, \"-\", \"_\" and \".\". "
        "So gpt-4 and GPT4 are one model, as are Meta-Llama-3_1-70B-Instruct and "
        "llama3.1-70b-instruct, and Llama-2-7b-hf and llama-2-7b; a dated snapshot "
        "(GPT-3.5-turbo-0613) stays apart from the undated name. A subject named humans (or "
        "human, experts) is a group of people, listed apart from the models.")
HUMAN_NAMES = frozenset({"humans", "human", "experts"})
_SEPARATORS = re.compile(r"[\s\-_.]+")


def model_key(name: str) -> str:
    """The name every spelling of one model shares under RULE."""
    key = name.strip().lower().rsplit("/", 1)[-1]
    key = key.removeprefix("meta-").removesuffix("-hf")
    return _SEPARATORS.sub("", key)


def is_human_group(name: str) -> bool:
    """Whether a subject is people, not a model (RULE's last sentence)."""
    return name.strip().lower() in HUMAN_NAMES
