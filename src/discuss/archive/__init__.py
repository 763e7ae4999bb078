"""The record read back: discussions as JSON, the study's tables, trials, standings and the text of `show`.

Pure functions over loaded discussions; they write nothing.
"""
