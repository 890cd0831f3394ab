from collections.abc import Iterator

ADDED: int
FULL: int
SLOW: int
DUPLICATE: int
EXHAUSTED: int
NS: str
XHTML_NS: str
HEAD: bytes
HEAD_XHTML: bytes
TAIL: bytes

class LocSet:
    nbytes: int
    def add(self, loc: str) -> bool: ...
    def __len__(self) -> int: ...

class UrlsetBuffer:
    prefix: str
    max_urls: int
    max_bytes: int
    count: int
    nbytes: int
    consumed: int
    unused_fields: int
    seen: LocSet
    future_limit: int
    text: bool
    newest_lastmod: str | None
    def __init__(
        self, prefix: str, max_urls: int, max_bytes: int, seen: LocSet, future_limit: int,
        text: bool = ...,
    ) -> None: ...
    def reset(self) -> None: ...
    def feed(self, entries: Iterator[object]) -> tuple[int, object]: ...
    def offer(self, entry: object) -> int: ...
    def add(
        self, loc: str, lastmod: str | None, changefreq: str | None, priority: str | None,
        alternates: tuple[tuple[str, str], ...] | None,
    ) -> int: ...
    def getvalue(self) -> bytes: ...
