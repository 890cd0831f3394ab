"""MkDocs, ProperDocs and Zensical: ``X/index.html`` or ``X.html`` comes from
``docs_dir/X.md``, ``X/index.md`` or ``X/README.md``. Zensical may be configured by
``mkdocs.yml``; the pages' generator meta says which of them built the site."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from .family import Built, Layout, join, read_config, site_url, stem

CONFIGS = {"mkdocs.yml": "MkDocs", "properdocs.yml": "ProperDocs", "zensical.toml": "Zensical"}


def detect(source: Path, generator: str) -> Layout | None:
    for name, family in CONFIGS.items():
        if (source / name).is_file():
            config = read_config(source / name)
            project = config.get("project", config) if name.endswith(".toml") else config
            if generator.startswith("zensical"):
                family = "Zensical"
            blog = blog_dir(project.get("plugins"))
            return Layout(family, source / str(project.get("docs_dir", "docs")), candidates,
                          base_url=site_url(project.get("site_url")),
                          base_from=f"{name} site_url",
                          made_lists=None if blog is None else partial(blog_views, blog))
    return None


def candidates(path: str) -> list[str]:
    name, directory = stem(path)
    if not directory:
        return [name + ".md"]
    own = [name + ".md"] if name else []
    return own + [join(name, "index.md"), join(name, "README.md")]


def blog_views(folder: str, built: Built) -> frozenset[str]:
    """Every page under the blog's folder (those without a source are its views)."""
    return frozenset(key for key in built.keys
                     if not folder or key == folder or key.startswith(folder + "/"))


def blog_dir(plugins: object) -> str | None:
    """The folder of Material's blog plugin (``blog_dir``, ``blog`` by default), whose
    pages without a source are its index pages, archive and category views; None
    without the plugin."""
    entries = list(plugins.items()) if isinstance(plugins, dict) else \
        [next(iter(e.items())) if isinstance(e, dict) and e else (e, None)
         for e in plugins] if isinstance(plugins, list) else []
    for name, settings in entries:
        if name == "blog":
            folder = str((settings or {}).get("blog_dir", "blog")) \
                if isinstance(settings, dict) or settings is None else "blog"
            return "" if folder.strip("/") == "." else folder.strip("/")
    return None
