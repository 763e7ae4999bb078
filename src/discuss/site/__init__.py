"""The published site: collecting discussions and rendering them as HTML.

Only `plugin`, and `themed` that reads MkDocs' pages and settings for it,
import mkdocs; `collect`, `render` and `charts` work without it, so the
site could move to another generator.
"""
