/* failmalloc.c - an LD_PRELOAD shim that makes allocations fail, for
 * tests/suite_alloc_failures.sh.
 *
 * FAIL_AT=N: the Nth call of malloc, calloc or realloc and every later one
 * return NULL with errno ENOMEM (as when memory runs out for good).
 * FAIL_COUNT=1: print "allocs N" (the calls made) on stderr at exit.
 * glibc's __libc_* entry points do the real work. Only the program's own
 * allocations count, from main() on: the constructors of the shared
 * libraries it links (CBC's C++ runtime, for one) allocate before main,
 * where no program can handle a failure. The shim wraps
 * __libc_start_main to see main start (dlsym allocates, but only then).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static long calls, fail_at = -1;
static int in_main;

typedef int (*main_fn)(int, char **, char **);
static main_fn real_main;

static int counted_main(int argc, char **argv, char **envp)
{
	in_main = 1;
	return real_main(argc, argv, envp);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
		      void (*fini)(void), void (*rtld_fini)(void),
		      void *stack_end)
{
	typedef int (*start_fn)(main_fn, int, char **, void (*)(void),
				void (*)(void), void (*)(void), void *);
	start_fn real = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");
	real_main = main;
	return real(counted_main, argc, argv, init, fini, rtld_fini,
		    stack_end);
}

static int should_fail(void)
{
	if (!in_main)
		return 0;
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
