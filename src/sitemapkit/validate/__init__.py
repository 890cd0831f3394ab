"""``sitemapkit validate``: every rule of protocol-rules.md the files can show."""

from __future__ import annotations

from ..errors import UsageError
from .findings import RULE_OF, Finding, Report
from .site import ValidateOptions, validate

__all__ = ["RULE_OF", "Finding", "Report", "UsageError", "ValidateOptions", "validate"]
