"""VitePress: its config is ``.vitepress/config.*`` in the docs root (the folder given
to ``vitepress build``: ``--source`` or its ``docs/``). Each built page loads one
JavaScript chunk (``assets/<page>.md.<hash>.lean.js``) whose page data names the
page's ``relativePath`` (its URL, after ``rewrites``) and ``filePath`` (its source
under ``srcDir``): the generator's own record of every page's source. With
``cleanUrls`` the page ``x.html`` is served, and listed, at ``…/x``.

The config is code: ``srcDir``, ``base``, ``cleanUrls`` and ``sitemap.hostname`` are
asked of VitePress itself (its ``resolveConfig``, run by Node from the docs root, with
this run's environment), so presets, imports and environment variables count. Only
where it cannot be asked (no Node, no VitePress installed) are they read from the
file as written, and that is a warning."""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path

from .family import Built, Known, Layout, assigned, join, site_url, stem, url_key
from .jsconfig import load, read_as_written

CONFIGS = ("config.mts", "config.ts", "config.mjs", "config.js", "config.cts", "config.cjs")
_PAGE_DATA = re.compile(rb'"relativePath":"((?:[^"\\]|\\.)*)","filePath":"((?:[^"\\]|\\.)*)"')
_CLEAN = re.compile(r"^\s*cleanUrls\s*:\s*true\b", re.MULTILINE)


def detect(source: Path, generator: str) -> Layout | None:
    for root in (source, source / "docs"):
        config = next((root / ".vitepress" / n for n in CONFIGS
                       if (root / ".vitepress" / n).is_file()), None)
        if config is None:
            continue
        asked = load("VitePress", "vitepress/config.mjs", config, str(root.resolve()))
        if isinstance(asked, dict):
            content = Path(asked["srcDir"])
            hostname = asked["hostname"]
            return Layout("VitePress", content, candidates,
                          known=partial(page_data, content=content),
                          content_from=f"{config.name} srcDir (as VitePress resolves it)",
                          base_url=site_url(hostname, asked["base"]),
                          base_from=f"{config.name} sitemap.hostname {hostname} and base "
                                    f"{asked['base']}, as VitePress resolves them",
                          clean_urls=asked["cleanUrls"],
                          base_unset="" if hostname else
                          f"{config.name} gives no sitemap.hostname once VitePress loads it "
                          "(VitePress writes no sitemap without it; an environment variable "
                          "not set?)")
        content = root / (assigned(config, "srcDir") or ".")
        text = config.read_text("utf-8", errors="replace")
        hostname = _value(text, "hostname")
        said = read_as_written("VitePress", config, asked,
                               "srcDir, base, cleanUrls and sitemap.hostname")
        return Layout("VitePress", content, candidates,
                      known=partial(page_data, content=content, said=said),
                      content_from=f"{config.name} srcDir",
                      base_url=site_url(hostname, _value(text, "base")),
                      base_from=f"{config.name} sitemap.hostname and base",
                      clean_urls=_CLEAN.search(text) is not None,
                      base_unset="" if hostname else _unset(text, config.name))
    return None


def _value(text: str, key: str) -> str | None:
    """A string literal the config assigns to ``key`` anywhere (``sitemap: { hostname:
    '…' }`` sits inside an object)."""
    found = re.search(rf"""\b{key}\s*:\s*(["'`])([^"'`\n]*)\1""", text)
    return found[2] if found else None


def _unset(text: str, name: str) -> str:
    """Why the config gives no site URL: no sitemap option, or a hostname that is no
    string literal (a variable, an environment lookup), which is never evaluated."""
    found = re.search(r"\bhostname\s*:\s*([^,\n}]+)", text)
    if found is None:
        return f"{name} has no sitemap.hostname (VitePress writes no sitemap without it)"
    return f"{name} sets sitemap.hostname to {found[1].strip()}, which sitemapkit does not " \
        "evaluate"


def candidates(path: str) -> list[str]:
    name, directory = stem(path)
    return [join(name, "index.md")] if directory else [name + ".md"]


def page_data(built: Built, content: Path, said: str = "") -> dict[str, list[Known]]:
    """URL key (of the built ``.html`` file) -> the source its chunk names; ``said``:
    why the config was read as written, a warning."""
    if said:
        built.warnings.append(said)
    found: dict[str, list[Known]] = {}
    chunks = sorted((built.out / "assets").glob("*.md.*.lean.js"))
    if not chunks:
        built.notes.append(f"no VitePress page chunks in {built.out / 'assets'}: pages map "
                           "by file name")
    for chunk in chunks:
        try:
            data = chunk.read_bytes()
        except OSError:
            continue
        match = _PAGE_DATA.search(data)
        if match is None:
            continue
        relative, source = (m.decode("utf-8", "replace").replace("\\/", "/") for m in
                            match.groups())
        if not relative.endswith(".md"):
            continue
        key = url_key(relative[: -len(".md")] + ".html")
        found.setdefault(key, []).append(Known(str(content / source)))
    return found
