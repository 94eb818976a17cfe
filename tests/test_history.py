"""Commit messages keep a short subject line (the why and the figures go in the body), so
`git log --oneline` stays readable. Commits made before this check are left as they are:
history is not rewritten."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUBJECT_LIMIT = 72
# The last commit before this check: the ones after it are held to the limit.
CHECKED_AFTER = "7681b3d337944bb84d585e2d1c380a9c67ad1344"


def git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def long_subjects(revisions: str) -> list[str]:
    log = git("log", "--format=%H %s", revisions)
    assert log.returncode == 0, log.stderr
    return [line for line in log.stdout.splitlines() if len(line.split(" ", 1)[1]) > SUBJECT_LIMIT]


@pytest.fixture(scope="module")
def history() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: there is no history to check")
    if git("cat-file", "-e", f"{CHECKED_AFTER}^{{commit}}").returncode != 0:
        pytest.skip(f"a shallow clone: {CHECKED_AFTER} is not in it")


def test_every_subject_since_the_check_is_at_most_72_characters(history: None) -> None:
    assert long_subjects(f"{CHECKED_AFTER}..HEAD") == []


def test_the_check_sees_a_long_subject(history: None) -> None:
    # One commit from before the check, whose subject runs to 74 characters.
    long_one = "6cd56efa6ae9bbaf8a818b84121848f48ea68c7c"
    assert [line.split()[0] for line in long_subjects(f"{long_one}~1..{long_one}")] == [long_one]
