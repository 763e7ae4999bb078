"""The characters of a fetched page's bytes: the charset it declares, read the way browsers read it.

In order: a byte-order mark (UTF-8, UTF-16 LE or BE), which outranks every
declaration; the `charset` of the reply's Content-Type; for HTML, a `<meta
charset>` or `<meta http-equiv="Content-Type" content="...; charset=...">`
within the first `META_BYTES`; then UTF-8 where the bytes are UTF-8, and
windows-1252 where they are not. As in browsers, latin-1 and ASCII labels
are read as windows-1252 (its superset, which pages that say latin-1 mostly
are), a `<meta>` naming UTF-16 means UTF-8 (a page that could be read to its
meta is not UTF-16), and a label no codec knows is passed over. A byte that
is no character in the charset chosen becomes U+FFFD.
"""

from __future__ import annotations

import codecs
import re

META_BYTES = 4096
BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
META = re.compile(rb"""<meta\b[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE)
# Labels browsers read as windows-1252, by the name Python's codecs give them.
AS_1252 = {"ascii", "iso8859-1", "latin-1", "cp1252"}


def codec_of(label: str | None, from_meta: bool = False) -> str | None:
    """The codec a charset label names, as a browser takes it; None where no codec knows it."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip("\"'")).name
    except (LookupError, ValueError):
        return None
    if name in AS_1252:
        return "cp1252"
    if name.startswith(("utf-16", "utf-32")):
        return "utf-8" if from_meta else ("utf-16-le" if name in ("utf-16", "utf-32") else name)
    return name


def page_text(data: bytes, declared: str | None = None, html: bool = False) -> str:
    """`data` decoded by the first rule of the module's that names a charset."""
    for bom, name in BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(name, "replace")
    codec = codec_of(declared)
    if codec is None and html and (found := META.search(data[:META_BYTES])):
        codec = codec_of(found.group(1).decode("ascii"), from_meta=True)
    if codec is not None:
        return data.decode(codec, "replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")
