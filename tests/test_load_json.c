/* test_load_json.c - the native JSON graph format: fields, defaults,
 * machine block, every error with its position, large files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnnpart/load.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

#define D "tests/data/"

static void test_json_every_field_is_read(void)
{
	dp_graph *g = test_load_ok(D "json_full.json");
	REQUIRE(g);
	CHECK_STR(g->name, "tiny");
	CHECK_STR(g->source, D "json_full.json");
	CHECK_INT(g->nops, 3);
	CHECK_INT(g->nedges, 3);
	uint32_t a = dp_graph_find(g, "a"), b = dp_graph_find(g, "b"),
		 c = dp_graph_find(g, "c\xc3\xa9"); /* "c\u00e9" decoded */
	REQUIRE(a == 0 && b == 1 && c == 2);
	const dp_op *oa = &g->ops[a], *ob = &g->ops[b], *oc = &g->ops[c];
	CHECK_STR(dp_graph_str(g, oa->type), "MatMul");
	CHECK_NEAR(oa->time_us, 12.5, 0);
	CHECK_INT(oa->output_bytes, 1048576);
	CHECK_INT(oa->param_bytes, 2 * 1048576); /* "2MiB" */
	CHECK_INT(oa->temp_bytes, 64);
	CHECK_INT(oa->pin, -1);
	CHECK_STR(dp_graph_str(g, oa->layer), "enc/0");
	CHECK(oa->colocate >= 0 && oa->colocate == ob->colocate);
	CHECK_STR(dp_graph_str(g, g->group_label[oa->colocate]), "g1");
	CHECK_INT(ob->pin, 1);
	CHECK_INT(ob->output_bytes, 1000);	  /* "1kB" */
	CHECK_STR(dp_graph_str(g, ob->type), ""); /* null = not given */
	CHECK_NEAR(ob->time_us, 3, 0);
	/* an integer colocation label becomes its decimal text */
	CHECK(oc->colocate >= 0);
	CHECK_STR(dp_graph_str(g, g->group_label[oc->colocate]), "7");
	CHECK_NEAR(oc->time_us, 0, 0);
	/* edges in file order; bytes resolved by finalize */
	CHECK_INT(g->edges[0].from, a);
	CHECK_INT(g->edges[0].to, b);
	CHECK_INT(g->edges[0].bytes, 1048576);
	CHECK(!g->edges[0].control);
	CHECK_INT(g->edges[1].bytes, 1000); /* the producer's output_bytes */
	CHECK(g->edges[2].control);
	CHECK_INT(g->edges[2].to, c);
	CHECK_INT(g->edges[2].bytes, 0);
	/* machine block */
	CHECK_HINT(g, 4, 16LL << 30, 130000, 25);
	dp_graph_free(g);
}

static void test_json_defaults_and_basename(void)
{
	dp_graph *g = test_load_ok(D "json_minimal.json");
	REQUIRE(g);
	CHECK_STR(g->name, "json_minimal");
	CHECK_INT(g->nops, 2);
	CHECK_NEAR(g->ops[1].time_us, 0, 0);
	CHECK_INT(g->ops[1].output_bytes, 0);
	CHECK_INT(g->ops[1].param_bytes, 0);
	CHECK_INT(g->ops[1].pin, -1);
	CHECK_INT(g->ops[1].colocate, -1);
	CHECK_INT(g->edges[0].bytes, 100);
	CHECK_INT(g->hint.devices, 0); /* no machine block */
	CHECK(g->hint.lat_us < 0);
	dp_graph_free(g);
}

static void test_json_edges_may_come_before_ops(void)
{
	dp_graph *g = test_load_ok(D "json_edges_first.json");
	REQUIRE(g);
	CHECK_INT(g->nedges, 1);
	CHECK_INT(g->edges[0].from, dp_graph_find(g, "p"));
	CHECK_INT(g->edges[0].bytes, 3072);
	dp_graph_free(g);
}

static void test_json_machine_numbers_and_bom(void)
{
	dp_graph *g = test_load_ok(D "json_machine_numbers.json");
	REQUIRE(g);
	/* bytes/s and µs given */
	CHECK_HINT(g, 2, 1000, 5700, 134);
	dp_graph_free(g);
	g = test_load_ok(D "json_bom.json");
	REQUIRE(g);
	CHECK_INT(g->nops, 1);
	dp_graph_free(g);
}

/* Each bad file, with the exact position and the start of the message
 * (tests/data/json_bad.cases). */
static void test_json_errors_have_exact_positions(void)
{
	CHECK_BAD_CASES(D, D "json_bad.cases", 25);
}

static void test_json_cycle_is_named_with_the_file(void)
{
	dp_graph *g = NULL;
	dp_err err;
	CHECK_INT(dp_graph_load(D "json_bad_cycle.json", DP_FMT_AUTO, &g, &err),
		  DP_EINPUT);
	CHECK(g == NULL);
	CHECK_STR(err.file, D "json_bad_cycle.json");
	CHECK_CONTAINS(err.msg, "cycle of 2 ops");
	CHECK_CONTAINS(err.msg, "'x'");
	CHECK_CONTAINS(err.msg, "'y'");
}

static void test_json_loader_direct_from_text(void)
{
	static const char text[] = "{\"name\": \"t\", \"ops\": [{\"name\": "
				   "\"u\", \"time_us\": 1e2}],"
				   " \"future\": {\"nested\": [[[1]]]}}";
	dp_graph *g = NULL;
	dp_err err;
	REQUIRE(dp_load_json("mem.json", text, sizeof text - 1, &g, &err) ==
		DP_OK);
	CHECK(!g->finalized); /* dp_graph_load finalizes, the loader does not */
	CHECK_STR(g->name, "t");
	CHECK_NEAR(g->ops[0].time_us, 100, 0);
	dp_graph_free(g);
	static const char placement[] =
		"{\"format\": \"dnnpart-placement\", \"ops\": []}";
	CHECK_INT(dp_load_json("p.json", placement, sizeof placement - 1, &g,
			       &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "this is a placement file, not a graph");
	CHECK_INT(dp_load_json("e.json", "  ", 2, &g, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "empty file");
	/* deep nesting in an ignored member is bounded, not a crash */
	size_t n = 2000;
	char *deep = malloc(2 * n + 64);
	REQUIRE(deep);
	size_t k =
		(size_t)sprintf(deep, "{\"ops\": [{\"name\": \"a\"}], \"x\": ");
	for (size_t i = 0; i < n; i++)
		deep[k++] = '[';
	for (size_t i = 0; i < n; i++)
		deep[k++] = ']';
	deep[k++] = '}';
	deep[k] = '\0';
	CHECK_INT(dp_load_json("deep.json", deep, k, &g, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "nesting deeper than");
	free(deep);
}

/* A generated graph of 200,000 ops and 600,000 edges loads with the right
 * counts (the loader streams; the full-size 1M-op case is in bench/). */
static void test_json_large_generated_graph(void)
{
	char path[] = "/tmp/dnnpart-large-XXXXXX.json";
	int fd = mkstemps(path, 5);
	REQUIRE(fd >= 0);
	FILE *f = fdopen(fd, "w");
	REQUIRE(f);
	const unsigned n = 200000;
	fputs("{\"format\":\"dnnpart-graph\",\"version\":1,\"name\":\"big\",\n"
	      "\"ops\":[\n",
	      f);
	for (unsigned i = 0; i < n; i++)
		fprintf(f,
			"%s{\"name\":\"op%u\",\"type\":\"T%u\",\"time_us\":%u."
			"5,"
			"\"output_bytes\":%u,\"layer\":\"l%u\"}\n",
			i ? "," : "", i, i % 7, i % 100, 1000 + i, i / 1000);
	fputs("],\n\"edges\":[\n", f);
	unsigned edges = 0;
	static const unsigned step[3] = {1, 2, 7};
	for (unsigned i = 0; i < n; i++)
		for (int s = 0; s < 3; s++)
			if (i + step[s] < n)
				fprintf(f,
					"%s{\"from\":\"op%u\",\"to\":\"op%u\"}"
					"\n",
					edges++ ? "," : "", i, i + step[s]);
	fputs("]}\n", f);
	fclose(f);
	dp_graph *g = test_load_ok(path);
	unlink(path);
	REQUIRE(g);
	CHECK_INT(g->nops, n);
	CHECK_INT(g->nedges, edges);
	CHECK_INT(edges, 3 * n - 1 - 2 - 7);
	CHECK_STR(g->name, "big");
	CHECK_STR(dp_graph_op_name(g, 123456), "op123456");
	CHECK_NEAR(g->ops[123456].time_us, 56.5, 0);
	CHECK_INT(g->ops[123456].output_bytes, 124456);
	CHECK_STR(dp_graph_str(g, g->ops[123456].layer), "l123");
	CHECK_INT(g->topo[n - 1], n - 1);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_json_every_field_is_read),
	  TEST(test_json_defaults_and_basename),
	  TEST(test_json_edges_may_come_before_ops),
	  TEST(test_json_machine_numbers_and_bom),
	  TEST(test_json_errors_have_exact_positions),
	  TEST(test_json_cycle_is_named_with_the_file),
	  TEST(test_json_loader_direct_from_text),
	  TEST(test_json_large_generated_graph))
