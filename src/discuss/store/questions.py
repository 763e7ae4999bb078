"""Question files: finding them by slug or path, reading and creating them.

A question is `content/<section>/<slug>.md` with YAML front matter; its
discussion lives in the folder of the same name beside it.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..domain import Question
from ..errors import InputError
from ..text.naming import did_you_mean, distinct_slug, is_safe_id, lossy, same_text, slugify, text_digest
from . import documents
from .files import write_atomic
from .layout import confined, part_paths, question_files

# The front matter's pydantic model is imported where a question is read (`read_question`), not by the
# commands that only find question files by name.

def read_question(path: Path) -> Question:
    try:
        meta, body = documents.read(path)
    except ValueError as exc:
        message = str(exc)
        if "no front matter" in message:
            raise InputError(f"{path}: no front matter; a question starts with '---' and a title") from None
        raise InputError(message) from None
    if not meta:
        raise InputError(f"{path}: no front matter; a question starts with '---' and a title")
    if not meta.get("title"):
        raise InputError(f"{path}: front matter has no 'title'")
    from ..schema import validated
    from ..schema.question import FrontMatterModel

    fm = validated(FrontMatterModel, {**meta, "tags": meta.get("tags") or []}, f"{path}: front matter")
    slug = fm.slug or path.stem
    if not is_safe_id(slug):
        raise InputError(f"{path}: slug {slug!r} is not a safe name (lowercase letters, digits, '-')")
    return Question(
        path=path,
        slug=slug,
        title=fm.title,
        background="" if body.strip() == PLACEHOLDER else body.strip(),  # the scaffold's line is no background
        question_id=str(fm.question_id or ""),
        tags=[str(t) for t in fm.tags],
        panel=fm.panel,
        protocol=fm.protocol,
        task_type=fm.task_type or "default",
        stakes=fm.stakes or "",
        phase=str(meta.get("sourcePhase") or meta.get("phaseId") or ""),
        sources=list(fm.sources),
        question_type=str(fm.question_type or ""),
        bom_item=(str(meta.get("sourceBOMItemId") or ""), str(meta.get("sourceBOMItemSlug") or "")),
        category=str(meta.get("category") or ""),
        decision=("yes", "no") if fm.decision == "yes-no" else tuple(fm.decision or ()),
        forecast=fm.forecast or "",
        precedent=fm.precedent if isinstance(fm.precedent, str) else tuple(fm.precedent or ()),
    )


def find_question(content: Path, ref: str) -> Question:
    """Resolve QUESTION as the CLI takes it: a path to a file or folder, or a slug.

    An exact match (file name or front-matter slug) wins; a file whose name
    ends in `-<slug>` (Project Dyson's `rq-1-11-<slug>.md`) is taken only when
    it is the one such file; two or more candidates are an error naming them.
    """
    if not ref.strip() or ref.strip(" ./") == "" or not ref.isprintable():
        raise InputError(f"{ref!r}: give a question as its slug or the path of its file")
    path = Path(ref)
    if path.suffix == ".md" and path.is_file():
        return read_question(_within(content, path, ref))
    if path.is_dir() and path.with_suffix(".md").is_file():
        return read_question(_within(content, path.with_suffix(".md"), ref))
    if not is_safe_id(ref):
        raise InputError(f"{ref!r}: no such question file, and not a valid slug")
    files = question_files(content) if content.is_dir() else []
    slugs: dict[Path, str] = {}  # read only when a file name does not settle it

    def slug(f: Path) -> str:
        return slugs.setdefault(f, _slug_of(f))

    rules = (lambda f: f.stem == ref, lambda f: slug(f) == ref, lambda f: f.stem.endswith("-" + ref))
    for rule in rules:
        found = [f for f in files if rule(f)]
        if len(found) == 1:
            return read_question(found[0])
        if found:
            raise InputError(f"{ref!r} matches {len(found)} questions: "
                             + ", ".join(str(f.relative_to(content)) for f in found) + "; give a path")
    if (part := PART_REF.match(ref)) and (q := _part(content, part.group(1), int(part.group(2)))) is not None:
        return q
    hint = did_you_mean(ref, [*(slug(f) for f in files), *(f.stem for f in files)]) or "; `discuss new TITLE` creates one"
    raise InputError(f"no question {ref!r} under {content}{hint}")


def _within(content: Path, path: Path, ref: str) -> Path:
    """A question named by its path is one of this project's: its file lies under the content folder."""
    confined(path, content, what=ref)
    return path


PART_REF = re.compile(r"^(.+)-part-(\d+)$")  # a follow-up, as `discuss follow-up` names it


def _part(content: Path, base: str, number: int) -> Question | None:
    """Follow-up `number` (2 and up) of question `base`, if it has one."""
    try:
        parts = part_paths(find_question(content, base).folder)
    except InputError:
        return None
    return read_question(parts[number - 2]) if 2 <= number < len(parts) + 2 else None


def _slug_of(path: Path) -> str:
    """The front matter's slug, else the file's stem; a file that cannot be read has only its stem."""
    try:
        meta, _ = documents.read(path)
    except ValueError:
        return path.stem
    return str(meta.get("slug") or path.stem)


DYSON_FILE = re.compile(r"^rq-(\d+)-(\d+)-(.+)$")  # Project Dyson's rq-<phase>-<n>-<slug>
PHASE_FOLDER = re.compile(r"^phase-(\d+)$")


def is_dyson_layout(content: Path) -> bool:
    """True when the content already holds questions in Project Dyson's naming."""
    return content.is_dir() and any(DYSON_FILE.match(f.stem) for f in question_files(content))


def safe_section(section: str) -> Path:
    """A section of one or more folders, each a safe name: `questions`, `research-questions/phase-1`."""
    parts = section.strip("/").split("/")
    if not all(is_safe_id(part) for part in parts):
        raise InputError(f"section {section!r} is not a safe folder path (safe names joined by '/')")
    return Path(*parts)


PLACEHOLDER = "Describe the background of the question here: what is known, what is at stake."


def background_problem(q: Question) -> str | None:
    """Why a question's background would leave the panel guessing, or None when it has one."""
    if q.background.strip():
        return None
    try:  # the scaffold's line is read as no background; the file still holding it deserves the plainer word
        scaffold = PLACEHOLDER in q.path.read_text("utf-8", "replace")
    except OSError:
        scaffold = False
    return "its background is still the template's text" if scaffold else "its background is empty"


BOM_ID = re.compile(r"bom-\d+-\d+")


def bom_source(content: Path, phase: str, bom_item: str | None, bom_slug: str | None) -> tuple[dict[str, str], str]:
    """The BOM item a Project Dyson question comes from (its site requires both fields), and where they came from.

    Given by `--bom-item` (its slug by `--bom-slug`, or from a question that
    already names that item); otherwise the phase's latest question's.
    """
    known = []
    for f in question_files(content):
        named = DYSON_FILE.match(f.stem)
        if named and named.group(1) == phase:
            try:
                meta, _ = documents.read(f)
            except ValueError:
                continue
            if meta.get("sourceBOMItemId") and meta.get("sourceBOMItemSlug"):
                known.append((int(named.group(2)), str(meta["sourceBOMItemId"]), str(meta["sourceBOMItemSlug"]), f.stem))
    if bom_item is not None:
        if not BOM_ID.fullmatch(bom_item):
            raise InputError(f"--bom-item {bom_item!r}: Project Dyson's BOM ids look like bom-{phase}-3")
        slug = bom_slug or next((s for _, i, s, _ in known if i == bom_item), None)
        if not slug:
            raise InputError(f"--bom-item {bom_item}: no question names its slug yet; give --bom-slug too")
        return {"sourceBOMItemId": bom_item, "sourceBOMItemSlug": slug}, f"BOM item {bom_item} ({slug})"
    if not known:
        raise InputError(f"phase {phase} has no question naming its BOM item; give --bom-item (and --bom-slug)")
    _, item, slug, stem = max(known)
    return ({"sourceBOMItemId": item, "sourceBOMItemSlug": slug},
            f"BOM item {item} ({slug}) taken from {stem}; --bom-item chooses another")


MAX_TITLE = 1000  # characters: a question is a line; its context goes in the background


def question_path(content: Path, section: str, title: str) -> Path:
    """Where the question of this title is, or goes (outside Project Dyson's naming).

    A question's identity is its text: the file found is one whose recorded
    title is this question. Its slug is the title's words; where those would
    be another question's (a slug already taken, words past the length a slug
    keeps, a script ASCII cannot spell, a name some systems keep for devices),
    a digest of the whole title tells it apart. InputError for a title that
    cannot be a question.
    """
    text = title.strip()
    if not text or not text.isprintable():
        raise InputError(f"{title[:80]!r}: a title is one line of printable text")
    if len(text) > MAX_TITLE:
        raise InputError(f"the question is {len(text)} characters; at most {MAX_TITLE} go in a title: put the "
                         "rest in its background (--background FILE, or the body of the question file)")
    if not any(ch.isalnum() for ch in text):
        raise InputError("the title needs at least one letter or digit")
    folder = content / safe_section(section)
    plain = slugify(text)
    usable = bool(plain) and is_safe_id(plain) and not lossy(text, plain)
    first = [plain] if usable else []
    paths = [folder / f"{slug}.md" for slug in [*first, distinct_slug(text), *([] if usable or not plain else [plain])]]
    for path in paths:
        if path.is_file() and same_text(_title_of(path), text):
            return path  # asked before; a lossy slug of an earlier version is still found
    for path in paths[:len(first) + 1]:
        if not path.exists():
            return path
    raise InputError(f"{text[:80]!r}: every name for this question is another question's "
                     f"({', '.join(p.name for p in paths)}); reword the title")


def asked(content: Path, section: str, title: str, background: str | None,
          decision: str | list[str] | None = None) -> tuple[Path, str]:
    """The question file an ask of `title` runs, and how it was found: "new" (no question of this title
    yet), "same" (asked before, and what it asks is this ask's: its answer is this ask's answer), or
    "new facts" (asked before with another background or decision: this ask goes to a question of its own,
    named by a digest of the title and what differs, so an earlier answer never answers other facts).

    An ask that gives no background or decision asks nothing new of an earlier question of its title.
    """
    earlier = question_path(content, section, title)
    if not earlier.is_file() or _asks_the_same(read_question(earlier), background, decision):
        return earlier, "same" if earlier.is_file() else "new"
    digest = text_digest("\n".join([title.strip(), " ".join((background or "").split()), repr(options_of(decision))]))
    path = earlier.parent / f"{slugify(title, 79 - len(digest)) or 'q'}-{digest}.md"
    if path.is_file():
        found = read_question(path)
        if same_text(found.title, title) and _asks_the_same(found, background, decision):
            return path, "new facts"
        raise InputError(f"{path}: another question holds the name this one would take; reword the title")
    return path, "new facts"


def _asks_the_same(q: Question, background: str | None, decision: str | list[str] | None) -> bool:
    same_background = background is None or " ".join(background.split()) == " ".join(q.background.split())
    return same_background and (decision is None or options_of(decision) == q.decision)


def options_of(decision: str | list[str] | None) -> tuple[str, ...]:
    """A decision as front matter gives it (`yes-no`, or the options), as the question holds it."""
    if decision is None:
        return ()
    return ("yes", "no") if decision == "yes-no" else tuple(str(o).strip() for o in decision)


def _title_of(path: Path) -> str:
    try:
        meta, _ = documents.read(path)
    except (OSError, ValueError):
        return ""
    return str(meta.get("title") or "")


def create_question(content: Path, section: str, title: str, tags: list[str], dyson: bool = False,
                    background: str | None = None, bom: tuple[str | None, str | None] = (None, None),
                    extra: dict[str, object] | None = None, placeholder: bool = True,
                    at: Path | None = None) -> tuple[Path, str]:
    """A new question file, and where its BOM item came from (Dyson's) or "".

    `placeholder`: a question without a background gets the scaffold's line asking for one (`new`, which
    suggests editing the file), or none (`ask`, which runs it at once).

    `dyson`: named and numbered as Project Dyson's site expects, in a phase folder. `extra`: more
    front matter (a follow-up's `followUpOf` and `part`).
    """
    path = at or question_path(content, section, title)  # `at`: where `asked` puts a question with new facts
    folder, slug, note = path.parent, path.stem, ""
    meta: dict[str, object] = {"title": title.strip(), "slug": slug, "questionType": "discussion", "status": "open"}
    if dyson:
        phase = PHASE_FOLDER.match(folder.name)
        if not phase:
            raise InputError(f"section {section!r}: a Project Dyson question goes in a phase-<n> folder, "
                             "such as research-questions/phase-1")
        taken = [int(m.group(2)) for f in question_files(content) if (m := DYSON_FILE.match(f.stem))
                 and m.group(1) == phase.group(1)]
        number = max(taken, default=0) + 1
        path = folder / f"rq-{phase.group(1)}-{number}-{slug}.md"
        source, note = bom_source(content, phase.group(1), *bom)
        meta = {"questionId": f"rq-{phase.group(1)}-{number}", **meta, "sourcePhase": folder.name, **source}
    if path.exists():
        raise InputError(f"{path} already exists")
    if tags:
        meta["tags"] = tags
    meta.update(extra or {})
    body = (background.strip() if background and background.strip() else PLACEHOLDER if placeholder else "") + "\n"
    write_atomic(path, documents.render(meta, body))
    return path, note
