"""`python -m discuss` runs the `discuss` command."""

from .cli.entry import main

main()
