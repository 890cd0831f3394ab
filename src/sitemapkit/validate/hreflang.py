"""hreflang checks for the validator: one ``xhtml:link`` (rules 36-39) and one entry's
cluster (each language once, x-default once, the page itself among them)."""

from __future__ import annotations

from ..protocol import HREFLANG, NO_EFFECT_REGIONS, X_DEFAULT
from .findings import Say
from .urls import check_url

LINK_ATTRS = frozenset({"rel", "href", "hreflang", "media", "type", "title"})


def check_link(attrs: dict[str, str], say: Say) -> tuple[str, str | None] | None:
    """(hreflang, href key or None) of a checked link; None without a hreflang."""
    extra = sorted(set(attrs) - LINK_ATTRS)
    if extra:
        say("error", "extension", f"xhtml:link has attributes {extra} beyond rel, "
            "href, hreflang, media, type, title")
    rel, lang, href = attrs.get("rel"), attrs.get("hreflang"), attrs.get("href")
    if rel != "alternate":
        say("error", "hreflang-link", f"xhtml:link rel is {rel!r}, not 'alternate'")
    if href is None:
        say("error", "hreflang-link", "xhtml:link has no href")
    if lang is None:
        say("error", "hreflang-link", "xhtml:link has no hreflang")
        return None
    if lang.lower() != X_DEFAULT:
        if not HREFLANG.fullmatch(lang):
            say("error", "hreflang-code", f"hreflang {lang!r} is not a language, "
                "optional script and region (e.g. en, de-AT, zh-Hant-TW) or x-default")
        elif len(lang) >= 5 and lang[-3] == "-" and lang[-2:].lower() in NO_EFFECT_REGIONS:
            say("warning", "hreflang-region", f"hreflang {lang!r}: region "
                f"{lang[-2:]!r} has no effect; use {NO_EFFECT_REGIONS[lang[-2:].lower()]}")
    key = check_url(href, say, "alternate href", "hreflang-href") if href is not None else None
    return lang, key


def cluster_members(links: list[tuple[str, str | None, int]], key: str,
                    say: Say) -> frozenset[tuple[str, str]]:
    """The (hreflang, href) set of one entry, after its per-entry checks."""
    langs: dict[str, str | None] = {}
    for lang, href, _ in links:
        low = lang.lower()
        if low in langs:
            if langs[low] == href:
                say("warning", "hreflang-repeat", f"hreflang {lang!r} is listed twice with "
                    "the same href")
            elif low == X_DEFAULT:
                say("error", "x-default", "more than one x-default alternate")
            else:
                say("error", "hreflang-repeat", f"hreflang {lang!r} points to two "
                    f"different hrefs ({langs[low]} and {href})")
        langs[low] = href
    if key not in langs.values():
        say("error", "hreflang-self", f"the alternates of {key} do not include the page "
            "itself; every member lists itself")
    return frozenset((lang, href) for lang, href in langs.items() if href)
