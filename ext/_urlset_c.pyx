# cython: language_level=3
"""Accelerated twin of ``sitemapkit._urlset_py`` (built as ``sitemapkit._urlset_c``).

Same statuses, same bytes. One pass over each loc classifies every byte (keep,
escape, percent-escape, give up to the slow path) while counting the escaped
size, so an entry is sized, checked against the shard limits and then written
straight into one growing C buffer. Canonical values are always ASCII.
"""

from cpython.bytearray cimport PyByteArray_AS_STRING
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.datetime cimport (
    PyDate_Check,
    PyDateTime_Check,
    date_day,
    date_month,
    date_year,
    datetime_day,
    datetime_tzinfo,
    datetime_hour,
    datetime_minute,
    datetime_month,
    datetime_second,
    datetime_year,
    import_datetime,
    timedelta_days,
    timedelta_microseconds,
    timedelta_seconds,
)
from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.object cimport PyObject_Hash
from libc.stdint cimport int32_t, int64_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memchr, memcmp, memcpy, memset

from sitemapkit import protocol
from sitemapkit._urlset import _locset_py
from sitemapkit.rules.model import UrlEntry

cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object o)
    void* PyUnicode_DATA(object o)
    int PyUnicode_KIND(object o)
    unsigned int PyUnicode_READ(int kind, void* data, Py_ssize_t index)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    object PyUnicode_DecodeASCII(const char* s, Py_ssize_t size, const char* errors)
    object PyUnicode_DecodeUTF8(const char* s, Py_ssize_t size, const char* errors)

import_datetime()

cdef enum:
    LOC_BUFFER = 4096  # stack buffer for one encoded loc; protocol.MAX_LOC_LENGTH fits

if protocol.MAX_LOC_LENGTH >= LOC_BUFFER:
    raise ImportError("protocol.MAX_LOC_LENGTH does not fit the C twin's loc buffer")
cdef Py_ssize_t MAX_LOC_LENGTH = protocol.MAX_LOC_LENGTH
cdef Py_ssize_t MAX_OFFSET_MINUTES = protocol.MAX_UTC_OFFSET_MINUTES
cdef int64_t MAX_OFFSET_SECONDS = MAX_OFFSET_MINUTES * 60

cdef enum:
    ADDED_ = 0
    FULL_ = 1
    SLOW_ = 2
    DUPLICATE_ = 3
    EXHAUSTED_ = 4

ADDED, FULL, SLOW, DUPLICATE, EXHAUSTED = ADDED_, FULL_, SLOW_, DUPLICATE_, EXHAUSTED_
FAST_FIELDS = ("loc", "lastmod", "changefreq", "priority", "alternates")

HEAD = (f'{protocol.XML_DECLARATION}<urlset xmlns="{protocol.SITEMAP_NS}">\n').encode()
HEAD_XHTML = (f'{protocol.XML_DECLARATION}<urlset xmlns="{protocol.SITEMAP_NS}" '
              f'xmlns:xhtml="{protocol.XHTML_NS}">\n').encode()
TAIL = b"</urlset>\n"

cdef bytes _HEAD = HEAD
cdef bytes _HEAD_XHTML = HEAD_XHTML
cdef bytes _TAIL = TAIL
cdef frozenset _CHANGEFREQS = frozenset(protocol.CHANGEFREQS)
cdef object _UrlEntry = UrlEntry
from datetime import timezone as _timezone_type
cdef object _FixedOffset = _timezone_type

# Byte classes for the canonical-loc scan.
cdef enum:
    C_BAD = 0
    C_KEEP = 1
    C_PERCENT = 2
    C_AMP = 3
    C_APOS = 4
    C_SLASH = 5

cdef unsigned char CLS[256]
cdef unsigned char ENC[128]    # ASCII that is percent-encoded: space " < > \\ ^ ` { | } [ ]
cdef unsigned char HEXU[256]   # upper-case hex digits only (canonical %hh)
cdef unsigned char DIGIT[256]
cdef int DAYS[12]


cdef void _init_tables():
    """Byte classes from protocol's named character classes (the pure twin's source)."""
    cdef int i
    memset(CLS, C_BAD, 256)
    memset(ENC, 0, 128)
    memset(HEXU, 0, 256)
    memset(DIGIT, 0, 256)
    for i in protocol.URL_KEPT.encode("ascii"):
        CLS[i] = C_KEEP
    for i in protocol.URL_ENCODED.encode("ascii"):
        ENC[i] = 1
    for i in protocol.HEX_UPPER.encode("ascii"):
        HEXU[i] = 1
    for i in b"0123456789":
        DIGIT[i] = 1
    # Kept characters that the scan treats specially: '&' and "'" grow when escaped,
    # '/' may start a dot segment, '%' must start a canonical %hh.
    CLS[ord('%')] = C_PERCENT
    CLS[ord('&')] = C_AMP
    CLS[ord("'")] = C_APOS
    CLS[ord('/')] = C_SLASH
    cdef int days[12]
    days[:] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    for i in range(12):
        DAYS[i] = days[i]


_init_tables()


def _tables():
    """(CLS, ENC, HEXU) as bytes, for the test that they match protocol's classes."""
    return (PyBytes_FromStringAndSize(<char*>CLS, 256), PyBytes_FromStringAndSize(<char*>ENC, 128),
            PyBytes_FromStringAndSize(<char*>HEXU, 256))


def count_lines(bytes data):
    """As ``_urlset_py.count_lines``, 8 bytes at a time (``bytes.count`` goes one byte
    at a time: ~2% of a CLI run's CPU)."""
    cdef const char* p = PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data), i = 0, total = 0
    cdef uint64_t w, sums, low7 = 0x7F7F7F7F7F7F7F7FULL, ones = 0x0101010101010101ULL
    cdef int k
    while i + 8 <= n:
        sums = 0  # eight byte-wide counters, each at most 255 before they are added up
        k = 0
        while k < 255 and i + 8 <= n:
            memcpy(&w, p + i, 8)
            w ^= ones * 10  # a zero byte where a line ends
            sums += (~(((w & low7) + low7) | w | low7)) >> 7
            i += 8
            k += 1
        sums = (sums & 0x00FF00FF00FF00FFULL) + ((sums >> 8) & 0x00FF00FF00FF00FFULL)
        total += <Py_ssize_t>((sums * 0x0001000100010001ULL) >> 48)  # four lanes' sum
    while i < n:
        total += p[i] == 10
        i += 1
    return total


include "_crc32.pxi"
include "_blake2b.pxi"


cdef inline int64_t _days_from_civil(int64_t y, int64_t m, int64_t d) noexcept:
    # Same algorithm as entries.days_from_civil; floor division done explicitly.
    y -= m <= 2
    cdef int64_t era = (y if y >= 0 else y - 399) // 400
    cdef int64_t yoe = y - era * 400
    cdef int64_t doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    cdef int64_t doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


cdef inline bint _valid_ymd(int y, int m, int d) noexcept:
    if y < 1 or m < 1 or m > 12 or d < 1:
        return False
    cdef int dim = DAYS[m - 1]
    if m == 2 and y % 4 == 0 and (y % 100 != 0 or y % 400 == 0):
        dim += 1
    return d <= dim


cdef inline int _num(const char* p, int n) noexcept:
    cdef int v = 0, i
    for i in range(n):
        v = v * 10 + (p[i] - 48)
    return v


cdef inline bint _digits(const char* p, int n) noexcept:
    cdef int i
    for i in range(n):
        if not DIGIT[<unsigned char>p[i]]:
            return False
    return True


cdef bint _parse_canonical(const char* s, Py_ssize_t n, int64_t* key) noexcept:
    """Validate a canonical lastmod and compute its UTC-seconds key."""
    cdef int y, mo, d, h, mi, sec, oh, om, off
    if n != 10 and n != 25:
        return False
    if not (_digits(s, 4) and s[4] == 45 and _digits(s + 5, 2) and s[7] == 45
            and _digits(s + 8, 2)):
        return False
    y = _num(s, 4)
    mo = _num(s + 5, 2)
    d = _num(s + 8, 2)
    if not _valid_ymd(y, mo, d):
        return False
    if n == 10:
        key[0] = _days_from_civil(y, mo, d) * 86400
        return True
    if not (s[10] == 84 and _digits(s + 11, 2) and s[13] == 58 and _digits(s + 14, 2)
            and s[16] == 58 and _digits(s + 17, 2) and (s[19] == 43 or s[19] == 45)
            and _digits(s + 20, 2) and s[22] == 58 and _digits(s + 23, 2)):
        return False
    h = _num(s + 11, 2)
    mi = _num(s + 14, 2)
    sec = _num(s + 17, 2)
    oh = _num(s + 20, 2)
    om = _num(s + 23, 2)
    off = oh * 60 + om
    if h > 23 or mi > 59 or sec > 59 or om > 59 or off > MAX_OFFSET_MINUTES:
        return False
    if off == 0 and s[19] == 45:
        return False
    if s[19] == 45:
        off = -off
    key[0] = _days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - off * 60
    return True


cdef enum:
    SCAN_OK = 0
    SCAN_SLOW = 1
    SCAN_ENCODE = 2


cdef inline bint _named_entity(const char* p, const char* end) noexcept:
    """'&' followed by amp; lt; gt; quot; apos;: a value escaped before it got here."""
    cdef Py_ssize_t n = end - p
    if n >= 3 and (memcmp(p, b"lt;", 3) == 0 or memcmp(p, b"gt;", 3) == 0):
        return True
    if n >= 4 and memcmp(p, b"amp;", 4) == 0:
        return True
    return n >= 5 and (memcmp(p, b"quot;", 5) == 0 or memcmp(p, b"apos;", 5) == 0)


cdef int _scan_tail(const char* p, const char* end, Py_ssize_t* extra) noexcept:
    """Classify the ASCII bytes after the prefix; count XML escape growth."""
    cdef unsigned char c
    if p < end and p[0] == 46:   # '/.' across the prefix boundary
        return SCAN_SLOW
    while p < end:
        c = <unsigned char>p[0]
        if CLS[c] == C_KEEP:
            p += 1
        elif CLS[c] == C_SLASH:
            if p + 1 < end and p[1] == 46:
                return SCAN_SLOW
            p += 1
        elif CLS[c] == C_PERCENT:
            if p + 2 >= end or not HEXU[<unsigned char>p[1]] or not HEXU[<unsigned char>p[2]]:
                return SCAN_SLOW
            p += 3
        elif CLS[c] == C_AMP:
            if _named_entity(p + 1, end):
                return SCAN_SLOW
            extra[0] += 4
            p += 1
        elif CLS[c] == C_APOS:
            extra[0] += 5
            p += 1
        elif c < 128 and ENC[c]:
            return SCAN_ENCODE
        else:
            return SCAN_SLOW
    return SCAN_OK


cdef bytes _HEX_UPPER = protocol.HEX_UPPER.encode("ascii")
cdef const char* HEX_DIGITS_UPPER = _HEX_UPPER


cdef inline Py_ssize_t _pct(char* out, Py_ssize_t w, unsigned int byte) noexcept:
    out[w] = 37
    out[w + 1] = HEX_DIGITS_UPPER[byte >> 4]
    out[w + 2] = HEX_DIGITS_UPPER[byte & 15]
    return w + 3


cdef object _encode_tail(object loc, const char* prefix, Py_ssize_t prefix_len):
    """Percent-encode non-ASCII (as UTF-8) and unsafe ASCII after the prefix.

    None means the slow path must decide: wrong prefix, a control character,
    a lone surrogate, a fragment, or a result over the length limit.
    """
    cdef int kind = PyUnicode_KIND(loc)
    cdef void* data = PyUnicode_DATA(loc)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(loc), i, w
    cdef unsigned int cp
    cdef char out[LOC_BUFFER + 16]
    if n < prefix_len:
        return None
    for i in range(prefix_len):
        if <unsigned int>PyUnicode_READ(kind, data, i) != <unsigned char>prefix[i]:
            return None
    memcpy(out, prefix, prefix_len)
    w = prefix_len
    for i in range(prefix_len, n):
        if w > MAX_LOC_LENGTH:
            return None
        cp = PyUnicode_READ(kind, data, i)
        if cp < 0x80:
            if ENC[cp]:
                w = _pct(out, w, cp)
            elif CLS[cp] == C_BAD:
                return None
            else:
                out[w] = <char>cp
                w += 1
        elif cp <= 0x9F or 0xD800 <= cp <= 0xDFFF:
            return None
        elif cp < 0x800:
            w = _pct(out, w, 0xC0 | (cp >> 6))
            w = _pct(out, w, 0x80 | (cp & 0x3F))
        elif cp < 0x10000:
            w = _pct(out, w, 0xE0 | (cp >> 12))
            w = _pct(out, w, 0x80 | ((cp >> 6) & 0x3F))
            w = _pct(out, w, 0x80 | (cp & 0x3F))
        else:
            w = _pct(out, w, 0xF0 | (cp >> 18))
            w = _pct(out, w, 0x80 | ((cp >> 12) & 0x3F))
            w = _pct(out, w, 0x80 | ((cp >> 6) & 0x3F))
            w = _pct(out, w, 0x80 | (cp & 0x3F))
    if w > MAX_LOC_LENGTH:
        return None
    return PyUnicode_DecodeASCII(out, w, NULL)


cdef inline char* _put2(char* w, int v) noexcept:
    w[0] = 48 + v // 10
    w[1] = 48 + v % 10
    return w + 2


cdef inline char* _put4(char* w, int v) noexcept:
    w[0] = 48 + v // 1000
    w[1] = 48 + (v // 100) % 10
    w[2] = 48 + (v // 10) % 10
    w[3] = 48 + v % 10
    return w + 4


cdef object _MISSING = object()
cdef Py_ssize_t PRIORITY_DECIMALS = protocol.PRIORITY_DECIMALS


cdef object _canonical_priority(object value):
    """As ``_urlset_py._canonical_priority``: the emitted form, or None (slow path)."""
    cdef object text
    cdef const char* p
    cdef Py_ssize_t n, i
    if type(value) is str:
        text = value
    elif type(value) is float:
        text = repr(value)
    elif type(value) is int:
        if value == 0:
            return "0.0"
        if value == 1:
            return "1.0"
        return None
    else:
        return None
    if not PyUnicode_IS_ASCII(text):
        return None
    n = PyUnicode_GET_LENGTH(text)
    p = <const char*>PyUnicode_DATA(text)
    if n == 3 and p[0] == 49 and p[1] == 46 and p[2] == 48:  # "1.0"
        return text
    if n < 3 or n > 2 + PRIORITY_DECIMALS or p[0] != 48 or p[1] != 46:  # "0." first
        return None
    for i in range(2, n):
        if not DIGIT[<unsigned char>p[i]]:
            return None
    if p[n - 1] == 48 and n != 3:  # a trailing zero is not canonical ("0.0" is)
        return None
    return text


cdef inline const char* _ascii(object s, Py_ssize_t* n) except NULL:
    if not PyUnicode_IS_ASCII(s):
        raise ValueError(f"non-canonical value (not ASCII): {s!r}")
    n[0] = PyUnicode_GET_LENGTH(s)
    return <const char*>PyUnicode_DATA(s)


cdef inline Py_ssize_t _escape_extra(const char* s, Py_ssize_t n) noexcept:
    cdef Py_ssize_t i, extra = 0
    cdef char c
    for i in range(n):
        c = s[i]
        if c == 38:      # &  -> &amp;
            extra += 4
        elif c == 39:    # '  -> &apos;
            extra += 5
        elif c == 60 or c == 62:   # < > -> &lt; &gt;
            extra += 3
        elif c == 34:    # "  -> &quot;
            extra += 5
    return extra


cdef inline char* _put(char* w, const char* s, Py_ssize_t n) noexcept:
    memcpy(w, s, n)
    return w + n


cdef char* _put_escaped(char* w, const char* s, Py_ssize_t n, Py_ssize_t extra) noexcept:
    if extra == 0:
        memcpy(w, s, n)
        return w + n
    cdef Py_ssize_t i
    cdef char c
    for i in range(n):
        c = s[i]
        if c == 38:
            memcpy(w, b"&amp;", 5)
            w += 5
        elif c == 39:
            memcpy(w, b"&apos;", 6)
            w += 6
        elif c == 60:
            memcpy(w, b"&lt;", 4)
            w += 4
        elif c == 62:
            memcpy(w, b"&gt;", 4)
            w += 4
        elif c == 34:
            memcpy(w, b"&quot;", 6)
            w += 6
        else:
            w[0] = c
            w += 1
    return w


cdef enum:
    LAYOUT_TEXT = 0    # _rows_py.TEXT, TABLE, JSONL
    LAYOUT_TABLE = 1
    LAYOUT_JSONL = 2
    MAX_CELLS = 16     # a wider header is read by the Python reader
    MEMO_MEMBERS = 64  # _urlset_py.MEMO_MEMBERS: one bit each in ``arrived``


cdef inline bint _strip_char(unsigned char c) noexcept:
    """What str.strip() removes from ASCII (_rows_py.STRIPPED)."""
    return c == 32 or 9 <= c <= 13 or 28 <= c <= 31


cdef inline bint _padded(const char* p, Py_ssize_t n) noexcept:
    return n > 0 and (_strip_char(<unsigned char>p[0]) or _strip_char(<unsigned char>p[n - 1]))


cdef inline bint _is_ascii(const char* p, Py_ssize_t n) noexcept:
    cdef Py_ssize_t i
    for i in range(n):
        if <unsigned char>p[i] >= 128:
            return False
    return True


cdef inline Py_ssize_t _jskip(const char* p, Py_ssize_t i, Py_ssize_t n) noexcept:
    while i < n and (p[i] == 32 or p[i] == 9):
        i += 1
    return i


cdef inline bint _plain_json_run(const char* p, Py_ssize_t n) noexcept:
    """No control character and no backslash in p[:n], 8 bytes at a time: a JSON
    string body that ends at the first quote after it (the common case)."""
    cdef uint64_t w, x, ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL
    cdef Py_ssize_t i = 0
    while i + 8 <= n:
        memcpy(&w, p + i, 8)
        x = w ^ (ones * 92)  # a zero byte where w has a backslash
        if ((w - ones * 32) & ~w & highs) | ((x - ones) & ~x & highs):  # any byte < 32 / 0
            return False
        i += 8
    while i < n:
        if <unsigned char>p[i] < 32 or p[i] == 92:
            return False
        i += 1
    return True


cdef Py_ssize_t _jstring(const char* p, Py_ssize_t i, Py_ssize_t n, Py_ssize_t* content,
                         bint* escaped) noexcept:
    """A JSON string without control characters starting at ``i``: the index after its
    closing quote (``content``: its first byte; ``escaped``: it has a backslash), or -1."""
    cdef Py_ssize_t j
    cdef const char* q
    if i >= n or p[i] != 34:
        return -1
    escaped[0] = False
    q = <const char*>memchr(p + i + 1, 34, n - i - 1)
    if q != NULL and _plain_json_run(p + i + 1, q - p - i - 1):
        content[0] = i + 1
        return q - p + 1
    j = i + 1  # a backslash (an escaped quote may hide the real end) or no end
    while j < n and p[j] != 34:
        if <unsigned char>p[j] < 32:
            return -1
        if p[j] == 92:
            escaped[0] = True
            j += 1
        j += 1
    if j >= n:
        return -1
    content[0] = i + 1
    return j + 1


cdef int _hex4(const char* p, Py_ssize_t i, Py_ssize_t n) noexcept:
    cdef int v = 0, k
    cdef unsigned char c
    if i + 4 > n:
        return -1
    for k in range(4):
        c = <unsigned char>p[i + k]
        if 48 <= c <= 57:
            v = v * 16 + c - 48
        elif 97 <= c <= 102:
            v = v * 16 + c - 87
        elif 65 <= c <= 70:
            v = v * 16 + c - 55
        else:
            return -1
    return v


cdef Py_ssize_t _junescape(const char* p, Py_ssize_t n, char* out, Py_ssize_t cap) noexcept:
    """A JSON string body's escapes decoded to UTF-8 in ``out``: its length, or -1 for
    a bad escape, a lone surrogate or more than ``cap`` bytes (_rows_py._unescape)."""
    cdef Py_ssize_t i = 0, w = 0
    cdef int code, low
    cdef char c, e
    while i < n:
        if w + 4 > cap:
            return -1
        c = p[i]
        if c != 92:
            out[w] = c
            w += 1
            i += 1
            continue
        if i + 1 >= n:
            return -1
        e = p[i + 1]
        i += 2
        if e == 34 or e == 92 or e == 47:
            out[w] = e
        elif e == 98:
            out[w] = 8
        elif e == 102:
            out[w] = 12
        elif e == 110:
            out[w] = 10
        elif e == 114:
            out[w] = 13
        elif e == 116:
            out[w] = 9
        elif e == 117:
            code = _hex4(p, i, n)
            if code < 0:
                return -1
            i += 4
            if 0xD800 <= code <= 0xDBFF:
                if i + 2 > n or p[i] != 92 or p[i + 1] != 117:
                    return -1
                low = _hex4(p, i + 2, n)
                if not 0xDC00 <= low <= 0xDFFF:
                    return -1
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                i += 6
            elif 0xDC00 <= code <= 0xDFFF:
                return -1
            if code < 0x80:
                out[w] = <char>code
            elif code < 0x800:
                out[w] = <char>(0xC0 | (code >> 6))
                out[w + 1] = <char>(0x80 | (code & 0x3F))
                w += 1
            elif code < 0x10000:
                out[w] = <char>(0xE0 | (code >> 12))
                out[w + 1] = <char>(0x80 | ((code >> 6) & 0x3F))
                out[w + 2] = <char>(0x80 | (code & 0x3F))
                w += 2
            else:
                out[w] = <char>(0xF0 | (code >> 18))
                out[w + 1] = <char>(0x80 | ((code >> 12) & 0x3F))
                out[w + 2] = <char>(0x80 | ((code >> 6) & 0x3F))
                out[w + 3] = <char>(0x80 | (code & 0x3F))
                w += 3
        else:
            return -1
        w += 1
    return w


cdef bint _jfield(const char* body, Py_ssize_t n, bint escaped, char* buffer,
                  const char** field, Py_ssize_t* length) noexcept:
    """A string value as (pointer, length): the body itself, or its escapes decoded
    into ``buffer``. False when the escapes are not plain."""
    if not escaped:
        field[0] = body
        length[0] = n
        return True
    length[0] = _junescape(body, n, buffer, LOC_BUFFER)
    field[0] = buffer
    return length[0] >= 0


cdef bint _canonical_priority_text(const char* p, Py_ssize_t n) noexcept:
    """Is p[:n] a canonical priority ("0.5", "0.125", "1.0")? Such a JSON number's
    float repr is the same text."""
    cdef Py_ssize_t i
    if n == 3 and p[0] == 49 and p[1] == 46 and p[2] == 48:
        return True
    if n < 3 or n > 2 + PRIORITY_DECIMALS or p[0] != 48 or p[1] != 46:
        return False
    for i in range(2, n):
        if not DIGIT[<unsigned char>p[i]]:
            return False
    return not (p[n - 1] == 48 and n != 3)


cdef int _json_key(const char* p, Py_ssize_t n) noexcept:
    """0..4 for loc, lastmod, changefreq, priority, alternates; -1 for any other key."""
    if n == 3 and memcmp(p, b"loc", 3) == 0:
        return 0
    if n == 7 and memcmp(p, b"lastmod", 7) == 0:
        return 1
    if n == 10 and memcmp(p, b"changefreq", 10) == 0:
        return 2
    if n == 8 and memcmp(p, b"priority", 8) == 0:
        return 3
    if n == 10 and memcmp(p, b"alternates", 10) == 0:
        return 4
    return -1


cdef Py_ssize_t _jpairs(const char* p, Py_ssize_t i, Py_ssize_t n) noexcept:
    """The end of an alternates array at ``i`` (_rows_py._pairs_end): brackets at most
    two deep, commas, spaces and strings without escapes or control characters only.
    Its bytes are all the fast path compares; the rules check what they mean."""
    cdef int depth = 0
    cdef Py_ssize_t content
    cdef bint escaped
    if i >= n or p[i] != 91:
        return -1
    while i < n:
        if p[i] == 91:   # [
            depth += 1
            if depth > 2:
                return -1
            i += 1
        elif p[i] == 93:   # ]
            depth -= 1
            i += 1
            if depth == 0:
                return i
        elif p[i] == 34 and depth > 0:
            i = _jstring(p, i, n, &content, &escaped)
            if i < 0 or escaped:
                return -1
        elif (p[i] == 44 or p[i] == 32 or p[i] == 9) and depth > 0:
            i += 1
        else:
            return -1
    return -1


cdef enum:
    MAX_TAG = 65535  # _urlset_py.MAX_TAG
    SEGMENTS = 256   # independent sub-tables, chosen by the hash's top byte
    SEGMENT_START = 16


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define sk_prefetch(p) __builtin_prefetch(p)
    #else
    #define sk_prefetch(p) ((void)(p))
    #endif
    """
    void sk_prefetch(const void* p) nogil


cdef extern from *:
    """
    /* LocSet segment tables. The validator's (tagged) set takes large ones straight
       from mmap, so a grown segment's old table goes back to the system instead of
       leaving a hole in the heap: that kept ~2.5 bytes per URL at 10M URLs, and the
       validator's budget is 16. The writer's set stays on the heap, where reused
       memory grows faster (no fresh pages to fault in). */
    #include <stdlib.h>
    #if defined(_WIN32)
    static void* sk_table_alloc(size_t n, int mapped) { (void)mapped; return calloc(n, 1); }
    static void sk_table_free(void* p, size_t n, int mapped) { (void)n; (void)mapped; free(p); }
    #else
    #include <sys/mman.h>
    #define SK_MMAP_MIN ((size_t)64 * 1024)
    static void* sk_table_alloc(size_t n, int mapped) {
        void* p;
        if (!mapped || n < SK_MMAP_MIN) return calloc(n, 1);
        p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    static void sk_table_free(void* p, size_t n, int mapped) {
        if (p == NULL) return;
        if (!mapped || n < SK_MMAP_MIN) free(p); else munmap(p, n);
    }
    #endif
    """
    void* sk_table_alloc(size_t n, int mapped) nogil
    void sk_table_free(void* p, size_t n, int mapped) nogil


KEY_MASK = _locset_py.KEY_MASK  # all ones, or narrowed by SITEMAPKIT_TEST_KEY_BITS
cdef uint64_t _KEY_MASK = <uint64_t>KEY_MASK


cdef inline uint64_t _narrow(uint64_t a) noexcept nogil:
    """The slot word as the duplicate check uses it: narrowed only by the test switch,
    and never 0 (an empty slot)."""
    a &= _KEY_MASK
    return 1 if a == 0 else a


cdef inline Py_ssize_t _home(uint64_t h, Py_ssize_t cap) noexcept:
    """A hash's first slot: its low 32 bits scaled to the segment (a multiply, not a
    division; the top byte already chose the segment)."""
    cdef uint64_t low = <uint32_t>h
    return <Py_ssize_t>((low * <uint64_t>cap) >> 32)


cdef class LocSet:
    """Seen-URL set: open addressing over 128-bit keys of each loc's bytes (``_loc_hash``,
    BLAKE2b: the same in every process and run), a 64-bit word to find the slot and a
    64-bit word to check, 16 bytes a slot. Two locs whose first words are equal are
    told apart by the second (those few are kept in ``overflow``), so a URL is dropped
    as a repeat only when both words match: at 10**10 URLs the chance that any two
    distinct URLs do is about 1.5e-19.

    256 segments each grow by 1.25x at 85% load, so the set holds 18.8 to 23.5 bytes
    per URL, and a rehash only ever copies one segment (1/256 of it).
    ``tagged=True`` keeps a 16-bit tag beside each key (the validator's file number
    where a URL was first seen; 65,535 stands for that file or any later one): 21.2 to
    26.5 bytes per URL. ``values=True`` keeps a 63-bit value per 64-bit str hash instead
    (the hreflang check's cluster per URL, no check word): 18.8 to 23.5 bytes a URL.
    Tagged and values sets take large tables from mmap (see sk_table_alloc).
    """

    cdef uint64_t* tables[SEGMENTS]
    cdef uint16_t* tags[SEGMENTS]
    cdef uint64_t* vals[SEGMENTS]  # values: the value; else the check word
    cdef Py_ssize_t caps[SEGMENTS]
    cdef Py_ssize_t counts[SEGMENTS]
    cdef Py_ssize_t n
    cdef readonly bint tagged
    cdef readonly bint values
    cdef bint mapped
    cdef dict overflow  # (first word, check word) -> tag: a first word another loc holds

    def __cinit__(self, bint tagged=False, bint values=False):
        cdef int i
        if tagged and values:
            raise ValueError("a LocSet keeps tags or values, not both")
        self.n = 0
        self.tagged, self.values = tagged, values
        self.mapped = tagged or values
        self.overflow = {}
        for i in range(SEGMENTS):
            self.tables[i] = NULL
            self.tags[i] = NULL
            self.vals[i] = NULL
        for i in range(SEGMENTS):
            self.caps[i] = SEGMENT_START
            self.counts[i] = 0
            self.tables[i] = <uint64_t*>sk_table_alloc(SEGMENT_START * sizeof(uint64_t),
                                                       self.mapped)
            if self.tables[i] == NULL:
                raise MemoryError()
            if tagged:
                self.tags[i] = <uint16_t*>sk_table_alloc(SEGMENT_START * sizeof(uint16_t), self.mapped)
                if self.tags[i] == NULL:
                    raise MemoryError()
            self.vals[i] = <uint64_t*>sk_table_alloc(SEGMENT_START * sizeof(uint64_t), self.mapped)
            if self.vals[i] == NULL:
                raise MemoryError()

    def __dealloc__(self):
        cdef int i
        for i in range(SEGMENTS):
            sk_table_free(self.tables[i], self.caps[i] * sizeof(uint64_t), self.mapped)
            sk_table_free(self.tags[i], self.caps[i] * sizeof(uint16_t), self.mapped)
            sk_table_free(self.vals[i], self.caps[i] * sizeof(uint64_t), self.mapped)

    cdef int _grow(self, int seg) except -1:
        cdef Py_ssize_t old_cap = self.caps[seg], new_cap = old_cap + old_cap // 4, i, j
        cdef uint64_t h
        cdef uint64_t* old = self.tables[seg]
        cdef uint16_t* old_tags = self.tags[seg]
        cdef uint64_t* old_vals = self.vals[seg]
        cdef uint64_t* new = <uint64_t*>sk_table_alloc(new_cap * sizeof(uint64_t), self.mapped)
        cdef uint16_t* new_tags = NULL
        cdef uint64_t* new_vals = NULL
        if new == NULL:
            raise MemoryError()
        if self.tagged:
            new_tags = <uint16_t*>sk_table_alloc(new_cap * sizeof(uint16_t), self.mapped)
        new_vals = <uint64_t*>sk_table_alloc(new_cap * sizeof(uint64_t), self.mapped)
        if (self.tagged and new_tags == NULL) or new_vals == NULL:
            sk_table_free(new, new_cap * sizeof(uint64_t), self.mapped)
            sk_table_free(new_tags, new_cap * sizeof(uint16_t), self.mapped)
            sk_table_free(new_vals, new_cap * sizeof(uint64_t), self.mapped)
            raise MemoryError()
        for i in range(old_cap):
            h = old[i]
            if h:
                j = _home(h, new_cap)
                while new[j]:
                    j += 1
                    if j == new_cap:
                        j = 0
                new[j] = h
                if new_tags != NULL:
                    new_tags[j] = old_tags[i]
                if new_vals != NULL:
                    new_vals[j] = old_vals[i]
        sk_table_free(old, old_cap * sizeof(uint64_t), self.mapped)
        sk_table_free(old_tags, old_cap * sizeof(uint16_t), self.mapped)
        sk_table_free(old_vals, old_cap * sizeof(uint64_t), self.mapped)
        self.tables[seg] = new
        self.tags[seg] = new_tags
        self.vals[seg] = new_vals
        self.caps[seg] = new_cap
        return 0

    cdef inline void _prefetch(self, uint64_t h) noexcept:
        """Start loading ``h``'s home slot; the caller writes the entry meanwhile."""
        cdef int seg = <int>(h >> 56)
        cdef Py_ssize_t j = _home(h, self.caps[seg])
        sk_prefetch(self.tables[seg] + j)
        sk_prefetch(self.vals[seg] + j)  # the check word, read when the slot word matches

    cdef Py_ssize_t _slot(self, uint64_t h, int seg) noexcept:
        """Where ``h`` is, or the empty slot where it would go."""
        cdef uint64_t* table = self.tables[seg]
        cdef Py_ssize_t cap = self.caps[seg]
        cdef Py_ssize_t j = _home(h, cap)
        while table[j] != 0 and table[j] != h:
            j += 1
            if j == cap:
                j = 0
        return j

    cdef inline int _store(self, uint64_t h, int seg, Py_ssize_t j) except -1:
        """Put ``h`` in its empty slot ``j`` (the caller fills the tag or value first)."""
        self.tables[seg][j] = h
        self.counts[seg] += 1
        self.n += 1
        if self.counts[seg] * 20 > self.caps[seg] * 17:
            self._grow(seg)
        return 0

    cdef int64_t add_checked(self, uint64_t a, uint64_t b, uint32_t tag) except -2:
        """-1 if the loc keyed (``a``, ``b``) is new (stored with ``tag``, at most
        MAX_TAG), else the tag it was first stored with (0 untagged)."""
        cdef int seg = <int>(a >> 56)
        cdef Py_ssize_t j = self._slot(a, seg)
        cdef uint16_t t = <uint16_t>(tag if tag < MAX_TAG else MAX_TAG)
        if self.tables[seg][j] == a:
            if self.vals[seg][j] == b:
                return self.tags[seg][j] if self.tagged else 0
            key = (a, b)  # another loc with this first word: told apart by the check
            found = self.overflow.get(key)
            if found is not None:
                return found if self.tagged else 0
            self.overflow[key] = t
            self.n += 1
            return -1
        if self.tagged:
            self.tags[seg][j] = t
        self.vals[seg][j] = b
        self._store(a, seg, j)
        return -1

    cdef bint has(self, uint64_t a, uint64_t b) except -1:
        cdef int seg = <int>(a >> 56)
        cdef Py_ssize_t j = self._slot(a, seg)
        if self.tables[seg][j] != a:
            return False
        return self.vals[seg][j] == b or (a, b) in self.overflow

    cdef inline void _keys(self, object loc, uint64_t* a, uint64_t* b) except *:
        """A str key's two words (its UTF-8 bytes, as ``_locset_py.loc_hash``)."""
        cdef bytes data = (<str?>loc).encode("utf-8", "surrogatepass")
        _loc_hash(PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data), a, b)
        a[0] = _narrow(a[0])

    cdef inline uint64_t _hash(self, object loc) except? 0:
        """A values set's key: the str's 64-bit hash."""
        cdef Py_hash_t h = PyObject_Hash(loc)
        return <uint64_t>(1 if h == 0 else h)

    def add(self, str loc):
        """True if ``loc`` is new."""
        return self.first(loc, 0) == -1

    def first(self, str key, uint32_t tag):
        """-1 if ``key`` is new (remembered with ``tag``); else the tag it was first
        seen with (a tagged set; an untagged one answers 0)."""
        cdef uint64_t a, b
        if self.values:
            raise TypeError("a values set takes get() and put()")
        self._keys(key, &a, &b)
        return self.add_checked(a, b, tag)

    cdef inline uint64_t _key(self, object key) except? 0:
        """A str's hash, or an int taken as the hash itself (one kind per table)."""
        cdef uint64_t h
        if isinstance(key, int):
            h = <uint64_t>key  # OverflowError outside 0..2**64 - 1
            return 1 if h == 0 else h
        if not isinstance(key, str):
            raise TypeError(f"a LocSet key is a str or an int, not {type(key).__name__}")
        return self._hash(key)

    def get(self, key):
        """The value stored for ``key`` (a values set), or -1."""
        if not self.values:
            raise TypeError("get() needs LocSet(values=True)")
        cdef uint64_t h = self._key(key)
        cdef int seg = <int>(h >> 56)
        cdef Py_ssize_t j = self._slot(h, seg)
        return <int64_t>self.vals[seg][j] if self.tables[seg][j] == h else -1

    def put(self, key, int64_t value):
        """Store ``value`` (0 to 2**63 - 1) for ``key``, replacing any earlier one."""
        if not self.values:
            raise TypeError("put() needs LocSet(values=True)")
        if value < 0:
            raise ValueError(f"a LocSet value is 0 to 2**63 - 1, not {value}")
        cdef uint64_t h = self._key(key)
        cdef int seg = <int>(h >> 56)
        cdef Py_ssize_t j = self._slot(h, seg)
        self.vals[seg][j] = <uint64_t>value
        if self.tables[seg][j] != h:
            self._store(h, seg, j)

    def items(self):
        """(key hash, value) of every entry of a values set, in no particular order."""
        cdef int seg
        cdef Py_ssize_t j
        if not self.values:
            raise TypeError("items() needs LocSet(values=True)")
        for seg in range(SEGMENTS):
            j = 0
            while j < self.caps[seg]:  # no growth while iterating: a put may not run
                if self.tables[seg][j]:
                    yield self.tables[seg][j], <int64_t>self.vals[seg][j]
                j += 1

    def __contains__(self, str key):
        cdef uint64_t a, b
        cdef int seg
        if self.values:
            a = self._hash(key)
            seg = <int>(a >> 56)
            return self.tables[seg][self._slot(a, seg)] == a
        self._keys(key, &a, &b)
        return self.has(a, b)

    def __len__(self):
        return self.n

    @property
    def nbytes(self):
        cdef Py_ssize_t total = 0
        cdef int i
        for i in range(SEGMENTS):
            total += self.caps[i]
        return total * (2 * sizeof(uint64_t) + (sizeof(uint16_t) if self.tagged else 0))


cdef class UrlsetBuffer:
    """One shard being filled; see ``_urlset_py.UrlsetBuffer`` for the contract."""

    cdef char* buf
    cdef Py_ssize_t size, cap
    cdef readonly str prefix
    cdef const char* prefix_ptr
    cdef Py_ssize_t prefix_len, prefix_extra
    cdef readonly Py_ssize_t max_urls, max_bytes, count, nbytes
    cdef readonly Py_ssize_t consumed
    cdef readonly Py_ssize_t unused_fields
    cdef readonly bint record
    cdef list _pairs
    cdef readonly LocSet seen
    cdef readonly int64_t future_limit
    cdef readonly bint text
    cdef bint xhtml
    cdef int64_t newest_key
    cdef char newest[32]
    cdef int newest_len
    cdef dict tz_offsets       # datetime.timezone -> its one fixed utcoffset()
    cdef bytes memo_raw        # the alternates the rules checked last, as input bytes
    cdef tuple memo_alts       # ... as the rules returned them (ASCII hrefs)
    cdef uint64_t arrived      # memo members added from bytes since take_arrivals()
    cdef const char* alt_at    # the current line's alternates bytes (NULL: none)
    cdef Py_ssize_t alt_len
    cdef readonly object slow_alternates
    cdef bint keyed            # key_locs(): keep each added URL's partition key
    cdef SkKey* keys
    cdef Py_ssize_t nkeys, keys_cap
    cdef SkKey* drop           # ascending keys answered DUPLICATE
    cdef Py_ssize_t ndrop

    def __cinit__(self, str prefix, Py_ssize_t max_urls, Py_ssize_t max_bytes, LocSet seen,
                  int64_t future_limit, bint text=False, bint record=False):
        self.prefix = prefix
        self.prefix_ptr = _ascii(prefix, &self.prefix_len)
        self.prefix_extra = _escape_extra(self.prefix_ptr, self.prefix_len)
        self.max_urls = max_urls
        self.max_bytes = max_bytes
        self.seen = seen
        self.future_limit = future_limit
        self.text = text
        self.record = record
        self.consumed = 0
        self.unused_fields = 0
        self.tz_offsets = {}
        self.memo_raw = None
        self.memo_alts = ()
        self.arrived = 0
        self.alt_at = NULL
        self.alt_len = 0
        self.slow_alternates = None
        self.keyed = False
        self.keys = NULL
        self.drop = NULL
        self.nkeys = self.keys_cap = self.ndrop = 0
        self.cap = 1 << 16
        self.buf = <char*>malloc(self.cap)
        if self.buf == NULL:
            raise MemoryError()
        self.reset()

    def __dealloc__(self):
        free(self.buf)
        free(self.keys)
        free(self.drop)

    def key_locs(self, drop=b""):
        """As ``_urlset_py.UrlsetBuffer.key_locs``."""
        cdef Py_ssize_t n, i
        cdef SkKey* table = NULL
        if type(drop) is not bytes or len(drop) % sizeof(SkKey):
            raise ValueError("key_locs: drop is key bytes (16 bytes a key)")
        n = len(drop) // sizeof(SkKey)
        if n:
            table = <SkKey*>malloc(n * sizeof(SkKey))
            if table == NULL:
                raise MemoryError()
            memcpy(table, PyBytes_AS_STRING(drop), n * sizeof(SkKey))  # aligned
            for i in range(n - 1):
                if not _key_less(table[i], table[i + 1]):
                    free(table)
                    raise ValueError("key_locs: the drop keys must be ascending and distinct")
        free(self.drop)
        self.drop, self.ndrop = table, n
        self.nkeys = 0
        self.keyed = True

    def take_keys(self, bint ascending=False):
        """As ``_urlset_py.UrlsetBuffer.take_keys``."""
        if ascending and self.nkeys > 1:
            _sort_keys(self.keys, self.nkeys)
        cdef bytes out = PyBytes_FromStringAndSize(<const char*>self.keys,
                                                   self.nkeys * sizeof(SkKey)) \
            if self.nkeys else b""
        self.nkeys = 0
        return out

    cdef int _keep_key(self, SkKey key) except -1:
        cdef Py_ssize_t cap
        cdef SkKey* grown
        if self.nkeys == self.keys_cap:
            cap = self.keys_cap * 2 if self.keys_cap else 4096
            grown = <SkKey*>realloc(self.keys, cap * sizeof(SkKey))
            if grown == NULL:
                raise MemoryError()
            self.keys, self.keys_cap = grown, cap
        self.keys[self.nkeys] = key
        self.nkeys += 1
        return 0

    def reset(self):
        """Start the next shard (the seen-URL set and ``consumed`` carry on)."""
        self._pairs = []
        self.size = 0
        self.count = 0
        self.xhtml = False
        self.nbytes = 0 if self.text else len(_HEAD) + len(_TAIL)
        self.newest_key = -(<int64_t>1 << 62)
        self.newest_len = 0

    def remember_alternates(self, raw, tuple alternates not None):
        """As ``_urlset_py.UrlsetBuffer.remember_alternates``."""
        cdef object pair, href
        if raw is not None and type(raw) is not bytes:
            raise TypeError("remember_alternates: raw is bytes or None, alternates a tuple")
        self.arrived = 0
        self.memo_raw, self.memo_alts = None, ()
        if raw is None or not alternates or len(alternates) > MEMO_MEMBERS:
            return
        for pair in alternates:  # (lang, href) tuples with ASCII hrefs, or no memo
            if type(pair) is not tuple or len(<tuple>pair) != 2:
                return
            href = (<tuple>pair)[1]
            if type(href) is not str or not PyUnicode_IS_ASCII(href):
                return
        self.memo_raw = raw
        self.memo_alts = alternates

    def take_arrivals(self):
        """As ``_urlset_py.UrlsetBuffer.take_arrivals``."""
        cdef list out = []
        cdef int i
        for i in range(len(self.memo_alts)):
            if self.arrived & ((<uint64_t>1) << i):
                out.append(self.memo_alts[i][1])
        self.arrived = 0
        return out

    cdef int _member(self, const char* l, Py_ssize_t ln) except -2:
        """Which memo href is this loc (the first), or -1."""
        cdef int i
        cdef object h
        for i in range(len(self.memo_alts)):
            h = (<tuple>self.memo_alts[i])[1]
            if PyUnicode_GET_LENGTH(h) == ln and memcmp(PyUnicode_DATA(h), l, ln) == 0:
                return i
        return -1

    def pairs(self):
        """(loc, lastmod or "") of this shard's entries, kept only with ``record=True``."""
        return list(self._pairs)

    @property
    def newest_lastmod(self):
        if self.newest_len == 0:
            return None
        return self.newest[:self.newest_len].decode("ascii")

    cdef int _reserve(self, Py_ssize_t extra) except -1:
        cdef Py_ssize_t want = self.size + extra, new_cap = self.cap
        cdef char* new
        if want <= self.cap:
            return 0
        while new_cap < want:
            new_cap *= 2
        new = <char*>realloc(self.buf, new_cap)
        if new == NULL:
            raise MemoryError()
        self.buf = new
        self.cap = new_cap
        return 0

    cdef int _append(self, object loc, const char* l, Py_ssize_t ln, Py_ssize_t lx,
                     const char* lm, Py_ssize_t lmn, int64_t key, const char* cf,
                     Py_ssize_t cfn, const char* pr, Py_ssize_t prn,
                     object alternates) except -1:
        """Size and check limits, write one canonical entry, and keep it unless it
        repeats a URL (checked last, so the set's slot loads meanwhile). ``loc`` may
        be None (rows read from bytes): the canonical loc is ASCII, so its hash is the
        hash of its bytes and a str is made only for the change record."""
        cdef Py_ssize_t size, extra_head = 0, an, hn, ax, hx
        cdef const char* a
        cdef const char* h
        cdef char* w
        cdef object lang, href
        cdef uint64_t ka, kb
        cdef SkKey pk
        if self.text:
            size = ln + 1
        else:
            size = 10 + ln + lx + 6 + 7
            if lm != NULL:
                size += 19 + lmn
            if cf != NULL:
                size += 25 + cfn
            if pr != NULL:
                size += 21 + prn
            if alternates:
                for lang, href in alternates:
                    a = _ascii(lang, &an)
                    h = _ascii(href, &hn)
                    size += 38 + an + _escape_extra(a, an) + 8 + hn + _escape_extra(h, hn) + 3
                if not self.xhtml:
                    extra_head = len(_HEAD_XHTML) - len(_HEAD)
        if self.count >= self.max_urls or self.nbytes + size + extra_head > self.max_bytes:
            return FULL_
        _loc_hash(l, ln, &ka, &kb)
        ka = _narrow(ka)
        self.seen._prefetch(ka)
        self._reserve(size)  # the entry is written past ``size`` while its slot loads,
        w = self.buf + self.size
        if self.text:
            w = _put(w, l, ln)
            w[0] = 10
            w += 1
        else:
            w = _put(w, b"<url><loc>", 10)
            w = _put_escaped(w, l, ln, lx)
            w = _put(w, b"</loc>", 6)
            if lm != NULL:
                w = _put(w, b"<lastmod>", 9)
                w = _put(w, lm, lmn)
                w = _put(w, b"</lastmod>", 10)
            if cf != NULL:
                w = _put(w, b"<changefreq>", 12)
                w = _put(w, cf, cfn)
                w = _put(w, b"</changefreq>", 13)
            if pr != NULL:
                w = _put(w, b"<priority>", 10)
                w = _put(w, pr, prn)
                w = _put(w, b"</priority>", 11)
            if alternates:
                for lang, href in alternates:
                    a = _ascii(lang, &an)
                    h = _ascii(href, &hn)
                    w = _put(w, b'<xhtml:link rel="alternate" hreflang="', 38)
                    w = _put_escaped(w, a, an, _escape_extra(a, an))
                    w = _put(w, b'" href="', 8)
                    w = _put_escaped(w, h, hn, _escape_extra(h, hn))
                    w = _put(w, b'"/>', 3)
            w = _put(w, b"</url>\n", 7)
        if self.seen.add_checked(ka, kb, 0) != -1:
            return DUPLICATE_  # ... and left there, uncounted, when it repeats a URL
        if self.keyed:  # the partition key: the hash just taken, no second one
            pk.hi = <int64_t>(ka >> 1)
            pk.lo = <int64_t>kb
            if self.ndrop and _in_keys(self.drop, self.ndrop, pk):
                return DUPLICATE_  # an earlier partition has it: counted as a repeat
            self._keep_key(pk)
        if alternates:
            self.xhtml = True
        self.size += size
        self.nbytes += size + extra_head
        self.count += 1
        if self.text and (lm != NULL or cf != NULL or pr != NULL or alternates):
            self.unused_fields += 1
        if self.record:
            if loc is None:
                loc = PyUnicode_DecodeASCII(l, ln, NULL)
            self._pairs.append((loc, "" if self.text or lm == NULL
                                else PyUnicode_DecodeASCII(lm, lmn, NULL)))
        if lm != NULL and key > self.newest_key:
            self.newest_key = key
            memcpy(self.newest, lm, lmn)
            self.newest_len = <int>lmn
        return ADDED_

    cdef int _offer(self, object entry) except -1:
        cdef object loc, lastmod, changefreq, priority, alternates
        cdef tuple t
        cdef const char* s
        cdef int scan
        cdef Py_ssize_t n, extra = 0, lmn = 0
        cdef const char* lm = NULL
        cdef char lmbuf[32]
        cdef int64_t key = 0
        cdef dict d
        cdef object rank = None
        priority = None
        alternates = None
        if type(entry) is str:
            loc = entry
            lastmod = None
            changefreq = None
        elif isinstance(entry, _UrlEntry):
            t = <tuple>entry
            if len(t) != 5:
                raise TypeError("UrlEntry has fields the C twin does not read (FAST_FIELDS)")
            loc = t[0]
            lastmod = t[1]
            changefreq = t[2]
            priority = t[3]
            alternates = t[4]
        elif type(entry) is dict:  # a mapping as JSON Lines gives it
            d = <dict>entry
            loc = d.get("loc", _MISSING)
            lastmod = d.get("lastmod")
            changefreq = d.get("changefreq")
            priority = d.get("priority")
            alternates = d.get("alternates")
            if loc is _MISSING or len(d) != (1 + ("lastmod" in d) + ("changefreq" in d)
                                            + ("priority" in d) + ("alternates" in d)):
                return SLOW_  # the rules name what is missing or unknown
        else:
            return SLOW_
        if alternates:
            return SLOW_
        if changefreq is not None and not (type(changefreq) is str
                                           and changefreq in _CHANGEFREQS):
            return SLOW_
        if priority is not None:
            rank = _canonical_priority(priority)
            if rank is None:
                return SLOW_
        # --- loc: one pass classifies and counts escapes; encode when needed ---
        if type(loc) is not str:
            return SLOW_
        if not PyUnicode_IS_ASCII(loc):
            loc = _encode_tail(loc, self.prefix_ptr, self.prefix_len)
            if loc is None:
                return SLOW_
        scan = self._scan(loc, &extra)
        if scan == SCAN_ENCODE:
            loc = _encode_tail(loc, self.prefix_ptr, self.prefix_len)
            if loc is None:
                return SLOW_
            scan = self._scan(loc, &extra)
        if scan != SCAN_OK:
            return SLOW_
        s = <const char*>PyUnicode_DATA(loc)
        n = PyUnicode_GET_LENGTH(loc)
        # --- lastmod ---
        if lastmod is not None:
            if type(lastmod) is str:
                if not PyUnicode_IS_ASCII(lastmod):
                    return SLOW_
                lmn = PyUnicode_GET_LENGTH(lastmod)
                lm = <const char*>PyUnicode_DATA(lastmod)
                if not _parse_canonical(lm, lmn, &key):
                    return SLOW_
            elif PyDateTime_Check(lastmod):
                if not self._format_datetime(lastmod, lmbuf, &key):
                    return SLOW_
                lm = lmbuf
                lmn = 25
            elif PyDate_Check(lastmod):
                _put2(_put2(_put4(lmbuf, date_year(lastmod)) + 1, date_month(lastmod)) + 1,
                      date_day(lastmod))
                lmbuf[4] = 45
                lmbuf[7] = 45
                key = _days_from_civil(date_year(lastmod), date_month(lastmod),
                                       date_day(lastmod)) * 86400
                lm = lmbuf
                lmn = 10
            else:
                return SLOW_
            if key > self.future_limit:
                return SLOW_
        cdef Py_ssize_t cfn = 0, prn = 0
        cdef const char* cf = NULL if changefreq is None else _ascii(changefreq, &cfn)
        cdef const char* pr = NULL if rank is None else _ascii(rank, &prn)
        return self._append(loc, s, n, extra, lm, lmn, key, cf, cfn, pr, prn, None)

    cdef int _scan(self, object loc, Py_ssize_t* extra) noexcept:
        return self._scan_ptr(<const char*>PyUnicode_DATA(loc), PyUnicode_GET_LENGTH(loc), extra)

    cdef int _scan_ptr(self, const char* s, Py_ssize_t n, Py_ssize_t* extra) noexcept:
        """Classify an ASCII loc: SCAN_OK (canonical), SCAN_ENCODE or SCAN_SLOW."""
        extra[0] = self.prefix_extra
        if n > MAX_LOC_LENGTH or n < self.prefix_len:
            return SCAN_SLOW
        if memcmp(s, self.prefix_ptr, self.prefix_len) != 0:
            return SCAN_SLOW
        return _scan_tail(s + self.prefix_len, s + n, extra)

    cdef bint _format_datetime(self, object dt, char* out, int64_t* key) except -1:
        cdef object tz = datetime_tzinfo(dt)
        cdef object delta
        if type(tz) is _FixedOffset:
            delta = self.tz_offsets.get(tz)
            if delta is None:
                delta = dt.utcoffset()
                if len(self.tz_offsets) >= 256:
                    self.tz_offsets.clear()
                self.tz_offsets[tz] = delta
        else:
            delta = dt.utcoffset()
        cdef int64_t total
        cdef int minutes, y, mo, d, h, mi, sec
        if delta is None or timedelta_microseconds(delta) != 0:
            return False
        total = <int64_t>timedelta_days(delta) * 86400 + timedelta_seconds(delta)
        if total % 60 != 0 or total > MAX_OFFSET_SECONDS or total < -MAX_OFFSET_SECONDS:
            return False
        minutes = <int>(total // 60)
        y = datetime_year(dt)
        mo = datetime_month(dt)
        d = datetime_day(dt)
        h = datetime_hour(dt)
        mi = datetime_minute(dt)
        sec = datetime_second(dt)
        _put4(out, y)
        out[4] = 45
        _put2(out + 5, mo)
        out[7] = 45
        _put2(out + 8, d)
        out[10] = 84
        _put2(out + 11, h)
        out[13] = 58
        _put2(out + 14, mi)
        out[16] = 58
        _put2(out + 17, sec)
        out[19] = 45 if minutes < 0 else 43
        if minutes < 0:
            minutes = -minutes
        _put2(out + 20, minutes // 60)
        out[22] = 58
        _put2(out + 23, minutes % 60)
        key[0] = _days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - total
        return True

    def feed_lines(self, bytes data, Py_ssize_t start, int layout, int sep, tuple columns,
                   Py_ssize_t width):
        """As ``_urlset_py.UrlsetBuffer.feed_lines``: rows straight from input bytes."""
        cdef const char* base = PyBytes_AS_STRING(data)
        cdef Py_ssize_t n = PyBytes_GET_SIZE(data), pos = start, stop, end
        cdef const char* nl
        cdef int cols[4]
        cdef int status, i
        if start < 0 or start > n or len(columns) != 4:
            raise ValueError("feed_lines: bad start or columns")
        for i in range(4):
            cols[i] = columns[i]
        while pos < n:
            nl = <const char*>memchr(base + pos, 10, n - pos)
            if nl == NULL:
                stop = n
                end = n
            else:
                stop = nl - base
                end = stop + 1
            if stop > pos and base[stop - 1] == 13:
                stop -= 1
            if stop == pos:
                pos = end
                continue
            self.alt_at = NULL
            if layout == LAYOUT_TEXT:
                status = SLOW_ if _padded(base + pos, stop - pos) else \
                    self._offer_line(base + pos, stop - pos, NULL, 0, NULL, 0, NULL, 0)
            elif layout == LAYOUT_TABLE:
                status = self._table_line(base + pos, stop - pos, sep, cols, width)
            else:
                status = self._json_line(base + pos, stop - pos)
            if status == ADDED_:
                self.consumed += 1
                pos = end
                continue
            if status == DUPLICATE_:
                self.consumed += 1
            elif status == SLOW_:
                self.slow_alternates = (None if self.alt_at == NULL else
                                        PyBytes_FromStringAndSize(self.alt_at, self.alt_len))
            return status, pos, end
        return EXHAUSTED_, n, n

    cdef int _table_line(self, const char* p, Py_ssize_t n, int sep, int* cols,
                         Py_ssize_t width) except -1:
        """A CSV/TSV line without quotes: exactly ``width`` cells, none padded."""
        cdef Py_ssize_t starts[MAX_CELLS + 1]
        cdef Py_ssize_t cells = 1, i, a, b
        cdef const char* f[4]
        cdef Py_ssize_t fn[4]
        cdef int k, at
        cdef const char* q
        if width > MAX_CELLS or memchr(p, 34, n) != NULL:
            return SLOW_
        starts[0] = 0
        q = <const char*>memchr(p, sep, n)
        while q != NULL:
            if cells == width:
                return SLOW_
            i = q - p
            starts[cells] = i + 1
            cells += 1
            q = <const char*>memchr(q + 1, sep, n - i - 1)
        if cells != width:
            return SLOW_
        starts[cells] = n + 1
        for k in range(4):
            at = cols[k]
            f[k] = NULL
            fn[k] = 0
            if at < 0:
                continue
            a = starts[at]
            b = starts[at + 1] - 1
            if _padded(p + a, b - a):
                return SLOW_
            if b > a:
                if k != 0 and not _is_ascii(p + a, b - a):
                    return SLOW_
                f[k] = p + a
                fn[k] = b - a
        if f[0] == NULL:
            return SLOW_
        return self._offer_line(f[0], fn[0], f[1], fn[1], f[2], fn[2], f[3], fn[3])

    def feed_cells(self, tuple cells not None, Py_ssize_t start, Py_ssize_t rows):
        """As ``_urlset_py.UrlsetBuffer.feed_cells``: rows read where Arrow keeps them."""
        cdef Py_buffer views[8]
        cdef bint held[8]
        cdef const char* offsets[4]
        cdef const char* values[4]
        cdef Py_ssize_t nvalues[4]
        cdef Py_ssize_t base[4]
        cdef Py_ssize_t row = start, k
        cdef int status
        cdef object column
        if len(cells) != 4 or start < 0 or start > rows:
            raise ValueError("feed_cells: four columns (or None) and 0 <= start <= rows")
        for k in range(8):
            held[k] = False
        try:
            for k in range(4):
                offsets[k] = NULL
                column = cells[k]
                if column is None:
                    continue
                PyObject_GetBuffer((<tuple?>column)[0], &views[2 * k], PyBUF_SIMPLE)
                held[2 * k] = True
                PyObject_GetBuffer(column[1], &views[2 * k + 1], PyBUF_SIMPLE)
                held[2 * k + 1] = True
                offsets[k] = <const char*>views[2 * k].buf
                values[k] = <const char*>views[2 * k + 1].buf
                nvalues[k] = views[2 * k + 1].len
                base[k] = column[2]
                if views[2 * k].len % 8:
                    raise ValueError("feed_cells: offsets are 64-bit integers")
                if base[k] < 0 or base[k] + rows >= views[2 * k].len // 8:
                    raise ValueError("feed_cells: more rows than offsets")
            while row < rows:
                status = self._cells_row(offsets, values, nvalues, base, row)
                if status == ADDED_:
                    self.consumed += 1
                    row += 1
                    continue
                if status == DUPLICATE_:
                    self.consumed += 1
                elif status == SLOW_:
                    self.slow_alternates = None
                return status, row, row + 1
            return EXHAUSTED_, rows, rows
        finally:
            for k in range(8):
                if held[k]:
                    PyBuffer_Release(&views[k])

    cdef int _cells_row(self, const char** offsets, const char** values,
                        Py_ssize_t* nvalues, Py_ssize_t* base, Py_ssize_t row) except -1:
        """One row's cells, checked as a table line's cells are."""
        cdef const char* f[4]
        cdef Py_ssize_t fn[4]
        cdef int64_t a, b
        cdef int k
        for k in range(4):
            f[k] = NULL
            fn[k] = 0
            if offsets[k] == NULL:
                continue
            memcpy(&a, offsets[k] + 8 * (base[k] + row), 8)  # any alignment
            memcpy(&b, offsets[k] + 8 * (base[k] + row + 1), 8)
            if a < 0 or b < a or b > nvalues[k]:
                raise ValueError("feed_cells: offsets outside the values")
            if _padded(values[k] + a, <Py_ssize_t>(b - a)):
                return SLOW_
            if b > a:
                if k != 0 and not _is_ascii(values[k] + a, <Py_ssize_t>(b - a)):
                    return SLOW_
                f[k] = values[k] + a
                fn[k] = <Py_ssize_t>(b - a)
        if f[0] == NULL:
            return SLOW_
        self.alt_at = NULL
        return self._offer_line(f[0], fn[0], f[1], fn[1], f[2], fn[2], f[3], fn[3])

    cdef int _json_line(self, const char* p, Py_ssize_t n) except -1:
        """A bare JSON string, or a one-level object of the five keys with string values
        (escapes decoded; null: absent), a string or plain number priority, and
        alternates located as bytes (``_offer_line`` compares them with the memo)."""
        cdef const char* f[4]
        cdef Py_ssize_t fn[4]
        cdef char decoded[4][LOC_BUFFER]
        cdef Py_ssize_t i = _jskip(p, 0, n), j, content, digits, frac
        cdef const char* al = NULL
        cdef Py_ssize_t aln = 0
        cdef int k, seen = 0
        cdef bint escaped
        cdef object priority = None
        for k in range(4):
            f[k] = NULL
            fn[k] = 0
        if i < n and p[i] == 34:
            j = _jstring(p, i, n, &content, &escaped)
            if j < 0 or _jskip(p, j, n) != n or not _jfield(p + content, j - 1 - content,
                                                           escaped, decoded[0], &f[0], &fn[0]):
                return SLOW_
            if fn[0] == 0:
                return SLOW_
            return self._offer_line(f[0], fn[0], NULL, 0, NULL, 0, NULL, 0)
        if i >= n or p[i] != 123:   # {
            return SLOW_
        i = _jskip(p, i + 1, n)
        while True:
            j = _jstring(p, i, n, &content, &escaped)
            if j < 0 or escaped:
                return SLOW_
            k = _json_key(p + content, j - 1 - content)
            if k < 0 or seen & (1 << k):
                return SLOW_
            seen |= 1 << k
            i = _jskip(p, j, n)
            if i >= n or p[i] != 58:   # :
                return SLOW_
            i = _jskip(p, i + 1, n)
            if n - i >= 4 and memcmp(p + i, b"null", 4) == 0:
                i += 4
            elif k == 4:
                j = _jpairs(p, i, n)
                if j < 0:
                    return SLOW_
                al, aln = p + i, j - i
                i = j
            elif i < n and p[i] == 34:
                j = _jstring(p, i, n, &content, &escaped)
                if j < 0 or not _jfield(p + content, j - 1 - content, escaped, decoded[k],
                                        &f[k], &fn[k]):
                    return SLOW_
                i = j
            elif k == 3 and i < n:    # priority: a plain number, as json gives it
                j = i + 1 if p[i] == 45 else i
                digits = j
                while j < n and DIGIT[<unsigned char>p[j]]:
                    j += 1
                if j == digits or (p[digits] == 48 and j - digits > 1):
                    return SLOW_
                if j < n and p[j] == 46:
                    frac = j + 1
                    j = frac
                    while j < n and DIGIT[<unsigned char>p[j]]:
                        j += 1
                    if j == frac:
                        return SLOW_
                    if _canonical_priority_text(p + i, j - i):  # repr(float(t)) == t
                        f[3], fn[3] = p + i, j - i
                    else:
                        priority = _canonical_priority(
                            float(PyUnicode_DecodeASCII(p + i, j - i, NULL)))
                else:
                    priority = _canonical_priority(int(PyUnicode_DecodeASCII(p + i, j - i, NULL)))
                if f[3] == NULL:
                    if priority is None:
                        return SLOW_
                    f[3] = _ascii(priority, &fn[3])  # kept alive by ``priority``
                i = j
            else:
                return SLOW_
            i = _jskip(p, i, n)
            if i < n and p[i] == 44:   # ,
                i = _jskip(p, i + 1, n)
                continue
            if i < n and p[i] == 125 and _jskip(p, i + 1, n) == n:   # }
                break
            return SLOW_
        if f[0] == NULL or fn[0] == 0:
            return SLOW_
        for k in range(1, 4):
            if f[k] != NULL and not _is_ascii(f[k], fn[k]):
                return SLOW_
        self.alt_at, self.alt_len = al, aln
        return self._offer_line(f[0], fn[0], f[1], fn[1], f[2], fn[2], f[3], fn[3])

    cdef int _offer_line(self, const char* l, Py_ssize_t ln, const char* lm, Py_ssize_t lmn,
                         const char* cf, Py_ssize_t cfn, const char* pr,
                         Py_ssize_t prn) except -1:
        """``_offer`` for fields read from bytes: a str is made only for a loc that
        needs percent-encoding."""
        cdef object loc = None
        cdef int64_t key = 0
        cdef Py_ssize_t extra = 0
        cdef int scan, member = -1, status
        cdef bytes memo = self.memo_raw
        if self.alt_at != NULL and (memo is None or PyBytes_GET_SIZE(memo) != self.alt_len or
                                    memcmp(PyBytes_AS_STRING(memo), self.alt_at, self.alt_len)):
            return SLOW_  # alternates the rules have not just checked
        if cf != NULL and not _listed(_PLAIN_CHANGEFREQS, cf, cfn):
            return SLOW_
        if pr != NULL and not _canonical_priority_text(pr, prn):
            return SLOW_
        if lm != NULL:
            if not _parse_canonical(lm, lmn, &key) or key > self.future_limit:
                return SLOW_
        if _is_ascii(l, ln):
            scan = self._scan_ptr(l, ln, &extra)
            if scan == SCAN_SLOW:
                return SLOW_
        else:
            scan = SCAN_ENCODE
        if scan == SCAN_ENCODE:
            try:
                loc = PyUnicode_DecodeUTF8(l, ln, NULL)
            except UnicodeDecodeError:
                return SLOW_
            extra = 0
            loc = _encode_tail(loc, self.prefix_ptr, self.prefix_len)
            if loc is None or self._scan(loc, &extra) != SCAN_OK:
                return SLOW_
            l = <const char*>PyUnicode_DATA(loc)
            ln = PyUnicode_GET_LENGTH(loc)
        if self.alt_at == NULL:
            return self._append(loc, l, ln, extra, lm, lmn, key, cf, cfn, pr, prn, None)
        member = self._member(l, ln)
        if member < 0:
            return SLOW_  # not one of its own alternates: the rules say so
        status = self._append(loc, l, ln, extra, lm, lmn, key, cf, cfn, pr, prn,
                              self.memo_alts)
        if status != FULL_:
            self.arrived |= (<uint64_t>1) << member
        return status

    def offer(self, entry):
        """Fast path for one raw entry; SLOW when it is not already canonical."""
        return self._offer(entry)

    def feed(self, entries):
        """Add entries until one is not ADDED; return (status, that entry)."""
        cdef int status
        for entry in entries:
            self.consumed += 1
            status = self._offer(entry)
            if status != ADDED_:
                return status, entry
        return EXHAUSTED_, None

    def add(self, str loc, lastmod, changefreq, priority, alternates):
        """Append one canonical entry: ADDED, FULL (not added) or DUPLICATE."""
        cdef Py_ssize_t ln, lmn = 0
        cdef const char* l = _ascii(loc, &ln)
        cdef const char* lm = NULL
        cdef int64_t key = 0
        if lastmod is not None:
            lm = _ascii(lastmod, &lmn)
            if not _parse_canonical(lm, lmn, &key):
                raise ValueError(f"non-canonical lastmod: {lastmod!r}")
        cdef Py_ssize_t cfn = 0, prn = 0
        cdef const char* cf = NULL if changefreq is None else _ascii(changefreq, &cfn)
        cdef const char* pr = NULL if priority is None else _ascii(priority, &prn)
        return self._append(loc, l, ln, _escape_extra(l, ln), lm, lmn, key, cf, cfn, pr, prn,
                            alternates)

    def getvalue(self):
        cdef bytes head = b"" if self.text else (_HEAD_XHTML if self.xhtml else _HEAD)
        cdef bytes tail = b"" if self.text else _TAIL
        cdef Py_ssize_t hn = len(head), tn = len(tail)
        cdef bytes out = PyBytes_FromStringAndSize(NULL, hn + self.size + tn)
        cdef char* w = PyBytes_AS_STRING(out)
        memcpy(w, <const char*>head, hn)
        memcpy(w + hn, self.buf, self.size)
        memcpy(w + hn + self.size, <const char*>tail, tn)
        return out


include "_scan.pxi"
include "_heads.pxi"
include "_shards.pxi"
