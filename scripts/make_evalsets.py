"""Make the built-in labelled sets of `discuss eval` from their upstream files, once, reproducibly.

    python scripts/make_evalsets.py [--gsm8k DIR] [--bbh DIR] [--mmlu DIR]

--gsm8k: openai/grade-school-math's `grade_school_math/data/test.jsonl` and `LICENSE`; --bbh:
suzgunmirac/BIG-Bench-Hard's `bbh/<task>.json` files and `LICENSE`; --mmlu: hendrycks/test at the commit
below (the last with the data in the repository), its `data/test/<subject>_test.csv` files and `LICENSE`.
Writes src/discuss/evalsets/: one YAML set each, with its source and licence recorded in it, and each
licence's text beside the sets.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "discuss" / "evalsets"
GSM8K_ITEMS, GSM8K_SEED = 200, 2026
BBH_TASKS = {  # task: the answer's type
    "date_understanding": "choice",
    "logical_deduction_three_objects": "choice",
    "boolean_expressions": "text",
}
GSM8K_COMMIT = "3101c7d5072418e28b9008a6636bde82a006892c"
BBH_COMMIT = "9ee07bd481feebf959a6b59d61ea57bdcf30964d"
MMLU_COMMIT = "785eba57b455b9f9be12a0d3c1106d67274fea0e"
MMLU_PER_SUBJECT, MMLU_SEED = 4, 2026


def write(name: str, source: str, licence: str, items: list[dict], choices: list[str] | None = None) -> None:
    """`choices`: the closed list every answer of the set is one of (a read outside it is ungradable)."""
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.width = 4096
    with (OUT / f"{name}.yaml").open("w", encoding="utf-8") as out:
        yaml.dump({"name": name, "source": source, "licence": licence, **({"choices": choices} if choices else {}),
                   "items": items}, out)


def gsm8k(folder: Path) -> None:
    rows = [json.loads(line) for line in (folder / "test.jsonl").read_text(encoding="utf-8").splitlines() if line]
    chosen = sorted(random.Random(GSM8K_SEED).sample(range(len(rows)), GSM8K_ITEMS))
    items = []
    for index in chosen:
        answer = rows[index]["answer"].rsplit("####", 1)[1].strip().replace(",", "")
        items.append({"id": f"gsm8k-{index + 1:04d}", "question": rows[index]["question"].strip(),
                      "answer": answer, "answerType": "number"})
    write("gsm8k", f"GSM8K test split (openai/grade-school-math at {GSM8K_COMMIT[:12]}), {GSM8K_ITEMS} of its "
          f"{len(rows)} problems drawn with seed {GSM8K_SEED}; ids are the line numbers of test.jsonl",
          "MIT (LICENSE-gsm8k.txt)", items)
    (OUT / "LICENSE-gsm8k.txt").write_text((folder / "LICENSE").read_text(encoding="utf-8"), encoding="utf-8")


def bbh(folder: Path) -> None:
    for task, kind in BBH_TASKS.items():
        examples = json.loads((folder / f"{task}.json").read_text(encoding="utf-8"))["examples"]
        items = []
        for n, example in enumerate(examples, start=1):
            target = example["target"].strip()
            if kind == "choice":
                target = re.fullmatch(r"\(([A-Z])\)", target).group(1)  # type: ignore[union-attr]
            items.append({"id": f"{task.replace('_', '-')}-{n:03d}", "question": example["input"].strip(),
                          "answer": target, "answerType": kind})
        write(f"bbh-{task.replace('_', '-')}", f"BIG-Bench Hard, task {task} (suzgunmirac/BIG-Bench-Hard at "
              f"{BBH_COMMIT[:12]}), all {len(items)} examples, in its order", "MIT (LICENSE-bbh.txt)", items,
              sorted({i["answer"] for i in items}) if kind == "text" else None)
    (OUT / "LICENSE-bbh.txt").write_text((folder / "LICENSE").read_text(encoding="utf-8"), encoding="utf-8")


def mmlu(folder: Path) -> None:
    """A few questions of every subject, drawn with a seed, interleaved so that any first N spread over them."""
    draw = random.Random(MMLU_SEED)
    by_subject = []
    files = sorted((folder / "data" / "test").glob("*_test.csv"))
    for path in files:
        subject = path.name.removesuffix("_test.csv")
        with path.open(encoding="utf-8", newline="") as f:  # a question may hold line breaks
            rows = list(csv.reader(f))
        chosen = sorted(draw.sample(range(len(rows)), MMLU_PER_SUBJECT))
        by_subject.append([_mmlu_item(subject, n, rows[n]) for n in chosen])
    items = [subject[k] for k in range(MMLU_PER_SUBJECT) for subject in by_subject]
    write("mmlu", f"MMLU test split (hendrycks/test at {MMLU_COMMIT[:12]}), {MMLU_PER_SUBJECT} questions of each "
          f"of its {len(files)} subjects drawn with seed {MMLU_SEED}, taken in turn from each subject so that any "
          "first N spread over them; ids are the subject and the row of its test file", "MIT (LICENSE-mmlu.txt)",
          items)
    (OUT / "LICENSE-mmlu.txt").write_text((folder / "LICENSE").read_text(encoding="utf-8"), encoding="utf-8")


def _mmlu_item(subject: str, n: int, row: list[str]) -> dict:
    question, *options, answer = row
    assert answer.strip() in ("A", "B", "C", "D"), row
    lettered = "\n".join(f"({letter}) {text.strip()}" for letter, text in zip("ABCD", options, strict=True))
    return {"id": f"mmlu-{subject.replace('_', '-')}-{n + 1:03d}", "question": f"{question.strip()}\n{lettered}",
            "answer": answer.strip(), "answerType": "choice"}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("gsm8k", "bbh", "mmlu"):
        parser.add_argument(f"--{name}", type=Path, help=f"the folder of {name}'s upstream files")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    for name, make in (("gsm8k", gsm8k), ("bbh", bbh), ("mmlu", mmlu)):
        if getattr(args, name) is not None:
            make(getattr(args, name))
