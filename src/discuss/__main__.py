"""`python -m discuss` runs the `discuss` command."""

from .entry import main

main()
