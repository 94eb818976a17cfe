"""The docs stay true: every relative link in README.md and docs/ reaches a file (and a heading,
when it names one), every position text and game record they show reads back exactly, and
every Python example (doctest style) gives what it shows."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from companion.rules.games import ALL_SPEC_NAMES, position_from_text
from companion.rules.record import read_record, write_record

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

PENDING_DOCS: frozenset[str] = frozenset()
"""Component docs that their components' engineers are writing (issue 14): links to them are
allowed before they exist. Every one is on main now, so none is: a link to a page that does not
exist fails. Name a page here only while it is being written."""

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE_BLOCK = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
POSITION_LINE = re.compile(
    rf"^(?:{'|'.join(ALL_SPEC_NAMES)})(?::\S+)? \S+ [wb] \S+ \S+(?: \d+)?$"  # Gobblet's texts
    r"|^cups(?::\S+)? \S+ [wb] \S+ \S+ \S+(?: \d+)?$"  # Cups' texts have one more field
)


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = CODE_BLOCK.sub("", page.read_text(encoding="utf-8"))
    return {slug(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}


def links(page: Path) -> list[str]:
    text = CODE_BLOCK.sub("", page.read_text(encoding="utf-8"))
    return [target for target in LINK.findall(text) if not re.match(r"[a-z]+:", target)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_reach_a_file_and_heading(page: Path) -> None:
    for target in links(page):
        path_text, _, fragment = target.partition("#")
        path = (page.parent / path_text).resolve() if path_text else page
        if path.name in PENDING_DOCS and not path.exists():
            continue
        assert path.exists(), f"{page.name}: link to {target} reaches no file"
        if fragment and path.suffix == ".md":
            assert fragment in anchors(path), f"{page.name}: link to {target}: no such heading"


def test_the_docs_have_links_and_examples() -> None:
    """The checks below look at something: the pages exist and hold what they are checked for."""
    assert (ROOT / "docs" / "rules.md").exists() and (ROOT / "docs" / "record-format.md").exists()
    assert sum(len(links(page)) for page in PAGES) > 20
    assert len(position_texts()) >= 3 and len(records()) >= 1


def position_texts() -> list[str]:
    found = []
    for page in PAGES:
        for block in CODE_BLOCK.findall(page.read_text(encoding="utf-8")):
            found += [line.strip() for line in block.splitlines() if POSITION_LINE.match(line.strip())]
    return found


def records() -> list[str]:
    found = []
    for page in PAGES:
        for block in CODE_BLOCK.findall(page.read_text(encoding="utf-8")):
            if block.startswith(("[Variant ", "[Game ")) and "..." not in block:
                found.append(block)
    return found


@pytest.mark.parametrize("text", position_texts())
def test_position_texts_in_the_docs_read_back(text: str) -> None:
    written = position_from_text(text).text()
    assert written in (text, text + " 0")  # the ply is optional on input


def python_examples() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        found += [(page.name, block) for block in re.findall(r"^```python\n(.*?)^```", text, re.M | re.S)]
    return found


@pytest.mark.parametrize(("name", "example"), python_examples())
def test_python_examples_in_the_docs_give_what_they_show(name: str, example: str) -> None:
    test = doctest.DocTestParser().get_doctest(example, {}, name, name, 0)
    assert test.examples, f"{name}: a Python example without >>> lines is not checked"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


@pytest.mark.parametrize("text", records())
def test_game_records_in_the_docs_read_back(text: str) -> None:
    assert write_record(read_record(text)) == text


OUTSIDE_DOCS = re.compile(r"\b(?:RULES|BOARD)\.md\b")
"""The company's rule and board texts live outside the repository (../shared), which a user's
clone does not have: the code, tests and docs cite docs/rules.md and docs/board.md instead."""


def test_nothing_cites_the_rule_texts_outside_the_repository() -> None:
    files = [
        *PAGES,
        *(path for folder in ("companion", "tests", "benchmarks") for path in (ROOT / folder).rglob("*.py")),
    ]
    citing = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE_DOCS.search(line) and path != Path(__file__)
    ]
    assert len(files) > 100
    assert not citing, f"cite docs/rules.md or docs/board.md instead: {citing}"
