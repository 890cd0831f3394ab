# The Arrow reader's row in C, the twin of ``_cells_py``: one row of text columns
# read from their offsets and values. Included by ``_urlset_c.pyx``.

cdef int _cells_row(UrlsetBuffer self, const char** offsets, const char** values,
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
    return _offer_line(self, f[0], fn[0], f[1], fn[1], f[2], fn[2], f[3], fn[3])
