"""The surface a user touches, run the way a user types it: a real subprocess each time.

One test (or more) per item of the issue "The surface a user touches"; the README's
command lines are checked against each command's --help.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from docs_projects import mkdocs_build, mkdocs_project, sphinx_build, sphinx_project

from sitemapkit import write_sitemaps
from sitemapkit.cli import progress_line
from sitemapkit.protocol_rules import RULES
from sitemapkit.rules import RULES as ENTRY_RULES
from sitemapkit.validate.findings import RULE_OF

ROOT = Path(__file__).resolve().parent.parent
SITE = "https://example.com/"
COMMANDS = ("write", "site", "validate", "index", "diff", "rules", "doctor")


def cli(*args: str, cwd: Path | None = None, stdin: str | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitemapkit", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def urls_file(tmp: Path, n: int = 3) -> Path:
    path = tmp / "urls.txt"
    path.write_text("".join(f"{SITE}p{i}\n" for i in range(n)))
    return path


def mike_tree(tmp: Path, versions: tuple[str, ...] = ("1.0", "2.0", "2.1")) -> Path:
    """A mike gh-pages layout: one sitemap.xml per version, versions.json at the root."""
    root = tmp / "pages"
    for v in versions:
        write_sitemaps([f"{SITE}{v}/", f"{SITE}{v}/guide/"], root / v, f"{SITE}{v}/")
    (root / "versions.json").write_text(json.dumps(
        [{"version": v, "title": v, "aliases": []} for v in versions]))
    return root


# --- 1. which build is active ------------------------------------------------------
def test_version_and_doctor_name_the_build(pytestconfig):
    pure = cli("--version", env={"SITEMAPKIT_NO_EXTENSIONS": "1"})
    assert pure.stdout.startswith("sitemapkit 0.1.0 (pure-Python build")
    if pytestconfig.getoption("c_extensions"):
        active = cli("--version", env={"SITEMAPKIT_NO_EXTENSIONS": ""})
        assert active.stdout.strip() == "sitemapkit 0.1.0 (C accelerator: active)"
    doctor = cli("doctor", env={"SITEMAPKIT_NO_EXTENSIONS": "1"})
    assert doctor.returncode == 0
    lines = doctor.stdout.splitlines()
    assert lines[0].startswith("sitemapkit 0.1.0: pure-Python build")
    assert lines[1].startswith("python 3.") and lines[2].startswith("git: git version")
    assert any(line.startswith("isal: ") and "not installed" not in line for line in lines)


def test_a_missing_accelerator_is_a_note_on_the_summary(tmp_path, monkeypatch):
    done = cli("write", str(urls_file(tmp_path)), "-o", str(tmp_path / "out"), "--base-url",
               SITE, env={"SITEMAPKIT_NO_EXTENSIONS": "1"})
    assert done.returncode == 0
    assert "sitemapkit: note: pure-Python build" in done.stderr and "warning" not in done.stderr
    from sitemapkit import _urlset
    from sitemapkit.publish import pipeline as publish
    monkeypatch.setattr(_urlset, "USE_EXTENSIONS", False)
    monkeypatch.setattr(_urlset, "NO_EXTENSIONS", False)
    assert "was not compiled" in _urlset.build_description()
    monkeypatch.setattr(publish, "USE_EXTENSIONS", False)
    result = write_sitemaps([SITE], tmp_path / "p", SITE)
    assert publish.summary_line(result, 1, time.perf_counter()).endswith(
        "; pure-Python build (the C accelerator is not active)")


# --- 2-4. packaging metadata -------------------------------------------------------
def test_extras_license_and_the_generators_that_load_the_plugin():
    pyproject = (ROOT / "pyproject.toml").read_text()  # (tomllib needs Python 3.11)
    assert 'mkdocs = ["mkdocs>=1.5,<2"]' in pyproject  # 2.0 has no plugin system
    assert re.search(r'^properdocs = \["properdocs>=', pyproject, flags=re.M)
    assert re.search(r'^license = "MIT"$', pyproject, flags=re.M)
    assert "mkdocs>=1.5\"" not in pyproject  # no extra admits 2.0
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_properdocs_loads_the_plugin_and_messages_name_its_config_file(tmp_path):
    repo = mkdocs_project(tmp_path / "p", {"index.md": "# Home\n", "a.md": "# A\n"},
                          when="2024-04-04T04:04:04+02:00")
    os.rename(repo.root / "mkdocs.yml", repo.root / "properdocs.yml")
    repo.commit("2024-05-05T05:05:05+02:00", message="properdocs")
    build = [sys.executable, "-m", "properdocs", "build", "--strict"]
    done = subprocess.run(build, cwd=repo.root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "sitemapkit: 2 URLs in 1 shard, 2 with lastmod -> site/sitemap.xml" in done.stderr
    assert "2024-04-04T04:04:04+02:00" in (repo.root / "site/sitemap.xml").read_text()
    config = (repo.root / "properdocs.yml").read_text().replace("site_url: https://example.com/",
                                                                "")
    (repo.root / "properdocs.yml").write_text(config)
    failed = subprocess.run(build, cwd=repo.root, capture_output=True, text=True, timeout=300)
    assert failed.returncode != 0
    assert "site_url is required in properdocs.yml" in failed.stderr


# --- 5. rules users can look up ----------------------------------------------------
def test_every_rule_a_message_cites_can_be_looked_up():
    cited = {int(n) for text in ENTRY_RULES.values()
             for n in re.findall(r"\d+", text.rpartition("(sitemapkit rules ")[2])}
    assert cited | set(RULE_OF.values()) <= set(RULES)
    one = cli("rules", "10")
    assert one.returncode == 0
    assert one.stdout.startswith("rule 10 (loc-too-long): at most 2,047 characters")
    assert "https://www.sitemaps.org/protocol.html" in one.stdout
    by_id = cli("rules", "alternate-cluster")
    assert by_id.stdout.startswith("rule 36 (") and "hreflang-cluster" in by_id.stdout
    assert cli("rules").stdout.count("\nrule ") == len(RULES) - 1
    unknown = cli("rules", "nope")
    assert unknown.returncode == 2 and "no rule 'nope'" in unknown.stderr


def test_a_write_error_names_the_rule_to_look_up(tmp_path):
    done = cli("write", "-", "-o", str(tmp_path / "o"), "--base-url", SITE, stdin="/relative\n")
    assert done.returncode == 1 and "(sitemapkit rules 9)" in done.stderr


# --- 6. help -----------------------------------------------------------------------
@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_has_one_line_of_help_with_its_default(command):
    from sitemapkit.cli import _parser
    sub = next(a for a in _parser()._actions if isinstance(a, type(_parser()._subparsers
                                                                     ._group_actions[0])))
    parser = sub.choices[command]
    for action in parser._actions:
        if action.dest == "help":
            continue
        assert action.help, f"{command} {action.option_strings or action.dest} has no help"
    shown = cli(command, "--help").stdout
    assert "``" not in shown and ":term:" not in shown
    if command == "write":
        assert "(default: 50000)" in shown and "(default: auto)" in shown
    assert "``" not in cli("--help").stdout


# --- 7-10. index and validate on per-version sites ---------------------------------
def test_index_into_an_existing_directory_with_several_versions(tmp_path):
    root = mike_tree(tmp_path)
    done = cli("index", str(root), "-o", str(root), "--base-url", SITE,
               "--versions", "1.0", "2.*", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (root / "sitemap.xml").is_file()
    assert done.stdout.startswith("3 sitemaps from 3 directories (1.0, 2.0, 2.1) -> "
                                  "pages/sitemap.xml")
    one = cli("index", str(root), "-o", str(root), "--base-url", SITE, "--versions", "2.1")
    assert one.stdout.startswith("1 sitemap from 1 directory")


def test_index_names_the_broken_child(tmp_path):
    root = mike_tree(tmp_path)
    (root / "2.0/sitemap.xml").write_text((root / "2.0/sitemap.xml").read_text()
                                          .replace("<loc>", "<loc> ", 1))
    done = cli("index", str(root), "-o", str(root), "--base-url", SITE, cwd=tmp_path)
    assert done.returncode == 1
    finding = next(line for line in done.stderr.splitlines() if "[rule" in line)
    assert finding.startswith("pages/2.0/sitemap.xml:"), done.stderr


def test_validate_an_index_without_a_base_url_maps_beside_the_index(tmp_path):
    root = mike_tree(tmp_path)
    assert cli("index", str(root), "-o", str(root), "--base-url", SITE).returncode == 0
    done = cli("validate", str(root / "sitemap.xml"))
    assert done.returncode == 0, done.stdout
    assert "nested-index" not in done.stdout and "4 files" in done.stdout


def test_validate_an_output_directory_skips_the_page_check_in_one_line(tmp_path):
    cli("write", str(urls_file(tmp_path, 300)), "-o", str(tmp_path / "out"), "--base-url", SITE)
    done = cli("validate", str(tmp_path / "out"), "--base-url", SITE)
    assert done.returncode == 0
    assert done.stdout.count("holds no HTML pages") == 1 and "page-missing" not in done.stdout


# --- 12. Ctrl-C ----------------------------------------------------------------------
def test_ctrl_c_prints_one_line_and_exits_130(tmp_path):
    out = tmp_path / "out"
    cli("write", str(urls_file(tmp_path)), "-o", str(out), "--base-url", SITE)
    before = (out / "sitemap.xml").read_bytes()
    fifo = tmp_path / "urls.fifo"  # its open returns here once the writer has opened it:
    os.mkfifo(fifo)  # the event that says the command is running, never a time
    proc = subprocess.Popen([sys.executable, "-m", "sitemapkit", "write", str(fifo), "-o",
                             str(out), "--base-url", SITE], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    with open(fifo, "w") as feed:
        feed.write(f"{SITE}new\n")
        feed.flush()  # it reads on, waiting for more input
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.strip().splitlines() == [
        f"sitemapkit: interrupted; the previous sitemaps in {out} are unchanged"]
    assert (out / "sitemap.xml").read_bytes() == before


# --- 13. small things ----------------------------------------------------------------
def test_small_things(tmp_path):
    urls = str(urls_file(tmp_path))
    bad = cli("write", urls, "-o", str(tmp_path / "a"), "--base-url", SITE,
              "--shard-pattern", "{x}.xml.gz")
    assert bad.returncode == 2 and "unknown field {x}" in bad.stderr
    frag = cli("write", urls, "-o", str(tmp_path / "b"), "--base-url", SITE + "docs/#top")
    assert frag.returncode == 2 and "#fragment" in frag.stderr
    many = tmp_path / "many.txt"
    many.write_text("".join(f"{SITE}p{i}\n" for i in range(120)))
    plain = cli("write", str(many), "-o", str(tmp_path / "c"), "--base-url", SITE,
                "--max-urls", "50", "--shard-pattern", "part-{number:03d}.xml.gz")
    assert plain.returncode == 0 and "has no {digest}" in plain.stderr
    one = cli("write", "-", "-o", "site", "--base-url", SITE, cwd=tmp_path, stdin=SITE + "\n")
    assert one.stdout.startswith("1 URL in 1 shard, 0 skipped, 0 duplicates -> "
                                 "site/sitemap.xml (")
    assert progress_line(500_000, 2.0, 25_000_000, 100_000_000) == \
        "500,000 entries read (250,000/s), 25% of 100.0 MB"
    empty = tmp_path / "empty"
    empty.mkdir()
    shown = cli("validate", ".", cwd=empty).stdout
    assert f"{empty}: error [rule 7 empty]" in shown


# --- 14. validator hints ----------------------------------------------------------------
def test_truncated_gzip_and_a_missing_namespace_say_so(tmp_path):
    write_sitemaps([f"{SITE}p{i}" for i in range(2000)], tmp_path / "t", SITE)
    whole = gzip.compress((tmp_path / "t/sitemap.xml").read_bytes())
    (tmp_path / "t/sitemap.xml").unlink()
    (tmp_path / "t/sitemap.xml.gz").write_bytes(whole[: len(whole) // 2])
    done = cli("validate", str(tmp_path / "t"))
    assert "truncated gzip stream" in done.stdout and "usual cause" not in done.stdout
    urls = int(re.search(r"([\d,]+) URLs", done.stdout.splitlines()[-1])[1].replace(",", ""))
    assert 0 < urls < 2000
    bare = tmp_path / "n"
    bare.mkdir()
    (bare / "sitemap.xml").write_text("<?xml version='1.0' encoding='UTF-8'?>\n<urlset>"
                                      + "".join(f"<url><loc>{SITE}{i}</loc></url>"
                                                for i in range(5)) + "</urlset>")
    shown = cli("validate", str(bare)).stdout
    assert "xmlns is missing" in shown and "only <url> is allowed" not in shown
    assert shown.count("[rule 4 namespace]") == 1


# --- 15. missing base URL, one behaviour; one prefix, summary first -------------------
def test_missing_base_url_fails_mkdocs_and_sphinx_alike(tmp_path):
    repo = mkdocs_project(tmp_path / "m", {"index.md": "# Home\n"}, {"site_url": None})
    done = mkdocs_build(repo.root, check=False)
    assert done.returncode != 0 and "site_url is required in mkdocs.yml" in done.stderr
    sphinx = sphinx_project(tmp_path / "s", {"index.rst": "Home\n====\n"}, base="")
    built = sphinx_build(sphinx.root, "html", "-W", check=False)  # a warning there, as
    assert built.returncode != 0 and "no base URL" in built.stderr  # sphinx-sitemap's


def test_validate_line_has_one_prefix_and_follows_the_summary(tmp_path):
    repo = mkdocs_project(tmp_path / "m", {"index.md": "# Home\n"},
                          {"plugins": [{"sitemapkit": {"validate": True}}]})
    err = mkdocs_build(repo.root, "--strict").stderr
    assert "sitemapkit: sitemapkit" not in err
    assert err.index("sitemapkit: 1 URL in 1 shard") < err.index("sitemapkit: validate: valid")


# --- 16. Sphinx dirhtml with a space in a file name ------------------------------------
def test_dirhtml_canonical_with_a_raw_space_is_the_same_url(tmp_path):
    repo = sphinx_project(tmp_path / "p", {
        "index.rst": "Home\n====\n\n.. toctree::\n\n   a b\n", "a b.rst": "A b\n===\n"},
        extra="sitemapkit_validate = 'strict'")
    done = sphinx_build(repo.root, "dirhtml", "-W", builder="dirhtml")
    assert "validate: valid" in done.stdout
    assert "a%20b/" in (repo.root / "_build/dirhtml/sitemap.xml").read_text()


# --- the README matches the CLI ----------------------------------------------------------
def readme_command_lines() -> list[list[str]]:
    """Every sitemapkit command line of the README and the docs site."""
    lines: list[list[str]] = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text()
        for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
            for line in block.replace("\\\n", " ").splitlines():
                for part in line.split(" #", 1)[0].split("&&"):
                    if part.strip().startswith("sitemapkit "):
                        lines.append(part.split())
        lines += [m.split() for m in
                  re.findall(r"`(sitemapkit (?:write|site|validate|index)[^`]*)`", text)]
    return lines


def test_every_flag_the_readme_shows_exists():
    lines = readme_command_lines()
    assert len(lines) >= 20
    helps = {c: cli(c, "--help").stdout for c in COMMANDS}
    for words in lines:
        command = words[1]
        if command not in helps:
            continue
        for word in words[2:]:
            flag = word.split("=", 1)[0].strip("[]").rstrip(".,")
            if flag.startswith("--") or re.fullmatch(r"-[a-z]", flag):
                assert re.search(rf"(^|[\s,]){re.escape(flag)}\b", helps[command]), \
                    f"README: `{' '.join(words)}` uses {flag}, which `{command} --help` lacks"
