"""Public home of git dates (``sitemapkit.gitdates``); the pass lives in
``sitemapkit.sources.gitdates`` with the other sources of page facts."""

from __future__ import annotations

from .sources.gitdates import POLICIES, GitDates, GitDatesError, GitOptions, git_dates

__all__ = ["POLICIES", "GitDates", "GitDatesError", "GitOptions", "git_dates"]
