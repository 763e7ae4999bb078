"""Draw the layers of docs/architecture.md from the code's imports (a test fails while it is out of date)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from test_layers import PICTURE, picture  # noqa: E402

page = ROOT / "docs" / "architecture.md"
page.write_text(PICTURE.sub(lambda m: m.group(1) + picture(), page.read_text()), encoding="utf-8")
