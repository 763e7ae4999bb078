"""The shape of a YAML text checked before any parser builds it: size, nesting and aliases.

Every YAML text `discuss` reads passes here first (`yamlio.load`, the one
reader, calls it before any way of reading): files people and pull requests change
are untrusted, and the YAML libraries we use expand aliases without limit
and recurse on nesting in C. Imports libyaml only for a text that could
hold either, and nothing else heavy.
"""

from __future__ import annotations

import re

# Limits for every YAML text read: files people and pull requests change reach here.
MAX_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 64
# An anchor or alias can only begin a node: at a line's start, after `- `, `: `, `? `, `[`, `{` or `,`.
# A `*` inside text (Markdown emphasis) cannot, so it costs no scan.
_NODE_MARK = re.compile("(?:^|[\\[{,:\r\x85\u2028\u2029]|[-?][ \t])[ \t]*[&*][^\\s,\\[\\]{}]", re.MULTILINE)
_DEEP_LINE = re.compile(rf"^[ \t?:-]{{{MAX_DEPTH},}}", re.MULTILINE)


def check_shape(text: str) -> None:
    """Refuse, before any parser builds anything, what would hang or crash it.

    Aliases are refused (a billion-laughs file expands without limit in
    every YAML library we use), nesting is capped (50,000 nested brackets
    overflow the C stack of the composers), and so is size. The event scan
    stops at the first offence, so a hostile file is refused in
    milliseconds; it runs only where the text could hold either (an `&` or
    `*` where a node begins, 64 brackets, a line indented 64 deep).
    """
    if len(text) > MAX_BYTES:
        raise ValueError(f"larger than {MAX_BYTES // (1024 * 1024)} MB")
    suspect = (("&" in text or "*" in text) and _NODE_MARK.search(text) is not None) \
        or text.count("[") + text.count("{") >= MAX_DEPTH or _DEEP_LINE.search(text) is not None
    if not suspect:
        return
    import yaml

    depth = 0
    try:
        for event in yaml.parse(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise ValueError(f"nested more than {MAX_DEPTH} levels deep, line {_line(event)}")
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
            elif isinstance(event, yaml.AliasEvent):
                raise ValueError(f"uses an alias (*{event.anchor}), line {_line(event)}; "
                                 "write the value out instead")
    except yaml.YAMLError as error:
        # A scanner that gives up (libyaml refuses deep nesting itself since PyYAML 6.0.4) is a refusal:
        # handing the text on lets a recursive composer overflow the C stack on what was refused here.
        mark = getattr(error, "problem_mark", None)
        where = f", line {mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ValueError(f"not readable YAML: {problem}{where}") from None


def _line(event) -> int:
    return int(getattr(getattr(event, "start_mark", None), "line", -1)) + 1
