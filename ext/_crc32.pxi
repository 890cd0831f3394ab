# The gzip trailer's CRC-32 for the hot unit (included by _urlset_c.pyx; twin:
# zlib.crc32 in _urlset_py.crc32).

cdef extern from *:
    """
    /* CRC-32 as gzip and zlib define it (reflected, polynomial 0xEDB88320). Shards are
       deflated by zlib, but zlib 1.2's crc32 reads ~2.5 GB/s: 4% of a CLI run's CPU.
       x86-64 folds 64 bytes at a time with carry-less multiplication (Intel's "Fast CRC
       Computation for Generic Polynomials Using PCLMULQDQ", as Linux and zlib-ng do);
       elsewhere, or without the instruction, slice-by-8 tables. */
    #include <stdint.h>
    #include <string.h>
    static uint32_t sk_crc_table[8][256];
    static int sk_crc_clmul_ok = 0;

    static uint32_t sk_crc_slices(uint32_t s, const unsigned char* p, size_t n) {
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        while (n >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            w ^= s;
            s = sk_crc_table[7][w & 0xFF] ^ sk_crc_table[6][(w >> 8) & 0xFF] ^
                sk_crc_table[5][(w >> 16) & 0xFF] ^ sk_crc_table[4][(w >> 24) & 0xFF] ^
                sk_crc_table[3][(w >> 32) & 0xFF] ^ sk_crc_table[2][(w >> 40) & 0xFF] ^
                sk_crc_table[1][(w >> 48) & 0xFF] ^ sk_crc_table[0][w >> 56];
            p += 8;
            n -= 8;
        }
    #endif
        while (n--) s = sk_crc_table[0][(s ^ *p++) & 0xFF] ^ (s >> 8);
        return s;
    }

    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    #include <immintrin.h>
    #define SK_CLMUL 1
    __attribute__((target("pclmul,sse2")))
    static inline __m128i sk_fold(__m128i x, __m128i k, __m128i next) {
        return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
                                           _mm_clmulepi64_si128(x, k, 0x11)), next);
    }
    /* n >= 64 and a multiple of 16; s is the running (inverted) state */
    __attribute__((target("pclmul,sse2")))
    static uint32_t sk_crc_clmul(uint32_t s, const unsigned char* p, size_t n) {
        const __m128i k1k2 = _mm_set_epi64x(0x1c6e41596LL, 0x154442bd4LL);
        const __m128i k3k4 = _mm_set_epi64x(0x0ccaa009eLL, 0x1751997d0LL);
        const __m128i k5 = _mm_set_epi64x(0, 0x163cd6124LL);
        const __m128i poly = _mm_set_epi64x(0x1f7011641LL, 0x1db710641LL);
        const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
        __m128i x1 = _mm_loadu_si128((const __m128i*)p);
        __m128i x2 = _mm_loadu_si128((const __m128i*)(p + 16));
        __m128i x3 = _mm_loadu_si128((const __m128i*)(p + 32));
        __m128i x4 = _mm_loadu_si128((const __m128i*)(p + 48));
        __m128i t;
        x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)s));
        p += 64;
        n -= 64;
        while (n >= 64) {
            x1 = sk_fold(x1, k1k2, _mm_loadu_si128((const __m128i*)p));
            x2 = sk_fold(x2, k1k2, _mm_loadu_si128((const __m128i*)(p + 16)));
            x3 = sk_fold(x3, k1k2, _mm_loadu_si128((const __m128i*)(p + 32)));
            x4 = sk_fold(x4, k1k2, _mm_loadu_si128((const __m128i*)(p + 48)));
            p += 64;
            n -= 64;
        }
        x1 = sk_fold(x1, k3k4, x2);
        x1 = sk_fold(x1, k3k4, x3);
        x1 = sk_fold(x1, k3k4, x4);
        while (n >= 16) {
            x1 = sk_fold(x1, k3k4, _mm_loadu_si128((const __m128i*)p));
            p += 16;
            n -= 16;
        }
        t = _mm_clmulepi64_si128(x1, k3k4, 0x10);                  /* 128 -> 64 bits */
        x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), t);
        t = _mm_srli_si128(x1, 4);                                  /* 64 -> 32 bits */
        x1 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, mask32), k5, 0x00), t);
        t = x1;                                                     /* Barrett reduction */
        x1 = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), poly, 0x10);
        x1 = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), poly, 0x00);
        x1 = _mm_xor_si128(x1, t);
        return (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(x1, 4));
    }
    #endif

    static void sk_crc_init(void) {
        uint32_t n, c;
        int k;
        for (n = 0; n < 256; n++) {
            c = n;
            for (k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            sk_crc_table[0][n] = c;
        }
        for (n = 0; n < 256; n++) {
            c = sk_crc_table[0][n];
            for (k = 1; k < 8; k++) {
                c = sk_crc_table[0][c & 0xFF] ^ (c >> 8);
                sk_crc_table[k][n] = c;
            }
        }
    #ifdef SK_CLMUL
        __builtin_cpu_init();
        sk_crc_clmul_ok = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse2");
    #endif
    }

    static uint32_t sk_crc32(uint32_t crc, const unsigned char* p, size_t n, int wide) {
        uint32_t s = ~crc;
    #ifdef SK_CLMUL
        if (wide && sk_crc_clmul_ok && n >= 64) {
            size_t bulk = n & ~(size_t)15;
            s = sk_crc_clmul(s, p, bulk);
            p += bulk;
            n -= bulk;
        }
    #endif
        return ~sk_crc_slices(s, p, n);
    }
    """
    void sk_crc_init() nogil
    int sk_crc_clmul_ok
    uint32_t sk_crc32(uint32_t crc, const unsigned char* p, size_t n, int wide) nogil


sk_crc_init()
CRC32_CLMUL = bool(sk_crc_clmul_ok)


def crc32(data, uint32_t value=0, bint wide=True):
    """``zlib.crc32``, as the gzip trailer needs it, without the GIL (shards are checked
    in worker threads beside the main one), of any contiguous bytes (a cut shard is a
    view of reused memory). ``wide=False`` uses the tables alone (tests compare both
    ways)."""
    cdef Py_buffer view
    cdef uint32_t out
    PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
    try:
        with nogil:
            out = sk_crc32(value, <const unsigned char*>view.buf, <size_t>view.len, wide)
    finally:
        PyBuffer_Release(&view)
    return out
