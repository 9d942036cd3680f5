/* testlib.c - see testlib.h. */
#include "testlib.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static bool cur_failed;
static char cur_msg[2048];

void test_fail(const char *file, int line, const char *fmt, ...)
{
	size_t pos = strlen(cur_msg);
	if (pos < sizeof cur_msg - 1)
		pos += (size_t)snprintf(cur_msg + pos, sizeof cur_msg - pos,
					"%s%s:%d: ", cur_failed ? "; " : "",
					file, line);
	if (pos < sizeof cur_msg - 1) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(cur_msg + pos, sizeof cur_msg - pos, fmt, ap);
		va_end(ap);
	}
	cur_failed = true;
}

bool test_failed(void)
{
	return cur_failed;
}

const char *test_shared_dir(void)
{
	const char *e = getenv("DNNPART_SHARED");
	return e && e[0] ? e : "../shared/benchmarks";
}

/* With arguments, runs only the tests whose names contain one of them. */
int test_main(const struct test_case *cases, int n, int argc, char **argv)
{
	int failed = 0;
	for (int i = 0; i < n; i++) {
		if (argc > 1) {
			bool want = false;
			for (int a = 1; a < argc; a++)
				if (strstr(cases[i].name, argv[a]))
					want = true;
			if (!want)
				continue;
		}
		cur_failed = false;
		cur_msg[0] = '\0';
		cases[i].fn();
		if (cur_failed) {
			failed++;
			printf("not ok - %s: %s\n", cases[i].name, cur_msg);
		} else {
			printf("ok - %s\n", cases[i].name);
		}
		fflush(stdout);
	}
	return failed ? 1 : 0;
}
