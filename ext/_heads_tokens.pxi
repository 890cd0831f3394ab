# Included by _heads.pxi: the head tokenizer in C, with the GIL released (htmltags'
# exact pass over a page's head, then the signals _heads_py reads from its tags).

# --- the tokenizer: htmltags' exact pass over the head, then signals_from_tags -------
cdef enum:
    HEAD_OK = 0
    HEAD_SLOW = 1
    MAX_ALTERNATES = 256

cdef struct Span:
    const unsigned char* p
    size_t n

cdef struct HeadFacts:
    bint document, noindex, redirect, has_canonical, has_generator
    Span canonical, generator
    int n_alt
    Span alt_lang[MAX_ALTERNATES]
    Span alt_href[MAX_ALTERNATES]

cdef enum:
    MAX_NEEDLES = 16

# htmlmeta.NEEDLES: the words a tag must hold to matter (the bytes kept alive here)
cdef tuple _NEEDLE_WORDS = tuple(n.encode("ascii") for n in _heads_py.NEEDLES)
cdef const char* _NEEDLES[MAX_NEEDLES]
cdef int _N_NEEDLES = len(_NEEDLE_WORDS)


cdef inline bint _sp(unsigned char c) noexcept nogil:
    return SK_TSPACE[c] != 0


cdef Py_ssize_t _text_head_end(const unsigned char* p, Py_ssize_t n, bint* slow) noexcept nogil:
    """Where htmlmeta's ``</head\\s*>`` (a str pattern) starts, or -1; a non-ASCII byte
    where it would decide is slow."""
    cdef Py_ssize_t i = 0, j
    cdef const unsigned char* lt
    while i + 7 <= n:
        lt = <const unsigned char*>memchr(p + i, ord('<'), n - i)
        if lt == NULL:
            return -1
        i = lt - p
        if i + 7 <= n and p[i + 1] == ord('/') and sk_ieq(p + i + 2, "head", 4):
            j = i + 6
            while j < n and _sp(p[j]):
                j += 1
            if j < n and p[j] == ord('>'):
                return i
            if j < n and p[j] >= 0x80:
                slow[0] = True
                return -1
        i += 1
    return -1


cdef Py_ssize_t _attrs_end(const unsigned char* p, Py_ssize_t i, Py_ssize_t n,
                           bint* slow) noexcept nogil:
    """htmltags' ``_ATTRS`` then ``>`` from ``i``: the offset of the ``>``, or -1 when the
    tag does not close there; a non-ASCII byte that the pattern would classify is slow."""
    cdef Py_ssize_t save, save2
    cdef const unsigned char* q
    cdef unsigned char c, quote
    while True:
        save = i
        while i < n and (_sp(p[i]) or p[i] == ord('/')):
            i += 1
        if i >= n:
            i = save
            break
        c = p[i]
        if c >= 0x80:
            slow[0] = True
            return -1
        if c == ord('>') or c == ord('"') or c == ord("'") or c == ord('='):
            i = save
            break
        i += 1
        while i < n:
            c = p[i]
            if c >= 0x80:
                slow[0] = True
                return -1
            if _sp(c) or c == ord('/') or c == ord('>') or c == ord('='):
                break
            i += 1
        save2 = i
        while i < n and _sp(p[i]):
            i += 1
        if i < n and p[i] >= 0x80:
            slow[0] = True
            return -1
        if i < n and p[i] == ord('='):
            while i < n and p[i] == ord('='):
                i += 1
            while i < n and _sp(p[i]):
                i += 1
            if i < n and (p[i] == ord('"') or p[i] == ord("'")):
                quote = p[i]
                q = <const unsigned char*>memchr(p + i + 1, quote, n - i - 1)
                i = (q - p) + 1 if q != NULL else save2
            else:
                while i < n and p[i] != ord('>') and not _sp(p[i]):
                    if p[i] >= 0x80:
                        slow[0] = True
                        return -1
                    i += 1
        else:
            i = save2
    while i < n and (_sp(p[i]) or p[i] == ord('/')):
        i += 1
    if i < n and p[i] >= 0x80:
        slow[0] = True
        return -1
    return i if i < n and p[i] == ord('>') else -1


cdef Py_ssize_t _raw_text_end(const unsigned char* p, Py_ssize_t i, Py_ssize_t n,
                              const char* name, Py_ssize_t k, bint* slow) noexcept nogil:
    """Past ``</name\\s*>`` (any case) from ``i``, or ``n``: a script's or style's text."""
    cdef const unsigned char* lt
    cdef Py_ssize_t j, m
    while i < n:
        lt = <const unsigned char*>memchr(p + i, ord('<'), n - i)
        if lt == NULL:
            return n
        i = lt - p
        if i + 1 < n and p[i + 1] == ord('/'):
            for m in range(i + 2, min(i + 2 + k, n)):
                if p[m] >= 0x80:
                    slow[0] = True
                    return n
            if i + 2 + k <= n and sk_ieq(p + i + 2, name, k):
                j = i + 2 + k
                while j < n and _sp(p[j]):
                    j += 1
                if j < n and p[j] == ord('>'):
                    return j + 1
                if j < n and p[j] >= 0x80:
                    slow[0] = True
                    return n
        i += 1
    return n


cdef size_t _NEEDLE_LEN[MAX_NEEDLES]
cdef unsigned char _NEEDLE_FIRST[256]  # 1 where a needle starts (either case)


cdef void _init_needles():
    cdef int k
    assert 0 < _N_NEEDLES <= MAX_NEEDLES and all(w.islower() for w in _NEEDLE_WORDS)
    memset(_NEEDLE_FIRST, 0, 256)
    for k in range(_N_NEEDLES):
        _NEEDLES[k] = PyBytes_AS_STRING(_NEEDLE_WORDS[k])
        _NEEDLE_LEN[k] = strlen(_NEEDLES[k])
        _NEEDLE_FIRST[<unsigned char>_NEEDLES[k][0]] = 1
        _NEEDLE_FIRST[<unsigned char>_NEEDLES[k][0] - 32] = 1


_init_needles()


cdef bint _has_needle(const unsigned char* p, Py_ssize_t n) noexcept nogil:
    """Does the attribute text hold one of htmlmeta's needles (ASCII case-folded)?"""
    cdef Py_ssize_t i, k
    for i in range(n):
        if _NEEDLE_FIRST[p[i]]:
            for k in range(_N_NEEDLES):
                if i + <Py_ssize_t>_NEEDLE_LEN[k] <= n and sk_ieq(p + i, _NEEDLES[k], _NEEDLE_LEN[k]):
                    return True
    return False


cdef enum:
    A_REL = 0
    A_HREF = 1
    A_HREFLANG = 2
    A_NAME = 3
    A_CONTENT = 4
    A_HTTP_EQUIV = 5
    N_ATTRS = 6

cdef const char* _ATTR_NAMES[6]
_ATTR_NAMES[:] = [b"rel", b"href", b"hreflang", b"name", b"content", b"http-equiv"]


cdef void _tag_attributes(const unsigned char* p, Py_ssize_t n, Span* found,
                          bint* present) noexcept nogil:
    """htmltags.attributes over an attribute text that ``_attrs_end`` accepted and that is
    plain ASCII with no '&': the first value of each wanted name ('' for a bare name)."""
    cdef Py_ssize_t i = 0, start, end, k
    cdef const unsigned char* q
    cdef unsigned char quote
    cdef Span value
    while True:
        while i < n and (_sp(p[i]) or p[i] == ord('/')):
            i += 1
        if i >= n or p[i] == ord('>') or p[i] == ord('"') or p[i] == ord("'") or p[i] == ord('='):
            return
        start = i
        i += 1
        while i < n and not (_sp(p[i]) or p[i] == ord('/') or p[i] == ord('>') or p[i] == ord('=')):
            i += 1
        end = i
        value.p = p + i
        value.n = 0
        while i < n and _sp(p[i]):
            i += 1
        if i < n and p[i] == ord('='):
            while i < n and p[i] == ord('='):
                i += 1
            while i < n and _sp(p[i]):
                i += 1
            if i < n and (p[i] == ord('"') or p[i] == ord("'")):
                quote = p[i]
                q = <const unsigned char*>memchr(p + i + 1, quote, n - i - 1)
                if q == NULL:  # not a value: the name stands alone
                    i = end
                else:
                    value.p = p + i + 1
                    value.n = (q - p) - i - 1
                    i = (q - p) + 1
            else:
                value.p = p + i
                while i < n and p[i] != ord('>') and not _sp(p[i]):
                    i += 1
                value.n = (p + i) - value.p
        else:
            i = end
        for k in range(N_ATTRS):
            if not present[k] and <size_t>(end - start) == strlen(_ATTR_NAMES[k]) and \
                    sk_ieq(p + start, _ATTR_NAMES[k], end - start):
                present[k] = True
                found[k] = value


cdef Span _strip(Span s) noexcept nogil:
    while s.n and _sp(s.p[0]):
        s.p += 1
        s.n -= 1
    while s.n and _sp(s.p[s.n - 1]):
        s.n -= 1
    return s


cdef bint _has_token(Span s, const char* word) noexcept nogil:
    """``word in value.lower().split()``."""
    cdef size_t i = 0, start, w = strlen(word)
    while i < s.n:
        while i < s.n and _sp(s.p[i]):
            i += 1
        start = i
        while i < s.n and not _sp(s.p[i]):
            i += 1
        if i - start == w and w and sk_ieq(s.p + start, word, w):
            return True
    return False


cdef bint _is_word(Span s, const char* word) noexcept nogil:
    return s.n == strlen(word) and sk_ieq(s.p, word, s.n)


cdef bint _noindex(Span s) noexcept nogil:
    """``"noindex" in content.lower().replace(" ", "").split(",")``."""
    cdef size_t i = 0, k
    while True:
        k = 0  # characters of "noindex" matched in this piece, 8: too many
        while i < s.n and s.p[i] != ord(','):
            if s.p[i] != ord(' '):
                k = k + 1 if k < 7 and sk_lower(s.p[i]) == b"noindex"[k] else 8
            i += 1
        if k == 7:
            return True
        if i >= s.n:
            return False
        i += 1


cdef bint _has_url(Span s) noexcept nogil:
    """``"url=" in content.lower().replace(" ", "")``."""
    cdef size_t i, k = 0
    cdef int c
    for i in range(s.n):
        c = sk_lower(s.p[i])
        if c == ord(' '):
            continue
        if c == b"url="[k]:
            k += 1
            if k == 4:
                return True
        else:
            k = 1 if c == ord('u') else 0
    return False


cdef int _use_tag(bint link, const unsigned char* a, Py_ssize_t n, HeadFacts* facts) noexcept nogil:
    """htmlmeta.signals_from_tags for one needle-bearing tag."""
    cdef Span found[6]
    cdef bint present[6]
    cdef Span href, content
    memset(present, 0, sizeof(present))
    _tag_attributes(a, n, found, present)
    if link:
        href = _strip(found[A_HREF]) if present[A_HREF] else Span(NULL, 0)
        if present[A_REL] and _has_token(found[A_REL], "canonical") and href.n:
            facts.has_canonical = True
            facts.canonical = href
        elif present[A_REL] and _has_token(found[A_REL], "alternate") and href.n and \
                present[A_HREFLANG] and found[A_HREFLANG].n:
            if facts.n_alt == MAX_ALTERNATES:
                return HEAD_SLOW
            facts.alt_lang[facts.n_alt] = _strip(found[A_HREFLANG])
            facts.alt_href[facts.n_alt] = href
            facts.n_alt += 1
        return HEAD_OK
    content = found[A_CONTENT] if present[A_CONTENT] else Span(NULL, 0)
    if present[A_NAME] and (_is_word(found[A_NAME], "robots") or
                            _is_word(found[A_NAME], "googlebot")) and _noindex(content):
        facts.noindex = True
    elif present[A_NAME] and _is_word(found[A_NAME], "generator") and not facts.has_generator:
        facts.has_generator = True
        facts.generator = _strip(content)
    if present[A_HTTP_EQUIV] and _is_word(found[A_HTTP_EQUIV], "refresh") and _has_url(content):
        facts.redirect = True
    return HEAD_OK


cdef bint _document(const unsigned char* p, Py_ssize_t n) noexcept nogil:
    """``<html[\\s>]|<head[\\s>]|<!doctype\\s+html[\\s>]`` (a bytes pattern) anywhere
    in the head: HTML5 needs neither tag after its doctype (Antora's alias pages)."""
    cdef const unsigned char* lt
    cdef Py_ssize_t i = 0, j
    while i + 6 <= n:
        lt = <const unsigned char*>memchr(p + i, ord('<'), n - i)
        if lt == NULL:
            return False
        i = lt - p
        if i + 6 <= n and (sk_ieq(p + i + 1, "html", 4) or sk_ieq(p + i + 1, "head", 4)) and \
                (SK_BSPACE[p[i + 5]] or p[i + 5] == ord('>')):
            return True
        if i + 9 <= n and p[i + 1] == ord('!') and sk_ieq(p + i + 2, "doctype", 7):
            j = i + 9
            while j < n and SK_BSPACE[p[j]]:
                j += 1
            if j > i + 9 and j + 5 <= n and sk_ieq(p + j, "html", 4) and \
                    (SK_BSPACE[p[j + 4]] or p[j + 4] == ord('>')):
                return True
        i += 1
    return False


cdef enum:
    NOT_WANTED = -1  # the letters after '<' begin no wanted name
    PREFIX = 0  # they begin one, but are not one yet
    SCRIPT = 1
    STYLE = 2
    LINK = 3
    META = 4

cdef const char* _WANTED[5]
_WANTED[:] = [b"", b"script", b"style", b"link", b"meta"]


cdef int _wanted_name(const unsigned char* p, Py_ssize_t n) noexcept nogil:
    """Which of script, style, link, meta the ASCII letters ``p[:n]`` are (any case)."""
    cdef int k
    cdef bint prefix = False
    cdef Py_ssize_t w
    for k in range(SCRIPT, META + 1):
        w = strlen(_WANTED[k])
        if n == w and sk_ieq(p, _WANTED[k], w):
            return k
        if n < w and sk_ieq(p, _WANTED[k], n):
            prefix = True
    return PREFIX if prefix else NOT_WANTED


cdef Py_ssize_t _comment_end(const unsigned char* p, Py_ssize_t j, Py_ssize_t end) noexcept nogil:
    """Past the ``--!?>`` that ends a comment whose text starts at ``j``, or ``end``."""
    while j + 3 <= end:
        if p[j] == ord('-') and p[j + 1] == ord('-'):
            if p[j + 2] == ord('>'):
                return j + 3
            if p[j + 2] == ord('!') and j + 4 <= end and p[j + 3] == ord('>'):
                return j + 4
        j += 1
    return end


cdef int _head_facts(const unsigned char* p, Py_ssize_t n, HeadFacts* facts) noexcept nogil:
    """The signals of one head (its bytes as read), or HEAD_SLOW."""
    cdef bint slow = False, link
    cdef Py_ssize_t end, i = 0, j, close, a, m
    cdef int k
    cdef const unsigned char* lt
    memset(facts, 0, sizeof(HeadFacts))
    facts.document = _document(p, n)
    if not facts.document:
        return HEAD_OK
    end = _text_head_end(p, n, &slow)
    if end < 0:
        return HEAD_SLOW  # no </head>: the reference reads the first 65,536 characters
    while i < end:
        lt = <const unsigned char*>memchr(p + i, ord('<'), end - i)
        if lt == NULL:
            break
        i = lt - p
        if i + 4 <= end and p[i + 1] == ord('!') and p[i + 2] == ord('-') and p[i + 3] == ord('-'):
            i = _comment_end(p, i + 4, end)
            continue
        j = i + 1
        while j < end and ord('a') <= sk_lower(p[j]) <= ord('z'):
            j += 1
        k = _wanted_name(p + i + 1, j - i - 1)
        if j < end and p[j] >= 0x80 and k != NOT_WANTED:
            return HEAD_SLOW  # a Unicode letter or space: re's IGNORECASE and \s decide
        if k <= 0 or j >= end or not (_sp(p[j]) or p[j] == ord('/') or p[j] == ord('>')):
            i += 1
            continue
        close = _attrs_end(p, j, end, &slow)
        if slow:
            return HEAD_SLOW
        if close < 0:
            i += 1
            continue
        if k == SCRIPT or k == STYLE:  # skip its text
            i = _raw_text_end(p, close + 1, end, _WANTED[k], j - i - 1, &slow)
            if slow:
                return HEAD_SLOW
            continue
        link = k == LINK
        a = j
        i = close + 1
        if not _has_needle(p + a, close - a):
            continue
        for m in range(a, close):
            if p[m] >= 0x80 or p[m] == ord('&'):
                return HEAD_SLOW  # entities and Unicode case and space rules: the reference
        if _use_tag(link, p + a, close - a, facts) == HEAD_SLOW:
            return HEAD_SLOW
    return HEAD_OK
