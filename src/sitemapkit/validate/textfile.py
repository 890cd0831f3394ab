"""Text sitemaps: one absolute URL per line, nothing else (rule 32)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..protocol import MAX_URLS
from .findings import Severity
from .reader import Content
from .state import FileResult, RunState
from .urls import check_url, origin


def check_text(path: Path, shown_name: str, state: RunState, scope: str | None) -> FileResult:
    result = FileResult(path, "text")
    file_no = state.file_number(shown_name, path, scope)
    line_no = 0

    def say(severity: Severity, id_: str, message: str) -> None:
        state.report.add(severity, id_, shown_name, line_no or None, message)
        if severity == "error":
            result.errors += 1

    first_origin: str | None = None
    for raw in _lines(Content(path, state.max_bytes, say, state.file_note(shown_name))):
        line_no += 1
        try:
            line = raw.decode("utf-8").removesuffix("\r")
        except UnicodeDecodeError:
            say("error", "encoding", "this line is not valid UTF-8")
            continue
        if line_no == 1 and line.startswith("\ufeff"):
            say("warning", "bom", "starts with a UTF-8 byte-order mark")
            line = line[1:]
        if not line.strip():
            say("warning", "text-blank-line", "a blank line")
            continue
        if line != line.strip():
            say("error", "text-line", f"{line!r} has surrounding whitespace")
            line = line.strip()
        if line.startswith("<"):
            say("error", "text-line", "markup in a text sitemap; only URLs are allowed")
            break
        result.urls += 1
        key = check_url(line, say, "line")
        if key is None:
            continue
        here = origin(key)
        first_origin = first_origin or here
        if here != first_origin:
            say("error", "one-host", f"{line!r} is on {here}, but the first URL is on "
                f"{first_origin}; one scheme, host and port per file")
        if scope and not key.startswith(scope):
            say("error", "scope", f"{line!r} is not at or below {scope}")
        state.check_duplicate(key, file_no, say, "URL")
        if state.page_check is not None:
            state.page_check(key, say)
    line_no = 0
    if result.urls > MAX_URLS:
        say("error", "too-many-urls", f"{result.urls:,} URLs; at most {MAX_URLS:,} per sitemap")
    if result.urls == 0 and not result.errors:
        say("error", "empty", "no URLs")
    state.report.urls += result.urls
    return result


def _lines(content: Content) -> Iterator[bytes]:
    """Lines (without the newline) across chunk boundaries; a last line may lack one."""
    pending = b""
    for chunk in content:
        *lines, pending = (pending + chunk).split(b"\n")
        yield from lines
    if pending:
        yield pending
