"""The head scan reads tags as ``html.parser`` does: for random heads (quoted and
unquoted attributes, any case, odd whitespace, entity-encoded URLs, decoy tags inside
comments and scripts) it finds the same canonical, robots, refresh, hreflang and
generator signals, and the same edit-link candidates in a body. Both sides take their
decisions in ``signals_from_tags``, so what is compared is how the tags are read."""

from __future__ import annotations

import html
import os
import stat
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import unreadable_page
from sitemapkit.heads.meta import HtmlSignals, html_signals, signals_from_tags
from sitemapkit.heads.tags import start_tags


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


# --- the C twin of the scan's hot loop (ext/_heads.pxi) against the reference ----------
def heads_twin(impl):
    """The module holding ``impl``'s head reader: the C twin, or the pure reference."""
    from sitemapkit._urlset import _heads_py
    return impl.module if impl.tag == "c" else _heads_py


NOISE = st.sampled_from([
    "Ü", "\xa0", "\x1c", "\x85", "\u212a", "\u017f", "&amp;", "&", "<!-- x -->", "<!--",
    "--!>", "-->", "<script>", "</script >", "</SCRIPT\x1c>", "<style>a{}</style>",
    "<style", "<meta", "<linK", "<li\u212ak rel=canonical href=/k>", "<meta\xa0name=robots>",
    "'", '"', "=", "<", ">", "/", " ", "\t", "\x0b", "</head >", "</HEAD\x1c>", "</head\xa0>",
    "<html>", "<HEAD\t>", "<link rel=canonical href=\"/q\" a=\"", "<meta name=generator>",
    "<meta name=GENERATOR content=\"  Hugo\x1f \">", "<link rel=' alternate ' hreflang=\" \" "
    "href=/a>", "<meta http-equiv=refresh content=\"0;URL = /x\">", "<a href=x>", "\ufffd",
    "<meta content=\"x<link rel=canonical href=/in-a-value>\">", "<meta http-equiv=refresh<meta ",
    "</scriptx>", "<scriptx>", "<!-->", "<!--->", "<style\x1ea{}</STYLE\x1c>", "<script a='>'>"])
HEAD_PIECE = st.one_of(head_element(), NOISE)


@st.composite
def head_bytes(draw) -> bytes:
    """A page start: head elements among noise (Unicode spaces and letters that ``re``
    folds, entities, unclosed quotes and comments, odd end tags), sometimes with bytes
    that are not UTF-8."""
    text = ("<!DOCTYPE html>" if draw(st.booleans()) else "") + \
        draw(st.sampled_from(["<html><head>", "<HTML lang=en><HEAD>", "<head>", ""])) + \
        "".join(draw(st.lists(HEAD_PIECE, max_size=14))) + \
        draw(st.sampled_from(["</head>", "</HEAD >", "", "</head\n>"])) + "<body><p>x</p>"
    data = text.encode("utf-8")
    if draw(st.integers(0, 9)) == 0:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xe2\x80", b"\x80"])) + \
            data[at:]
    return data


@settings(max_examples=600, deadline=None)
@given(head_bytes())
def test_the_twins_read_heads_alike(both_impls, data):
    from sitemapkit._urlset import _heads_py
    want = _heads_py.head_signals(data)
    for impl in both_impls:
        assert heads_twin(impl).head_signals(data) == want, impl
        if impl.tag == "c":
            fast = impl.module._head_signals_fast(data)
            assert fast is None or fast == want, (fast, want)


PLAIN_HEADS = [
    b'<!DOCTYPE html>\n<html lang="en"><head>\n<meta charset="utf-8"><title>P</title>\n'
    b'<meta name="description" content="\xc3\x9cber">\n'
    b'<link rel="canonical" href="https://bench.example.com/s/p/">\n'
    b'<link rel="stylesheet" href="/css/main.css">\n<script defer src="/js/site.js"></script>\n'
    b'\t<meta name="generator" content="Hugo 0.168.0">\n</head><body></body>',
    b"<!doctype html><html lang=en><head><meta name=robots content=noindex><link "
    b"rel=canonical href=https://e.com/a/><link rel=alternate hreflang=de href=https://e.com/"
    b"de/a/><script>var a='<link rel=canonical href=x>'</script><!-- <meta name=robots -->"
    b"<meta http-equiv=refresh content='0; url=/b/'></head>",
]


@pytest.mark.c_extension
@pytest.mark.parametrize("data", PLAIN_HEADS, ids=["hugo", "minified"])
def test_plain_heads_are_read_in_c_without_the_reference(data):
    """The common heads (quoted or minified, non-ASCII text, a script, a comment) never
    reach the reference: the fast path is what the large-site benchmark measures."""
    from sitemapkit._urlset import _heads_py, _urlset_c
    fast = _urlset_c._head_signals_fast(data)
    assert fast is not None and fast == _heads_py.head_signals(data)
    assert fast[2] and fast[0]


DOCTYPE_CASES = [  # (the head, is it a page)
    (b'<!DOCTYPE html>\n<meta charset="utf-8">\n<link rel="canonical" href="https://d.e/'
     b'b/new.html">\n<meta http-equiv="refresh" content="0; url=new.html">\n<meta '
     b'name="robots" content="noindex">\n<title>Redirect Notice</title>', True),  # Antora
    (b"<!doctype  HTML>\n<title>t</title>", True),
    (b"<!DOCTYPE\thtml\n>", True),
    (b"<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\">", True),
    (b"<!doctypehtml><p>x", False),  # no space: not the doctype
    (b"<!DOCTYPE svg><svg/>", False),
    (b"<!DOCTYPE htmlx>", False),
    (b"<p>a fragment</p>", False),
    (b"<!DOCTYPE", False),
    (b"<!DOCTYPE ", False),
]


@pytest.mark.parametrize("data,page", DOCTYPE_CASES)
def test_a_doctype_makes_a_page_without_html_or_head_tags(both_impls, data, page):
    """HTML5 needs neither tag after its doctype: Antora's alias pages are pages, and
    their meta refresh makes them redirect stubs, not fragments."""
    from sitemapkit._urlset import _heads_py
    want = _heads_py.head_signals(data)
    assert want[0] is page
    if page and b"refresh" in data:
        assert want[1] and want[3]  # noindex, a redirect
    for impl in both_impls:
        assert heads_twin(impl).head_signals(data) == want, impl


def _site(root: Path) -> None:
    (root / "a" / "b").mkdir(parents=True)
    (root / ".hidden").mkdir()
    (root / "linked").mkdir()
    (root / "index.html").write_text("<html><head><link rel=canonical href=/></head>")
    (root / "a" / "x.htm").write_text("<p>fragment</p>")
    (root / "a" / "b" / "index.html").write_bytes(
        b"<html><head><link rel=canonical href='/a/b/?x=1&amp;y=2'></head>")
    (root / "a" / "b" / "c.html").write_bytes(b"<html><head>" + b"x" * 9000 +
                                             b"</head  \n>" + b"<p>" * 10)
    (root / ".hidden" / "index.html").write_text("<html><head></head>")
    (root / "linked" / "index.html").write_text("<html><head><title>L</title></head>")
    (root / "a" / "to-linked").symlink_to(root / "linked")
    (root / "a" / "notes.txt").write_text("not a page")
    (root / "a" / "ü.html").write_text("<html><head><meta name=robots content=noindex></head>")
    (root / "a" / ".html").write_text("<html><head></head>")  # a name that is all suffix


def test_the_twins_list_and_read_a_tree_alike(both_impls, tmp_path):
    _site(tmp_path)
    from sitemapkit._urlset import _heads_py
    want = _heads_py.read_pages(str(tmp_path), ["index.html"], ["a", "linked"])
    assert [rel for rel, *_ in want] == [
        "a/.html", "a/b/c.html", "a/b/index.html", "a/to-linked", "a/x.htm",
        "a/ü.html", "index.html", "linked/index.html"]
    assert want[3] == ("a/to-linked", None, False, None, False, (), None)  # never followed
    assert want[4][1] is False and want[5][2] is True  # a fragment; a noindex page
    assert want[2][3] == "/a/b/?x=1&y=2"
    for impl in both_impls:
        assert heads_twin(impl).read_pages(str(tmp_path), ["index.html"], ["a", "linked"]) == want


def test_the_twins_name_links_and_never_follow_them(both_impls, tmp_path):
    """A link to a page elsewhere, a dangling one and a loop: named, never read."""
    _site(tmp_path)
    (tmp_path / "a" / "gone.html").symlink_to(tmp_path / "missing.html")
    (tmp_path / "a" / "out.html").symlink_to("/etc/hostname")
    (tmp_path / "a" / "loop").symlink_to(tmp_path / "a")
    for impl in both_impls:
        got = heads_twin(impl).read_pages(str(tmp_path), [], ["a"])
        links = [rel for rel, document, *_ in got if document is None]
        assert links == ["a/gone.html", "a/loop", "a/out.html", "a/to-linked"]


def test_the_twins_leave_out_what_they_cannot_read_and_say_why(both_impls, tmp_path):
    """A socket, a FIFO (whose open would block until a writer came) and a device under
    a page's name are never read: each is its own record with why, on both twins, and
    the pages beside them are read; a folder that cannot be read is its own record."""
    _site(tmp_path)
    unreadable_page(tmp_path / "a" / "gone.html")
    os.mkfifo(tmp_path / "a" / "fifo.html")
    os.mkfifo(tmp_path / "top.html")
    try:
        os.mknod(tmp_path / "a" / "null.html", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        device = [("a/null.html", "is a device")]
    except PermissionError:  # not root
        device = []
    for impl in both_impls:
        twin = heads_twin(impl)
        got = twin.read_pages(str(tmp_path), ["top.html"], ["a"])
        unread = sorted((rel, why) for rel, document, *_, why in got
                        if document is None and why is not None)
        assert unread == sorted([("a/fifo.html", "is a FIFO (named pipe)"),
                                 ("a/gone.html", "is a socket"), ("top.html",
                                                                  "is a FIFO (named pipe)"),
                                 *device]), impl
        assert [rel for rel, document, *_ in got if document] == \
            [rel for rel, document, *_ in heads_twin(both_impls[0]).read_pages(
                str(tmp_path), ["top.html"], ["a"]) if document]
        assert twin.read_pages(str(tmp_path), [], ["nowhere"]) == [  # a folder: itself
            ("nowhere/", None, False, None, False, (), "No such file or directory")]


def test_the_space_classes_are_what_re_and_str_use():
    import re

    from sitemapkit._urlset import _heads_py
    ascii_chars = [chr(i) for i in range(128)]
    assert set(_heads_py.TEXT_SPACE) == {c for c in ascii_chars if c.isspace()} == \
        {c for c in ascii_chars if re.fullmatch(r"\s", c)}
    assert set(_heads_py.BYTES_SPACE) == {i for i in range(128)
                                          if re.fullmatch(rb"\s", bytes([i]))}


@pytest.mark.c_extension
def test_the_c_tables_are_built_from_the_reference_classes():
    from sitemapkit._urlset import _heads_py, _urlset_c
    from sitemapkit.heads.meta import NEEDLES
    assert _urlset_c._head_classes() == (_heads_py.TEXT_SPACE.encode(),
                                         bytes(sorted(_heads_py.BYTES_SPACE)), NEEDLES)


@settings(max_examples=400, deadline=None)
@given(head_bytes())
def test_the_mkdocs_plugin_reads_a_rendered_page_as_the_reference_does(data):
    """The plugin hands the page's head to the hot unit's reader (C when built)."""
    from sitemapkit.mkdocs.files import page_signals
    text = data.decode("utf-8", "replace")
    assert page_signals(text) == html_signals(text)
