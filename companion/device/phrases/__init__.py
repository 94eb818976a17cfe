"""The words the companion speaks: one table a language, keyed by phrase id.

Each language is a TOML file here named by its language code (``en.toml``, ``de.toml``) with
its ``name`` and a ``[phrases]`` table from a phrase id to a template with named placeholders
(``"move.place" = "{player}: {size} to {to}"``). A translator copies ``en.toml`` and
translates the values, with no Python to read; the file's presence ships the language. The
tests then check that every phrase id the narrator uses is there and that no template asks
for a placeholder the narrator does not fill. A phrase a table lacks falls back to English,
so a half-done translation still says everything.
"""

from __future__ import annotations

import re
import string
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

REFERENCE_LANGUAGE = "en"
TABLE_SUFFIX = ".toml"


def _shipped() -> tuple[str, ...]:
    codes = {
        entry.name.removesuffix(TABLE_SUFFIX)
        for entry in resources.files(__name__).iterdir()
        if entry.name.endswith(TABLE_SUFFIX)
    }
    return tuple(sorted(codes, key=lambda code: (code != REFERENCE_LANGUAGE, code)))


LANGUAGES: tuple[str, ...] = _shipped()
"""The shipped languages, by code, English first: ``speech.voice`` names one of them (or a
regional voice of one, such as ``en-us``)."""

VOICE_PATTERN = re.compile(r"[a-z]{2,3}(-[a-z0-9]+)*")


class PhraseError(LookupError):
    """A phrase id no table has: a bug in the narrator, found by the tests."""


@dataclass(frozen=True)
class Phrasebook:
    """One language's phrases, falling back to English for a phrase the table lacks."""

    language: str
    name: str
    phrases: Mapping[str, str]

    def say(self, phrase_id: str, **fields: object) -> str:
        """The phrase with its placeholders filled in."""
        return self.template(phrase_id).format(**fields)

    def template(self, phrase_id: str) -> str:
        template = self.phrases.get(phrase_id) or phrasebook(REFERENCE_LANGUAGE).phrases.get(phrase_id)
        if template is None:
            raise PhraseError(f"no phrase {phrase_id!r} in the {self.name} table or the English one")
        return template

    def number(self, n: int) -> str:
        """A size or a count as a word (``number.3``); digits beyond the table's words."""
        try:
            return self.template(f"number.{n}")
        except PhraseError:
            return str(n)

    def listing(self, items: list[str]) -> str:
        """``a1``, ``a1 and b2``, ``a1, b2 and c3``: in the table's words."""
        if len(items) < 2:
            return "".join(items)
        return self.say("list.and", rest=", ".join(items[:-1]), last=items[-1])


def language_of(voice: str) -> str:
    """The language of an espeak-ng voice name: ``en`` for ``en-us``, ``de`` for ``de``."""
    return voice.strip().lower().split("-")[0]


def check_voice(voice: str) -> str | None:
    """Why ``voice`` cannot be spoken with the shipped phrase tables, or None."""
    if not VOICE_PATTERN.fullmatch(voice.strip().lower()):
        return f"{voice!r} is not a voice name: use a language code such as {', '.join(LANGUAGES)}"
    if language_of(voice) not in LANGUAGES:
        return f"there are no phrases in {language_of(voice)!r}: use one of {', '.join(LANGUAGES)}"
    return None


@cache
def phrasebook(voice: str) -> Phrasebook:
    """The phrase table for ``voice`` (a language code, or a regional voice of one)."""
    problem = check_voice(voice)
    if problem is not None:
        raise PhraseError(problem)
    language = language_of(voice)
    table = tomllib.loads(resources.files(__name__).joinpath(language + TABLE_SUFFIX).read_text("utf-8"))
    return Phrasebook(language, str(table["name"]), dict(table["phrases"]))


def placeholders(template: str) -> set[str]:
    """The named placeholders of a template: ``{"player", "to"}`` for ``"{player} to {to}"``."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}
