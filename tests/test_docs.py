"""The documents stay true to the tree: every file the code and the documents cite
exists in the repository, nothing cites the briefs outside it, the README stays a
user's document of at most 3,000 words, and every path in its "Where things go"
section exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = {".venv", ".git", "test-artifacts", "node_modules", "__pycache__", "build", "dist"}
SUFFIXES = (".py", ".js", ".md")
# The briefs the project grew from live outside the repository: the code cites docs/.
BRIEFS = ("SPEC" + ".md", "STACK" + ".md")
# A cited file: a path under one of the repository's folders, ending in a file type.
CITED = re.compile(r"(?<![\w./-])((?:docs|pipeviz|static|benchmarks|tests|scripts)/[\w./-]*\w\.(?:md|py|js|txt|json))")
LINK = re.compile(r"\]\(([^)\s]+)\)")
README_MAX_WORDS = 3000


def sources() -> list[Path]:
    """The repository's .py, .js and .md files (not the virtualenv's, not artifacts)."""
    return sorted(p for p in ROOT.rglob("*") if p.suffix in SUFFIXES and p.is_file()
                  and not SKIP & set(p.relative_to(ROOT).parts))


def test_the_sources_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in sources()}
    assert {"README.md", "docs/model.md", "pipeviz/simulate.py", "static/engine.js", "tests/test_docs.py"} <= names


def test_citations_are_found_in_text():
    line = "see docs/model.md (`static/engine.js`), pipeviz/view/ and pipeviz/schedules/<name>.py."
    assert CITED.findall(line) == ["docs/model.md", "static/engine.js"]
    assert in_tree("pipeviz/static/engine.js") == ROOT / "static/engine.js"


def test_no_file_cites_the_briefs_outside_the_repository():
    found = [f"{p.relative_to(ROOT)}: {brief}" for p in sources() for brief in BRIEFS if brief in p.read_text("utf-8")]
    assert not found, "cite docs/ instead:\n" + "\n".join(found)


def in_tree(path: str) -> Path:
    """A cited path in the repository: static/ installs as pipeviz/static/
    (pyproject.toml), so an installed path names its source there."""
    installed = "pipeviz/static/"
    return ROOT / ("static/" + path[len(installed):] if path.startswith(installed) else path)


def test_every_cited_file_exists():
    missing = []
    for p in sources():
        for n, line in enumerate(p.read_text("utf-8").splitlines(), start=1):
            for path in CITED.findall(line):
                if not in_tree(path).exists():
                    missing.append(f"{p.relative_to(ROOT)}:{n}: {path}")
    assert not missing, "cited but not in the repository:\n" + "\n".join(missing)


def slug(heading: str) -> str:
    """A Markdown heading's anchor, as GitHub makes it."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text("utf-8"), flags=re.S)
    return {slug(m) for m in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def test_every_markdown_link_in_the_repository_resolves():
    broken = []
    for p in sources():
        if p.suffix != ".md":
            continue
        for target in LINK.findall(p.read_text("utf-8")):
            if re.match(r"[a-z]+:", target):  # http:, mailto: ...
                continue
            file, _, anchor = target.partition("#")
            dest = (p.parent / file).resolve() if file else p
            if not dest.exists():
                broken.append(f"{p.relative_to(ROOT)}: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{p.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_the_slug_is_githubs():
    assert slug("Activation balancing (BPipe)") == "activation-balancing-bpipe"
    assert slug("dualpipe-v") == "dualpipe-v"
    assert slug("The article's closing section: fill the bubbles") == "the-articles-closing-section-fill-the-bubbles"


def readme() -> str:
    return (ROOT / "README.md").read_text("utf-8")


def test_readme_is_at_most_3000_words():
    words = len(readme().split())  # as `wc -w` counts
    assert words <= README_MAX_WORDS, f"README.md has {words} words; keep it under {README_MAX_WORDS}"


def test_readme_opens_with_the_two_commands():
    first_block = re.search(r"```\n(.*?)```", readme(), re.S).group(1)
    commands = [line.split("#")[0].strip() for line in first_block.splitlines()]
    assert commands == ["./scripts/serve", "./scripts/test"]


def test_readme_has_no_commit_hashes():
    hashes = re.findall(r"(?<![\w-])[0-9a-f]{7,40}(?![\w-])", readme())
    assert not [h for h in hashes if re.search(r"[a-f]", h) and re.search(r"[0-9]", h)], hashes


def where_things_go() -> str:
    text = readme()
    start = text.index("## Where things go")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def section_paths(section: str) -> list[str]:
    """Every path the section names. Within one table cell or line, a bare file name
    (`closing.py`) is in the folder named last before it (`pipeviz/words/`), or at the
    repository's root when none was named; `<name>` stands for any name and is skipped."""
    paths = []
    for line in section.splitlines():
        for cell in line.split("|"):
            folder = ""
            for token in re.findall(r"`([^`]+)`", cell):
                if "<" in token or " " in token:
                    continue
                if token.endswith("/"):
                    folder = token
                    paths.append(token)
                elif "/" in token:
                    paths.append(token)
                elif re.fullmatch(r"[\w.-]+\.(?:py|js|md|txt|toml|sh)", token):
                    paths.append(folder + token)
    return paths


def test_section_paths_resolve_bare_names_against_their_folder():
    cell = "| `pipeviz/words/` (`closing.py`), `pipeviz/text.py` | `app.py` `<name>.py` `ENTRY` |"
    assert section_paths(cell) == ["pipeviz/words/", "pipeviz/words/closing.py", "pipeviz/text.py", "app.py"]


def test_every_path_in_where_things_go_exists():
    paths = section_paths(where_things_go())
    assert len(paths) > 50  # the section still lists the tree
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, "README's 'Where things go' names paths that do not exist: " + ", ".join(missing)


def test_no_table_cell_splits_on_a_pipe_in_code():
    """Markdown tables split cells on every |, inside `code` too: write "or" instead."""
    found = []
    for p in sources():
        if p.suffix != ".md":
            continue
        for n, line in enumerate(p.read_text("utf-8").splitlines(), start=1):
            if line.startswith("|"):
                found += [f"{p.relative_to(ROOT)}:{n}: {span}" for span in re.findall(r"`([^`]*)`", line) if "|" in span]
    assert not found, "\n".join(found)
