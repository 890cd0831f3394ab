"""The state of one sitemap file under check (``FileState``): its parser, the entry it is
in and where findings go. The file check, its entry checks and the scan feed share it,
so each of them imports this and none imports the file check back."""

from __future__ import annotations

from pathlib import Path
from xml.parsers import expat

from .findings import Severity
from .state import FileResult, RunState

SEP = " "


def new_parser() -> expat.XMLParserType:
    """The parser a file is read with (and read on with, past a broken spot)."""
    parser = expat.ParserCreate("UTF-8", SEP)
    parser.buffer_text = True
    parser.buffer_size = 1 << 16
    return parser


class _Ended:
    """Where a finished parse stopped (all a finished check still needs of its parser)."""

    def __init__(self, line: int) -> None:
        self.CurrentLineNumber = line
        self.CurrentByteIndex = -1


class FileState:
    """What is known of one file while it is read, and where its findings go: the part
    of a file check that the entry checks and the scan feed share."""

    def __init__(self, path: Path, shown_name: str, state: RunState,
                 scope: str | None) -> None:
        self.path, self.name, self.state = path, shown_name, state
        self.scope = scope  # URL prefix every loc must start with (rules 28, 34), if known
        self.file_no = state.file_number(shown_name, path, scope)
        self.result = FileResult(path, "broken")
        self.parser: expat.XMLParserType | _Ended = new_parser()
        self.depth = 0
        self.kind = ""
        self.order = 0
        self.field: str | None = None
        self.text: list[str] = []
        self.loose: list[str] = []  # text outside value elements, until the next tag
        self.entry_closed_at = -1  # parser byte index of the latest </url> or </sitemap>
        self.entry: dict[str, str] = {}
        self.loc_count = 0
        self.links: list[tuple[str, str | None, int]] = []  # hreflang, href key, line
        self.entry_line = 0
        self.skip_depth = 0  # inside an element whose content is not checked further
        self.link_depth = 0  # inside an xhtml:link (which must be empty)
        self.ext_depth = 0  # inside a known extension's element (image:image), at this depth
        self.ext_children: set[str] = set()  # the children of its namespace it has
        self._last = ""  # the previous child element, for order messages
        self.namespace_said = False  # one message for entries outside the namespace

    def line(self) -> int:
        return self.parser.CurrentLineNumber

    def say(self, severity: Severity, id_: str, message: str) -> None:
        self.state.report.add(severity, id_, self.name, self.parser.CurrentLineNumber, message)
        if severity == "error":
            self.result.errors += 1

    def say_at_entry(self, severity: Severity, id_: str, message: str) -> None:
        self.state.report.add(severity, id_, self.name, self.entry_line, message)
        if severity == "error":
            self.result.errors += 1
