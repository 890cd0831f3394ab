# Included by _urlset_c.pyx: editing shards the buffer has written (twin:
# _urlset/_shards_py.py, the reference; see there for why).

def sort_keys(bytes data not None):
    """As ``_shards_py.sort_keys``."""
    if len(data) % sizeof(SkKey):
        raise ValueError("sort_keys: keys are key bytes (16 bytes a key)")
    cdef Py_ssize_t n = len(data) // sizeof(SkKey), i, kept = 1
    cdef const SkKey* given = <const SkKey*>PyBytes_AS_STRING(data)  # 8-aligned storage
    for i in range(1, n):
        if not _key_less(given[i - 1], given[i]):
            break
    else:
        return data  # in order and distinct already (a partition sorts its own): a pass
    cdef bytes out = PyBytes_FromStringAndSize(PyBytes_AS_STRING(data), n * sizeof(SkKey))
    cdef SkKey* keys = <SkKey*>PyBytes_AS_STRING(out)
    with nogil:
        _sort_keys(keys, n)
    for i in range(1, n):  # each key once
        if keys[i].hi != keys[kept - 1].hi or keys[i].lo != keys[kept - 1].lo:
            keys[kept] = keys[i]
            kept += 1
    return out if kept == n else PyBytes_FromStringAndSize(PyBytes_AS_STRING(out),
                                                           kept * sizeof(SkKey))


cdef inline bint _in_keys(const SkKey* table, Py_ssize_t n, SkKey key) noexcept:
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if _key_less(table[mid], key):
            lo = mid + 1
        else:
            hi = mid
    return lo < n and table[lo].hi == key.hi and table[lo].lo == key.lo


cdef const char* _block_lastmod(const char* p, Py_ssize_t n, Py_ssize_t* length) noexcept:
    """The lastmod in the block ``p[:n]``: it follows the loc, which holds no ``<``."""
    cdef const char* at = <const char*>memchr(p + 10, 60, n - 10)  # "<url><loc>" first
    cdef const char* stop
    if at == NULL or (p + n) - at < 15 or memcmp(at, b"</loc><lastmod>", 15) != 0:
        return NULL
    at += 15
    stop = <const char*>memchr(at, 60, (p + n) - at)
    if stop == NULL:
        return NULL
    length[0] = stop - at
    return at


cdef enum:
    DROP_FILTER_BITS = 20  # a bit per low-bits value of the drop keys' second words
                           # (full even with narrowed test keys): most rows skip the
                           # binary search


def drop_urls(bytes data not None, bytes keys not None, bytes drop not None, bint text,
              Py_ssize_t examples, bytearray out=None):
    """As ``_shards_py.drop_urls``."""
    cdef const char* d = PyBytes_AS_STRING(data)
    cdef Py_ssize_t size = len(data), start = 0, end = size, pos, stop, nkeys, ndrop, i
    cdef Py_ssize_t kept = 0, w, lmn = 0
    cdef const char* hit
    cdef const char* lm
    cdef const char* newest = NULL
    cdef Py_ssize_t newest_len = 0
    cdef int64_t newest_key = -(<int64_t>1 << 62), lkey = 0
    cdef SkKey* order = NULL
    cdef SkKey* table = NULL
    cdef char* scratch = NULL  # the cut shard, when no ``out`` is given
    cdef char* dst
    cdef uint64_t* filter = NULL
    cdef uint64_t bit
    cdef Py_ssize_t run
    cdef list found = []
    if len(keys) % sizeof(SkKey):
        raise ValueError("drop_urls: keys are key bytes (16 bytes a key)")
    if len(drop) % sizeof(SkKey):
        raise ValueError("drop_urls: drop is key bytes (16 bytes a key)")
    nkeys, ndrop = len(keys) // sizeof(SkKey), len(drop) // sizeof(SkKey)
    try:
        order = <SkKey*>malloc((nkeys + 1) * sizeof(SkKey))  # aligned copies, whatever
        table = <SkKey*>malloc((ndrop + 1) * sizeof(SkKey))  # the bytes
        if out is None:
            scratch = <char*>malloc(size + 1)
            dst = scratch
        else:
            dst = PyByteArray_AS_STRING(out)
        if order == NULL or table == NULL or dst == NULL:
            raise MemoryError()
        memcpy(order, PyBytes_AS_STRING(keys), nkeys * sizeof(SkKey))
        memcpy(table, PyBytes_AS_STRING(drop), ndrop * sizeof(SkKey))
        for i in range(ndrop - 1):
            if not _key_less(table[i], table[i + 1]):
                raise ValueError("drop_urls: the drop keys must be ascending and distinct")
        if out is not None and len(out) < size:  # nothing is written into it before here
            raise ValueError("drop_urls: out is a bytearray at least as long as data")
        if not text:
            if data.startswith(_HEAD_XHTML):
                start = len(_HEAD_XHTML)
            elif data.startswith(_HEAD):
                start = len(_HEAD)
            else:
                start = -1
            if start < 0 or not data.endswith(_TAIL):
                raise ValueError("drop_urls: data is not a whole shard")
            end = size - len(_TAIL)
        filter = <uint64_t*>calloc((1 << DROP_FILTER_BITS) // 64, 8)
        if filter == NULL:
            raise MemoryError()
        for i in range(ndrop):
            bit = <uint64_t>table[i].lo & ((1 << DROP_FILTER_BITS) - 1)
            filter[bit >> 6] |= (<uint64_t>1) << (bit & 63)
        w = 0
        pos, run = start, 0  # kept blocks (and the head) are copied a run at a time
        for i in range(nkeys):
            hit = <const char*>memchr(d + pos, 10, end - pos)  # no block holds a line end
            if hit == NULL:
                raise ValueError("drop_urls: the shard has fewer URLs than keys")
            stop = (hit - d) + 1
            if not text and (stop - pos < 17 or memcmp(d + pos, b"<url><loc>", 10) != 0
                             or memcmp(d + stop - 7, b"</url>\n", 7) != 0):
                raise ValueError("drop_urls: data is not a whole shard")
            bit = <uint64_t>order[i].lo & ((1 << DROP_FILTER_BITS) - 1)
            if (filter[bit >> 6] >> (bit & 63)) & 1 and _in_keys(table, ndrop, order[i]):
                memcpy(dst + w, d + run, pos - run)
                w += pos - run
                run = stop
                if len(found) < examples:
                    found.append(pos)
            else:
                kept += 1
                if not text:
                    lm = _block_lastmod(d + pos, stop - pos, &lmn)
                    if lm != NULL and _parse_canonical(lm, lmn, &lkey) and lkey > newest_key:
                        newest, newest_len, newest_key = lm, lmn, lkey
            pos = stop
        if pos != end:
            raise ValueError("drop_urls: the shard has more URLs than keys")
        if run == 0:  # nothing left out: the shard as it is
            return (data, kept,
                    None if newest == NULL else PyUnicode_DecodeASCII(newest, newest_len, NULL),
                    found)
        memcpy(dst + w, d + run, size - run)
        w += size - run
        return (PyBytes_FromStringAndSize(dst, w) if out is None else memoryview(out)[:w],
                kept,
                None if newest == NULL else PyUnicode_DecodeASCII(newest, newest_len, NULL),
                found)
    finally:
        free(order)
        free(table)
        free(scratch)
        free(filter)
