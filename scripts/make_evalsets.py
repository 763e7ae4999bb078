"""Make the built-in labelled sets of `discuss eval` from their upstream files, once, reproducibly.

    python scripts/make_evalsets.py GSM8K_DIR BBH_DIR

GSM8K_DIR holds openai/grade-school-math's `grade_school_math/data/test.jsonl` and `LICENSE`; BBH_DIR holds
suzgunmirac/BIG-Bench-Hard's `bbh/<task>.json` files and `LICENSE`. Writes src/discuss/evalsets/: one YAML
set each, with its source and licence recorded in it, and each licence's text beside the sets.
"""

from __future__ import annotations

import json
import random
import re
import sys
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


def write(name: str, source: str, licence: str, items: list[dict]) -> None:
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.width = 4096
    with (OUT / f"{name}.yaml").open("w", encoding="utf-8") as out:
        yaml.dump({"name": name, "source": source, "licence": licence, "items": items}, out)


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
              f"{BBH_COMMIT[:12]}), all {len(items)} examples, in its order", "MIT (LICENSE-bbh.txt)", items)
    (OUT / "LICENSE-bbh.txt").write_text((folder / "LICENSE").read_text(encoding="utf-8"), encoding="utf-8")


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    gsm8k(Path(sys.argv[1]))
    bbh(Path(sys.argv[2]))
