"""Every data file the package reads at run time is declared as package data, so a plain
(non-editable) install, as the service installer does, ships it."""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _declared() -> dict[str, list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return config["tool"]["setuptools"]["package-data"]


# Not data: Python's own files, and the compiled engine core's source and build (setup.py's
# ext_modules compile the one into the other at install).
CODE_SUFFIXES = (".py", ".pyc", ".c", ".so", ".pyd")


def _data_files() -> list[Path]:
    return [
        path
        for path in (ROOT / "companion").rglob("*")
        if path.is_file() and path.suffix not in CODE_SUFFIXES and "__pycache__" not in path.parts
    ]


def _shipped(path: Path, declared: dict[str, list[str]]) -> bool:
    relative = path.relative_to(ROOT)
    for package, patterns in declared.items():
        base = Path(*package.split("."))
        if base in relative.parents:
            inside = relative.relative_to(base).as_posix()
            if any(fnmatch(inside, pattern) for pattern in patterns):
                return True
    return False


def test_every_data_file_in_the_package_is_declared():
    files = _data_files()
    assert files, "the package has data files (the junior book at least)"
    declared = _declared()
    missing = [str(path.relative_to(ROOT)) for path in files if not _shipped(path, declared)]
    assert not missing, f"not declared as package data in pyproject.toml: {missing}"
