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

cdef extern from "Python.h":
    ctypedef struct PyThreadState
    PyThreadState* PyEval_SaveThread()
    void PyEval_RestoreThread(PyThreadState* state)

cdef enum:
    ADDED_ = 0
    FULL_ = 1
    SLOW_ = 2
    DUPLICATE_ = 3
    EXHAUSTED_ = 4
    TAKEN_BACK_ = 5  # C only: the pending row repeated a URL (see _settle); never returned
    YIELD_ROWS = 512  # rows between the row loops' GIL hand-offs (_let_others_in)

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

include "_kernels.pxi"

include "_crc32.pxi"
include "_blake2b.pxi"
include "_locset.pxi"


cdef inline const char* _ascii(object s, Py_ssize_t* n) except NULL:
    if not PyUnicode_IS_ASCII(s):
        raise ValueError(f"non-canonical value (not ASCII): {s!r}")
    n[0] = PyUnicode_GET_LENGTH(s)
    return <const char*>PyUnicode_DATA(s)


cdef enum:
    LAYOUT_TEXT = 0    # _rows_py.TEXT, TABLE, JSONL
    LAYOUT_TABLE = 1
    LAYOUT_JSONL = 2
    MAX_CELLS = 16     # a wider header is read by the Python reader
    MEMO_MEMBERS = 64  # _urlset_py.MEMO_MEMBERS: one bit each in ``arrived``



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
    # Inside feed_lines/feed_cells a row's duplicate check waits for the next row's
    # hash: its slot, prefetched a row earlier, has arrived from memory by then (a
    # probe that misses costs about 0.25 s a million rows, a third of the line reader's
    # time: see sk_prefetch for why the prefetch once went missing). The row is
    # written and counted; ``_settle`` checks it and takes it back out if it repeats.
    cdef bint deferring
    cdef bint pending
    cdef uint64_t pend_a, pend_b
    cdef Py_ssize_t pend_size, pend_nbytes, pend_count, pend_unused
    cdef bint pend_newest  # the pending row changed newest: the previous one is kept
    cdef int64_t pend_newest_key
    cdef char pend_newest_text[32]
    cdef int pend_newest_len

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
        self.deferring = self.pending = False
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
        _loc_hash(l, ln, &ka, &kb)
        ka = _narrow(ka)
        self.seen._prefetch(ka)
        if self.pending and self._settle() == DUPLICATE_:
            return TAKEN_BACK_  # this row is read again, after the repeat is reported
        if self.count >= self.max_urls or self.nbytes + size + extra_head > self.max_bytes:
            return FULL_
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
        if self.deferring and not alternates and not self.keyed and not self.record:
            self.pending, self.pend_a, self.pend_b = True, ka, kb  # checked by _settle
            self.pend_size, self.pend_nbytes = self.size, self.nbytes
            self.pend_count, self.pend_unused = self.count, self.unused_fields
            self.pend_newest = False
        elif self.seen.add_checked(ka, kb, 0) != -1:
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
            if self.pending:
                self.pend_newest, self.pend_newest_key = True, self.newest_key
                memcpy(self.pend_newest_text, self.newest, self.newest_len)
                self.pend_newest_len = self.newest_len
            self.newest_key = key
            memcpy(self.newest, lm, lmn)
            self.newest_len = <int>lmn
        return ADDED_

    cdef int _settle(self) except -1:
        """The pending row's duplicate check: ADDED_, or DUPLICATE_ once the row is taken
        back out (its bytes stay past ``size``, uncounted, as a repeat's always did)."""
        if not self.pending:
            return ADDED_
        self.pending = False
        if self.seen.add_checked(self.pend_a, self.pend_b, 0) == -1:
            return ADDED_
        self.size, self.nbytes = self.pend_size, self.pend_nbytes
        self.count, self.unused_fields = self.pend_count, self.pend_unused
        if self.pend_newest:
            self.newest_key = self.pend_newest_key
            memcpy(self.newest, self.pend_newest_text, self.pend_newest_len)
            self.newest_len = self.pend_newest_len
        return DUPLICATE_

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
                if not _format_datetime(self, lastmod, lmbuf, &key):
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

    cdef inline void _let_others_in(self) noexcept:
        """Every YIELD_ROWS rows: release and retake the GIL, so that a worker that has
        asked for it (a shard's gzip done) gets in now, not when this call returns."""
        if self.consumed & (YIELD_ROWS - 1) == 0:
            PyEval_RestoreThread(PyEval_SaveThread())  # Cython drops an empty nogil block

    def feed_lines(self, bytes data, Py_ssize_t start, int layout, int sep, tuple columns,
                   Py_ssize_t width):
        """As ``_urlset_py.UrlsetBuffer.feed_lines``: rows straight from input bytes."""
        cdef const char* base = PyBytes_AS_STRING(data)
        cdef Py_ssize_t n = PyBytes_GET_SIZE(data), pos = start, end
        cdef Py_ssize_t last = start, last_end = start  # the row added last (maybe pending)
        cdef int cols[4]
        cdef int status, i
        if start < 0 or start > n or len(columns) != 4:
            raise ValueError("feed_lines: bad start or columns")
        for i in range(4):
            cols[i] = columns[i]
        self.deferring = True
        try:
            while pos < n:
                status = _row_at(self, base, n, pos, &end, layout, sep, cols, width)
                if status == ADDED_:
                    self.consumed += 1
                    last, last_end, pos = pos, end, end
                    self._let_others_in()
                    continue
                if status == EXHAUSTED_:  # a blank line
                    pos = end
                    continue
                if status == TAKEN_BACK_ or self._settle() == DUPLICATE_:
                    return DUPLICATE_, last, last_end  # counted in ``consumed`` already
                if status == DUPLICATE_:
                    self.consumed += 1
                elif status == SLOW_:
                    self.slow_alternates = (None if self.alt_at == NULL else
                                            PyBytes_FromStringAndSize(self.alt_at, self.alt_len))
                return status, pos, end
            if self._settle() == DUPLICATE_:
                return DUPLICATE_, last, last_end
            return EXHAUSTED_, n, n
        finally:
            self.deferring = False
            if self.pending:  # an error left it: the run fails, the counts stay honest
                self._settle()

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
            self.deferring = True
            while row < rows:
                status = _cells_row(self, offsets, values, nvalues, base, row)
                if status == ADDED_:
                    self.consumed += 1
                    row += 1
                    self._let_others_in()
                    continue
                if status == TAKEN_BACK_ or self._settle() == DUPLICATE_:
                    return DUPLICATE_, row - 1, row  # the row before, counted already
                if status == DUPLICATE_:
                    self.consumed += 1
                elif status == SLOW_:
                    self.slow_alternates = None
                return status, row, row + 1
            if self._settle() == DUPLICATE_:
                return DUPLICATE_, rows - 1, rows
            return EXHAUSTED_, rows, rows
        finally:
            self.deferring = False
            if self.pending:  # an error left it: the run fails, the counts stay honest
                self._settle()
            for k in range(8):
                if held[k]:
                    PyBuffer_Release(&views[k])

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


include "_canonical.pxi"
include "_rows.pxi"
include "_cells.pxi"
include "_scan.pxi"
include "_heads.pxi"
include "_shards.pxi"
