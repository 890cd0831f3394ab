"""Figures the reliability suite reports (printed by tests/reliability/conftest.py)."""

from __future__ import annotations

from collections import Counter

FIGURES: dict[str, Counter[str] | str] = {}
