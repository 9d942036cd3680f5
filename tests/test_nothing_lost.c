/* test_nothing_lost.c - output files appear whole or not at all even when
 * the write itself fails half way (a file size limit stands in for a full
 * disk) or the process is told to stop: the old file stays byte for byte,
 * and no temporary file is left in the folder. (test_afile.c covers the
 * ordinary commit and abort.)
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "dnnpart/afile.h"
#include "lib/testlib.h"

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof dir, "/tmp/dnnpart-lost.XXXXXX");
	if (!mkdtemp(dir))
		abort();
}

/* Number of entries in dir besides . and .. */
static int entries(void)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	if (d)
		closedir(d);
	return n;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static char *read_text(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[512];
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* A write that fails half way (the file size limit: EFBIG, as a full disk
 * gives ENOSPC) is reported with the system's reason, not a bare EIO, and
 * loses nothing. */
static void test_failed_write_keeps_the_old_file_and_says_why(void)
{
	make_dir();
	char path[128];
	snprintf(path, sizeof path, "%s/plan.json", dir);
	write_text(path, "the old plan\n");
	struct rlimit old, lim = {4096, 4096};
	REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
	lim.rlim_max = old.rlim_max;
	void (*oldsig)(int) = signal(SIGXFSZ, SIG_IGN);
	REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	dp_afile af;
	dp_err err;
	REQUIRE(dp_afile_open(&af, path, &err) == DP_OK);
	for (int i = 0; i < 10000; i++)
		fputs("0123456789", af.f);
	dp_status st = dp_afile_commit(&af, &err);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, oldsig);
	CHECK_INT(st, DP_EIO);
	CHECK_STR(err.msg, "error while writing the file (nothing was "
			   "changed): File too large");
	CHECK_STR(read_text(path), "the old plan\n");
	CHECK_INT(entries(), 1);
	remove_dir();
}

/* A process stopped while writing: dp_afile_remove_pending(), which the
 * command line calls from its signal handler, removes the temporary
 * files of every afile still open, and then nothing more is removed. */
static void test_remove_pending_clears_open_temporary_files(void)
{
	make_dir();
	char p1[128], p2[128];
	snprintf(p1, sizeof p1, "%s/a.json", dir);
	snprintf(p2, sizeof p2, "%s/b.dot", dir);
	write_text(p1, "old a\n");
	dp_afile a, b;
	dp_err err;
	REQUIRE(dp_afile_open(&a, p1, &err) == DP_OK);
	REQUIRE(dp_afile_open(&b, p2, &err) == DP_OK);
	fputs("half of a new file", a.f);
	fflush(a.f);
	CHECK_INT(entries(), 3); /* a.json and two temporary files */
	dp_afile_remove_pending();
	CHECK_INT(entries(), 1);
	CHECK_STR(read_text(p1), "old a\n");
	dp_afile_abort(&a);
	dp_afile_abort(&b);
	/* a committed file is no longer pending */
	REQUIRE(dp_afile_open(&a, p1, &err) == DP_OK);
	fputs("new a\n", a.f);
	REQUIRE(dp_afile_commit(&a, &err) == DP_OK);
	dp_afile_remove_pending();
	CHECK_STR(read_text(p1), "new a\n");
	CHECK_INT(entries(), 1);
	remove_dir();
}

/* More open files than the signal-time list holds: the extra ones are
 * still written and removed as usual. */
static void test_many_open_files_still_commit(void)
{
	make_dir();
	enum { N = 20 };
	dp_afile af[N];
	dp_err err;
	char path[128];
	for (int i = 0; i < N; i++) {
		snprintf(path, sizeof path, "%s/f%d.txt", dir, i);
		REQUIRE(dp_afile_open(&af[i], path, &err) == DP_OK);
		fprintf(af[i].f, "%d\n", i);
	}
	CHECK_INT(entries(), N);
	for (int i = 0; i < N; i++)
		CHECK_INT(dp_afile_commit(&af[i], &err), DP_OK);
	dp_afile_remove_pending();
	CHECK_INT(entries(), N);
	snprintf(path, sizeof path, "%s/f19.txt", dir);
	CHECK_STR(read_text(path), "19\n");
	remove_dir();
}

TEST_MAIN(TEST(test_failed_write_keeps_the_old_file_and_says_why),
	  TEST(test_remove_pending_clears_open_temporary_files),
	  TEST(test_many_open_files_still_commit))
