# Included by _urlset_c.pyx, after the writer's hot unit whose helpers it uses.

# --- the validator's fast scan (twin of _scan_py.UrlScan) ------------------------

cdef enum:
    SCAN_MORE_ = 0
    SCAN_HANDOVER_ = 1
    SCAN_DUPLICATE_ = 2
    SCAN_WINDOW_ = 1 << 16

SCAN_MORE, SCAN_HANDOVER, SCAN_DUPLICATE = SCAN_MORE_, SCAN_HANDOVER_, SCAN_DUPLICATE_
SCAN_WINDOW = SCAN_WINDOW_

cdef enum:
    MAX_LINKS_ = 64  # _scan_py.MAX_LINKS
    LANG_BUFFER = 12  # the longest plain hreflang: ll-Ssss-RR (10)

cdef bytes _NO_EFFECT_REGIONS = b"\0" + b"\0".join(r.encode() for r in protocol.NO_EFFECT_REGIONS) + b"\0"
cdef bytes _X_DEFAULT = protocol.X_DEFAULT.encode()

cdef unsigned char HOST[256]   # protocol.HOST_CANONICAL
cdef bytes _PLAIN_CHANGEFREQS = b"\0" + b"\0".join(c.encode() for c in protocol.CHANGEFREQS) + b"\0"
cdef bytes _PLAIN_PRIORITIES = (b"\0" + b"\0".join(sorted(p.encode() for p in protocol.PLAIN_PRIORITIES))
                                + b"\0")
cdef Py_ssize_t MIN_LOC_LENGTH = protocol.MIN_LOC_LENGTH


cdef void _init_host():
    cdef int i
    memset(HOST, 0, 256)
    for i in protocol.HOST_CANONICAL.encode("ascii"):
        HOST[i] = 1


_init_host()


cdef inline bint _listed(bytes table, const char* p, Py_ssize_t n) noexcept:
    """Is p[:n] one of the NUL-separated words of ``table``? (A NUL in p is never one:
    without that check, "daily\\0weekly" would match two neighbouring words.)"""
    cdef const char* t = <const char*>table
    cdef Py_ssize_t tn = PyBytes_GET_SIZE(table), i
    if memchr(p, 0, n) != NULL:
        return False
    for i in range(tn - n - 1):
        if t[i] == 0 and t[i + n + 1] == 0 and memcmp(t + i + 1, p, n) == 0:
            return True
    return False


cdef inline Py_ssize_t _ws(const char* b, Py_ssize_t i, Py_ssize_t end) noexcept:
    """Skip spaces, tabs, LF and CR LF (what plain blocks have between tags)."""
    cdef char c
    while i < end:
        c = b[i]
        if c == 32 or c == 9 or c == 10:
            i += 1
        elif c == 13 and i + 1 < end and b[i + 1] == 10:
            i += 2
        else:
            break
    return i


cdef inline Py_ssize_t _tag(const char* b, Py_ssize_t i, Py_ssize_t end, const char* tag,
                            Py_ssize_t n) noexcept:
    """Position after ``tag`` at i, or -1."""
    if end - i >= n and memcmp(b + i, tag, n) == 0:
        return i + n
    return -1


cdef inline Py_ssize_t _text(const char* b, Py_ssize_t i, Py_ssize_t end) noexcept:
    """Position of the next '<' at or after i, or -1."""
    cdef const char* p = <const char*>memchr(b + i, 60, end - i)
    return -1 if p == NULL else p - b


cdef inline Py_ssize_t _element(const char* b, Py_ssize_t i, Py_ssize_t end, const char* open,
                                Py_ssize_t on, const char* close, Py_ssize_t cn,
                                Py_ssize_t* at, Py_ssize_t* stop) noexcept:
    """An optional ``<name>text</name>`` at i (the pure twin's regex group): the position
    after it and the whitespace that follows, with ``at``/``stop`` around its text; i and
    ``at`` = -1 when it is not there; -1 when it starts but does not end here."""
    cdef Py_ssize_t j = _tag(b, i, end, open, on), v
    at[0] = -1
    if j < 0:
        return i
    v = _text(b, j, end)
    if v < 0 or _tag(b, v, end, close, cn) < 0:
        return -1
    at[0], stop[0] = j, v
    return _ws(b, v + cn, end)


cdef Py_ssize_t _link(const char* b, Py_ssize_t i, Py_ssize_t end, Py_ssize_t* at) noexcept:
    """A plain ``<xhtml:link rel="alternate" hreflang=".." href=".."/>`` at i (the pure
    twin's _LINK): the position after it and the whitespace that follows, with the two
    values' extents in ``at[0:4]``; -1 when there is none."""
    cdef Py_ssize_t j = _tag(b, i, end, b'<xhtml:link rel="alternate" hreflang="', 38)
    if j < 0:
        return -1
    at[0] = j
    while j < end and b[j] != 34 and b[j] != 60 and b[j] != 38:
        j += 1
    at[1] = j
    j = _tag(b, j, end, b'" href="', 8)
    if j < 0:
        return -1
    at[2] = j
    while j < end and b[j] != 34 and b[j] != 60:
        j += 1
    at[3] = j
    j = _tag(b, j, end, b'"/>', 3)
    return -1 if j < 0 else _ws(b, j, end)


cdef inline bint _letters(const char* p, Py_ssize_t n) noexcept:
    cdef Py_ssize_t i
    for i in range(n):
        if not 97 <= <unsigned char>p[i] <= 122:
            return False
    return True


cdef Py_ssize_t _plain_lang(const char* p, Py_ssize_t n, char* low) noexcept:
    """As ``_scan_py._plain_lang`` (protocol.HREFLANG, x-default, NO_EFFECT_REGIONS):
    the hreflang lower-cased into ``low``, its length; -1 when it has a finding."""
    cdef Py_ssize_t i
    cdef unsigned char c
    if n < 2 or n > 10:
        return -1
    for i in range(n):
        c = <unsigned char>p[i]
        low[i] = <char>(c + 32 if 65 <= c <= 90 else c)
    if n == PyBytes_GET_SIZE(_X_DEFAULT) and memcmp(low, <const char*>_X_DEFAULT, n) == 0:
        return n
    if not _letters(low, 2):
        return -1
    if n == 2:
        return n
    if low[2] != 45:
        return -1
    if n == 5 or n == 10:  # a region last: one that looks like a country and is not
        if n == 10 and not (_letters(low + 3, 4) and low[7] == 45):
            return -1
        if not _letters(low + n - 2, 2) or _listed(_NO_EFFECT_REGIONS, low + n - 2, 2):
            return -1
        return n
    return n if n == 7 and _letters(low + 3, 4) else -1


cdef bint _parse_w3c(const char* s, Py_ssize_t n, char* canon, Py_ssize_t* cn,
                     int64_t* key) noexcept:
    """Any lastmod rules.dates accepts: a date, or a time with seconds, an optional
    fraction and Z or +-hh:mm; its canonical form and UTC-seconds key."""
    cdef int y, mo, d, h, mi, sec, off = 0
    cdef Py_ssize_t i
    if n < 10 or not (_digits(s, 4) and s[4] == 45 and _digits(s + 5, 2) and s[7] == 45
                      and _digits(s + 8, 2)):
        return False
    y = _num(s, 4)
    mo = _num(s + 5, 2)
    d = _num(s + 8, 2)
    if not _valid_ymd(y, mo, d):
        return False
    memcpy(canon, s, 10)
    if n == 10:
        cn[0] = 10
        key[0] = _days_from_civil(y, mo, d) * 86400
        return True
    if n < 20 or not (s[10] == 84 and _digits(s + 11, 2) and s[13] == 58
                      and _digits(s + 14, 2) and s[16] == 58 and _digits(s + 17, 2)):
        return False
    h = _num(s + 11, 2)
    mi = _num(s + 14, 2)
    sec = _num(s + 17, 2)
    i = 19
    if s[i] == 46:  # a fraction: dropped from the canonical form
        i += 1
        if i >= n or not DIGIT[<unsigned char>s[i]]:
            return False
        while i < n and DIGIT[<unsigned char>s[i]]:
            i += 1
    if i == n - 1 and s[i] == 90:  # Z
        off = 0
    elif i == n - 6 and (s[i] == 43 or s[i] == 45) and _digits(s + i + 1, 2) and s[i + 3] == 58 \
            and _digits(s + i + 4, 2):
        if _num(s + i + 4, 2) > 59:
            return False
        off = _num(s + i + 1, 2) * 60 + _num(s + i + 4, 2)
        if off > MAX_OFFSET_MINUTES:
            return False
        if s[i] == 45:
            off = -off
    else:
        return False
    if h > 23 or mi > 59 or sec > 59:
        return False
    memcpy(canon + 10, s + 10, 9)
    canon[19] = 45 if off < 0 else 43
    _put2(canon + 20, (off if off >= 0 else -off) // 60)
    canon[22] = 58
    _put2(canon + 23, (off if off >= 0 else -off) % 60)
    cn[0] = 25
    key[0] = _days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - off * 60
    return True


cdef class UrlScan:
    """See ``_scan_py.UrlScan``: the same blocks accepted, the same state kept."""

    cdef LocSet seen
    cdef readonly int file_no
    cdef int64_t future_limit
    cdef bytes scope
    cdef char origin_buf[LOC_BUFFER]
    cdef Py_ssize_t origin_len
    cdef object long_origin
    cdef public Py_ssize_t line
    cdef public Py_ssize_t column
    cdef public Py_ssize_t urls
    cdef Py_ssize_t dated
    cdef char day_buf[10]
    cdef bint has_day
    cdef bint many_days
    cdef int64_t newest_key
    cdef char newest_buf[32]
    cdef Py_ssize_t newest_len
    cdef public object dup_key
    cdef public int64_t dup_first
    cdef public Py_ssize_t dup_line
    cdef readonly bint links
    cdef list _clusters
    cdef dict _langs  # one string per hreflang value: clusters hold them by the million

    def __init__(self, LocSet seen, int file_no, int64_t future_limit, scope, Py_ssize_t line,
                 bint links=False):
        self.seen, self.file_no, self.future_limit = seen, file_no, future_limit
        self.links = links
        self._clusters = []
        self._langs = {}
        self.scope = (scope or "").encode("ascii", "replace")
        self.origin_len = 0
        self.line, self.column = line, 0
        self.urls = self.dated = 0
        self.has_day = self.many_days = False
        self.newest_key = -(2**62)
        self.newest_len = 0
        self.dup_key, self.dup_first, self.dup_line = "", -1, 0

    def load(self, origin, tuple spread, Py_ssize_t line):
        """See ``_scan_py.UrlScan.load``."""
        cdef bytes raw
        dated, day, many_days, newest_key, newest = spread
        self.origin_len = 0
        if origin is not None:
            raw = origin.encode("utf-8")
            if len(raw) < LOC_BUFFER:
                memcpy(self.origin_buf, <const char*>raw, len(raw))
                self.origin_len = len(raw)
            else:
                self.origin_len = LOC_BUFFER  # longer than any plain loc: nothing matches
                self.long_origin = origin
        self.dated, self.many_days, self.newest_key = dated, many_days, newest_key
        self.has_day = day is not None
        if self.has_day:
            raw = day.encode("ascii")
            if len(raw) != 10:
                raise ValueError(f"not a day: {day!r}")
            memcpy(self.day_buf, <const char*>raw, 10)
        self.newest_len = 0
        if newest is not None:
            raw = newest.encode("ascii")
            if len(raw) > 31:
                raise ValueError(f"not a canonical lastmod: {newest!r}")
            memcpy(self.newest_buf, <const char*>raw, len(raw))
            self.newest_len = len(raw)
        self.line, self.column = line, 0

    @property
    def origin(self):
        if self.origin_len == 0 or self.origin_len >= LOC_BUFFER:
            return None if self.origin_len == 0 else self.long_origin
        return PyUnicode_DecodeUTF8(self.origin_buf, self.origin_len, NULL)

    def spread(self):
        """The lastmods seen so far, as ``rules.dates.DateSpread.fields()``."""
        return (self.dated, PyUnicode_DecodeASCII(self.day_buf, 10, NULL) if self.has_day else None,
                self.many_days, self.newest_key,
                PyUnicode_DecodeASCII(self.newest_buf, self.newest_len, NULL)
                if self.newest_len else None)

    def take_clusters(self):
        """See ``_scan_py.UrlScan.take_clusters``."""
        taken, self._clusters = self._clusters, []
        return taken

    cdef object _pairs(self, const char* b, Py_ssize_t nl, Py_ssize_t* at, const char* loc,
                       Py_ssize_t n):
        """See ``_scan_py.UrlScan._cluster``: the (lang, href) pairs, or None."""
        cdef char langs[MAX_LINKS_][LANG_BUFFER]
        cdef Py_ssize_t lens[MAX_LINKS_]
        cdef char href[LOC_BUFFER]
        cdef Py_ssize_t k, q, hn
        cdef bint itself = False
        cdef list pairs = []
        cdef dict hrefs = {}  # x-default usually repeats a language's href: one string
        cdef str lang, url
        for k in range(nl):
            lens[k] = _plain_lang(b + at[4 * k], at[4 * k + 1] - at[4 * k], langs[k])
            if lens[k] < 0:
                return None
            for q in range(k):
                if lens[q] == lens[k] and memcmp(langs[q], langs[k], lens[k]) == 0:
                    return None
            hn = self._loc(b + at[4 * k + 2], at[4 * k + 3] - at[4 * k + 2], href, False)
            if hn < 0:
                return None
            if hn == n and memcmp(href, loc, n) == 0:
                itself = True
            lang = PyUnicode_DecodeASCII(langs[k], lens[k], NULL)
            url = PyUnicode_DecodeASCII(href, hn, NULL)
            pairs.append((self._langs.setdefault(lang, lang), hrefs.setdefault(url, url)))
        return tuple(pairs) if itself else None

    cdef Py_ssize_t _loc(self, const char* raw, Py_ssize_t rn, char* out,
                         bint entry=True) noexcept:
        """Decode and check a raw loc (or, with ``entry`` false, an href: no scope or
        host of the file) into ``out``; its length, or -1 if not plain."""
        cdef Py_ssize_t i = 0, w = 0, host_end, k
        cdef unsigned char c, cls
        while i < rn:
            c = <unsigned char>raw[i]
            if c == 38:
                if rn - i >= 5 and memcmp(raw + i + 1, b"amp;", 4) == 0:
                    i += 5
                elif rn - i >= 6 and memcmp(raw + i + 1, b"apos;", 5) == 0:
                    c = 39
                    i += 6
                else:
                    return -1
            elif c >= 128:
                return -1
            else:
                i += 1
            if w >= MAX_LOC_LENGTH:
                return -1
            out[w] = <char>c
            w += 1
        if w < MIN_LOC_LENGTH:
            return -1
        if w >= 8 and memcmp(out, b"https://", 8) == 0:
            k = 8
        elif memcmp(out, b"http://", 7) == 0:
            k = 7
        else:
            return -1
        host_end = k
        while host_end < w and HOST[<unsigned char>out[host_end]]:
            host_end += 1
        if host_end == k or host_end == w or out[host_end] != 47:
            return -1
        k = host_end
        while k < w:
            cls = CLS[<unsigned char>out[k]]
            if cls == C_PERCENT:
                if k + 2 >= w or not HEXU[<unsigned char>out[k + 1]] or not HEXU[<unsigned char>out[k + 2]]:
                    return -1
                k += 3
            elif cls == C_BAD:
                return -1
            else:
                if cls == C_AMP and _named_entity(out + k + 1, out + w):
                    return -1
                k += 1
        if not entry:
            return w
        cdef Py_ssize_t sn = PyBytes_GET_SIZE(self.scope)
        if sn and (w < sn or memcmp(out, <const char*>self.scope, sn) != 0):
            return -1
        if self.origin_len:
            if host_end != self.origin_len or memcmp(out, self.origin_buf, host_end) != 0:
                return -1
        return w

    def scan(self, bytes buf, Py_ssize_t pos, bint final):
        """Check plain blocks from ``buf[pos:]``; (where it stopped, SCAN_*)."""
        cdef const char* b = PyBytes_AS_STRING(buf)
        cdef Py_ssize_t end = PyBytes_GET_SIZE(buf)
        cdef Py_ssize_t i, url_at, loc_at, loc_end, n, j, cn = 0
        cdef Py_ssize_t lm_at, lm_end = 0, cf_at, cf_end = 0, pr_at, pr_end = 0
        cdef Py_ssize_t breaks, last_break, url_line
        cdef char loc[LOC_BUFFER]
        cdef char canon[32]
        cdef int64_t key = 0, first
        cdef uint64_t h, hb
        cdef Py_ssize_t at[4 * MAX_LINKS_]
        cdef Py_ssize_t spare[4]
        cdef const char* nlp
        cdef Py_ssize_t nl
        cdef object pairs
        while True:
            # syntax: the block's extent and its values (the regex of the pure twin)
            i = _ws(b, pos, end)
            url_at = i
            i = _tag(b, i, end, b"<url>", 5)
            if i < 0:
                return self._stop(end, pos, final)
            i = _element(b, _ws(b, i, end), end, b"<loc>", 5, b"</loc>", 6, &loc_at, &loc_end)
            if i < 0 or loc_at < 0:
                return self._stop(end, pos, final)
            i = _element(b, i, end, b"<lastmod>", 9, b"</lastmod>", 10, &lm_at, &lm_end)
            if i >= 0:
                i = _element(b, i, end, b"<changefreq>", 12, b"</changefreq>", 13, &cf_at,
                             &cf_end)
            if i >= 0:
                i = _element(b, i, end, b"<priority>", 10, b"</priority>", 11, &pr_at, &pr_end)
            if i < 0:
                return self._stop(end, pos, final)
            nl = 0
            while self.links:
                if nl == MAX_LINKS_:  # one more link than a plain block may have?
                    if _link(b, i, end, spare) >= 0:
                        return pos, SCAN_HANDOVER_
                    break
                j = _link(b, i, end, &at[4 * nl])
                if j < 0:
                    break
                nl += 1
                i = j
            i = _tag(b, i, end, b"</url>", 6)
            if i < 0:
                return self._stop(end, pos, final)
            # rules: the values
            if cf_at >= 0 and not _listed(_PLAIN_CHANGEFREQS, b + cf_at, cf_end - cf_at):
                return pos, SCAN_HANDOVER_
            if pr_at >= 0 and not _listed(_PLAIN_PRIORITIES, b + pr_at, pr_end - pr_at):
                return pos, SCAN_HANDOVER_
            n = self._loc(b + loc_at, loc_end - loc_at, loc)
            if n < 0:
                return pos, SCAN_HANDOVER_
            if lm_at >= 0:
                if not _parse_w3c(b + lm_at, lm_end - lm_at, canon, &cn, &key):
                    return pos, SCAN_HANDOVER_
                if key > self.future_limit:
                    return pos, SCAN_HANDOVER_
            pairs = None
            if nl:
                pairs = self._pairs(b, nl, at, loc, n)
                if pairs is None:
                    return pos, SCAN_HANDOVER_
            # accepted: count it, then the duplicate check
            if not self.origin_len:
                j = 8 if loc[4] == 115 else 7
                while loc[j] != 47:
                    j += 1
                memcpy(self.origin_buf, loc, j)
                self.origin_len = j
            self.urls += 1
            if lm_at >= 0:
                self.dated += 1
                if not self.has_day:
                    memcpy(self.day_buf, canon, 10)
                    self.has_day = True
                elif not self.many_days and memcmp(self.day_buf, canon, 10) != 0:
                    self.many_days = True
                if key > self.newest_key:
                    self.newest_key = key
                    memcpy(self.newest_buf, canon, cn)
                    self.newest_len = cn
            breaks = 0
            last_break = -1
            url_line = self.line
            nlp = <const char*>memchr(b + pos, 10, i - pos)
            while nlp != NULL:
                j = nlp - b
                breaks += 1
                last_break = j
                if j < url_at:
                    url_line += 1
                nlp = <const char*>memchr(b + j + 1, 10, i - j - 1)
            if breaks:
                self.line += breaks
                self.column = i - last_break - 1
            else:
                self.column += i - pos
            if pairs is not None:
                self._clusters.append((PyUnicode_DecodeASCII(loc, n, NULL), pairs, url_line))
            _loc_hash(loc, n, &h, &hb)
            first = self.seen.add_checked(_narrow(h), hb, self.file_no)
            pos = i
            if first >= 0:
                self.dup_key = PyUnicode_DecodeASCII(loc, n, NULL)
                self.dup_first = first
                self.dup_line = url_line
                return pos, SCAN_DUPLICATE_

    cdef tuple _stop(self, Py_ssize_t end, Py_ssize_t pos, bint final):
        if not final and end - pos < SCAN_WINDOW_:
            return pos, SCAN_MORE_
        return pos, SCAN_HANDOVER_
