"""Every Mouse fact key, as patterns with a unit and a meaning (builder.core.factkeys).

Values stay on the paper's 0–1 scale (MCC and QWK in [-1, 1]) so measured and reported Mouse
figures compare directly. Row and label parts are `builder.core.names.slug`s of the paper's names.
"""

from __future__ import annotations

from builder.benchmarks.mouse.labels import RC_COMPONENTS
from builder.core.factkeys import FactPattern, Part, Section, choice

_SLUG = r"[a-z0-9][a-z0-9_-]*"

TABLE = choice("table", ("main", "mcc", "human_cc"), "a reported table: main (Table 3), mcc (Table 4), "
               "human_cc (Table 6)")
ROW = Part("row", _SLUG, "a table row: the slug of a model's (or a human group's) name")
_WORD = r"[^.]+"  # names from content/mouse: anything a key segment can hold (no dot)
COLUMN = Part("column", r"(?!n(?:\.|$))[^.]+", "a column of the table, as named in content/mouse/reported.yaml")
TEXT = Part("name", _WORD, "a figure stated in the paper's text (`text_figures` in reported.yaml)")
GROUP = Part("group", _WORD, "a model group of content/mouse/reported.yaml (commercial, local)")
CLAIM = Part("claim", _SLUG, "a statement's id in content/mouse/claims.yaml")
CONDITION = Part("n", r"\d+", "the condition's number within the statement, from 1")
EVIDENCE = Part("evidence", _SLUG, "the slug of an evidence label, or the condition's aggregate (mean, min, …)")

RUN_ID = Part("run_id", _SLUG, "a Mouse run's id (its header's `run_id`)")
COMPONENT = Part("component", rf"(?:\.(?:{'|'.join(RC_COMPONENTS)}))?",
                 f"nothing, or for Reading Comprehension one of its sub-tasks: {', '.join(RC_COMPONENTS)}",
                 render=lambda c: f".{c}" if c else "", shown="[.<component>]")
RUN_COUNT = choice("count", ("n", "unparsed", "missing", "copied", "judge_unparsed"),
                   "items scored; answers not parsed (scored wrong); TR: translations missing, copied, verdicts "
                   "not parsed")
RUN_METRIC = choice("metric", ("accuracy", "balanced_accuracy", "macro_f1", "mcc", "semantic_accuracy",
                               "perfect_rate"), "")
LABEL = Part("label", r"[^.]+", "a label of the task (digits for IR, TD and RC; letters for MS and CC)")
MEASURED = choice("what", ("runs", "in_progress"), "")

SCORE = "as reported (0–1; MCC −1 to 1)"
MEASURED_SCORE = "0–1 (MCC −1 to 1)"

REPORTED_CELL = FactPattern("mouse.reported.{table}.{row}.{column}", SCORE, "a cell of the paper's table",
                            {"table": TABLE, "row": ROW, "column": COLUMN})
REPORTED_TEXT = FactPattern("mouse.reported.text.{name}", "as stated", "a figure stated in the paper's text",
                            {"name": TEXT})
DERIVED_MODELS = FactPattern("mouse.derived.models", "count", "models in Table 3")
GROUP_SIZE = FactPattern("mouse.derived.group.{group}.n", "count", "models in the group", {"group": GROUP})
GROUP_MEAN = FactPattern("mouse.derived.group.{group}.{column}", SCORE,
                         "unweighted mean of the Table 3 column over the group's models",
                         {"group": GROUP, "column": COLUMN})
GROUP_GAP = FactPattern("mouse.derived.group_gap.{column}", SCORE, "commercial mean minus local mean of the column",
                        {"column": COLUMN})
HUMAN_MINUS_MODEL = FactPattern("mouse.derived.human_cc.{row}.minus_best_model", SCORE,
                                "a human group's CC accuracy minus the best model's (Table 6)", {"row": ROW})
CLAIM_EVIDENCE = FactPattern("mouse.claims.{claim}.c{n}.{evidence}", "the measure's",
                             "an evidence value of a claim condition, or the condition's aggregate",
                             {"claim": CLAIM, "n": CONDITION, "evidence": EVIDENCE})

MEASURED_RUNS = FactPattern("mouse.measured.{what}", "count", "finished Mouse runs scored, and runs not scored "
                            "(in progress, or translations not judged yet); only when runs/ holds Mouse runs",
                            {"what": MEASURED})
RUN_COUNTS = FactPattern("mouse.run.{run_id}{component}.{count}", "count", "a measured run's item counts",
                         {"run_id": RUN_ID, "component": COMPONENT, "count": RUN_COUNT})
RUN_SCORE = FactPattern("mouse.run.{run_id}{component}.{metric}", MEASURED_SCORE,
                        "a measured run's score (scikit-learn semantics; TR: mean judge score / 2 and the share "
                        "judged 2; RC without a component: averaged over its three)",
                        {"run_id": RUN_ID, "component": COMPONENT, "metric": RUN_METRIC}, interval=True)
RUN_F1 = FactPattern("mouse.run.{run_id}{component}.f1.{label}", MEASURED_SCORE, "a measured run's F1 of one label",
                     {"run_id": RUN_ID, "component": COMPONENT, "label": LABEL}, interval=True)

SECTIONS: tuple[Section, ...] = (
    Section("Mouse (`mouse.*`)", "Reported cells of the paper's tables, figures derived from them and the claims "
            "check's evidence (docs/mouse.md). Values on the paper's 0–1 scale.",
            (REPORTED_CELL, REPORTED_TEXT, DERIVED_MODELS, GROUP_SIZE, GROUP_MEAN, GROUP_GAP, HUMAN_MINUS_MODEL,
             CLAIM_EVIDENCE)),
    Section("Mouse runs measured by buzzprobe (`mouse.run.*`)", "Scores of the Mouse runs under runs/ (needs the "
            "gated data in MOUSE_DATA), with seeded percentile bootstrap intervals over items; see docs/mouse.md.",
            (MEASURED_RUNS, RUN_COUNTS, RUN_SCORE, RUN_F1)),
)
