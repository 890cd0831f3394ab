"""Public home of git dates (``sitemapkit.gitdates``); the pass lives in
``sitemapkit.sources.git.dates`` with the other sources of page facts."""

from __future__ import annotations

from .sources.git.dates import POLICIES, GitDates, GitDatesError, GitOptions, git_dates

__all__ = ["POLICIES", "GitDates", "GitDatesError", "GitOptions", "git_dates"]
