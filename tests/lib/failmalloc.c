/* failmalloc.c - an LD_PRELOAD shim that makes allocations fail, for
 * tests/suite_alloc_failures.sh.
 *
 * FAIL_AT=N: the Nth call of malloc, calloc or realloc and every later one
 * return NULL with errno ENOMEM (as when memory runs out for good).
 * FAIL_COUNT=1: print "allocs N" (the calls made) on stderr at exit.
 * glibc's __libc_* entry points do the real work, so no dlsym() (which
 * itself allocates) is needed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static long calls, fail_at = -1;

static int should_fail(void)
{
	if (fail_at < 0) {
		const char *e = getenv("FAIL_AT");
		fail_at = e ? atol(e) : 0;
	}
	calls++;
	if (fail_at > 0 && calls >= fail_at) {
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

void *malloc(size_t n)
{
	return should_fail() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return should_fail() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return should_fail() ? NULL : __libc_realloc(p, n);
}

__attribute__((destructor)) static void report(void)
{
	if (getenv("FAIL_COUNT")) {
		char b[64];
		int k = snprintf(b, sizeof b, "allocs %ld\n", calls);
		if (k > 0 && write(2, b, (size_t)k) < 0)
			return;
	}
}
