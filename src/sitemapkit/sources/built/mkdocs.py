"""MkDocs, ProperDocs and Zensical: ``X/index.html`` or ``X.html`` comes from
``docs_dir/X.md``, ``X/index.md`` or ``X/README.md``. Zensical may be configured by
``mkdocs.yml``; the pages' generator meta says which of them built the site."""

from __future__ import annotations

from pathlib import Path

from .family import Layout, join, read_config, site_url, stem

CONFIGS = {"mkdocs.yml": "MkDocs", "properdocs.yml": "ProperDocs", "zensical.toml": "Zensical"}


def detect(source: Path, generator: str) -> Layout | None:
    for name, family in CONFIGS.items():
        if (source / name).is_file():
            config = read_config(source / name)
            project = config.get("project", config) if name.endswith(".toml") else config
            if generator.startswith("zensical"):
                family = "Zensical"
            return Layout(family, source / str(project.get("docs_dir", "docs")), candidates,
                          base_url=site_url(project.get("site_url")),
                          base_from=f"{name} site_url")
    return None


def candidates(path: str) -> list[str]:
    name, directory = stem(path)
    if not directory:
        return [name + ".md"]
    own = [name + ".md"] if name else []
    return own + [join(name, "index.md"), join(name, "README.md")]
