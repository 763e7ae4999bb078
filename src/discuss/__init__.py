"""discuss: a panel of language models deliberates on a research question.

Every answer, vote and conclusion is written as Markdown and YAML beside the
question, so a deliberation is reviewed in git like any other change.
"""

__version__ = "0.2.0"
# The name discuss is installed under: `discuss` on the package index belongs to another project.
DISTRIBUTION = "discuss-panel"
