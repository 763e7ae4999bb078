"""The published site: collecting discussions and rendering them as HTML.

Only `plugin` imports mkdocs; `collect`, `render` and `charts` work without
it, so the site could move to another generator.
"""
