"""Editing shards the buffer has written, pure reference (C twin: ``ext/_shards.pxi``).

A keys-first partitioned write formats every row once, in its first pass, and keeps
each shard's bytes with its URLs' keys in order. Once the driver has merged the keys,
``drop_urls`` leaves out the URLs an earlier partition has: a copy of the shard with
those blocks cut, no row read or formatted again. Fewer URLs and bytes than the shard
had keep it within every limit it met.
"""

from __future__ import annotations

from ..protocol import SITEMAP_NS, XHTML_NS, XML_DECLARATION
from ..rules.dates import lastmod_key
from ._canonical_py import canonical_lastmod
from ._kernels_py import KEY_BYTES, ascending_keys, pack_keys, unpack_keys

HEAD = f'{XML_DECLARATION}<urlset xmlns="{SITEMAP_NS}">\n'.encode()
HEAD_XHTML = f'{XML_DECLARATION}<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}">\n'.encode()
TAIL = b"</urlset>\n"

_BLOCK_START, _BLOCK_END = b"<url><loc>", b"</url>\n"
_LOC_END = b"</loc><lastmod>"


def sort_keys(data: bytes) -> bytes:
    """Key bytes (``KEY_BYTES`` a key), ascending and each once (the C twin: a radix
    sort on the first word, then equal first words ordered by the second). Two URLs
    the in-process check told apart share a key only when their hashes differ in the
    bit the key shifts off: the driver needs that key once."""
    if len(data) % KEY_BYTES:
        raise ValueError("sort_keys: keys are key bytes (16 bytes a key)")
    return pack_keys(sorted(set(unpack_keys(data))))


def drop_urls(data: bytes, keys: bytes, drop: bytes, text: bool, examples: int,
              out: bytearray | None = None
              ) -> tuple[bytes | memoryview, int, str | None, list[int]]:
    """``data``, a whole shard as the buffer wrote it, without the URLs whose key
    (``keys``: one per URL, in order, 16 bytes a key) is in ``drop`` (ascending).

    Returns the new shard, how many URLs it keeps, the newest lastmod among them (the
    first of equal instants, as the buffer picks it; None for text or when none has
    one), and where in ``data`` the first ``examples`` URLs left out start. A shard
    whose URLs do not match ``keys`` one for one is refused (ValueError).

    The new shard is ``data`` itself when no URL is left out. Otherwise it is new
    bytes, or with ``out`` (at least ``len(data)`` long) a memoryview of ``out``'s
    start: a caller cutting shard after shard reuses its memory instead of having a
    fresh shard's pages mapped each time (a Dask worker's malloc hands freed memory
    straight back to the system).
    """
    if out is not None and type(out) is not bytearray:  # refusals in the C twin's order
        raise TypeError(f"drop_urls: out is a bytearray, not {type(out).__name__}")
    if type(keys) is not bytes or len(keys) % KEY_BYTES:
        raise ValueError("drop_urls: keys are key bytes (16 bytes a key)")
    order = unpack_keys(keys)
    dropped = frozenset(ascending_keys(drop, "drop_urls: drop is", "the drop keys"))
    if out is not None and len(out) < len(data):
        raise ValueError("drop_urls: out is a bytearray at least as long as data")
    start, end = _blocks(data, text)
    pieces, kept, found = [data[:start]], 0, list[int]()
    newest: str | None = None
    newest_key = -(2**62)
    pos = start
    for key in order:
        stop = data.find(b"\n", pos, end) + 1  # no block holds a line end
        if stop == 0:
            raise ValueError("drop_urls: the shard has fewer URLs than keys")
        if not text and (stop - pos < len(_BLOCK_START) + len(_BLOCK_END)
                         or not data.startswith(_BLOCK_START, pos)
                         or not data.endswith(_BLOCK_END, pos, stop)):
            raise ValueError("drop_urls: data is not a whole shard")
        if key in dropped:
            if len(found) < examples:
                found.append(pos)
        else:
            pieces.append(data[pos:stop])
            kept += 1
            lastmod = None if text else _lastmod(data, pos, stop)
            when = newest_key if lastmod is None else lastmod_key(lastmod)  # canonical
            if when > newest_key:
                newest, newest_key = lastmod, when
        pos = stop
    if pos != end:
        raise ValueError("drop_urls: the shard has more URLs than keys")
    if kept == len(order):  # nothing left out: the shard as it is
        return data, kept, newest, found
    pieces.append(data[end:])
    cut = b"".join(pieces)
    if out is None:
        return cut, kept, newest, found
    out[:len(cut)] = cut
    return memoryview(out)[:len(cut)], kept, newest, found


def _blocks(data: bytes, text: bool) -> tuple[int, int]:
    """Where a shard's URL blocks (or a text shard's lines) start and end."""
    if text:
        return 0, len(data)
    head = HEAD_XHTML if data.startswith(HEAD_XHTML) else HEAD
    if not data.startswith(head) or not data.endswith(TAIL):
        raise ValueError("drop_urls: data is not a whole shard")
    return len(head), len(data) - len(TAIL)


def _lastmod(data: bytes, start: int, stop: int) -> str | None:
    """The canonical lastmod of the block ``data[start:stop]`` (it follows the loc,
    which holds no ``<``), or None: a block the buffer did not write may hold any."""
    at = data.find(b"<", start + len(_BLOCK_START), stop)
    if at < 0 or not data.startswith(_LOC_END, at, stop):
        return None
    at += len(_LOC_END)
    end = data.find(b"<", at, stop)
    text = None if end < 0 else data[at:end].decode("latin-1")
    return text if text is not None and canonical_lastmod(text) == text else None
