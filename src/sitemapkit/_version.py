"""The package version, in one place: the root, the CLI, the plugins and the build read it."""

__version__ = "0.1.0"
