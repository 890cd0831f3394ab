# Included by _urlset_c.pyx: BLAKE2b (RFC 7693, unkeyed) for the duplicate check's
# 128-bit key of a canonical loc (twin: hashlib.blake2b(loc, digest_size=16) in
# _locset_py.loc_hash), and the partition keys made from it (twin: _kernels_py): the
# slot word shifted right one bit, then the check word, 16 bytes a key, ordered by
# (first, second) word as signed 64-bit numbers.

cdef extern from *:
    """
    /* BLAKE2b's compression with the twelve rounds unrolled, so every message index
       is a constant and the state stays in registers (about twice the speed of a
       loop over the permutation table). */
    #include <stdint.h>
    static const uint64_t sk_b2b_iv[8] = {
        0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
        0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
        0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};
    static const unsigned char sk_b2b_sigma[12][16] = {
        {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
        {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
        {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
        {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
        {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
        {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
        {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
        {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
        {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
        {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
        {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
        {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};
    #define SK_ROTR(x, n) (((x) >> (n)) | ((x) << (64 - (n))))
    #define SK_G(r, i, a, b, c, d) do { \
        a = a + b + m[sk_b2b_sigma[r][2 * (i)]]; d = SK_ROTR(d ^ a, 32); \
        c = c + d; b = SK_ROTR(b ^ c, 24); \
        a = a + b + m[sk_b2b_sigma[r][2 * (i) + 1]]; d = SK_ROTR(d ^ a, 16); \
        c = c + d; b = SK_ROTR(b ^ c, 63); } while (0)
    #define SK_ROUND(r) do { \
        SK_G(r, 0, v0, v4, v8, v12); SK_G(r, 1, v1, v5, v9, v13); \
        SK_G(r, 2, v2, v6, v10, v14); SK_G(r, 3, v3, v7, v11, v15); \
        SK_G(r, 4, v0, v5, v10, v15); SK_G(r, 5, v1, v6, v11, v12); \
        SK_G(r, 6, v2, v7, v8, v13); SK_G(r, 7, v3, v4, v9, v14); } while (0)
    static void sk_b2b_compress(uint64_t* h, const unsigned char* block,
                                uint64_t counter, int last) {
        uint64_t m[16];
        int i;
        for (i = 0; i < 16; i++) {  /* little-endian, whatever the machine's order */
            const unsigned char* p = block + 8 * i;
            m[i] = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
                   (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
                   (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
        }
        uint64_t v0 = h[0], v1 = h[1], v2 = h[2], v3 = h[3], v4 = h[4], v5 = h[5],
                 v6 = h[6], v7 = h[7], v8 = sk_b2b_iv[0], v9 = sk_b2b_iv[1],
                 v10 = sk_b2b_iv[2], v11 = sk_b2b_iv[3], v12 = sk_b2b_iv[4] ^ counter,
                 v13 = sk_b2b_iv[5], v14 = last ? ~sk_b2b_iv[6] : sk_b2b_iv[6],
                 v15 = sk_b2b_iv[7];  /* counter < 2**64 bytes here: its high word is 0 */
        SK_ROUND(0); SK_ROUND(1); SK_ROUND(2); SK_ROUND(3); SK_ROUND(4); SK_ROUND(5);
        SK_ROUND(6); SK_ROUND(7); SK_ROUND(8); SK_ROUND(9); SK_ROUND(10); SK_ROUND(11);
        h[0] ^= v0 ^ v8; h[1] ^= v1 ^ v9; h[2] ^= v2 ^ v10; h[3] ^= v3 ^ v11;
        h[4] ^= v4 ^ v12; h[5] ^= v5 ^ v13; h[6] ^= v6 ^ v14; h[7] ^= v7 ^ v15;
    }
    """
    const uint64_t* sk_b2b_iv
    void _b2b_compress "sk_b2b_compress"(uint64_t* h, const unsigned char* block,
                                         uint64_t counter, bint last) noexcept nogil


cdef inline void _b2b_state(const char* data, Py_ssize_t n, uint64_t param,
                            uint64_t* h) noexcept nogil:
    """BLAKE2b of ``data`` (unkeyed, RFC 7693) into the state ``h``; ``param`` is the
    parameter block's first word (digest length, fanout and depth 1)."""
    cdef unsigned char block[128]
    cdef const unsigned char* p = <const unsigned char*>data
    cdef Py_ssize_t done = 0
    cdef int i
    for i in range(8):
        h[i] = sk_b2b_iv[i]
    h[0] ^= param
    while n - done > 128:  # every full block but the last goes in as it is
        _b2b_compress(h, p + done, <uint64_t>(done + 128), False)
        done += 128
    memset(block, 0, 128)
    memcpy(block, p + done, <size_t>(n - done))
    _b2b_compress(h, block, <uint64_t>n, True)


cdef void _loc_hash(const char* data, Py_ssize_t n, uint64_t* a, uint64_t* b) noexcept nogil:
    """The duplicate check's key of ``data``: BLAKE2b with a 16-byte digest, its two
    words little-endian: ``a`` finds the slot, ``b`` tells two locs with the same ``a``
    apart (as ``_locset_py.loc_hash``)."""
    cdef uint64_t h[8]
    _b2b_state(data, n, 0x01010010ULL, h)
    a[0] = h[0]
    b[0] = h[1]


ctypedef struct SkKey:  # a partition key, as 16 bytes of key bytes hold it
    int64_t hi
    int64_t lo


cdef inline bint _key_less(SkKey a, SkKey b) noexcept nogil:
    return a.hi < b.hi or (a.hi == b.hi and a.lo < b.lo)


cdef enum:
    RADIX_BITS = 11  # six passes cover a 64-bit first word
    RADIX_SIZE = 1 << RADIX_BITS


cdef int _sort_keys(SkKey* keys, Py_ssize_t n) except -1 nogil:
    """Sort keys ascending: an LSD radix sort on the first word, several times
    faster than qsort with a compare call per step; then each run of
    equal first words (rare but for narrowed test keys) ordered by the second.
    Without the GIL: a driver sorts several partitions' keys in threads."""
    cdef SkKey* tmp = <SkKey*>malloc(n * sizeof(SkKey) + 1)
    cdef SkKey* src = keys
    cdef SkKey* dst = tmp
    cdef SkKey* swap
    cdef SkKey item
    cdef Py_ssize_t counts[RADIX_SIZE]
    cdef Py_ssize_t i, j, total, c
    cdef uint64_t flip = <uint64_t>1 << 63  # signed order as unsigned
    cdef int shift, step
    if tmp == NULL:
        with gil:
            raise MemoryError()
    for step in range(6):  # even: the result is in keys
        shift = step * RADIX_BITS
        memset(counts, 0, sizeof(counts))
        for i in range(n):
            counts[((<uint64_t>src[i].hi ^ flip) >> shift) & (RADIX_SIZE - 1)] += 1
        total = 0
        for i in range(RADIX_SIZE):
            c = counts[i]
            counts[i] = total
            total += c
        for i in range(n):
            c = ((<uint64_t>src[i].hi ^ flip) >> shift) & (RADIX_SIZE - 1)
            dst[counts[c]] = src[i]
            counts[c] += 1
        swap = src
        src = dst
        dst = swap
    free(tmp)
    for i in range(1, n):  # insertion within runs of one first word: a step a key
        if keys[i].hi == keys[i - 1].hi and keys[i].lo < keys[i - 1].lo:
            item = keys[i]
            j = i
            while j > 0 and keys[j - 1].hi == item.hi and keys[j - 1].lo > item.lo:
                keys[j] = keys[j - 1]
                j -= 1
            keys[j] = item
    return 0


def loc_hash(bytes data not None):
    """(slot word, check word) of a loc's bytes (as ``_locset_py.loc_hash``)."""
    cdef uint64_t a, b
    _loc_hash(PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data), &a, &b)
    return _narrow(a), b


def loc_key(bytes data not None):
    """The partition key of a canonical loc's bytes (as ``_kernels_py.loc_key``)."""
    cdef uint64_t a, b
    _loc_hash(PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data), &a, &b)
    return <int64_t>(_narrow(a) >> 1), <int64_t>b


cdef enum:
    SLICE_KEYS = 1024  # keys a slice of the key range holds on average (more when
                       # there are many partitions): its table, twice that many slots
                       # of 16 bytes, stays in the first cache


cdef Py_ssize_t _lower_bound(const SkKey* keys, Py_ssize_t n, int64_t first) noexcept:
    """The first key whose first word is at least ``first`` (``bisect_left``'s steps)."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid].hi < first:
            lo = mid + 1
        else:
            hi = mid
    return lo


ctypedef struct SkSlot:  # one slot of the repeats table
    uint64_t v
    int64_t w


def repeats(list arrays not None, object lo=None, object hi=None):
    """As ``_kernels_py.repeats``, with the GIL released (a driver's scheduler thread
    keeps dispatching meanwhile, and threads take key ranges side by side). The range
    of first words is cut into slices of about ``SLICE_KEYS`` keys; each slice's keys
    go, partition by partition, into a small open-addressing table, and a key already
    there (both words) is a repeat. Each partition's repeats come out ascending (slices
    in order, a partition's keys in order), at a few nanoseconds a key: a k-way merge
    costs a heap step, ~20 ns, per key."""
    cdef Py_ssize_t k = len(arrays), i, j, n, total = 0, m, cap = 0, want, start, end
    cdef int64_t low = 0, high = 0
    cdef Py_ssize_t* sizes = NULL
    cdef Py_ssize_t* at = NULL
    cdef Py_ssize_t* ends = NULL
    cdef Py_ssize_t* found = NULL
    cdef const SkKey** data = NULL
    cdef SkKey** out = NULL
    cdef SkSlot* table = NULL  # a slot: 1 + the first word's offset in the slice (0:
    cdef SkSlot* grown         # empty) and the second word, side by side in one line
    cdef uint64_t umin = 0xFFFFFFFFFFFFFFFFULL, umax = 0, span, base, v, h, mask, s, slices
    cdef int64_t w
    cdef uint64_t flip = <uint64_t>1 << 63  # first words as unsigned, in the same order
    cdef int shift = 0, tbits
    cdef bint nomem = False
    cdef object item
    cdef tuple held = tuple(arrays)  # the keys' bytes stay alive while the GIL is off
    result = []
    try:
        low = 0 if lo is None else lo
        high = 0 if hi is None else hi
    except OverflowError:
        raise OverflowError("repeats: lo and hi are 64-bit keys") from None
    if k == 0:
        return result
    try:
        sizes = <Py_ssize_t*>calloc(k, sizeof(Py_ssize_t))
        at = <Py_ssize_t*>calloc(k, sizeof(Py_ssize_t))
        ends = <Py_ssize_t*>calloc(k, sizeof(Py_ssize_t))
        found = <Py_ssize_t*>calloc(k, sizeof(Py_ssize_t))
        data = <const SkKey**>calloc(k, sizeof(SkKey*))
        out = <SkKey**>calloc(k, sizeof(SkKey*))
        if not (sizes and at and ends and found and data and out):
            raise MemoryError()
        for i in range(k):
            item = held[i]
            if type(item) is not bytes or len(<bytes>item) % sizeof(SkKey):
                raise ValueError("repeats: each partition's keys are key bytes "
                                 "(16 bytes a key)")
            n = len(<bytes>item) // sizeof(SkKey)
            data[i] = <const SkKey*>PyBytes_AS_STRING(<bytes>item)  # 8-aligned storage
            start = 0 if lo is None else _lower_bound(data[i], n, low)
            end = n if hi is None else max(start, _lower_bound(data[i], n, high))
            for j in range(max(start, 1), end):  # the keys read, and the pair across
                if not _key_less(data[i][j - 1], data[i][j]):  # the start: ranges side
                    raise ValueError("repeats: each partition's keys must be ascending "
                                     "and distinct")  # by side check every pair once
            data[i] += start
            n = sizes[i] = end - start
            out[i] = <SkKey*>malloc(n * sizeof(SkKey) + 1)
            if out[i] == NULL:
                raise MemoryError()
            if n:
                umin = min(umin, <uint64_t>data[i][0].hi ^ flip)
                umax = max(umax, <uint64_t>data[i][n - 1].hi ^ flip)
                total += n
        if total:
            span = umax - umin  # slices of at least 4 keys a partition: each slice
            slices = total // max(SLICE_KEYS, 4 * k) + 1  # visits every partition
            while shift < 63 and (span >> shift) >= slices:
                shift += 1
            slices = (span >> shift) + 1
            with nogil:
                s = 0
                while s < slices and not nomem:
                    m = 0  # this slice's keys: each partition's run up to its end
                    for i in range(k):
                        j = at[i]
                        while j < sizes[i] and \
                                ((<uint64_t>data[i][j].hi ^ flip) - umin) >> shift == s:
                            j += 1
                        ends[i] = j
                        m += j - at[i]
                    if m > 1:
                        tbits = 4
                        while (<Py_ssize_t>1 << tbits) < 2 * m:
                            tbits += 1
                        want = <Py_ssize_t>1 << tbits
                        if want > cap:
                            grown = <SkSlot*>realloc(table, want * sizeof(SkSlot))
                            if grown == NULL:
                                nomem = True
                                break
                            table, cap = grown, want
                        memset(table, 0, want * sizeof(SkSlot))
                        mask = want - 1
                        base = umin + (s << shift)
                        for i in range(k):
                            for j in range(at[i], ends[i]):
                                v = (<uint64_t>data[i][j].hi ^ flip) - base + 1
                                w = data[i][j].lo
                                h = ((v ^ <uint64_t>w) * 0x9E3779B97F4A7C15ULL) >> (64 - tbits)
                                while table[h].v != 0 and (table[h].v != v or table[h].w != w):
                                    h = (h + 1) & mask
                                if table[h].v != 0:  # an earlier partition has it
                                    out[i][found[i]] = data[i][j]
                                    found[i] += 1
                                else:
                                    table[h].v = v
                                    table[h].w = w
                    for i in range(k):
                        at[i] = ends[i]
                    s += 1
            if nomem:
                raise MemoryError()
        for i in range(k):
            result.append(PyBytes_FromStringAndSize(<const char*>out[i],
                                                    found[i] * sizeof(SkKey))
                          if found[i] else b"")
        return result
    finally:
        if out != NULL:
            for i in range(k):
                free(out[i])
        free(out)
        free(<void*>data)
        free(found)
        free(ends)
        free(at)
        free(sizes)
        free(table)
