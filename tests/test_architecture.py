"""The package's shape holds: every protocol fact and option has one home, import-linter's
layers and no-cycle contracts hold, both twins build from the same character classes,
and the hot unit's interface is the narrow one the writer uses."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BASE
from sitemapkit import UrlEntry, protocol
from sitemapkit.options import (
    CLI,
    INDEXNOW_OPTIONS,
    MKDOCS,
    OPTIONS,
    SPHINX,
    _flags,
    for_host,
    markdown_table,
)

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "sitemapkit"
PYX = ROOT / "ext" / "_urlset_c.pyx"
NUMBERS = {50_000, 10_485_760, 52_428_800, 2047, 2048, 10_000}
TEXTS = [r"sitemaps\.org/schemas/sitemap/0\.9(?!/)", r"w3\.org/1999/xhtml", r"api\.indexnow\.org",
         r"\b50,000\b", r"10,485,760", r"52,428,800", r"\b2,04[78]\b", r"\bhourly\b",
         r"^\.(xml|txt)\.gz$"]


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _literals(path: Path) -> list[str]:
    tree = ast.parse(path.read_text("utf-8"))
    skip = _docstrings(tree)
    hits = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or id(node) in skip:
            continue
        value = node.value
        if isinstance(value, int) and not isinstance(value, bool) and value in NUMBERS:
            hits.append(f"{path.name}:{node.lineno}: {value}")
        if isinstance(value, str) and any(re.search(t, value) for t in TEXTS):
            hits.append(f"{path.name}:{node.lineno}: {value[:60]!r}")
    return hits


def test_no_protocol_constant_is_written_outside_protocol_py():
    hits = [hit for path in sorted(SRC.rglob("*.py")) if path.name != "protocol.py"
            for hit in _literals(path)]
    for source in sorted([*PYX.parent.glob("*.pyx"), *PYX.parent.glob("*.pxi")]):  # + includes
        code = [line.split("#", 1)[0] for line in source.read_text("utf-8").splitlines()]
        hits += [f"{source.name}:{n}: {line.strip()}" for n, line in enumerate(code, 1)
                 if re.search(r"\b(50_?000|10_?485_?760|52_?428_?800|2047|2048)\b", line)
                 or any(re.search(t, line) for t in TEXTS[:3])]
    assert hits == [], "protocol facts belong in protocol.py:\n" + "\n".join(hits)


def test_the_grep_finds_what_it_looks_for(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text('"""Docstrings may say 50,000."""\nLIMIT = 50_000\n'
                       'NS = "http://www.sitemaps.org/schemas/sitemap/0.9"\nSUFFIX = ".xml.gz"\n')
    assert [h.split(": ", 1)[1] for h in _literals(planted)] == [
        "50000", "'http://www.sitemaps.org/schemas/sitemap/0.9'", "'.xml.gz'"]


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """import-linter's contracts from pyproject.toml, over the package found under ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    command = "import importlinter.cli as c; c.lint_imports_command()"
    return subprocess.run([sys.executable, "-c", command,
                           "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                          capture_output=True, text=True, env=env, cwd=root)


def test_the_layers_hold_and_no_package_imports_its_siblings_in_a_circle():
    done = _lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout


@pytest.mark.parametrize(("where", "line", "broken"), [
    ("rules/model.py", "from ..write import options as _planted", "Layers"),
    ("validate/entries.py", "from . import xmlfile as _planted", "No cycle"),
])
def test_the_contracts_fail_on_a_broken_layer_or_a_cycle(tmp_path, where, line, broken):
    shutil.copytree(SRC, tmp_path / "src" / "sitemapkit",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    planted = tmp_path / "src" / "sitemapkit" / where
    planted.write_text(planted.read_text("utf-8") + f"\n{line}  # noqa\n", "utf-8")
    done = _lint_imports(tmp_path)
    assert done.returncode != 0
    assert f"{broken}" in done.stdout.split("Broken contracts", 1)[1]


# --- the twins build from protocol's character classes ---------------------------
def _expected_tables() -> tuple[bytes, bytes, bytes]:
    """What the C twin's byte tables must hold, derived here from protocol alone."""
    keep, special = 1, {"%": 2, "&": 3, "'": 4, "/": 5}
    cls = bytearray(256)
    for ch in protocol.URL_KEPT:
        cls[ord(ch)] = keep
    for ch, value in special.items():
        cls[ord(ch)] = value
    enc = bytearray(128)
    for ch in protocol.URL_ENCODED:
        enc[ord(ch)] = 1
    hexu = bytearray(256)
    for ch in protocol.HEX_UPPER:
        hexu[ord(ch)] = 1
    return bytes(cls), bytes(enc), bytes(hexu)


@pytest.mark.c_extension
def test_c_tables_are_built_from_protocol_classes():
    from sitemapkit._urlset import _urlset_c
    assert _urlset_c._tables() == _expected_tables()


def test_pure_twin_uses_the_same_classes():
    from sitemapkit._urlset import _canonical_py
    assert _canonical_py._ENCODE == frozenset(protocol.URL_ENCODED)
    assert _canonical_py._CANONICAL_TAIL.pattern == protocol.canonical_tail_pattern()
    assert not set(protocol.URL_KEPT) & set(protocol.URL_ENCODED)


@pytest.mark.parametrize("code", range(0x20, 0x7F), ids=lambda c: f"{c:02x}")
def test_every_printable_ascii_gets_one_status_from_both_twins(both_impls, code):
    loc = f"{BASE}a{chr(code)}b"
    statuses = {impl.tag: _buffer(impl).offer(loc) for impl in both_impls}
    assert len(set(statuses.values())) == 1, statuses


def _buffer(impl, record=False):
    m = impl.module
    return m.UrlsetBuffer(BASE, 50, 10_000, m.LocSet(), 2**40, False, record)


# --- the hot unit's narrow interface ----------------------------------------------
def test_every_urlentry_field_is_read_by_the_fast_path(impl):
    """A new UrlEntry field must land in both twins' fast path, or this fails."""
    assert impl.module.FAST_FIELDS == UrlEntry._fields
    assert _buffer(impl).offer(UrlEntry(BASE + "a", "2024-01-01", "daily")) == impl.module.ADDED


def test_consumed_is_read_only(impl):
    buf = _buffer(impl)
    buf.feed(iter([BASE + "a", BASE + "b"]))
    assert buf.consumed == 2
    with pytest.raises(AttributeError):
        buf.consumed = 0


def test_the_change_record_pairs_come_from_the_hot_unit(impl):
    buf = _buffer(impl, record=True)
    buf.offer(UrlEntry(BASE + "a&b", "2024-01-01"))
    buf.add(BASE + "c", None, None, "0.5", ())
    assert buf.pairs() == [(BASE + "a&b", "2024-01-01"), (BASE + "c", "")]
    buf.reset()
    assert buf.pairs() == []
    plain = _buffer(impl)
    plain.offer(BASE + "a")
    assert plain.pairs() == []


# --- options, declared once ----------------------------------------------------------
def test_mkdocs_schema_is_the_declared_options():
    from sitemapkit.mkdocs.config import SitemapConfig
    assert [name for name, _ in SitemapConfig._schema] == [o.name for o in for_host(MKDOCS)]
    config = SitemapConfig()
    config.load_dict({})
    assert config.validate() == ([], [])
    assert dict(config) == {o.name: o.default_for(MKDOCS) for o in for_host(MKDOCS)}


def test_sphinx_registers_every_declared_option(tmp_path):
    from sphinx.application import Sphinx
    (tmp_path / "conf.py").write_text('extensions = ["sitemapkit.sphinx"]\n'
                                      'html_baseurl = "https://example.org/"\n')
    (tmp_path / "index.rst").write_text("Home\n====\n")
    app = Sphinx(str(tmp_path), str(tmp_path), str(tmp_path / "_build"),
                 str(tmp_path / "_doctrees"), "html", status=None, warning=None)
    for option in for_host(SPHINX):
        assert getattr(app.config, f"sitemapkit_{option.name}") == option.default_for(SPHINX)


def test_write_flags_are_the_declared_options():
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "write", "--help"],
                          capture_output=True, text=True, check=True)
    flags = set(re.findall(r"--[a-z-]+", done.stdout))
    declared = {f.strip("`") for o in (*for_host(CLI), *for_host(CLI, INDEXNOW_OPTIONS))
                for f in _flags(o, CLI).split(" / ")}  # a switch: --x and --no-x
    assert declared <= flags
    # the rest describe the input (its format, a folder's processes and uniqueness)
    assert flags - declared - {"--help", "--out", "--base-url", "--format", "--text",
                               "--quiet", "--jobs", "--unique"} == set()


def test_the_docs_options_table_is_generated_from_the_declarations():
    page = (ROOT / "docs" / "options.md").read_text("utf-8")
    table = re.search(r"<!-- options:begin -->\n(.*?)<!-- options:end -->", page, re.S)
    assert table, "docs/options.md needs its generated options table"
    assert table.group(1) == markdown_table(), \
        "regenerate it with: python -m sitemapkit.options"
    assert len({o.name for o in OPTIONS}) == len(OPTIONS)


HOT_UNIT = {"__init__.py", "_urlset_py.py", "_canonical_py.py", "_rows_py.py", "_scan_py.py",
            "_locset_py.py", "_urlset_c.pyi"}


def test_the_hot_unit_is_one_package_and_the_root_shows_the_public_surface():
    package = SRC / "_urlset"
    assert HOT_UNIT <= {p.name for p in package.iterdir()}
    private_at_root = {p.name for p in SRC.glob("_*.py")} - {"__init__.py", "__main__.py"}
    assert private_at_root <= {"_compat.py", "_display.py", "_files.py", "_version.py"}, \
        private_at_root
    assert not list(SRC.glob("*.pyi")) and not list(SRC.glob("_urlset_c*.so"))
    from sitemapkit import _urlset
    if _urlset.USE_EXTENSIONS:
        assert _urlset.UrlsetBuffer.__module__ == "sitemapkit._urlset._urlset_c"


def _imports(path: Path) -> set[str]:
    """The modules a file imports, resolved to absolute dotted names (TYPE_CHECKING too)."""
    package = ".".join(path.relative_to(SRC.parent).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            found.add(".".join(p for p in (base, node.module or "") if p))
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_no_module_outside_the_hot_unit_is_imported_by_it_and_imports_it_back():
    """The hot unit may use protocol and rules; they never import it (no circle)."""
    hot = {f"sitemapkit._urlset.{p.stem}" if p.stem != "__init__" else "sitemapkit._urlset"
           for p in (SRC / "_urlset").glob("*.py")} | {"sitemapkit._urlset._urlset_c"}
    used = set().union(*(_imports(p) for p in (SRC / "_urlset").glob("*.py"))) - hot
    used = {name for name in used if name.startswith("sitemapkit.")}
    assert used, "the hot unit's imports were not read"
    for name in sorted(used):
        path = SRC.parent / (name.replace(".", "/") + ".py")
        if not path.exists():
            path = SRC.parent / name.replace(".", "/") / "__init__.py"
        back = {m for m in _imports(path) if m.startswith("sitemapkit._urlset")}
        assert not back, f"{name} imports the hot unit back: {back}"


C_FILE_LINES = 700  # a reader finds the C of a job in one file of a screenful or two


def test_the_c_twin_is_cut_by_job_like_its_pure_twin():
    """Each file of the C twin stays under the limit, and each include is named after
    the pure twin's module of the same job (``_rows.pxi`` beside ``_rows_py.py``), or
    is a kernel of its own (CRC-32, BLAKE2b) or the head scan's tokenizer."""
    twins = {p.stem.removesuffix("_py") for p in (SRC / "_urlset").glob("_*_py.py")}
    own = {"_crc32", "_blake2b", "_heads_tokens"}
    files = sorted([*PYX.parent.glob("*.pyx"), *PYX.parent.glob("*.pxi")])
    long = [f"{p.name}: {n}" for p in files
            if (n := len(p.read_text("utf-8").splitlines())) > C_FILE_LINES]
    assert long == []
    names = {p.stem for p in files if p.suffix == ".pxi"}
    assert names - twins - own == set(), names - twins - own
    included = set(re.findall(r'^include "(\w+)\.pxi"', "\n".join(
        p.read_text("utf-8") for p in files), re.MULTILINE))
    assert included == names  # no include file that the build leaves out
