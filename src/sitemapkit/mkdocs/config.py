"""MkDocs config for the plugin, generated from ``sitemapkit.options`` (one declaration
per option). ``enabled`` comes first; everything is optional."""

from __future__ import annotations

from typing import Any

from mkdocs.config import config_options as c
from mkdocs.config.base import BaseConfigOption, Config

from ..options import MKDOCS, Option, for_host


def config_option(option: Option) -> BaseConfigOption[Any]:
    """The MkDocs config option for one declared option."""
    default = option.default_for(MKDOCS)
    if option.choices:
        choice = c.Choice(option.choices) if default is None else \
            c.Choice(option.choices, default=default)
        return c.Optional(choice) if default is None else choice
    if option.item is not None:
        return c.ListOfItems(c.Type(option.item), default=list(default))
    types = tuple(t for t in option.types if t is not type(None))
    kind: type | tuple[type, ...] = types[0] if len(types) == 1 else types
    if default is None:
        return c.Optional(c.Type(kind))
    return c.Type(kind, default=default)


class SitemapConfig(Config):  # type: ignore[no-untyped-call]
    # ``validate`` is a documented key, but ``Config.validate`` is MkDocs' own method, so
    # no option is a class attribute: the schema is given by name (read values as
    # ``config["name"]``).
    _schema = tuple((option.name, config_option(option)) for option in for_host(MKDOCS))
