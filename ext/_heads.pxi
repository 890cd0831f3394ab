# Included by _urlset_c.pyx: the built-site scan's hot loop (twin of _heads_py).
#
# The listing, the reads and the head tokenizer are C with the GIL released, so the
# scan's threads run on every core; the results of a batch of pages are then turned
# into Python objects in one go. A head the C reader cannot read exactly (an entity,
# a non-ASCII byte where the tokenizer would have to classify it, no </head>, too
# many alternates) is handed to the pure twin's head_signals: the same answers.

cdef extern from *:
    """
    #include <errno.h>
    #include <stdlib.h>
    #include <string.h>
    #include <sys/types.h>
    #include <sys/stat.h>
    #include <fcntl.h>
    #if defined(_WIN32)
    #define SK_HEADS_NATIVE 0
    #else
    #define SK_HEADS_NATIVE 1
    #include <dirent.h>
    #include <unistd.h>
    #endif

    /* A growable byte buffer: the listing's names, a page's head, a batch's records. */
    typedef struct { char* data; size_t len, cap; } sk_buf;

    static int sk_buf_reserve(sk_buf* b, size_t more) {
        size_t want = b->len + more, cap = b->cap ? b->cap : 4096;
        char* grown;
        if (want <= b->cap) return 0;
        while (cap < want) cap *= 2;
        grown = (char*)realloc(b->data, cap);
        if (grown == NULL) return -1;
        b->data = grown;
        b->cap = cap;
        return 0;
    }
    static int sk_buf_put(sk_buf* b, const void* p, size_t n) {
        if (sk_buf_reserve(b, n) < 0) return -1;
        if (n) memcpy(b->data + b->len, p, n);
        b->len += n;
        return 0;
    }
    static void sk_buf_free(sk_buf* b) { free(b->data); b->data = NULL; b->len = b->cap = 0; }

    /* Character classes, filled from _heads_py's TEXT_SPACE and BYTES_SPACE. */
    static unsigned char SK_TSPACE[256], SK_BSPACE[256];

    static int sk_lower(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }
    static int sk_ieq(const unsigned char* p, const char* word, size_t n) {
        size_t i;
        for (i = 0; i < n; i++) if (sk_lower(p[i]) != word[i]) return 0;
        return 1;
    }

    /* --- the read: _heads_py.read_head, the same chunks and search windows -------- */
    #define SK_HEAD_CHUNK 8192
    #define SK_HEAD_LIMIT (1 << 20)

    /* The end of the first "</head" BYTES_SPACE* ">" at or after `from`, or 0. */
    static size_t sk_bytes_head_end(const unsigned char* p, size_t n, size_t from) {
        size_t i = from, j;
        while (i + 7 <= n) {
            const unsigned char* lt = (const unsigned char*)memchr(p + i, '<', n - i);
            if (lt == NULL) return 0;
            i = (size_t)(lt - p);
            if (i + 7 <= n && p[i + 1] == '/' && sk_ieq(p + i + 2, "head", 4)) {
                j = i + 6;
                while (j < n && SK_BSPACE[p[j]]) j++;
                if (j < n && p[j] == '>') return j + 1;
            }
            i++;
        }
        return 0;
    }

    /* Read the open `fd` up to its </head> into `out` and close it; 0, or an errno. */
    static int sk_read_fd(int fd, sk_buf* out) {
    #if SK_HEADS_NATIVE
        int err = 0;
        size_t end;
        ssize_t got;
        out->len = 0;
        while (out->len < SK_HEAD_LIMIT) {
            if (sk_buf_reserve(out, SK_HEAD_CHUNK) < 0) { err = ENOMEM; break; }
            got = read(fd, out->data + out->len, SK_HEAD_CHUNK);
            if (got < 0) { if (errno == EINTR) continue; err = errno; break; }
            if (got == 0) break;
            out->len += (size_t)got;
            end = sk_bytes_head_end((const unsigned char*)out->data, out->len,
                                    out->len > (size_t)got + 8 ? out->len - (size_t)got - 8 : 0);
            if (end) { out->len = end; break; }
        }
        close(fd);
        return err;
    #else
        (void)fd; (void)out;
        return ENOSYS;
    #endif
    }

    /* Read `name` in the open folder `dfd` (or a path, with dfd AT_FDCWD). */
    /* Only a regular file is read: the open never blocks (a FIFO's would, until a
       writer came) and never follows a final link, and the type is checked on the open
       file, as _files.regular_fd does. */
    static int sk_read_head_at(int dfd, const char* name, sk_buf* out) {
    #if SK_HEADS_NATIVE
        int fd;
        struct stat st;
        do {
            fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
        } while (fd < 0 && errno == EINTR);
        if (fd < 0) return errno;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { close(fd); return EINVAL; }
        return sk_read_fd(fd, out);
    #else
        (void)dfd; (void)name; (void)out;
        return ENOSYS;
    #endif
    }

    /* --- the listing: _heads_py.html_files ----------------------------------------- */
    static int sk_join(sk_buf* path, const char* root, const char* rel, int slash_always) {
        size_t rn = strlen(root);
        path->len = 0;
        if (sk_buf_put(path, root, rn) < 0) return -1;
        if (*rel || slash_always) {
            if ((slash_always || rn == 0 || root[rn - 1] != '/') && sk_buf_put(path, "/", 1) < 0)
                return -1;
            if (sk_buf_put(path, rel, strlen(rel)) < 0) return -1;
        }
        return sk_buf_put(path, "", 1);
    }

    /* Walk the folders under `top` (relative to root; hidden ones skipped) and call
       `page` for each .html/.htm file with its open folder, its name and its path
       relative to root, so it is opened relative to its folder (no path walk per
       page). A symbolic link is never followed (it may lead out of the tree, or round
       in a loop): one to a folder, to a page, dangling or looping is passed to `page`
       with the folder SK_LINK, as _heads_py.list_folder names it; one to another file
       is no page. 0; an errno with the folder that failed in `failed`; or what `page`
       returned (nonzero stops). */
    #define SK_LINK (-2)
    #define SK_UNREAD_DIR (-3)  /* a folder opendir refused: recorded as unread */
    typedef int (*sk_page_fn)(void* ctx, int dfd, const char* name, const char* rel,
                              size_t rel_len);

    static int sk_walk(const char* root, const char* top, sk_page_fn page, void* ctx,
                       sk_buf* failed) {
    #if SK_HEADS_NATIVE
        sk_buf stack = {0}, path = {0}, rel = {0}, file = {0};
        int err = 0;
        if (sk_buf_put(&stack, top, strlen(top) + 1) < 0) return ENOMEM;
        while (stack.len && !err) {
            size_t at = stack.len - 1, dir_len;
            DIR* dir;
            struct dirent* entry;
            while (at > 0 && stack.data[at - 1] != 0) at--;   /* the last name on the stack */
            rel.len = 0;
            if (sk_buf_put(&rel, stack.data + at, stack.len - at) < 0) { err = ENOMEM; break; }
            stack.len = at;
            if (sk_join(&path, root, rel.data, 0) < 0) { err = ENOMEM; break; }
            dir = opendir(path.data);
            if (dir == NULL) {  /* left out, with why (_heads_py.html_files does the same) */
                if (errno == ENOMEM) { err = ENOMEM; break; }
                file.len = 0;
                if (sk_buf_put(&file, rel.data, rel.len - 1) < 0 || sk_buf_put(&file, "/", 1) < 0
                        || sk_buf_put(&file, "", 1) < 0) { err = ENOMEM; break; }
                err = page(ctx, SK_UNREAD_DIR, "", file.data, file.len - 1);
                continue;
            }
            dir_len = rel.len - 1;
            for (;;) {
                size_t nlen;
                int is_dir;
                errno = 0;
                entry = readdir(dir);
                if (entry == NULL) {
                    if (errno) { err = errno; sk_buf_put(failed, path.data, path.len); }
                    break;
                }
                if (entry->d_name[0] == '.' && (entry->d_name[1] == 0 ||
                        (entry->d_name[1] == '.' && entry->d_name[2] == 0)))
                    continue;
                {
                    int is_link = entry->d_type == DT_LNK, html;
                    nlen = strlen(entry->d_name);
                    html = (nlen >= 5 && memcmp(entry->d_name + nlen - 5, ".html", 5) == 0) ||
                           (nlen >= 4 && memcmp(entry->d_name + nlen - 4, ".htm", 4) == 0);
                    is_dir = entry->d_type == DT_DIR;
                    if (entry->d_type == DT_UNKNOWN) {
                        struct stat lst;
                        if (fstatat(dirfd(dir), entry->d_name, &lst, AT_SYMLINK_NOFOLLOW) == 0) {
                            is_link = S_ISLNK(lst.st_mode);
                            is_dir = S_ISDIR(lst.st_mode);
                        }
                    }
                    if (is_link) {
                        struct stat st;
                        int regular = fstatat(dirfd(dir), entry->d_name, &st, 0) == 0 &&
                                      S_ISREG(st.st_mode);
                        if ((!html && regular) || entry->d_name[0] == '.') continue;
                        is_dir = 0;
                    } else if (!is_dir && !html) {
                        continue;
                    }
                    if (is_dir && entry->d_name[0] == '.') continue;
                    {
                        sk_buf* to = is_dir ? &stack : &file;
                        if (!is_dir) file.len = 0;
                        if ((dir_len && (sk_buf_put(to, rel.data, dir_len) < 0 ||
                                         sk_buf_put(to, "/", 1) < 0)) ||
                                sk_buf_put(to, entry->d_name, nlen + 1) < 0) { err = ENOMEM; break; }
                        if (!is_dir) {
                            err = page(ctx, is_link ? SK_LINK : dirfd(dir), entry->d_name,
                                       file.data, file.len - 1);
                            if (err) break;
                        }
                    }
                }
            }
            closedir(dir);
        }
        sk_buf_free(&stack); sk_buf_free(&path); sk_buf_free(&rel); sk_buf_free(&file);
        return err;
    #else
        (void)root; (void)top; (void)page; (void)ctx; (void)failed;
        return ENOSYS;
    #endif
    }
    """
    ctypedef struct sk_buf:
        char* data
        size_t len
        size_t cap
    int sk_buf_reserve(sk_buf* b, size_t more) nogil
    int sk_buf_put(sk_buf* b, const void* p, size_t n) nogil
    void sk_buf_free(sk_buf* b) nogil
    unsigned char SK_TSPACE[256]
    unsigned char SK_BSPACE[256]
    int sk_lower(int c) nogil
    bint sk_ieq(const unsigned char* p, const char* word, size_t n) nogil
    int sk_read_head_at(int dfd, const char* name, sk_buf* out) nogil
    ctypedef int (*sk_page_fn)(void* ctx, int dfd, const char* name, const char* rel,
                               size_t rel_len) noexcept nogil
    int sk_walk(const char* root, const char* top, sk_page_fn page, void* ctx,
                sk_buf* failed) nogil
    int AT_FDCWD
    int SK_LINK
    int SK_UNREAD_DIR
    int sk_join(sk_buf* path, const char* root, const char* rel, int slash_always) nogil
    int SK_HEADS_NATIVE
    int ENOMEM
    int ENOSYS


from libc.string cimport strlen
from cpython.unicode cimport PyUnicode_DecodeASCII

cdef extern from "Python.h":
    object PyUnicode_DecodeFSDefaultAndSize(const char* s, Py_ssize_t size)
from sitemapkit._urlset import _heads_py
from sitemapkit.errors import InputError as _InputError
import os as _os

cdef void _init_head_classes():
    cdef int i
    memset(SK_TSPACE, 0, 256)
    memset(SK_BSPACE, 0, 256)
    for i in _heads_py.TEXT_SPACE.encode("ascii"):
        SK_TSPACE[i] = 1
    for i in _heads_py.BYTES_SPACE:
        SK_BSPACE[i] = 1


_init_head_classes()


def _head_classes():
    """(TEXT_SPACE, BYTES_SPACE, the needles) as the C tables hold them, for the test
    that they come from the reference's named classes."""
    return (bytes([i for i in range(256) if SK_TSPACE[i]]),
            bytes([i for i in range(256) if SK_BSPACE[i]]),
            tuple([(<bytes>_NEEDLES[k]).decode("ascii") for k in range(_N_NEEDLES)]))


include "_heads_tokens.pxi"


# --- Python-facing: head_signals, read_pages -----------------------------------------
cdef tuple _NO_DOCUMENT = (False, False, None, False, (), None)


cdef inline str _span_str(Span s):
    return PyUnicode_DecodeASCII(<const char*>s.p, s.n, NULL)


cdef tuple _facts_tuple(HeadFacts* f):
    if not f.document:
        return _NO_DOCUMENT
    return (True, f.noindex, _span_str(f.canonical) if f.has_canonical else None, f.redirect,
            tuple([(_span_str(f.alt_lang[i]), _span_str(f.alt_href[i])) for i in range(f.n_alt)]),
            _span_str(f.generator) if f.has_generator else None)


def head_signals(bytes head):
    """As ``_heads_py.head_signals``: (document, noindex, canonical, redirect, alternates,
    generator) of one page's head bytes."""
    cdef HeadFacts facts
    if _head_facts(<const unsigned char*>PyBytes_AS_STRING(head), PyBytes_GET_SIZE(head),
                   &facts) == HEAD_SLOW:
        return _heads_py.head_signals(head)
    return _facts_tuple(&facts)


def _head_signals_fast(bytes head):
    """The C reading alone, None where it hands the head to the reference (tests)."""
    cdef HeadFacts facts
    if _head_facts(<const unsigned char*>PyBytes_AS_STRING(head), PyBytes_GET_SIZE(head),
                   &facts) == HEAD_SLOW:
        return None
    return _facts_tuple(&facts)


cdef enum:
    REC_FRAGMENT = 0
    REC_FACTS = 1
    REC_SLOW = 2
    REC_LINK = 3
    REC_UNREAD = 4  # no regular file, or unreadable: left out with its reason
    BATCH_PAGES = 4096  # pages read with the GIL released before their objects are made
    BATCH_BYTES = 1 << 26  # or fewer, once the records hold this much


cdef inline int _put_len(sk_buf* b, Py_ssize_t n) noexcept nogil:
    cdef int32_t v = <int32_t>n
    return sk_buf_put(b, &v, 4)


cdef inline int _put_span(sk_buf* b, bint present, Span s) noexcept nogil:
    if not present:
        return _put_len(b, -1)
    return -1 if _put_len(b, s.n) < 0 else sk_buf_put(b, s.p, s.n)


cdef int _record(sk_buf* out, const char* head, size_t n, HeadFacts* f) noexcept nogil:
    """One page's record: its kind, then its facts. A head handed to the reference is
    not kept (a batch of them could hold a MiB each): it is read again then."""
    cdef unsigned char kind
    cdef int i
    if _head_facts(<const unsigned char*>head, n, f) == HEAD_SLOW:
        kind = REC_SLOW
        return sk_buf_put(out, &kind, 1)
    kind = REC_FACTS if f.document else REC_FRAGMENT
    if sk_buf_put(out, &kind, 1) < 0:
        return -1
    if kind == REC_FRAGMENT:
        return 0
    kind = (1 if f.noindex else 0) | (2 if f.redirect else 0)
    if sk_buf_put(out, &kind, 1) < 0 or _put_span(out, f.has_canonical, f.canonical) < 0 or \
            _put_span(out, f.has_generator, f.generator) < 0 or _put_len(out, f.n_alt) < 0:
        return -1
    for i in range(f.n_alt):
        if _put_span(out, True, f.alt_lang[i]) < 0 or _put_span(out, True, f.alt_href[i]) < 0:
            return -1
    return 0


cdef inline int32_t _get_len(const char* p, size_t* at) noexcept:
    cdef int32_t v
    memcpy(&v, p + at[0], 4)
    at[0] += 4
    return v


cdef object _get_str(const char* p, size_t* at):
    cdef int32_t n = _get_len(p, at)
    if n < 0:
        return None
    at[0] += n
    return PyUnicode_DecodeASCII(p + at[0] - n, n, NULL)


cdef tuple _from_record(const char* p, size_t* at, str root):
    """One record back as a PageHead: its path, then its signals."""
    cdef int32_t n = _get_len(p, at), i
    at[0] += n
    rel = PyUnicode_DecodeFSDefaultAndSize(p + at[0] - n, n)  # as os.fsdecode
    cdef unsigned char kind = <unsigned char>p[at[0]], flags
    at[0] += 1
    if kind == REC_FRAGMENT:
        return (rel, *_NO_DOCUMENT)
    if kind == REC_LINK:
        return (rel, *_heads_py.LINK)
    if kind == REC_UNREAD:
        return (rel, *_heads_py.unread(root + "/" + rel))
    if kind == REC_SLOW:
        return (rel, *_heads_py.head_signals(_heads_py.read_head(root + "/" + rel)))
    flags = <unsigned char>p[at[0]]
    at[0] += 1
    canonical = _get_str(p, at)
    generator = _get_str(p, at)
    n = _get_len(p, at)
    alternates = []
    for i in range(n):
        lang = _get_str(p, at)
        alternates.append((lang, _get_str(p, at)))
    return (rel, True, bool(flags & 1), canonical, bool(flags & 2), tuple(alternates), generator)


cdef struct Reading:
    sk_buf records  # per page: its path (length, bytes), then its ``_record``
    sk_buf head
    sk_buf failed  # the page or folder that could not be read
    HeadFacts* facts
    Py_ssize_t pages


cdef int _read_one(void* ctx, int dfd, const char* name, const char* rel,
                   size_t rel_len) noexcept nogil:
    """``sk_walk``'s callback: read one page (``name`` in the open folder ``dfd``) and
    add its record; 0, or an errno (the page's path is then in ``failed``)."""
    cdef Reading* r = <Reading*>ctx
    cdef unsigned char link = REC_LINK
    cdef int err
    if dfd == SK_UNREAD_DIR:  # a folder that cannot be read: its own unread record
        link = REC_UNREAD
        if _put_len(&r.records, rel_len) < 0 or sk_buf_put(&r.records, rel, rel_len) < 0 or \
                sk_buf_put(&r.records, &link, 1) < 0:
            return ENOMEM
        r.pages += 1
        return 0
    if dfd == SK_LINK:  # named, never followed
        if _put_len(&r.records, rel_len) < 0 or sk_buf_put(&r.records, rel, rel_len) < 0 or \
                sk_buf_put(&r.records, &link, 1) < 0:
            return ENOMEM
        r.pages += 1
        return 0
    err = sk_read_head_at(dfd, name, &r.head)
    if err == ENOMEM:
        return err
    if err:  # one page that cannot be read leaves out that page; the scan goes on
        link = REC_UNREAD
        if _put_len(&r.records, rel_len) < 0 or sk_buf_put(&r.records, rel, rel_len) < 0 or \
                sk_buf_put(&r.records, &link, 1) < 0:
            return ENOMEM
        r.pages += 1
        return 0
    if _put_len(&r.records, rel_len) < 0 or sk_buf_put(&r.records, rel, rel_len) < 0 or \
            _record(&r.records, r.head.data, r.head.len, r.facts) < 0:
        return ENOMEM
    r.pages += 1
    return 0


def read_pages(str root, list files, list subtrees):
    """As ``_heads_py.read_pages``, with the GIL released while the folders are walked
    and the pages read (each page opened in its open folder), a batch at a time, so
    threads scan in parallel."""
    if not SK_HEADS_NATIVE:
        return _heads_py.read_pages(root, files, subtrees)
    cdef bytes broot = _os.fsencode(root)
    cdef const char* croot = broot
    cdef list tops = [_os.fsencode(top) for top in subtrees]
    cdef list named = [_os.fsencode(rel) for rel in files]
    cdef Py_ssize_t n_tops = len(tops), n_files = len(named), done = 0, stop, i
    cdef const char** paths = <const char**>malloc(max(n_tops + n_files, 1) * sizeof(char*))
    cdef Reading r
    cdef int err = 0
    cdef size_t at
    cdef sk_buf path
    memset(&r, 0, sizeof(Reading))
    memset(&path, 0, sizeof(sk_buf))
    r.facts = <HeadFacts*>malloc(sizeof(HeadFacts))
    if paths == NULL or r.facts == NULL:
        free(paths)
        free(r.facts)
        raise MemoryError()
    for i in range(n_files):
        paths[i] = PyBytes_AS_STRING(named[i])
    for i in range(n_tops):
        paths[n_files + i] = PyBytes_AS_STRING(tops[i])
    out = []
    try:
        while done < n_files + n_tops:
            r.records.len = 0
            r.pages = 0
            with nogil:
                stop = done
                while stop < n_files + n_tops and r.pages < BATCH_PAGES and \
                        r.records.len < BATCH_BYTES:
                    if stop < n_files:  # a page at the top: by its path
                        if sk_join(&path, croot, paths[stop], 1) < 0:
                            err = ENOMEM
                        else:
                            err = _read_one(&r, AT_FDCWD, path.data, paths[stop], strlen(paths[stop]))
                    else:
                        err = sk_walk(croot, paths[stop], _read_one, &r, &r.failed)
                    if err:
                        break
                    stop += 1
            at = 0
            for i in range(r.pages):
                out.append(_from_record(r.records.data, &at, root))
            if err:
                if err == ENOMEM:
                    raise MemoryError()
                where = _os.fsdecode(PyBytes_FromStringAndSize(r.failed.data, r.failed.len))
                where = where.rstrip("\0")
                raise _InputError(f"cannot read {where}: {_os.strerror(err)}")
            done = stop
        out.sort(key=_path_order)
        return out
    finally:
        free(paths)
        free(r.facts)
        sk_buf_free(&r.records)
        sk_buf_free(&r.head)
        sk_buf_free(&r.failed)
        sk_buf_free(&path)


_path_order = __import__("operator").itemgetter(0)
