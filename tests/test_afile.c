/* test_afile.c - output files appear whole or not at all. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dnnpart/afile.h"
#include "lib/testlib.h"

/* A fresh empty folder under /tmp; caller frees the name. */
static char *make_dir(void)
{
	char tmpl[] = "/tmp/dnnpart-afile-XXXXXX";
	char *d = mkdtemp(tmpl);
	return d ? strdup(d) : NULL;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void remove_dir(char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
	rmdir(dir);
	free(dir);
}

static void test_afile_commit_replaces_the_file(void)
{
	char *dir = make_dir();
	REQUIRE(dir);
	char path[512];
	snprintf(path, sizeof path, "%s/out.json", dir);
	REQUIRE(test_write_file(path, "old\n"));
	dp_afile af;
	dp_err err;
	REQUIRE(dp_afile_open(&af, path, &err) == DP_OK);
	/* the temporary is a hidden sibling; the old file is still there */
	CHECK_CONTAINS(af.tmp, "/.out.json.tmp");
	CHECK_INT(count_entries(dir), 2);
	CHECK_FILE(path, "old\n");
	fputs("new content\n", af.f);
	REQUIRE(dp_afile_commit(&af, &err) == DP_OK);
	CHECK_FILE(path, "new content\n");
	CHECK_INT(count_entries(dir), 1); /* no temporary left */
	CHECK(af.f == NULL && af.tmp == NULL);
	remove_dir(dir);
}

static void test_afile_abort_leaves_old_file_intact(void)
{
	char *dir = make_dir();
	REQUIRE(dir);
	char path[512];
	snprintf(path, sizeof path, "%s/plan.place", dir);
	REQUIRE(test_write_file(path, "a 0\nb 1\n"));
	dp_afile af;
	dp_err err;
	REQUIRE(dp_afile_open(&af, path, &err) == DP_OK);
	fputs("half-writ", af.f);
	dp_afile_abort(&af);
	CHECK_FILE(path, "a 0\nb 1\n");
	CHECK_INT(count_entries(dir), 1);
	dp_afile_abort(&af); /* a second abort is harmless */
	/* an aborted new file never appears */
	char path2[512];
	snprintf(path2, sizeof path2, "%s/new.json", dir);
	REQUIRE(dp_afile_open(&af, path2, &err) == DP_OK);
	dp_afile_abort(&af);
	CHECK(access(path2, F_OK) != 0);
	CHECK_INT(count_entries(dir), 1);
	remove_dir(dir);
}

static void test_afile_keeps_permissions_of_existing_file(void)
{
	char *dir = make_dir();
	REQUIRE(dir);
	char path[512];
	snprintf(path, sizeof path, "%s/x.txt", dir);
	REQUIRE(test_write_file(path, "x"));
	chmod(path, 0640);
	dp_afile af;
	dp_err err;
	REQUIRE(dp_afile_open(&af, path, &err) == DP_OK);
	fputs("y", af.f);
	REQUIRE(dp_afile_commit(&af, &err) == DP_OK);
	struct stat st;
	REQUIRE(stat(path, &st) == 0);
	CHECK_INT(st.st_mode & 0777, 0640);
	remove_dir(dir);
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
		char *dir = make_dir();
		REQUIRE(dir);
		chmod(dir, 0555);
		char path[512];
		snprintf(path, sizeof path, "%s/out.json", dir);
		CHECK_INT(dp_afile_open(&af, path, &err), DP_EIO);
		CHECK_CONTAINS(err.msg, "cannot create a file in folder");
		CHECK_CONTAINS(err.msg, dir);
		chmod(dir, 0755);
		remove_dir(dir);
	}
	CHECK_INT(dp_afile_open(&af, "/tmp", &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "is a folder");
	CHECK_INT(dp_afile_open(&af, "", &err), DP_EINPUT);
}

static void test_afile_relative_path_in_current_folder(void)
{
	char *dir = make_dir();
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
	remove_dir(dir);
}

/* A file that appears at the target while a new file is written is kept:
 * the commit fails and removes its temporary file. */
static void test_afile_never_replaces_a_file_that_appeared(void)
{
	char *dir = make_dir();
	REQUIRE(dir);
	char path[512];
	snprintf(path, sizeof path, "%s/new.svg", dir);
	dp_afile af;
	dp_err err;
	REQUIRE(dp_afile_open(&af, path, &err) == DP_OK);
	fputs("the export\n", af.f);
	REQUIRE(test_write_file(path, "someone else's file\n"));
	CHECK_INT(dp_afile_commit(&af, &err), DP_EIO);
	CHECK_CONTAINS(err.msg, "a file appeared there while this one was "
				"written; it was kept");
	CHECK_FILE(path, "someone else's file\n");
	CHECK_INT(count_entries(dir), 1); /* no temporary left */
	/* with nothing there, the same commit creates the file */
	unlink(path);
	REQUIRE(dp_afile_open(&af, path, &err) == DP_OK);
	fputs("the export\n", af.f);
	CHECK_INT(dp_afile_commit(&af, &err), DP_OK);
	CHECK_FILE(path, "the export\n");
	CHECK_INT(count_entries(dir), 1);
	remove_dir(dir);
}

/* dp_afile_check: new, exists, or one of the inputs by device and inode
 * (through a symbolic link or another spelling). */
static void test_afile_check_says_what_would_be_replaced(void)
{
	char *dir = make_dir();
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
	remove_dir(dir);
}

TEST_MAIN(TEST(test_afile_commit_replaces_the_file),
	  TEST(test_afile_abort_leaves_old_file_intact),
	  TEST(test_afile_keeps_permissions_of_existing_file),
	  TEST(test_afile_missing_or_unwritable_folder_is_named),
	  TEST(test_afile_relative_path_in_current_folder),
	  TEST(test_afile_never_replaces_a_file_that_appeared),
	  TEST(test_afile_check_says_what_would_be_replaced))
