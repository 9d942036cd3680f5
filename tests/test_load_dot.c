/* test_load_dot.c - Graphviz DOT graphs: attributes, defaults, order,
 * errors with lines, Graphviz kept quiet. */
#include <cgraph.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dnnpart/load.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

#define D "tests/data/"

static void test_dot_attributes_and_defaults(void)
{
	dp_graph *g = test_load_ok(D "dot_attrs.dot");
	REQUIRE(g);
	CHECK_STR(g->name, "model");
	REQUIRE(g->nops == 4 && g->nedges == 4);
	uint32_t in = dp_graph_find(g, "in"), conv = dp_graph_find(g, "conv"),
		 relu = dp_graph_find(g, "relu"),
		 late = dp_graph_find(g, "late");
	CHECK(in == 0 && conv == 1 && relu == 2 && late == 3);
	CHECK_NEAR(g->ops[in].time_us, 0, 0); /* explicit 0 stays 0 */
	CHECK_INT(g->ops[in].output_bytes, 1048576);
	CHECK_STR(dp_graph_str(g, g->ops[in].type), "Op"); /* node default */
	const dp_op *c = &g->ops[conv];
	CHECK_NEAR(c->time_us, 120.5, 0);
	CHECK_INT(c->output_bytes, 4096);
	CHECK_INT(c->param_bytes, 2048);
	CHECK_INT(c->temp_bytes, 512);
	CHECK_STR(dp_graph_str(g, c->type), "Conv2D");
	CHECK_STR(dp_graph_str(g, c->layer), "block1");
	CHECK_INT(c->pin, 1);
	CHECK(c->colocate >= 0 && c->colocate == g->ops[relu].colocate);
	CHECK_NEAR(g->ops[relu].time_us, 2000, 0); /* "2ms" */
	/* missing time_us: 1 µs as ParDNN; other fields 0 */
	CHECK_NEAR(g->ops[late].time_us, 1, 0);
	CHECK_INT(g->ops[late].output_bytes, 0);
	CHECK_INT(g->ops[late].pin, -1);
	CHECK_INT(g->ops[late].colocate, -1);
	/* edges in file order, bytes resolved */
	CHECK(g->edges[0].from == in && g->edges[0].to == conv);
	CHECK_INT(g->edges[0].bytes, 512 * 1024);
	CHECK(g->edges[1].from == conv && g->edges[1].to == relu);
	CHECK_INT(g->edges[1].bytes, 4096);
	CHECK(g->edges[2].control && g->edges[2].from == in);
	CHECK_INT(g->edges[2].bytes, 0);
	CHECK(!g->edges[3].control);
	/* graph attributes: machine defaults */
	CHECK_HINT(g, 2, 8LL << 30, 25000, 10);
	dp_graph_free(g);
}

static void test_dot_op_order_is_first_appearance(void)
{
	dp_graph *g = test_load_ok(D "dot_order.dot");
	REQUIRE(g);
	static const char *const want[] = {"b", "d", "a", "c", "e"};
	REQUIRE(g->nops == 5);
	for (uint32_t i = 0; i < 5; i++)
		CHECK_STR(dp_graph_op_name(g, i), want[i]);
	/* edges: b->d, c->b, e->a, a->c in file order */
	CHECK_STR(dp_graph_op_name(g, g->edges[2].from), "e");
	CHECK_STR(dp_graph_op_name(g, g->edges[3].from), "a");
	CHECK_STR(g->name, "dot_order"); /* anonymous graph: file name */
	/* the same file gives the same graph every time */
	dp_graph *h = test_load_ok(D "dot_order.dot");
	REQUIRE(h);
	for (uint32_t i = 0; i < 5; i++)
		CHECK_STR(dp_graph_op_name(h, i), dp_graph_op_name(g, i));
	for (uint32_t e = 0; e < g->nedges; e++)
		CHECK(g->edges[e].from == h->edges[e].from &&
		      g->edges[e].to == h->edges[e].to);
	dp_graph_free(g);
	dp_graph_free(h);
}

/* strict merges the two p -> q (an undirected graph is refused: see
 * bad_files) */
static void test_dot_strict(void)
{
	dp_graph *g = test_load_ok(D "dot_strict.dot");
	REQUIRE(g);
	CHECK_INT(g->nops, 3);
	CHECK_INT(g->nedges, 2); /* strict merges p -> q twice */
	CHECK_STR(dp_graph_op_name(g, g->edges[0].from), "p");
	CHECK_STR(dp_graph_op_name(g, g->edges[1].to), "r");
	CHECK_INT(g->edges[1].bytes, 10);
	dp_graph_free(g);
}

/* Each bad file, its line and the start of the message
 * (tests/data/dot_bad.cases). */
static void test_dot_errors_name_the_line(void)
{
	CHECK_BAD_CASES(D, D "dot_bad.cases", 9);
}

/* Graphviz would print "Error: ... syntax error" on stderr; the loader
 * routes it into the error value instead. */
static void test_dot_syntax_error_prints_nothing(void)
{
	char path[] = "/tmp/dnnpart-stderr-XXXXXX";
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	dp_graph *g = NULL;
	dp_err err;
	dp_status a =
		dp_graph_load(D "dot_bad_syntax.dot", DP_FMT_AUTO, &g, &err);
	static const char warn[] =
		"digraph w { a -> b; a [label=<<b>unclosed]; }";
	dp_status b = dp_load_dot("warn.dot", warn, sizeof warn - 1, &g, &err);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	struct stat st;
	fstat(fd, &st);
	close(fd);
	unlink(path);
	CHECK_INT(a, DP_EINPUT);
	CHECK_INT(b, DP_EINPUT);
	CHECK_INT(st.st_size, 0);
}

/* A failed parse must not poison the next one (cgraph keeps parser state
 * in globals). */
static void test_dot_good_after_bad(void)
{
	dp_graph *g = NULL;
	dp_err err;
	CHECK_INT(dp_graph_load(D "dot_bad_syntax.dot", DP_FMT_AUTO, &g, &err),
		  DP_EINPUT);
	g = test_load_ok(D "dot_attrs.dot");
	REQUIRE(g);
	CHECK_INT(g->nops, 4);
	dp_graph_free(g);
}

/* cgraph's scanner kept the rest of the last line it read for the next
 * parse: a second graph on the closing line became the next file's graph. */
static void test_dot_nothing_leaks_into_the_next_parse(void)
{
	static const char two[] =
		"digraph one { a -> b } digraph two { x -> y }\n";
	static const char next[] = "digraph n {\n p -> q -> r\n}\n";
	static const char bad[] = "digraph m {\n  u -> ;\n}\n";
	dp_graph *g = NULL;
	dp_err err;
	REQUIRE(dp_load_dot("two.dot", two, sizeof two - 1, &g, &err) == DP_OK);
	CHECK_STR(g->name, "one"); /* the first graph of a file is read */
	dp_graph_free(g);
	g = NULL;
	REQUIRE(dp_load_dot("next.dot", next, sizeof next - 1, &g, &err) ==
		DP_OK);
	CHECK_STR(g->name, "n");
	CHECK_INT(g->nops, 3);
	CHECK(dp_graph_find(g, "x") == UINT32_MAX);
	dp_graph_free(g);
	/* after a file ending in a newline, lines still count from 1 */
	CHECK_INT(dp_load_dot("bad.dot", bad, sizeof bad - 1, &g, &err),
		  DP_EINPUT);
	CHECK_INT(err.line, 2);
}

/* Other code (exports, their tests) uses cgraph's parser directly: after
 * the loader, cgraph must still parse, and without our leftovers. */
static void test_dot_cgraph_still_usable_after_loading(void)
{
	static const char mine[] = "digraph a { p -> q } digraph junk { j }\n";
	dp_graph *g = NULL;
	dp_err err;
	REQUIRE(dp_load_dot("a.dot", mine, sizeof mine - 1, &g, &err) == DP_OK);
	dp_graph_free(g);
	Agraph_t *G = agmemread("digraph other { x -> y -> z }");
	REQUIRE(G);
	CHECK_STR(agnameof(G), "other");
	CHECK_INT(agnnodes(G), 3);
	agclose(G);
}

/* A ParDNN folder's edges file is plain DOT: names, edges, no times (1 µs
 * each). */
static void check_pardnn_edges(const char *dir, uint32_t nops,
			       uint32_t nedges, const char *first)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/crn_src_sink_low.dot", dir);
	dp_graph *g = test_load_ok(path);
	REQUIRE(g);
	CHECK_INT(g->nops, nops);
	CHECK_INT(g->nedges, nedges);
	CHECK_STR(dp_graph_op_name(g, 0), first);
	CHECK_NEAR(g->total_time_us, nops, 0);
	dp_graph_free(g);
}

/* Ours (tests/data/pardnn-resnet50): 806 distinct names and 1534 "->"
 * lines (grep -c -- '->'), src first. */
static void test_dot_pardnn_edges_file(void)
{
	check_pardnn_edges("tests/data/pardnn-resnet50", 806, 1534, "src");
}

/* The ParDNN authors' ResNet, where present: the counts the benchmark
 * README states for this graph. */
static void test_dot_real_pardnn_edges_file(void)
{
	const char *dir = test_pardnn_resnet();
	if (dir)
		check_pardnn_edges(dir, 6094, 12222, "iterator");
}

TEST_MAIN(TEST(test_dot_attributes_and_defaults),
	  TEST(test_dot_op_order_is_first_appearance), TEST(test_dot_strict),
	  TEST(test_dot_errors_name_the_line),
	  TEST(test_dot_syntax_error_prints_nothing),
	  TEST(test_dot_good_after_bad),
	  TEST(test_dot_nothing_leaks_into_the_next_parse),
	  TEST(test_dot_cgraph_still_usable_after_loading),
	  TEST(test_dot_pardnn_edges_file),
	  TEST(test_dot_real_pardnn_edges_file))
