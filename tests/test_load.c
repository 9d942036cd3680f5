/* test_load.c - format detection by content, format names, reading files,
 * line/column mapping, dp_graph_load's dispatch. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnnpart/load.h"
#include "lib/testlib.h"

#define D "tests/data/"

/* Writes text to a fresh temporary file whose name ends in suffix (a
 * misleading one on purpose: detection must not trust extensions). */
static char *temp_file(const char *text, const char *suffix)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/dnnpart-detect-XXXXXX%s", suffix);
	int fd = mkstemps(path, (int)strlen(suffix));
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

/* The detected format, or -1 when detection refused the file. */
static int detect(const char *path, dp_err *err)
{
	dp_format f = DP_FMT_AUTO;
	dp_err_clear(err);
	if (dp_load_detect(path, &f, err) != DP_OK)
		return -1;
	return (int)f;
}

static void test_detect_native_and_dot_by_content(void)
{
	dp_err err;
	CHECK_INT(detect(D "json_full.json", &err), DP_FMT_JSON);
	CHECK_INT(detect(D "json_edges_first.json", &err), DP_FMT_JSON);
	CHECK_INT(detect(D "json_bom.json", &err), DP_FMT_JSON);
	CHECK_INT(detect(D "dot_attrs.dot", &err), DP_FMT_DOT);
	CHECK_INT(detect(D "dot_undirected.dot", &err), DP_FMT_DOT);
	char *p = temp_file("/* c */\n# pre\n// x\n  DiGraph g { a -> b }\n",
			    ".json");
	REQUIRE(p);
	CHECK_INT(detect(p, &err), DP_FMT_DOT);
	unlink(p);
	p = temp_file("{\"format\": \"dnnpart-graph\", \"x\": 1}", ".dot");
	REQUIRE(p);
	CHECK_INT(detect(p, &err), DP_FMT_JSON);
	unlink(p);
	/* "graphs" is not the keyword "graph" */
	p = temp_file("graphs are nice\n", ".txt");
	REQUIRE(p);
	CHECK_INT(detect(p, &err), -1);
	CHECK_CONTAINS(err.msg, "cannot tell the format of this file");
	unlink(p);
}

static void test_detect_other_tools_formats(void)
{
	dp_err err;
	char path[1024];
	const char *sh = test_data_dir();
	snprintf(path, sizeof path, "%s/pardnn-resnet50", sh);
	CHECK_INT(detect(path, &err), DP_FMT_PARDNN);
	/* the ParDNN folder's edge list is itself a DOT file */
	snprintf(path, sizeof path, "%s/pardnn-resnet50/crn_src_sink_low.dot",
		 sh);
	CHECK_INT(detect(path, &err), DP_FMT_DOT);
	static const char *const models[] = {
		"alexnet",  "gnmt",	 "nasnetamobile", "resnet18",
		"resnet50", "resnext50", "squeezenet1_0", "vgg16"};
	for (size_t i = 0; i < 8; i++) {
		snprintf(path, sizeof path, "%s/pipedream/%s/graph.txt", sh,
			 models[i]);
		if (detect(path, &err) != (int)DP_FMT_PIPEDREAM)
			test_fail(__FILE__, __LINE__, "%s: %s", path, err.msg);
	}
	int fiddle = 0;
	static const char *const sub[] = {"LayerGraphs", "OperatorGraphs"};
	for (int s = 0; s < 2; s++) {
		char dir[512];
		snprintf(dir, sizeof dir, "%s/msr-fiddle/throughput-inputs/%s",
			 sh, sub[s]);
		DIR *d = opendir(dir);
		REQUIRE(d);
		struct dirent *e;
		while ((e = readdir(d))) {
			if (!strstr(e->d_name, ".json"))
				continue;
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			fiddle++;
			if (detect(path, &err) != (int)DP_FMT_FIDDLE)
				test_fail(__FILE__, __LINE__, "%s: %s", path,
					  err.msg);
		}
		closedir(d);
	}
	CHECK_INT(fiddle, 16);
	/* fiddle-style edges alone are enough */
	char *p = temp_file("{\"edges\": [{\"sourceId\": 1, \"destId\": 2}], "
			    "\"nodes\": []}",
			    ".txt");
	REQUIRE(p);
	CHECK_INT(detect(p, &err), DP_FMT_FIDDLE);
	unlink(p);
	p = temp_file("node1 -- Input0 -- forward_compute_time=0.0\n", ".dot");
	REQUIRE(p);
	CHECK_INT(detect(p, &err), DP_FMT_PIPEDREAM);
	unlink(p);
}

/* Detection reads the first MiB; a JSON file whose telling key comes
 * later is still detected (by reading the whole file). */
static void test_detect_key_after_the_first_mib(void)
{
	char path[] = "/tmp/dnnpart-late-XXXXXX";
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	FILE *f = fdopen(fd, "w");
	REQUIRE(f);
	fputs("{\"edges\": [", f);
	for (int i = 0; i < 40000; i++)
		fprintf(f, "%s{\"from\": \"op%d\", \"to\": \"op%d\"}",
			i ? ", " : "", i, i + 1);
	fputs("],\n \"ops\": [{\"name\": \"op0\"}]}\n", f);
	long size = ftell(f);
	fclose(f);
	CHECK(size > (1 << 20));
	dp_err err;
	CHECK_INT(detect(path, &err), DP_FMT_JSON);
	unlink(path);
}

static void test_detect_refuses_with_a_useful_message(void)
{
	dp_err err;
	char *p = temp_file("", ".json");
	REQUIRE(p);
	CHECK_INT(detect(p, &err), -1);
	CHECK_CONTAINS(err.msg, "empty file");
	unlink(p);
	p = temp_file(" \n\t\n", ".json");
	REQUIRE(p);
	CHECK_INT(detect(p, &err), -1);
	CHECK_CONTAINS(err.msg, "empty file");
	unlink(p);
	p = temp_file("hello world\n", ".dot");
	REQUIRE(p);
	CHECK_INT(detect(p, &err), -1);
	CHECK_CONTAINS(err.msg, "native dnnpart JSON");
	CHECK_CONTAINS(err.msg, "msr-fiddle");
	CHECK_CONTAINS(err.msg, "Graphviz DOT");
	CHECK_CONTAINS(err.msg, "PipeDream");
	CHECK_CONTAINS(err.msg, "ParDNN folder");
	CHECK_CONTAINS(err.msg, "--format");
	CHECK_STR(err.file, p);
	unlink(p);
	p = temp_file("{\"something\": [1, 2]}", ".json");
	REQUIRE(p);
	CHECK_INT(detect(p, &err), -1);
	CHECK_CONTAINS(err.msg, "JSON of an unknown kind");
	unlink(p);
	p = temp_file("{\"format\": \"dnnpart-placement\", \"placement\": {}}",
		      ".json");
	REQUIRE(p);
	CHECK_INT(detect(p, &err), -1);
	CHECK_CONTAINS(err.msg, "placement file, not a graph");
	unlink(p);
	CHECK_INT(detect("/tmp/dnnpart-no-such-file", &err), -1);
	CHECK_INT(err.code, DP_EIO);
	CHECK_CONTAINS(err.msg, "cannot open");
}

static void test_format_names_and_parse(void)
{
	/* a name and the format it gives, by its own name */
	static const char *const ok[][2] = {
		{"auto", "auto"},
		{"json", "json"},
		{"native", "json"},
		{"DOT", "dot"},
		{"gv", "dot"},
		{"pardnn", "pardnn"},
		{"fiddle", "fiddle"},
		{"msr-fiddle", "fiddle"},
		{"pipedream", "pipedream"},
	};
	CHECK_PARSE_NAMES(ok, dp_format, dp_load_format_parse,
			  dp_load_format_name);
	CHECK_PARSE_REFUSES(dp_format, dp_load_format_parse, "xml",
			    "unknown format 'xml': expected one of auto, json, "
			    "dot, pardnn, fiddle, pipedream");
	CHECK_STR(dp_load_format_name(DP_FMT_JSON), "json");
	CHECK_STR(dp_load_format_name(DP_FMT_PIPEDREAM), "pipedream");
	CHECK_STR(dp_load_format_name((dp_format)99), "unknown");
}

static void test_line_col_of_offsets(void)
{
	static const char t[] = "ab\ncd\n\nxyz";
	int l, c;
	dp_load_line_col(t, 0, &l, &c);
	CHECK(l == 1 && c == 1);
	dp_load_line_col(t, 2, &l, &c); /* the newline itself */
	CHECK(l == 1 && c == 3);
	dp_load_line_col(t, 3, &l, &c);
	CHECK(l == 2 && c == 1);
	dp_load_line_col(t, 6, &l, &c);
	CHECK(l == 3 && c == 1);
	dp_load_line_col(t, 9, &l, &c);
	CHECK(l == 4 && c == 3);
	dp_load_line_col(t, sizeof t - 1, &l, &c); /* end of text */
	CHECK(l == 4 && c == 4);
}

static void test_read_file_errors_and_limit(void)
{
	char *text = (char *)1;
	size_t len = 7;
	dp_err err;
	CHECK_INT(dp_load_read_file("/tmp/dnnpart-no-such-file", 0, &text, &len,
				    &err),
		  DP_EIO);
	CHECK(text == NULL && len == 0);
	CHECK_CONTAINS(err.msg, "cannot open: No such file");
	CHECK_INT(dp_load_read_file("tests", 0, &text, &len, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "is a folder");
	CHECK_INT(
		dp_load_read_file(D "json_minimal.json", 10, &text, &len, &err),
		DP_EINPUT);
	CHECK_CONTAINS(err.msg, "more than the 10 B this machine can hold");
	REQUIRE(dp_load_read_file(D "json_minimal.json", 0, &text, &len,
				  &err) == DP_OK);
	CHECK_INT(len, strlen(text));
	CHECK(strncmp(text, "{\"ops\"", 6) == 0);
	free(text);
}

static void test_graph_load_forced_formats(void)
{
	dp_graph *g = NULL;
	dp_err err;
	/* forcing DOT on a JSON file: the DOT parser's complaint */
	CHECK_INT(dp_graph_load(D "json_minimal.json", DP_FMT_DOT, &g, &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "DOT syntax error");
	CHECK_INT(err.line, 1);
	/* forcing JSON on a DOT file */
	CHECK_INT(dp_graph_load(D "dot_attrs.dot", DP_FMT_JSON, &g, &err),
		  DP_EINPUT);
	CHECK_INT(err.line, 1);
	CHECK_INT(err.col, 1);
	CHECK_CONTAINS(err.msg, "expected an object '{' for the top-level "
				"object, got '/'");
	CHECK_INT(dp_graph_load("tests/data", DP_FMT_JSON, &g, &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "is a folder, but the json format is a single "
				"file");
	CHECK_INT(dp_graph_load(D "dot_attrs.dot", DP_FMT_PARDNN, &g, &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "folder");
	CHECK(g == NULL);
	REQUIRE(dp_graph_load(D "dot_attrs.dot", DP_FMT_DOT, &g, &err) ==
		DP_OK);
	CHECK(g->finalized);
	CHECK_STR(g->source, D "dot_attrs.dot");
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_detect_native_and_dot_by_content),
	  TEST(test_detect_other_tools_formats),
	  TEST(test_detect_key_after_the_first_mib),
	  TEST(test_detect_refuses_with_a_useful_message),
	  TEST(test_format_names_and_parse), TEST(test_line_col_of_offsets),
	  TEST(test_read_file_errors_and_limit),
	  TEST(test_graph_load_forced_formats))
