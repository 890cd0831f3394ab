# The duplicate table in C, the twin of ``_locset_py``. Included by
# ``_urlset_c.pyx``.

cdef enum:
    MAX_TAG = 65535  # _urlset_py.MAX_TAG
    SEGMENTS = 256   # independent sub-tables, chosen by the hash's top byte
    SEGMENT_START = 16


cdef extern from *:
    """
    /* The empty volatile asm is a side effect the compiler must keep. Without it GCC 12
       (-O2) dropped the prefetch as dead code once the inline function holding it was
       inlined (-fdump-tree-all: gone after its early dead-code pass, cddce1): the
       shipped _append issued no prefetch at all. A test in tests/test_hot_unit.py reads
       the machine code. Write intent: a new URL's slot is written next. */
    #if defined(__GNUC__) || defined(__clang__)
    #define sk_prefetch(p) do { __builtin_prefetch((p), 1, 3); \
                                __asm__ volatile("" :: "r"(p)); } while (0)
    #else
    #define sk_prefetch(p) ((void)(p))
    #endif
    """
    void sk_prefetch(const void* p) nogil


cdef extern from *:
    """
    /* LocSet segment tables. The validator's (tagged) set takes large ones straight
       from mmap, so a grown segment's old table goes back to the system instead of
       leaving a hole in the heap: that kept ~2.5 bytes per URL at 10M URLs, and the
       validator's budget is 16. The writer's set stays on the heap, where reused
       memory grows faster (no fresh pages to fault in). */
    #include <stdlib.h>
    #if defined(_WIN32)
    static void* sk_table_alloc(size_t n, int mapped) { (void)mapped; return calloc(n, 1); }
    static void sk_table_free(void* p, size_t n, int mapped) { (void)n; (void)mapped; free(p); }
    #else
    #include <sys/mman.h>
    #define SK_MMAP_MIN ((size_t)64 * 1024)
    static void* sk_table_alloc(size_t n, int mapped) {
        void* p;
        if (!mapped || n < SK_MMAP_MIN) return calloc(n, 1);
        p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    static void sk_table_free(void* p, size_t n, int mapped) {
        if (p == NULL) return;
        if (!mapped || n < SK_MMAP_MIN) free(p); else munmap(p, n);
    }
    #endif
    """
    void* sk_table_alloc(size_t n, int mapped) nogil
    void sk_table_free(void* p, size_t n, int mapped) nogil


KEY_MASK = _locset_py.KEY_MASK  # all ones, or narrowed by SITEMAPKIT_TEST_KEY_BITS
cdef uint64_t _KEY_MASK = <uint64_t>KEY_MASK


cdef inline uint64_t _narrow(uint64_t a) noexcept nogil:
    """The slot word as the duplicate check uses it: narrowed only by the test switch,
    and never 0 (an empty slot)."""
    a &= _KEY_MASK
    return 1 if a == 0 else a


cdef inline Py_ssize_t _home(uint64_t h, Py_ssize_t cap) noexcept:
    """A hash's first slot: its low 32 bits scaled to the segment (a multiply, not a
    division; the top byte already chose the segment)."""
    cdef uint64_t low = <uint32_t>h
    return <Py_ssize_t>((low * <uint64_t>cap) >> 32)


cdef class LocSet:
    """Seen-URL set: open addressing over 128-bit keys of each loc's bytes (``_loc_hash``,
    BLAKE2b: the same in every process and run), a 64-bit word to find the slot and a
    64-bit word to check, 16 bytes a slot. Two locs whose first words are equal are
    told apart by the second (those few are kept in ``overflow``), so a URL is dropped
    as a repeat only when both words match: at 10**10 URLs the chance that any two
    distinct URLs do is about 1.5e-19.

    256 segments each grow by 1.25x at 85% load, so the set holds 18.8 to 23.5 bytes
    per URL, and a rehash only ever copies one segment (1/256 of it).
    ``tagged=True`` keeps a 16-bit tag beside each key (the validator's file number
    where a URL was first seen; 65,535 stands for that file or any later one): 21.2 to
    26.5 bytes per URL. ``values=True`` keeps a 63-bit value per 64-bit str hash instead
    (the hreflang check's cluster per URL, no check word): 18.8 to 23.5 bytes a URL.
    Tagged and values sets take large tables from mmap (see sk_table_alloc).
    """

    cdef uint64_t* tables[SEGMENTS]
    cdef uint16_t* tags[SEGMENTS]
    cdef uint64_t* vals[SEGMENTS]  # values: the value; else the check word
    cdef Py_ssize_t caps[SEGMENTS]
    cdef Py_ssize_t counts[SEGMENTS]
    cdef Py_ssize_t n
    cdef readonly bint tagged
    cdef readonly bint values
    cdef bint mapped
    cdef dict overflow  # (first word, check word) -> tag: a first word another loc holds

    def __cinit__(self, bint tagged=False, bint values=False):
        cdef int i
        if tagged and values:
            raise ValueError("a LocSet keeps tags or values, not both")
        self.n = 0
        self.tagged, self.values = tagged, values
        self.mapped = tagged or values
        self.overflow = {}
        for i in range(SEGMENTS):
            self.tables[i] = NULL
            self.tags[i] = NULL
            self.vals[i] = NULL
        for i in range(SEGMENTS):
            self.caps[i] = SEGMENT_START
            self.counts[i] = 0
            self.tables[i] = <uint64_t*>sk_table_alloc(SEGMENT_START * sizeof(uint64_t),
                                                       self.mapped)
            if self.tables[i] == NULL:
                raise MemoryError()
            if tagged:
                self.tags[i] = <uint16_t*>sk_table_alloc(SEGMENT_START * sizeof(uint16_t), self.mapped)
                if self.tags[i] == NULL:
                    raise MemoryError()
            self.vals[i] = <uint64_t*>sk_table_alloc(SEGMENT_START * sizeof(uint64_t), self.mapped)
            if self.vals[i] == NULL:
                raise MemoryError()

    def __dealloc__(self):
        cdef int i
        for i in range(SEGMENTS):
            sk_table_free(self.tables[i], self.caps[i] * sizeof(uint64_t), self.mapped)
            sk_table_free(self.tags[i], self.caps[i] * sizeof(uint16_t), self.mapped)
            sk_table_free(self.vals[i], self.caps[i] * sizeof(uint64_t), self.mapped)

    cdef int _grow(self, int seg, Py_ssize_t new_cap=0) except -1:
        """Rehash segment ``seg`` into ``new_cap`` slots (by default a quarter more)."""
        cdef Py_ssize_t old_cap = self.caps[seg], i, j
        cdef uint64_t h
        cdef uint64_t* old = self.tables[seg]
        cdef uint16_t* old_tags = self.tags[seg]
        cdef uint64_t* old_vals = self.vals[seg]
        cdef uint64_t* new
        cdef uint16_t* new_tags = NULL
        cdef uint64_t* new_vals = NULL
        if new_cap <= old_cap:
            new_cap = old_cap + old_cap // 4
        new = <uint64_t*>sk_table_alloc(new_cap * sizeof(uint64_t), self.mapped)
        if new == NULL:
            raise MemoryError()
        if self.tagged:
            new_tags = <uint16_t*>sk_table_alloc(new_cap * sizeof(uint16_t), self.mapped)
        new_vals = <uint64_t*>sk_table_alloc(new_cap * sizeof(uint64_t), self.mapped)
        if (self.tagged and new_tags == NULL) or new_vals == NULL:
            sk_table_free(new, new_cap * sizeof(uint64_t), self.mapped)
            sk_table_free(new_tags, new_cap * sizeof(uint16_t), self.mapped)
            sk_table_free(new_vals, new_cap * sizeof(uint64_t), self.mapped)
            raise MemoryError()
        for i in range(old_cap):
            h = old[i]
            if h:
                j = _home(h, new_cap)
                while new[j]:
                    j += 1
                    if j == new_cap:
                        j = 0
                new[j] = h
                if new_tags != NULL:
                    new_tags[j] = old_tags[i]
                if new_vals != NULL:
                    new_vals[j] = old_vals[i]
        sk_table_free(old, old_cap * sizeof(uint64_t), self.mapped)
        sk_table_free(old_tags, old_cap * sizeof(uint16_t), self.mapped)
        sk_table_free(old_vals, old_cap * sizeof(uint64_t), self.mapped)
        self.tables[seg] = new
        self.tags[seg] = new_tags
        self.vals[seg] = new_vals
        self.caps[seg] = new_cap
        return 0

    def reserve(self, Py_ssize_t n):
        """Room for ``n`` more keys now, as the slots they will need at the set's usual
        load, so the segments do not regrow step by step on the way (the writer asks,
        from its input's size). The reference's dict grows by itself."""
        cdef Py_ssize_t cap = (self.n + max(n, 0)) // SEGMENTS * 5 // 4 + SEGMENT_START
        cdef int seg
        for seg in range(SEGMENTS):
            if self.caps[seg] < cap:
                self._grow(seg, cap)

    cdef inline void _prefetch(self, uint64_t h) noexcept:
        """Start loading ``h``'s home slot; the caller writes the entry meanwhile."""
        cdef int seg = <int>(h >> 56)
        cdef Py_ssize_t j = _home(h, self.caps[seg])
        sk_prefetch(self.tables[seg] + j)
        sk_prefetch(self.vals[seg] + j)  # the check word, read when the slot word matches

    cdef Py_ssize_t _slot(self, uint64_t h, int seg) noexcept:
        """Where ``h`` is, or the empty slot where it would go."""
        cdef uint64_t* table = self.tables[seg]
        cdef Py_ssize_t cap = self.caps[seg]
        cdef Py_ssize_t j = _home(h, cap)
        while table[j] != 0 and table[j] != h:
            j += 1
            if j == cap:
                j = 0
        return j

    cdef inline int _store(self, uint64_t h, int seg, Py_ssize_t j) except -1:
        """Put ``h`` in its empty slot ``j`` (the caller fills the tag or value first)."""
        self.tables[seg][j] = h
        self.counts[seg] += 1
        self.n += 1
        if self.counts[seg] * 20 > self.caps[seg] * 17:
            self._grow(seg)
        return 0

    cdef int64_t add_checked(self, uint64_t a, uint64_t b, uint32_t tag) except -2:
        """-1 if the loc keyed (``a``, ``b``) is new (stored with ``tag``, at most
        MAX_TAG), else the tag it was first stored with (0 untagged)."""
        cdef int seg = <int>(a >> 56)
        cdef Py_ssize_t j = self._slot(a, seg)
        cdef uint16_t t = <uint16_t>(tag if tag < MAX_TAG else MAX_TAG)
        if self.tables[seg][j] == a:
            if self.vals[seg][j] == b:
                return self.tags[seg][j] if self.tagged else 0
            key = (a, b)  # another loc with this first word: told apart by the check
            found = self.overflow.get(key)
            if found is not None:
                return found if self.tagged else 0
            self.overflow[key] = t
            self.n += 1
            return -1
        if self.tagged:
            self.tags[seg][j] = t
        self.vals[seg][j] = b
        self._store(a, seg, j)
        return -1

    cdef bint has(self, uint64_t a, uint64_t b) except -1:
        cdef int seg = <int>(a >> 56)
        cdef Py_ssize_t j = self._slot(a, seg)
        if self.tables[seg][j] != a:
            return False
        return self.vals[seg][j] == b or (a, b) in self.overflow

    cdef inline void _keys(self, object loc, uint64_t* a, uint64_t* b) except *:
        """A str key's two words (its UTF-8 bytes, as ``_locset_py.loc_hash``)."""
        cdef bytes data = (<str?>loc).encode("utf-8", "surrogatepass")
        _loc_hash(PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data), a, b)
        a[0] = _narrow(a[0])

    cdef inline uint64_t _hash(self, object loc) except? 0:
        """A values set's key: the str's 64-bit hash."""
        cdef Py_hash_t h = PyObject_Hash(loc)
        return <uint64_t>(1 if h == 0 else h)

    def add(self, str loc):
        """True if ``loc`` is new."""
        return self.first(loc, 0) == -1

    def first(self, str key, uint32_t tag):
        """-1 if ``key`` is new (remembered with ``tag``); else the tag it was first
        seen with (a tagged set; an untagged one answers 0)."""
        cdef uint64_t a, b
        if self.values:
            raise TypeError("a values set takes get() and put()")
        self._keys(key, &a, &b)
        return self.add_checked(a, b, tag)

    cdef inline uint64_t _key(self, object key) except? 0:
        """A str's hash, or an int taken as the hash itself (one kind per table)."""
        cdef uint64_t h
        if isinstance(key, int):
            h = <uint64_t>key  # OverflowError outside 0..2**64 - 1
            return 1 if h == 0 else h
        if not isinstance(key, str):
            raise TypeError(f"a LocSet key is a str or an int, not {type(key).__name__}")
        return self._hash(key)

    def get(self, key):
        """The value stored for ``key`` (a values set), or -1."""
        if not self.values:
            raise TypeError("get() needs LocSet(values=True)")
        cdef uint64_t h = self._key(key)
        cdef int seg = <int>(h >> 56)
        cdef Py_ssize_t j = self._slot(h, seg)
        return <int64_t>self.vals[seg][j] if self.tables[seg][j] == h else -1

    def put(self, key, int64_t value):
        """Store ``value`` (0 to 2**63 - 1) for ``key``, replacing any earlier one."""
        if not self.values:
            raise TypeError("put() needs LocSet(values=True)")
        if value < 0:
            raise ValueError(f"a LocSet value is 0 to 2**63 - 1, not {value}")
        cdef uint64_t h = self._key(key)
        cdef int seg = <int>(h >> 56)
        cdef Py_ssize_t j = self._slot(h, seg)
        self.vals[seg][j] = <uint64_t>value
        if self.tables[seg][j] != h:
            self._store(h, seg, j)

    def items(self):
        """(key hash, value) of every entry of a values set, in no particular order."""
        cdef int seg
        cdef Py_ssize_t j
        if not self.values:
            raise TypeError("items() needs LocSet(values=True)")
        for seg in range(SEGMENTS):
            j = 0
            while j < self.caps[seg]:  # no growth while iterating: a put may not run
                if self.tables[seg][j]:
                    yield self.tables[seg][j], <int64_t>self.vals[seg][j]
                j += 1

    def __contains__(self, str key):
        cdef uint64_t a, b
        cdef int seg
        if self.values:
            a = self._hash(key)
            seg = <int>(a >> 56)
            return self.tables[seg][self._slot(a, seg)] == a
        self._keys(key, &a, &b)
        return self.has(a, b)

    def __len__(self):
        return self.n

    @property
    def nbytes(self):
        cdef Py_ssize_t total = 0
        cdef int i
        for i in range(SEGMENTS):
            total += self.caps[i]
        return total * (2 * sizeof(uint64_t) + (sizeof(uint16_t) if self.tagged else 0))
