# What the fast path accepts as already canonical, value by value, in C: the
# twin of ``_canonical_py`` (a loc's tail, a lastmod, a priority). Included by
# ``_urlset_c.pyx``.

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




cdef bint _format_datetime(UrlsetBuffer self, object dt, char* out, int64_t* key) except -1:
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
