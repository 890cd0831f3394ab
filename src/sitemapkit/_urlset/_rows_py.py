"""Reference twin of the hot unit's line reader: which input lines the fast path reads
straight from bytes, and their fields.

``UrlsetBuffer.feed_lines`` takes a block of complete lines and, per line, either
finds its fields here and offers them to the fast path, or answers SLOW for the
line: the Python readers (``sources.inputs``) then parse exactly that line as they
always do. So this module only has to recognise the lines whose meaning is plain:
CSV/TSV cells bare or quoted whole on one line (csv's quoting: doubled quotes and
separators inside), JSON objects of the five keys (string escapes decoded). Anything
else (a quote elsewhere, a record over several lines, a byte-order mark, padding
that ``str.strip()`` would remove, escapes in a JSON key, a wrong field count) is SLOW.
``ext/_rows.pxi`` makes the same decisions in C.
``_cells_py`` reads the rows of Arrow text columns with the same cell checks.
"""

from __future__ import annotations

TEXT, TABLE, JSONL = 0, 1, 2  # line layouts
# What offering a row answers (the C twin's enum has the same values).
ADDED, FULL, SLOW, DUPLICATE, EXHAUSTED = 0, 1, 2, 3, 4
# What str.strip() removes from ASCII text: a field with it at either end is SLOW.
STRIPPED = frozenset(b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f")
# ...and above 0x7F, in UTF-8 (every ``str.isspace()`` character; a test checks them):
# a loc that starts or ends with one is SLOW, as the reader strips it.
WIDE_SPACES = tuple(chr(c).encode() for c in (
    0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000))
LOC_BUFFER = 4096  # the C twin's buffer for one field: a longer quoted field is SLOW
JSON_SPACE = frozenset(b" \t")
JSON_KEYS = (b"loc", b"lastmod", b"changefreq", b"priority", b"alternates")
QUOTE, BACKSLASH = 0x22, 0x5C

# (loc, lastmod, changefreq, priority, where the alternates array is in the line)
Fields = tuple[bytes | None, bytes | None, bytes | None, object, tuple[int, int] | None]


def split_line(line: bytes, layout: int, sep: int, columns: tuple[int, ...],
               width: int) -> Fields | None:
    """(loc, lastmod, changefreq, priority, alternates span) of a plain, non-empty line
    (without its line ending), or None for SLOW. Values are bytes; a JSON number
    priority is an int or float, as ``json`` gives it; the alternates are only located
    (``UrlsetBuffer`` compares their bytes with the ones the rules checked last)."""
    if layout == TEXT:
        return None if _padded(line) else (line, None, None, None, None)
    if layout == TABLE:
        return _table(line, sep, columns, width)
    return _json(line)


def _padded(field: bytes) -> bool:
    """Whether ``str.strip()`` would change the field's text."""
    return bool(field) and (field[0] in STRIPPED or field[-1] in STRIPPED
                            or (field[-1] >= 0x80 and field.endswith(WIDE_SPACES))
                            or (field[0] >= 0x80 and field.startswith(WIDE_SPACES)))


def _table(line: bytes, sep: int, columns: tuple[int, ...], width: int) -> Fields | None:
    if QUOTE in line:
        quoted = _quoted_cells(line, sep, width)
        if quoted is None:
            return None
        cells = quoted
    else:
        cells = line.split(bytes((sep,)))
        if len(cells) != width:
            return None
    out: list[bytes | None] = []
    for at in columns:
        cell = cells[at] if at >= 0 else b""
        if _padded(cell) or (cell and at != columns[0] and not cell.isascii()):
            return None
        out.append(cell or None)
    if out[0] is None:
        return None
    return out[0], out[1], out[2], out[3], None


def _quoted_cells(line: bytes, sep: int, width: int) -> list[bytes] | None:
    """The ``width`` cells of a one-line row as ``csv.reader`` reads them, when every
    quote in it is quoting: a cell that starts with a quote runs to the next quote not
    doubled, which must end the line or meet a separator; its doubled quotes are one.
    None (SLOW) for a quote inside a bare cell, text after a closing quote, a record that
    runs past the line, a quoted cell over ``LOC_BUFFER`` bytes, another cell count."""
    cells: list[bytes] = []
    i, n, bare_sep = 0, len(line), bytes((sep,))
    while True:
        if len(cells) == width:
            return None
        if i < n and line[i] == QUOTE:
            j = i + 1
            while True:
                j = line.find(b'"', j)
                if j < 0:
                    return None  # the record goes on past this line
                if j + 1 < n and line[j + 1] == QUOTE:
                    j += 2
                    continue
                break
            if j - i - 1 > LOC_BUFFER:
                return None
            cells.append(line[i + 1:j].replace(b'""', b'"'))
            end = j + 1
            if end < n and line[end] != sep:
                return None
        else:
            end = line.find(bare_sep, i)
            if end < 0:
                end = n
            if line.find(b'"', i, end) >= 0:
                return None
            cells.append(line[i:end])
        if end >= n:
            return cells if len(cells) == width else None
        i = end + 1


def _json(line: bytes) -> Fields | None:
    """A one-level object with only the five keys, string values (escapes decoded),
    a plain number or a string for priority, an array of plain strings for
    alternates, null for absent; or a bare string."""
    n = len(line)
    i = _skip(line, 0)
    if i < n and line[i] == QUOTE:
        bare, i = _string(line, i)
        return (bare, None, None, None, None) if bare and _skip(line, i) == n else None
    if i >= n or line[i] != 0x7B:  # {
        return None
    values: dict[bytes, object] = {}
    i = _skip(line, i + 1)
    while True:
        key, after = _string(line, i)
        if key not in JSON_KEYS or key in values or BACKSLASH in line[i:after]:
            return None
        i = after
        i = _skip(line, i)
        if i >= n or line[i] != 0x3A:  # :
            return None
        i = _skip(line, i + 1)
        value: object
        if key == b"alternates" and not line.startswith(b"null", i):
            end = _pairs_end(line, i)
            value, i = (i, end), end
        else:
            value, i = _value(line, i, key == b"priority")
        if i < 0:
            return None
        values[key] = value
        i = _skip(line, i)
        if i < n and line[i] == 0x2C:  # ,
            i = _skip(line, i + 1)
            continue
        if i < n and line[i] == 0x7D and _skip(line, i + 1) == n:  # }
            break
        return None
    loc, lastmod, changefreq = (values.get(b"loc"), values.get(b"lastmod"),
                                values.get(b"changefreq"))
    if not isinstance(loc, bytes) or not loc:
        return None
    for other in (lastmod, changefreq, values.get(b"priority")):
        if isinstance(other, bytes) and not other.isascii():
            return None
    return (loc, lastmod, changefreq, values.get(b"priority"),  # type: ignore[return-value]
            values.get(b"alternates"))


def _pairs_end(line: bytes, i: int) -> int:
    """The end of an alternates array at ``i``: brackets at most two deep, commas,
    spaces and strings without escapes or control characters only; -1 otherwise. Its
    bytes are all the fast path compares; the rules check what they mean."""
    n = len(line)
    if i >= n or line[i] != 0x5B:  # [
        return -1
    depth = 0
    while i < n:
        c = line[i]
        if c == 0x5B:
            depth += 1
            if depth > 2:
                return -1
            i += 1
        elif c == 0x5D:  # ]
            depth -= 1
            i += 1
            if depth == 0:
                return i
        elif c == QUOTE and depth:
            j = i + 1
            while j < n and line[j] != QUOTE:
                if line[j] < 0x20 or line[j] == BACKSLASH:
                    return -1
                j += 1
            if j >= n:
                return -1
            i = j + 1
        elif c in b", \t" and depth:
            i += 1
        else:
            return -1
    return -1


def _skip(line: bytes, i: int) -> int:
    while i < len(line) and line[i] in JSON_SPACE:
        i += 1
    return i


def _string(line: bytes, i: int) -> tuple[bytes | None, int]:
    """A JSON string: (its text as UTF-8, the index after it), or (None, past the end)
    for a control character, a bad escape, a lone surrogate or no closing quote."""
    n = len(line)
    if i >= n or line[i] != QUOTE:
        return None, n + 1
    j, escaped = i + 1, False
    while j < n and line[j] != QUOTE:
        if line[j] < 0x20:
            return None, n + 1
        if line[j] == BACKSLASH:
            escaped = True
            j += 1
        j += 1
    if j >= n:
        return None, n + 1
    text: bytes | None = line[i + 1:j]
    if escaped:
        text = _unescape(line[i + 1:j])
    return (text, j + 1) if text is not None else (None, n + 1)


_SIMPLE = {0x22: b'"', 0x5C: b"\\", 0x2F: b"/", 0x62: b"\b", 0x66: b"\f", 0x6E: b"\n",
           0x72: b"\r", 0x74: b"\t"}


def _unescape(body: bytes) -> bytes | None:
    """JSON escapes to UTF-8 (surrogate pairs joined); None for anything else."""
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c != BACKSLASH:
            out.append(c)
            i += 1
            continue
        if i + 1 >= n:
            return None
        e = body[i + 1]
        if e in _SIMPLE:
            out += _SIMPLE[e]
            i += 2
            continue
        code = _hex4(body, i + 2) if e == 0x75 else -1  # u
        if code < 0:
            return None
        i += 6
        if 0xD800 <= code <= 0xDBFF:
            low = _hex4(body, i + 2) if body[i:i + 2] == b"\\u" else -1
            if not 0xDC00 <= low <= 0xDFFF:
                return None
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            i += 6
        elif 0xDC00 <= code <= 0xDFFF:
            return None
        out += chr(code).encode("utf-8")
    return bytes(out)


def _hex4(body: bytes, i: int) -> int:
    digits = body[i:i + 4]
    if len(digits) != 4 or not all(d in b"0123456789abcdefABCDEF" for d in digits):
        return -1
    return int(digits, 16)


def _value(line: bytes, i: int, number_ok: bool) -> tuple[object, int]:
    """A string, null, or (for priority) a plain number; (value, after) or (_, -1)."""
    if line.startswith(b"null", i):
        return None, i + 4
    if i < len(line) and line[i] == QUOTE:
        text, after = _string(line, i)
        return (text, after) if text is not None else (None, -1)
    if not number_ok:
        return None, -1
    j = i + (1 if line[i:i + 1] == b"-" else 0)
    digits = j
    while j < len(line) and 0x30 <= line[j] <= 0x39:
        j += 1
    if j == digits or (line[digits] == 0x30 and j - digits > 1):
        return None, -1
    if j < len(line) and line[j] == 0x2E:  # .
        frac = j + 1
        j = frac
        while j < len(line) and 0x30 <= line[j] <= 0x39:
            j += 1
        if j == frac:
            return None, -1
        return float(line[i:j]), j
    return int(line[i:j]), j
