/* An LD_PRELOAD fault injector for the reliability tests: EIO from the C library itself,
   so the Python code, the C twin and zlib all meet it where a failing disk would put it.
     SK_EIO_READ=substring   read()/pread() on a file whose path holds it fail with EIO
     SK_EIO_FSYNC=1          fsync()/fdatasync() fail with EIO
   Anything else passes through to the real functions. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int path_matches(int fd) {
    const char* want = getenv("SK_EIO_READ");
    char link[64], path[4096];
    ssize_t n;
    if (want == NULL || *want == 0) return 0;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    return strstr(path, want) != NULL;
}

ssize_t read(int fd, void* buf, size_t count) {
    static ssize_t (*real)(int, void*, size_t) = NULL;
    if (real == NULL) real = (ssize_t (*)(int, void*, size_t))dlsym(RTLD_NEXT, "read");
    if (path_matches(fd)) { errno = EIO; return -1; }
    return real(fd, buf, count);
}

ssize_t pread64(int fd, void* buf, size_t count, off_t offset) {
    static ssize_t (*real)(int, void*, size_t, off_t) = NULL;
    if (real == NULL) real = (ssize_t (*)(int, void*, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
    if (path_matches(fd)) { errno = EIO; return -1; }
    return real(fd, buf, count, offset);
}

static int fsync_fails(void) {
    const char* on = getenv("SK_EIO_FSYNC");
    return on != NULL && *on == '1';
}

int fsync(int fd) {
    static int (*real)(int) = NULL;
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    if (fsync_fails()) { errno = EIO; return -1; }
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int) = NULL;
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    if (fsync_fails()) { errno = EIO; return -1; }
    return real(fd);
}
