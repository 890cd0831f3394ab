# Included by _urlset_c.pyx: the partition key, a 63-bit BLAKE2b of a canonical loc
# (twin: hashlib.blake2b(loc, digest_size=8) in _urlset_py.loc_key). RFC 7693, unkeyed,
# 8-byte digest; the key is that digest read big-endian, shifted right by one bit.
# A keyed buffer with nothing to drop (a partition's first pass) defers the key of each
# loc it wrote as it is, and computes them four at a time (AVX2 lanes where the CPU has
# them, else one by one) from the shard before it is handed over or written over.

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
    /* The digest's first word of up to SK_LANES messages of at most one block each.
       One compression is a chain of dependent steps, so a message at a time leaves
       most of the core idle; with AVX2 four messages go through one compression
       side by side, one per 64-bit lane (about three times the keys a second). */
    enum { SK_LANES = 4, SK_BLOCK = 128 };
    /* h[0]'s parameter block: digest length 8, no key, fanout 1, depth 1 */
    #define SK_B2B_PARAM 0x01010008ULL
    static uint64_t sk_b2b_first_word(const unsigned char* msg, size_t n) {
        uint64_t h[8];
        unsigned char block[SK_BLOCK];
        int i;
        for (i = 0; i < 8; i++) h[i] = sk_b2b_iv[i];
        h[0] ^= SK_B2B_PARAM;
        memset(block, 0, SK_BLOCK);
        memcpy(block, msg, n);
        sk_b2b_compress(h, block, (uint64_t)n, 1);
        return h[0];
    }
    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    #include <immintrin.h>
    #define SKV_ADD(x, y) _mm256_add_epi64((x), (y))
    #define SKV_XOR(x, y) _mm256_xor_si256((x), (y))
    #define SKV_R32(x) _mm256_shuffle_epi32((x), 0xB1)
    #define SKV_R24(x) _mm256_shuffle_epi8((x), r24)
    #define SKV_R16(x) _mm256_shuffle_epi8((x), r16)
    #define SKV_R63(x) _mm256_or_si256(_mm256_srli_epi64((x), 63), SKV_ADD((x), (x)))
    #define SKV_G(r, i, a, b, c, d) do { \
        a = SKV_ADD(SKV_ADD(a, b), m[sk_b2b_sigma[r][2 * (i)]]); d = SKV_R32(SKV_XOR(d, a)); \
        c = SKV_ADD(c, d); b = SKV_R24(SKV_XOR(b, c)); \
        a = SKV_ADD(SKV_ADD(a, b), m[sk_b2b_sigma[r][2 * (i) + 1]]); \
        d = SKV_R16(SKV_XOR(d, a)); c = SKV_ADD(c, d); b = SKV_R63(SKV_XOR(b, c)); } while (0)
    #define SKV_ROUND(r) do { \
        SKV_G(r, 0, v0, v4, v8, v12); SKV_G(r, 1, v1, v5, v9, v13); \
        SKV_G(r, 2, v2, v6, v10, v14); SKV_G(r, 3, v3, v7, v11, v15); \
        SKV_G(r, 4, v0, v5, v10, v15); SKV_G(r, 5, v1, v6, v11, v12); \
        SKV_G(r, 6, v2, v7, v8, v13); SKV_G(r, 7, v3, v4, v9, v14); } while (0)
    __attribute__((target("avx2")))
    static void sk_b2b_first_words_avx2(const unsigned char* const* msg, const size_t* n,
                                        uint64_t* out) {
        const __m256i r16 = _mm256_setr_epi8(2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14,
            15, 8, 9, 2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9);
        const __m256i r24 = _mm256_setr_epi8(3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15,
            8, 9, 10, 3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10);
        uint64_t words[SK_LANES][SK_BLOCK / 8];  /* x86: the block's little-endian words */
        __m256i m[16];
        int i, lane;
        for (lane = 0; lane < SK_LANES; lane++) {
            memset(words[lane], 0, SK_BLOCK);
            memcpy(words[lane], msg[lane], n[lane]);
        }
        for (i = 0; i < 16; i++)
            m[i] = _mm256_setr_epi64x((long long)words[0][i], (long long)words[1][i],
                                      (long long)words[2][i], (long long)words[3][i]);
        const __m256i h0 = _mm256_set1_epi64x((long long)(sk_b2b_iv[0] ^ SK_B2B_PARAM));
        __m256i v0 = h0, v1 = _mm256_set1_epi64x((long long)sk_b2b_iv[1]),
            v2 = _mm256_set1_epi64x((long long)sk_b2b_iv[2]),
            v3 = _mm256_set1_epi64x((long long)sk_b2b_iv[3]),
            v4 = _mm256_set1_epi64x((long long)sk_b2b_iv[4]),
            v5 = _mm256_set1_epi64x((long long)sk_b2b_iv[5]),
            v6 = _mm256_set1_epi64x((long long)sk_b2b_iv[6]),
            v7 = _mm256_set1_epi64x((long long)sk_b2b_iv[7]),
            v8 = _mm256_set1_epi64x((long long)sk_b2b_iv[0]),
            v9 = v1, v10 = v2, v11 = v3,
            v12 = SKV_XOR(v4, _mm256_setr_epi64x((long long)n[0], (long long)n[1],
                                                 (long long)n[2], (long long)n[3])),
            v13 = v5, v14 = SKV_XOR(v6, _mm256_set1_epi64x(-1LL)), v15 = v7;
        SKV_ROUND(0); SKV_ROUND(1); SKV_ROUND(2); SKV_ROUND(3); SKV_ROUND(4); SKV_ROUND(5);
        SKV_ROUND(6); SKV_ROUND(7); SKV_ROUND(8); SKV_ROUND(9); SKV_ROUND(10); SKV_ROUND(11);
        _mm256_storeu_si256((__m256i*)out, SKV_XOR(h0, SKV_XOR(v0, v8)));
    }
    static int sk_b2b_avx2 = -1;  /* -1: not asked yet */
    static int sk_b2b_off = 0;    /* tests run the one-lane path on an AVX2 machine */
    static int sk_b2b_lanes_on(void) {
        if (sk_b2b_avx2 < 0) {
            __builtin_cpu_init();
            sk_b2b_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
        }
        return sk_b2b_avx2 && !sk_b2b_off;
    }
    #else
    static int sk_b2b_off = 0;
    static int sk_b2b_lanes_on(void) { return 0; }
    static void sk_b2b_first_words_avx2(const unsigned char* const* msg, const size_t* n,
                                        uint64_t* out) { (void)msg; (void)n; (void)out; }
    #endif
    /* The first digest word of ``count`` (at most SK_LANES) one-block messages. */
    static void sk_b2b_first_words(const unsigned char* const* msg, const size_t* n,
                                   int count, uint64_t* out) {
        int lane;
        if (count == SK_LANES && sk_b2b_lanes_on()) {
            sk_b2b_first_words_avx2(msg, n, out);
            return;
        }
        for (lane = 0; lane < count; lane++)
            out[lane] = sk_b2b_first_word(msg[lane], n[lane]);
    }
    static int sk_b2b_set_lanes(int on) {  /* whether lanes are used from now on */
        sk_b2b_off = !on;
        return sk_b2b_lanes_on();
    }
    """
    const uint64_t* sk_b2b_iv
    const uint64_t SK_B2B_PARAM
    enum: SK_LANES, SK_BLOCK
    void _b2b_compress "sk_b2b_compress"(uint64_t* h, const unsigned char* block,
                                         uint64_t counter, bint last) noexcept nogil
    void _b2b_first_words "sk_b2b_first_words"(const unsigned char* const* msg,
                                               const size_t* n, int count,
                                               uint64_t* out) noexcept nogil
    int _b2b_lanes_on "sk_b2b_lanes_on"() noexcept nogil
    int _b2b_set_lanes "sk_b2b_set_lanes"(int on) noexcept nogil


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


cdef uint64_t _loc_key(const char* data, Py_ssize_t n) noexcept nogil:
    """The 63-bit key of ``data`` (see the top of this file)."""
    cdef uint64_t h[8]
    _b2b_state(data, n, SK_B2B_PARAM, h)
    return _key_of_word(h[0])


cdef void _loc_hash(const char* data, Py_ssize_t n, uint64_t* a, uint64_t* b) noexcept nogil:
    """The duplicate check's key of ``data``: BLAKE2b with a 16-byte digest, its two
    words little-endian: ``a`` finds the slot, ``b`` tells two locs with the same ``a``
    apart (as ``_locset_py.loc_hash``)."""
    cdef uint64_t h[8]
    _b2b_state(data, n, 0x01010010ULL, h)
    a[0] = h[0]
    b[0] = h[1]


cdef inline uint64_t _key_of_word(uint64_t first) noexcept nogil:
    """The key from the digest's first word: its 8 bytes are the word little-endian;
    read them big-endian and drop the last bit."""
    cdef uint64_t swapped = 0
    cdef int i
    for i in range(8):
        swapped = swapped << 8 | (first >> (8 * i) & 0xFF)
    return swapped >> 1


def _loc_keys_lanes(list locs not None):
    """Test hook: the keys of ``locs`` (bytes of one block at most), SK_LANES at a time
    as a keyed buffer computes them."""
    cdef const unsigned char* msg[SK_LANES]
    cdef size_t n[SK_LANES]
    cdef uint64_t words[SK_LANES]
    cdef Py_ssize_t start, i, count
    cdef list out = []
    cdef bytes loc
    for start in range(0, len(locs), SK_LANES):
        count = min(SK_LANES, len(locs) - start)
        for i in range(count):
            loc = <bytes?>locs[start + i]
            if len(loc) > SK_BLOCK:
                raise ValueError("_loc_keys_lanes: a loc longer than one block")
            msg[i] = <const unsigned char*>PyBytes_AS_STRING(loc)
            n[i] = <size_t>len(loc)
        _b2b_first_words(msg, n, <int>count, words)
        out.extend([_key_of_word(words[i]) for i in range(count)])
    return out


def _use_lanes(bint on):
    """Test hook: whether keys are computed SK_LANES at a time from now on (only where
    the CPU has AVX2); returns whether they are."""
    return bool(_b2b_set_lanes(on))


cdef enum:
    RADIX_BITS = 11  # six passes cover a 63-bit key
    RADIX_SIZE = 1 << RADIX_BITS


cdef int _sort_keys(int64_t* keys, Py_ssize_t n) except -1:
    """Sort 63-bit keys (never negative) ascending: an LSD radix sort, several times
    faster than qsort with a compare call per step."""
    cdef int64_t* tmp = <int64_t*>malloc(n * 8)
    cdef int64_t* src = keys
    cdef int64_t* dst = tmp
    cdef int64_t* swap
    cdef Py_ssize_t counts[RADIX_SIZE]
    cdef Py_ssize_t i, total, c
    cdef int shift
    if tmp == NULL:
        raise MemoryError()
    for shift in range(0, 6 * RADIX_BITS, RADIX_BITS):  # even: the result is in keys
        memset(counts, 0, sizeof(counts))
        for i in range(n):
            counts[(src[i] >> shift) & (RADIX_SIZE - 1)] += 1
        total = 0
        for i in range(RADIX_SIZE):
            c = counts[i]
            counts[i] = total
            total += c
        for i in range(n):
            c = (src[i] >> shift) & (RADIX_SIZE - 1)
            dst[counts[c]] = src[i]
            counts[c] += 1
        swap = src
        src = dst
        dst = swap
    free(tmp)
    return 0


def loc_hash(bytes data not None):
    """(slot word, check word) of a loc's bytes (as ``_locset_py.loc_hash``)."""
    cdef uint64_t a, b
    _loc_hash(PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data), &a, &b)
    return _narrow(a), b


def loc_key(bytes data not None):
    """The 63-bit partition key of a canonical loc's bytes (as ``_urlset_py.loc_key``)."""
    return _loc_key(PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data))


cdef enum:
    SLICE_KEYS = 1024  # keys a slice of the key range holds on average (more when
                       # there are many partitions): its table, twice that many slots
                       # of 8 bytes, stays in the first cache


cdef Py_ssize_t _lower_bound(const int64_t* keys, Py_ssize_t n, int64_t key) noexcept:
    """The first place ``key`` could go in ``keys`` (``bisect.bisect_left``'s steps)."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


def repeats(list arrays not None, object lo=None, object hi=None):
    """As ``_urlset_py.repeats``, with the GIL released (a driver's scheduler thread
    keeps dispatching meanwhile, and threads take key ranges side by side). The range
    is cut into slices of about ``SLICE_KEYS`` keys; each slice's keys go, partition by partition, into a small
    open-addressing table, and a key already there is a repeat. Each partition's
    repeats come out ascending (slices in order, a partition's keys in order), at a
    few nanoseconds a key: a k-way merge costs a heap step, ~20 ns, per key."""
    cdef Py_ssize_t k = len(arrays), i, j, n, total = 0, m, cap = 0, want, start, end
    cdef int64_t low = 0, high = 0
    cdef Py_ssize_t* sizes = NULL
    cdef Py_ssize_t* at = NULL
    cdef Py_ssize_t* ends = NULL
    cdef Py_ssize_t* found = NULL
    cdef const int64_t** data = NULL
    cdef int64_t** out = NULL
    cdef uint64_t* table = NULL
    cdef uint64_t* grown
    cdef uint64_t umin = 0xFFFFFFFFFFFFFFFFULL, umax = 0, span, base, v, h, mask, s, slices
    cdef uint64_t flip = <uint64_t>1 << 63  # keys as unsigned, in the same order
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
        data = <const int64_t**>calloc(k, sizeof(int64_t*))
        out = <int64_t**>calloc(k, sizeof(int64_t*))
        if not (sizes and at and ends and found and data and out):
            raise MemoryError()
        for i in range(k):
            item = held[i]
            if type(item) is not bytes or len(<bytes>item) % 8:
                raise ValueError("repeats: each partition's keys are array('q') bytes "
                                 "(8 bytes a key)")
            n = len(<bytes>item) // 8
            data[i] = <const int64_t*>PyBytes_AS_STRING(<bytes>item)  # 8-aligned storage
            start = 0 if lo is None else _lower_bound(data[i], n, low)
            end = n if hi is None else max(start, _lower_bound(data[i], n, high))
            for j in range(max(start, 1), end):  # the keys read, and the pair across
                if data[i][j - 1] >= data[i][j]:  # the start: ranges side by side check
                    raise ValueError("repeats: each partition's keys must be ascending "
                                     "and distinct")  # every pair once
            data[i] += start
            n = sizes[i] = end - start
            out[i] = <int64_t*>malloc(n * 8 + 8)
            if out[i] == NULL:
                raise MemoryError()
            if n:
                umin = min(umin, <uint64_t>data[i][0] ^ flip)
                umax = max(umax, <uint64_t>data[i][n - 1] ^ flip)
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
                                ((<uint64_t>data[i][j] ^ flip) - umin) >> shift == s:
                            j += 1
                        ends[i] = j
                        m += j - at[i]
                    if m > 1:
                        tbits = 4
                        while (<Py_ssize_t>1 << tbits) < 2 * m:
                            tbits += 1
                        want = <Py_ssize_t>1 << tbits
                        if want > cap:
                            grown = <uint64_t*>realloc(table, want * 8)
                            if grown == NULL:
                                nomem = True
                                break
                            table, cap = grown, want
                        memset(table, 0, want * 8)  # 0: empty; a key is stored as 1 +
                        mask = want - 1                # its offset in the slice
                        base = umin + (s << shift)
                        for i in range(k):
                            for j in range(at[i], ends[i]):
                                v = (<uint64_t>data[i][j] ^ flip) - base + 1
                                h = (v * 0x9E3779B97F4A7C15ULL) >> (64 - tbits)
                                while table[h] != 0 and table[h] != v:
                                    h = (h + 1) & mask
                                if table[h] == v:  # an earlier partition has it
                                    out[i][found[i]] = data[i][j]
                                    found[i] += 1
                                else:
                                    table[h] = v
                    for i in range(k):
                        at[i] = ends[i]
                    s += 1
            if nomem:
                raise MemoryError()
        for i in range(k):
            result.append(PyBytes_FromStringAndSize(<const char*>out[i], found[i] * 8)
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
