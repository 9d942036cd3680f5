/* test_afile.c - output files appear whole or not at all. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dnnpart/afile.h"
#include "lib/testlib.h"

/* path = the file name in this test's own fresh folder (tests/lib), with
 * old in it when not NULL; false when that cannot be. Each test removes
 * the folder with test_tmp_cleanup(), so the next starts empty. */
static bool fresh_file(char *path, size_t size, const char *name,
		       const char *old)
{
	const char *p = test_tmp_path(name);
	if (!p)
		return false;
	snprintf(path, size, "%s", p);
	return !old || test_write_file(path, old);
}

/* fresh_file, then dp_afile_open on it: false when either fails. */
static bool open_fresh(dp_afile *af, char *path, size_t size, const char *name,
		       const char *old)
{
	dp_err err;
	return fresh_file(path, size, name, old) &&
	       dp_afile_open(af, path, &err) == DP_OK;
}

static void test_afile_commit_replaces_the_file(void)
{
	char path[512];
	dp_afile af;
	REQUIRE(open_fresh(&af, path, sizeof path, "out.json", "old\n"));
	dp_err err;
	/* the temporary is a hidden sibling; the old file is still there */
	CHECK_CONTAINS(af.tmp, "/.out.json.tmp");
	CHECK_INT(test_count_files(""), 2);
	CHECK_FILE(path, "old\n");
	fputs("new content\n", af.f);
	REQUIRE(dp_afile_commit(&af, &err) == DP_OK);
	CHECK_FILE(path, "new content\n");
	CHECK_INT(test_count_files(""), 1); /* no temporary left */
	CHECK(af.f == NULL && af.tmp == NULL);
	CHECK(test_tmp_cleanup());
}

static void test_afile_abort_leaves_old_file_intact(void)
{
	char path[512];
	dp_afile af;
	REQUIRE(open_fresh(&af, path, sizeof path, "plan.place", "a 0\nb 1\n"));
	dp_err err;
	fputs("half-writ", af.f);
	dp_afile_abort(&af);
	CHECK_FILE(path, "a 0\nb 1\n");
	CHECK_INT(test_count_files(""), 1);
	dp_afile_abort(&af); /* a second abort is harmless */
	/* an aborted new file never appears */
	char path2[512];
	REQUIRE(fresh_file(path2, sizeof path2, "new.json", NULL));
	REQUIRE(dp_afile_open(&af, path2, &err) == DP_OK);
	dp_afile_abort(&af);
	CHECK(access(path2, F_OK) != 0);
	CHECK_INT(test_count_files(""), 1);
	CHECK(test_tmp_cleanup());
}

static void test_afile_keeps_permissions_of_existing_file(void)
{
	char path[512];
	REQUIRE(fresh_file(path, sizeof path, "x.txt", "x"));
	chmod(path, 0640);
	dp_afile af;
	dp_err err;
	REQUIRE(dp_afile_open(&af, path, &err) == DP_OK);
	fputs("y", af.f);
	REQUIRE(dp_afile_commit(&af, &err) == DP_OK);
	struct stat st;
	REQUIRE(stat(path, &st) == 0);
	CHECK_INT(st.st_mode & 0777, 0640);
	CHECK(test_tmp_cleanup());
}

static void test_afile_missing_or_unwritable_folder_is_named(void)
{
	dp_afile af;
	dp_err err;
	CHECK_INT(
		dp_afile_open(&af, "/tmp/dnnpart-no-such-dir/x/out.json", &err),
		DP_EIO);
	CHECK_CONTAINS(err.msg, "folder '/tmp/dnnpart-no-such-dir/x' does "
				"not exist");
	CHECK_STR(err.file, "/tmp/dnnpart-no-such-dir/x/out.json");
	/* /proc refuses new files even to root */
	CHECK_INT(dp_afile_open(&af, "/proc/dnnpart-test.json", &err), DP_EIO);
	CHECK_CONTAINS(err.msg, "cannot create a file in folder '/proc'");
	if (geteuid() != 0) {
		char path[512];
		REQUIRE(fresh_file(path, sizeof path, "out.json", NULL));
		const char *dir = test_tmp_dir();
		chmod(dir, 0555);
		CHECK_INT(dp_afile_open(&af, path, &err), DP_EIO);
		CHECK_CONTAINS(err.msg, "cannot create a file in folder");
		CHECK_CONTAINS(err.msg, dir);
		chmod(dir, 0755);
		CHECK(test_tmp_cleanup());
	}
	CHECK_INT(dp_afile_open(&af, "/tmp", &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "is a folder");
	CHECK_INT(dp_afile_open(&af, "", &err), DP_EINPUT);
}

static void test_afile_relative_path_in_current_folder(void)
{
	const char *dir = test_tmp_dir();
	REQUIRE(dir);
	char cwd[1024];
	REQUIRE(getcwd(cwd, sizeof cwd));
	REQUIRE(chdir(dir) == 0);
	dp_afile af;
	dp_err err;
	dp_status st = dp_afile_open(&af, "rel.txt", &err);
	if (st == DP_OK) {
		CHECK(strncmp(af.tmp, ".rel.txt.tmp", 12) == 0);
		fputs("r", af.f);
		st = dp_afile_commit(&af, &err);
	}
	CHECK_INT(st, DP_OK);
	CHECK_FILE("rel.txt", "r");
	REQUIRE(chdir(cwd) == 0);
	CHECK(test_tmp_cleanup());
}

/* A file that appears at the target while a new file is written is kept:
 * the commit fails and removes its temporary file. */
static void test_afile_never_replaces_a_file_that_appeared(void)
{
	char path[512];
	dp_afile af;
	REQUIRE(open_fresh(&af, path, sizeof path, "new.svg", NULL));
	dp_err err;
	fputs("the export\n", af.f);
	REQUIRE(test_write_file(path, "someone else's file\n"));
	CHECK_INT(dp_afile_commit(&af, &err), DP_EIO);
	CHECK_CONTAINS(err.msg, "a file appeared there while this one was "
				"written; it was kept");
	CHECK_FILE(path, "someone else's file\n");
	CHECK_INT(test_count_files(""), 1); /* no temporary left */
	/* with nothing there, the same commit creates the file */
	unlink(path);
	REQUIRE(dp_afile_open(&af, path, &err) == DP_OK);
	fputs("the export\n", af.f);
	CHECK_INT(dp_afile_commit(&af, &err), DP_OK);
	CHECK_FILE(path, "the export\n");
	CHECK_INT(test_count_files(""), 1);
	CHECK(test_tmp_cleanup());
}

/* dp_afile_check: new, exists, or one of the inputs by device and inode
 * (through a symbolic link or another spelling). */
static void test_afile_check_says_what_would_be_replaced(void)
{
	const char *dir = test_tmp_dir();
	REQUIRE(dir);
	char graph[512], link[512], other[512], dotted[600];
	snprintf(graph, sizeof graph, "%s/g.json", dir);
	snprintf(link, sizeof link, "%s/link.json", dir);
	snprintf(other, sizeof other, "%s/other.json", dir);
	snprintf(dotted, sizeof dotted, "%s/./g.json", dir);
	REQUIRE(test_write_file(graph, "{}\n"));
	REQUIRE(symlink("g.json", link) == 0);
	const char *inputs[2] = {NULL, graph};
	dp_afile_target what = DP_AFILE_INPUT;
	dp_err err;
	CHECK_INT(dp_afile_check(other, inputs, 2, &what, &err), DP_OK);
	CHECK_INT(what, DP_AFILE_NEW);
	REQUIRE(test_write_file(other, "x"));
	CHECK_INT(dp_afile_check(other, inputs, 2, &what, &err), DP_OK);
	CHECK_INT(what, DP_AFILE_EXISTS);
	CHECK_INT(dp_afile_check(graph, inputs, 2, &what, &err), DP_OK);
	CHECK_INT(what, DP_AFILE_INPUT);
	CHECK_INT(dp_afile_check(link, inputs, 2, &what, &err), DP_OK);
	CHECK_INT(what, DP_AFILE_INPUT);
	CHECK_INT(dp_afile_check(dotted, inputs, 2, &what, &err), DP_OK);
	CHECK_INT(what, DP_AFILE_INPUT);
	CHECK_INT(dp_afile_check(link, NULL, 0, &what, &err), DP_OK);
	CHECK_INT(what, DP_AFILE_EXISTS);
	CHECK_INT(dp_afile_check(dir, inputs, 2, &what, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "is a folder");
	CHECK_INT(dp_afile_check("", inputs, 2, &what, &err), DP_EINPUT);
	CHECK(test_tmp_cleanup());
}

TEST_MAIN(TEST(test_afile_commit_replaces_the_file),
	  TEST(test_afile_abort_leaves_old_file_intact),
	  TEST(test_afile_keeps_permissions_of_existing_file),
	  TEST(test_afile_missing_or_unwritable_folder_is_named),
	  TEST(test_afile_relative_path_in_current_folder),
	  TEST(test_afile_never_replaces_a_file_that_appeared),
	  TEST(test_afile_check_says_what_would_be_replaced))
