"""A small HTML start-tag tokenizer: the tags a page's signals live in (``meta``,
``link``, ``a``), with their attributes read as a browser reads them. Minified output
(``hugo --minify``) drops quotes, themes vary case, and URLs carry entities
(``&amp;``), so a regex over ``href="..."`` misses real pages. Comments and the raw
text of ``script`` and ``style`` are skipped: a tag written inside them is not a tag.

One compiled pattern finds each wanted tag whole (quotes respected), so the Python
loop runs once per wanted tag, and a caller parses the attributes only of the tags
it needs. Attribute names are lower-cased, values entity-decoded, and the first of
two equal names wins (as in browsers); the property test compares all of it with
``html.parser``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

_NAME = r"""[^\s/>"'=][^\s/>=]*+"""
_VALUE = r"""(?:"[^"]*+"|'[^']*+'|(?!['"])[^>\s]*+)"""
_ATTRS = rf"""(?>(?:[\s/]*+{_NAME}(?:\s*+=++\s*+{_VALUE})?)*+)[\s/]*+"""
_ATTR = re.compile(rf"""[\s/]*+({_NAME})(?:\s*+=++\s*+({_VALUE}))?""")
Attrs = dict[str, str]


@functools.lru_cache(maxsize=8)
def _tokens(names: frozenset[str]) -> re.Pattern[str]:
    """Comments, raw-text elements (skipped whole) and the wanted tags: exact."""
    wanted = "|".join(sorted(names, key=lambda n: (-len(n), n)))
    return re.compile(rf"<(?:!--.*?(?:--!?>|\Z)|(script|style)(?=[\s/>]){_ATTRS}>.*?"
                      rf"(?:</(?i:\1)\s*>|\Z)|({wanted})(?=[\s/>])({_ATTRS})>)",
                      re.IGNORECASE | re.DOTALL)


def raw_tags(text: str, names: frozenset[str],
             needles: tuple[str, ...] = ()) -> Iterator[tuple[str, str, int]]:
    """(lower-case tag name, the attribute text, offset just past the tag) for each
    start tag in ``names``, in document order; ``attributes`` parses the text. With
    ``needles`` (lower-case), only tags whose attribute text holds one are given.
    One pass of the exact pattern: comments and raw text are skipped as it meets them
    (a pass that jumped to the wanted tags and checked around them was slower, and
    fuzzing found tags it took from inside another tag's value)."""
    for match in _tokens(names).finditer(text):
        if match.group(2) is not None and (
                not needles or any(n in match.group(3).lower() for n in needles)):
            yield match.group(2).lower(), match.group(3), match.end()


def start_tags(text: str, names: frozenset[str]) -> Iterator[tuple[str, Attrs, int]]:
    """As ``raw_tags``, with the attributes parsed."""
    for name, raw, end in raw_tags(text, names):
        yield name, attributes(raw), end


def attributes(raw: str) -> Attrs:
    """``name=value`` pairs as html.parser reads them (a bare name has value '')."""
    attrs: Attrs = {}
    for match in _ATTR.finditer(raw):
        key = match.group(1).lower()
        if key in attrs:
            continue
        value = match.group(2)
        if value is None:
            value = ""
        elif value[:1] in ("'", '"'):
            value = value[1:-1]
        if "&" in value:
            from html import unescape  # here: html.entities is 3 ms of every CLI start

            value = unescape(value)
        attrs[key] = value
    return attrs


def tokens(value: str) -> list[str]:
    """A space-separated attribute (``rel``, ``class``) as lower-case tokens."""
    return value.lower().split()
