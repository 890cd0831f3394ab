# The byte classes (from protocol's named character classes), the line count and
# the entry writer's XML escaping: the kernels of ``_kernels_py``, ``_canonical_py``'s
# tables and ``_urlset_py``'s escape. Included by ``_urlset_c.pyx``.

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
