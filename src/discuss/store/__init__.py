"""The only code that touches discussion files.

Layout, YAML dialect, atomic writes, the lock per discussion, and readers
for our own format and Project Dyson's original one.
"""
