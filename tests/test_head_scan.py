"""The head scan reads tags as ``html.parser`` does: for random heads (quoted and
unquoted attributes, any case, odd whitespace, entity-encoded URLs, decoy tags inside
comments and scripts) it finds the same canonical, robots, refresh, hreflang and
generator signals, and the same edit-link candidates in a body. Both sides take their
decisions in ``signals_from_tags``, so what is compared is how the tags are read."""

from __future__ import annotations

import html
from html.parser import HTMLParser

from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit.sources.htmlmeta import HtmlSignals, html_signals, signals_from_tags
from sitemapkit.sources.htmltags import start_tags


class Reference(HTMLParser):
    """Start tags as html.parser sees them, up to ``</head>``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.done = False

    def handle_starttag(self, tag, attrs):
        if not self.done:
            first: dict[str, str] = {}
            for key, value in attrs:
                first.setdefault(key, value or "")
            self.tags.append((tag, first))

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag):
        self.done = self.done or tag == "head"


def reference_signals(text: str) -> HtmlSignals:
    """The same decisions over html.parser's tags: what differs is only the tokenizer."""
    parser = Reference()
    parser.feed(text)
    parser.close()
    return signals_from_tags(parser.tags)


SPACE = st.sampled_from([" ", "  ", "\n", "\t", " \n  "])
URL_TEXT = st.lists(st.sampled_from(
    ["https://example.com/", "a", "b/", "ü", "%C3%BC", "&amp;", "&#47;", "&quot;", "x=1",
     "&lt;", "index.html", "?q=", "-", "_"]), min_size=1, max_size=6).map("".join)


def cased(word: str) -> st.SearchStrategy[str]:
    return st.lists(st.booleans(), min_size=len(word), max_size=len(word)).map(
        lambda ups: "".join(c.upper() if up else c for c, up in zip(word, ups, strict=True)))


@st.composite
def attribute(draw, name: str, value: str) -> str:
    quoting = draw(st.sampled_from(["double", "single", "bare"]))
    if quoting == "bare" and any(c in value for c in " \t\n'\"<>=`") or not value:
        quoting = "double"
    if '"' in value:
        quoting = "single" if "'" not in value else "double"
        value = value.replace('"', "&quot;")
    quoted = {"double": f'"{value}"', "single": f"'{value}'", "bare": value}[quoting]
    eq = draw(st.sampled_from(["=", " = ", "=\n"]))
    return f"{draw(cased(name))}{eq}{quoted}"


@st.composite
def tag(draw, name: str, pairs: list[tuple[str, str]]) -> str:
    parts = [draw(attribute(n, v)) for n, v in draw(st.permutations(pairs))]
    gaps = [draw(SPACE) for _ in parts]
    body = "".join(g + p for g, p in zip(gaps, parts, strict=True))
    close = draw(st.sampled_from([">", " >", "/>", " />"]))
    if close.endswith("/>") and parts and not body.endswith(('"', "'")):
        close = " />"  # an unquoted value would swallow the slash
    return f"<{draw(cased(name))}{body}{close}"


@st.composite
def head_element(draw) -> str:
    kind = draw(st.sampled_from(["canonical", "robots", "refresh", "alternate", "generator",
                                 "stylesheet", "charset", "comment", "script", "title"]))
    url = draw(URL_TEXT)
    if kind == "canonical":
        rel = draw(st.sampled_from(["canonical", "Canonical", "canonical nofollow"]))
        return draw(tag("link", [("rel", rel), ("href", url)]))
    if kind == "robots":
        who = draw(st.sampled_from(["robots", "ROBOTS", "googlebot", "description"]))
        what = draw(st.sampled_from(["noindex", "noindex, nofollow", "index,follow",
                                     "NOINDEX"]))
        return draw(tag("meta", [("name", who), ("content", what)]))
    if kind == "refresh":
        return draw(tag("meta", [("http-equiv", draw(cased("refresh"))),
                                 ("content", f"0; url={url}")]))
    if kind == "alternate":
        lang = draw(st.sampled_from(["en", "de", "pt-BR", "x-default"]))
        return draw(tag("link", [("rel", "alternate"), ("hreflang", lang), ("href", url)]))
    if kind == "generator":
        return draw(tag("meta", [("name", "generator"),
                                 ("content", draw(st.sampled_from(
                                     ["Hugo 0.140", "zensical-0.0.73", "Docusaurus v3"])))]))
    if kind == "stylesheet":
        return draw(tag("link", [("rel", "stylesheet"), ("href", url)]))
    if kind == "charset":
        return draw(tag("meta", [("charset", "utf-8")]))
    decoy = f'<link rel="canonical" href="https://decoy.example/{kind}">'
    if kind == "comment":
        return f"<!-- {decoy} -->"
    if kind == "script":
        return f"<{draw(cased('script'))}>var s = '{decoy}';</script>"
    return "<title>T</title>"


@settings(max_examples=300, deadline=None)
@given(st.lists(head_element(), max_size=10), st.booleans())
def test_head_scan_agrees_with_html_parser(elements, doctype):
    text = ("<!DOCTYPE html>" if doctype else "") + "<html><head>" + "\n".join(elements) + \
        "</head><body><link rel=canonical href=https://body.example/></body></html>"
    assert html_signals(text) == reference_signals(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(URL_TEXT, st.sampled_from(["edit", "md-content__button", ""])),
                max_size=6))
def test_anchor_attributes_agree_with_html_parser(links):
    body = "".join(f"<A class={cls or 'x'} HREF={html.escape(url, quote=False)}>t</a>"
                   if " " not in url else f'<a href="{url}">t</a>' for url, cls in links)
    text = f"<html><body>{body}</body></html>"
    parser = Reference()
    parser.feed(text)
    want = [a for name, a in parser.tags if name == "a"]
    got = [a for _, a, _ in start_tags(text, frozenset({"a"}))]
    assert got == want


def test_minified_and_entity_encoded_heads():
    head = ("<html><head><meta name=robots content=noindex><link rel=canonical "
            "href=https://example.com/a/?x=1&amp;y=2><link rel=alternate hreflang=de "
            "href=https://example.com/de/a/></head>")
    assert html_signals(head) == HtmlSignals(
        True, "https://example.com/a/?x=1&y=2", False, (("de", "https://example.com/de/a/"),))
