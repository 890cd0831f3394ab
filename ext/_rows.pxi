# The line reader in C, the twin of ``_rows_py``: which input lines the fast path
# reads straight from bytes (TSV and CSV fields, JSON Lines objects) and their
# fields. Included by ``_urlset_c.pyx``.

cdef inline bint _strip_char(unsigned char c) noexcept:
    """What str.strip() removes from ASCII (_rows_py.STRIPPED)."""
    return c == 32 or 9 <= c <= 13 or 28 <= c <= 31


from sitemapkit._urlset import _rows_py

if _rows_py.LOC_BUFFER != LOC_BUFFER:
    raise ImportError("_rows_py.LOC_BUFFER is not the C twin's loc buffer")

cdef enum:
    MAX_WIDE = 32
cdef char _WIDE[MAX_WIDE][4]  # _rows_py.WIDE_SPACES: the spaces above 0x7F strip() removes
cdef int _WIDE_LEN[MAX_WIDE]
cdef int _WIDE_N = 0


cdef void _init_wide_spaces() except *:
    global _WIDE_N
    cdef bytes space
    for space in _rows_py.WIDE_SPACES:
        if _WIDE_N == MAX_WIDE or len(space) > 4:
            raise ImportError("_rows_py.WIDE_SPACES does not fit the C twin's table")
        memcpy(_WIDE[_WIDE_N], PyBytes_AS_STRING(space), len(space))
        _WIDE_LEN[_WIDE_N] = len(space)
        _WIDE_N += 1


_init_wide_spaces()


def _wide_spaces():
    """_rows_py.WIDE_SPACES as the C table holds them (for the test that they agree)."""
    return tuple([PyBytes_FromStringAndSize(_WIDE[k], _WIDE_LEN[k]) for k in range(_WIDE_N)])


cdef bint _wide_space(const char* p, Py_ssize_t n, bint at_end) noexcept:
    """Whether p[:n] starts (or ends) with one of the wide spaces."""
    cdef int k
    cdef Py_ssize_t m
    for k in range(_WIDE_N):
        m = _WIDE_LEN[k]
        if m <= n and memcmp(p + n - m if at_end else p, _WIDE[k], m) == 0:
            return True
    return False


cdef inline bint _padded(const char* p, Py_ssize_t n) noexcept:
    """Whether ``str.strip()`` would change the field's text (_rows_py._padded)."""
    if n == 0:
        return False
    if _strip_char(<unsigned char>p[0]) or _strip_char(<unsigned char>p[n - 1]):
        return True
    return ((<unsigned char>p[n - 1] >= 0x80 and _wide_space(p, n, True))
            or (<unsigned char>p[0] >= 0x80 and _wide_space(p, n, False)))


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




cdef int _row_at(UrlsetBuffer self, const char* base, Py_ssize_t n, Py_ssize_t pos,
                 Py_ssize_t* end, int layout, int sep, int* cols,
                 Py_ssize_t width) except -1:
    """Offer the line at ``pos`` (``end``: where the next starts); EXHAUSTED_ for a
    blank one."""
    cdef const char* nl = <const char*>memchr(base + pos, 10, n - pos)
    cdef Py_ssize_t stop = n if nl == NULL else nl - base
    end[0] = n if nl == NULL else stop + 1
    if stop > pos and base[stop - 1] == 13:
        stop -= 1
    if stop == pos:
        return EXHAUSTED_
    self.alt_at = NULL
    if layout == LAYOUT_TEXT:
        if _padded(base + pos, stop - pos):
            return SLOW_
        return _offer_line(self, base + pos, stop - pos, NULL, 0, NULL, 0, NULL, 0)
    if layout == LAYOUT_TABLE:
        return _table_line(self, base + pos, stop - pos, sep, cols, width)
    return _json_line(self, base + pos, stop - pos)


cdef int _table_line(UrlsetBuffer self, const char* p, Py_ssize_t n, int sep, int* cols,
                     Py_ssize_t width) except -1:
    """A CSV/TSV line of exactly ``width`` cells, none padded; with a quote in it, the
    cells as csv reads them (``_quoted_cells``)."""
    cdef Py_ssize_t a[MAX_CELLS], b[MAX_CELLS]
    cdef Py_ssize_t cells = 1, i
    cdef const char* q
    if width > MAX_CELLS:
        return SLOW_
    if memchr(p, 34, n) != NULL:
        return _quoted_table_line(self, p, n, sep, cols, width)
    a[0] = 0
    q = <const char*>memchr(p, sep, n)
    while q != NULL:
        if cells == width:
            return SLOW_
        i = q - p
        b[cells - 1] = i
        a[cells] = i + 1
        cells += 1
        q = <const char*>memchr(q + 1, sep, n - i - 1)
    if cells != width:
        return SLOW_
    b[cells - 1] = n
    return _table_fields(self, p, a, b, NULL, cols)


cdef int _quoted_table_line(UrlsetBuffer self, const char* p, Py_ssize_t n, int sep,
                            int* cols, Py_ssize_t width) except -1:
    """_rows_py._quoted_cells: a cell quoted whole runs to the next quote not doubled,
    which ends the line or meets a separator; SLOW for any other quote, a record that
    runs past the line, a quoted cell over LOC_BUFFER bytes, another cell count."""
    cdef Py_ssize_t a[MAX_CELLS], b[MAX_CELLS]
    cdef bint doubled[MAX_CELLS]
    cdef Py_ssize_t cells = 0, i = 0, j, end
    cdef const char* q
    while True:
        if cells == width:
            return SLOW_
        doubled[cells] = False
        if i < n and p[i] == 34:
            j = i + 1
            while True:
                q = <const char*>memchr(p + j, 34, n - j)
                if q == NULL:
                    return SLOW_  # the record goes on past this line
                j = q - p
                if j + 1 < n and p[j + 1] == 34:
                    doubled[cells] = True
                    j += 2
                    continue
                break
            if j - i - 1 > LOC_BUFFER:
                return SLOW_
            a[cells] = i + 1
            b[cells] = j
            end = j + 1
            if end < n and p[end] != sep:
                return SLOW_
        else:
            q = <const char*>memchr(p + i, sep, n - i)
            end = n if q == NULL else q - p
            if memchr(p + i, 34, end - i) != NULL:
                return SLOW_
            a[cells] = i
            b[cells] = end
        cells += 1
        if end >= n:
            break
        i = end + 1
    if cells != width:
        return SLOW_
    return _table_fields(self, p, a, b, doubled, cols)


cdef Py_ssize_t _undouble(const char* p, Py_ssize_t n, char* out) noexcept:
    """A quoted cell's text: each doubled quote as one."""
    cdef Py_ssize_t i = 0, w = 0
    while i < n:
        out[w] = p[i]
        w += 1
        i += 2 if p[i] == 34 else 1
    return w


cdef int _table_fields(UrlsetBuffer self, const char* p, Py_ssize_t* a, Py_ssize_t* b,
                       bint* doubled, int* cols) except -1:
    """Offer the four columns' cells (cell ``at`` is p[a[at]:b[at]], its quotes
    doubled where ``doubled`` says): SLOW for a padded one, a non-ASCII one other than
    the loc, or no loc."""
    cdef const char* f[4]
    cdef Py_ssize_t fn[4]
    cdef char decoded[4][LOC_BUFFER]
    cdef const char* s
    cdef Py_ssize_t m
    cdef int k, at
    for k in range(4):
        at = cols[k]
        f[k] = NULL
        fn[k] = 0
        if at < 0:
            continue
        s = p + a[at]
        m = b[at] - a[at]
        if doubled != NULL and doubled[at]:
            m = _undouble(s, m, decoded[k])
            s = decoded[k]
        if _padded(s, m):
            return SLOW_
        if m > 0:
            if k != 0 and not _is_ascii(s, m):
                return SLOW_
            f[k] = s
            fn[k] = m
    if f[0] == NULL:
        return SLOW_
    return _offer_line(self, f[0], fn[0], f[1], fn[1], f[2], fn[2], f[3], fn[3])


cdef int _json_line(UrlsetBuffer self, const char* p, Py_ssize_t n) except -1:
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
        return _offer_line(self, f[0], fn[0], NULL, 0, NULL, 0, NULL, 0)
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
    return _offer_line(self, f[0], fn[0], f[1], fn[1], f[2], fn[2], f[3], fn[3])


cdef int _offer_line(UrlsetBuffer self, const char* l, Py_ssize_t ln, const char* lm, Py_ssize_t lmn,
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
    if status != FULL_ and status != TAKEN_BACK_:
        self.arrived |= (<uint64_t>1) << member
    return status
