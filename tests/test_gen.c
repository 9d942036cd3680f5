/* test_gen.c - the synthetic graph generator and the native JSON writer. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"
#include "lib/testlib.h"
#include "load.h"

static dp_graph *make(uint32_t ops, uint64_t seed)
{
	dp_gen_opts o;
	gen_opts_default(&o);
	o.ops = ops;
	o.seed = seed;
	dp_graph *g = NULL;
	dp_err err;
	dp_err_clear(&err);
	if (gen_graph(&o, &g, &err) != DP_OK)
		test_fail(__FILE__, __LINE__, "gen_graph(%u): %s", ops,
			  err.msg);
	return g;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void test_gen_makes_exactly_the_requested_op_count(void)
{
	static const uint32_t sizes[] = {22,  23,   24,	  35,	 36,
					 101, 1000, 4097, 10000, 100000};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		dp_graph *g = make(sizes[i], 7);
		REQUIRE(g);
		CHECK_INT(g->nops, sizes[i]);
		/* finalized means Kahn's algorithm ordered every op: acyclic */
		CHECK(g->finalized);
		CHECK(g->nedges > g->nops);
		CHECK(g->nedges < 3u * g->nops);
		graph_free(g);
	}
}

static void test_gen_rejects_counts_out_of_range(void)
{
	dp_gen_opts o;
	gen_opts_default(&o);
	dp_graph *g = NULL;
	dp_err err;
	o.ops = DP_GEN_MIN_OPS - 1;
	CHECK_INT(gen_graph(&o, &g, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "expected an op count from 22");
	o.ops = DP_GEN_MAX_OPS + 1;
	CHECK_INT(gen_graph(&o, &g, &err), DP_EINPUT);
	CHECK(g == NULL);
}

static bool same_graph(const dp_graph *a, const dp_graph *b)
{
	if (a->nops != b->nops || a->nedges != b->nedges)
		return false;
	for (uint32_t u = 0; u < a->nops; u++) {
		const dp_op *x = &a->ops[u], *y = &b->ops[u];
		if (strcmp(graph_op_name(a, u), graph_op_name(b, u)) ||
		    strcmp(graph_str(a, x->type), graph_str(b, y->type)) ||
		    strcmp(graph_str(a, x->layer), graph_str(b, y->layer)) ||
		    x->time_us != y->time_us ||
		    x->output_bytes != y->output_bytes ||
		    x->param_bytes != y->param_bytes ||
		    x->temp_bytes != y->temp_bytes ||
		    (x->colocate < 0) != (y->colocate < 0) || x->pin != y->pin)
			return false;
		if (x->colocate >= 0 &&
		    strcmp(graph_str(a, a->group_label[x->colocate]),
			   graph_str(b, b->group_label[y->colocate])))
			return false;
	}
	for (uint32_t e = 0; e < a->nedges; e++) {
		const dp_edge *x = &a->edges[e], *y = &b->edges[e];
		if (x->from != y->from || x->to != y->to ||
		    x->bytes != y->bytes || x->control != y->control)
			return false;
	}
	return true;
}

static void test_gen_is_deterministic_and_seeded(void)
{
	dp_graph *a = make(5000, 42), *b = make(5000, 42), *c = make(5000, 43);
	REQUIRE(a && b && c);
	CHECK(same_graph(a, b));
	CHECK(!same_graph(a, c));
	/* a fixed value, so that a change of the generator is noticed: the
	 * graph must be the same on every machine */
	CHECK_STR(graph_op_name(a, 3), "stem/conv");
	CHECK_STR(graph_op_name(a, a->nops - 1), "update/stem/conv/w");
	graph_free(a);
	graph_free(b);
	graph_free(c);
}

/* Training structure: forward, loss, mirrored backward, updates. */
static void test_gen_has_training_structure(void)
{
	dp_graph *g = make(20000, 3);
	REQUIRE(g);
	uint32_t loss = graph_find(g, "head/loss");
	uint32_t lossgrad = graph_find(g, "grad/head/loss");
	REQUIRE(loss != UINT32_MAX && lossgrad != UINT32_MAX);
	uint32_t nadd = 0, nconcat = 0, nvar = 0, nupd = 0, ngrad = 0, nfwd = 0,
		 saved = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		const char *nm = graph_op_name(g, u);
		const char *ty = graph_str(g, g->ops[u].type);
		CHECK(g->ops[u].layer != 0);
		if (!strcmp(ty, "AddV2"))
			nadd++;
		if (!strcmp(ty, "ConcatV2"))
			nconcat++;
		if (!strcmp(ty, "VariableV2")) {
			nvar++;
			/* weights + two Adam moments */
			CHECK_INT(g->ops[u].param_bytes,
				  3 * g->ops[u].output_bytes);
			REQUIRE(g->ops[u].colocate >= 0);
			uint32_t c = (uint32_t)g->ops[u].colocate;
			CHECK_INT(g->group_off[c + 1] - g->group_off[c], 2);
		} else {
			CHECK_INT(g->ops[u].param_bytes, 0);
		}
		if (starts(nm, "update/")) {
			nupd++;
			CHECK_STR(ty, "ApplyAdam");
			REQUIRE(g->ops[u].colocate >= 0);
			/* colocated with its variable, named after it */
			CHECK_STR(graph_str(g,
					    g->group_label[g->ops[u].colocate]),
				  nm + strlen("update/"));
		} else if (starts(nm, "grad/")) {
			ngrad++;
			/* its forward op exists */
			CHECK(graph_find(g, nm + strlen("grad/")) !=
			      UINT32_MAX);
			CHECK(g->pred_off[u + 1] > g->pred_off[u]);
			for (uint32_t i = g->pred_off[u];
			     i < g->pred_off[u + 1]; i++) {
				uint32_t p = g->edges[g->pred_edge[i]].from;
				if (!starts(graph_op_name(g, p), "grad/"))
					saved++;
			}
			/* backward ops come after the loss in the order */
			CHECK(g->topo_pos[u] > g->topo_pos[loss]);
		} else if (strcmp(ty, "VariableV2") &&
			   strcmp(ty, "IteratorGetNext")) {
			nfwd++;
		}
	}
	CHECK(nadd > 10);    /* residual skip connections */
	CHECK(nconcat > 10); /* inception joins */
	CHECK_INT(nupd, nvar);
	CHECK(nvar > 100);
	/* one gradient op per forward op except the accuracy metric */
	CHECK(ngrad == nfwd || ngrad + 1 == nfwd);
	CHECK(saved > ngrad / 2); /* forward -> backward edges */
	graph_free(g);
}

static void test_gen_sizes_and_times_are_sane(void)
{
	dp_graph *g = make(10000, 11);
	REQUIRE(g);
	for (uint32_t u = 0; u < g->nops; u++) {
		const dp_op *op = &g->ops[u];
		/* at least a kernel launch, at most a tenth of a second */
		CHECK(op->time_us >= 1.0 && op->time_us <= 1e5);
		CHECK(op->output_bytes >= 0 &&
		      op->output_bytes <= ((int64_t)1 << 30));
		CHECK(op->temp_bytes <= ((int64_t)128 << 20));
	}
	/* the weights of a ResNet-like net of this depth: tens of MB to a few
	 * GB (with Adam's moments) */
	CHECK(g->total_param_bytes > ((int64_t)10 << 20));
	CHECK(g->total_param_bytes < ((int64_t)20 << 30));
	/* a training step of a few ops per ms, not microseconds or hours */
	CHECK(g->total_time_us > 1e4 && g->total_time_us < 1e8);
	graph_free(g);
}

static char tmpdir[64];

static const char *tmp_path(const char *name, char *buf, size_t size)
{
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof tmpdir, "/tmp/dnnpart-test-gen-XXXXXX");
		if (!mkdtemp(tmpdir))
			tmpdir[0] = '\0';
	}
	snprintf(buf, size, "%s/%s", tmpdir, name);
	return buf;
}

static void test_gen_json_reads_back_identically(void)
{
	dp_gen_opts o;
	gen_opts_default(&o);
	o.ops = 3001;
	o.seed = 5;
	o.devices = 4;
	o.memory_bytes = (int64_t)16 << 30;
	dp_graph *g = NULL, *back = NULL;
	dp_err err;
	REQUIRE(gen_graph(&o, &g, &err) == DP_OK);
	char path[128];
	tmp_path("g.json", path, sizeof path);
	REQUIRE(gen_write_json(path, g, &err) == DP_OK);
	dp_status st = graph_load(path, DP_FMT_AUTO, &back, &err);
	if (st)
		test_fail(__FILE__, __LINE__, "reload: %s:%d:%d: %s", err.file,
			  err.line, err.col, err.msg);
	REQUIRE(st == DP_OK);
	CHECK(same_graph(g, back));
	CHECK_INT(back->hint.devices, 4);
	CHECK_INT(back->hint.memory_bytes, (int64_t)16 << 30);
	CHECK_STR(back->name, "synthetic-3001");
	unlink(path);
	graph_free(g);
	graph_free(back);
}

static void test_gen_json_escapes_names(void)
{
	dp_graph *g = graph_new("odd \"name\"");
	uint32_t a, b;
	REQUIRE(graph_add_op(g, "a\"q\\b", &a, NULL) == DP_OK);
	REQUIRE(graph_add_op(g, "tab\there", &b, NULL) == DP_OK);
	g->ops[a].time_us = 0.1; /* not exact in binary: needs 17 digits */
	g->ops[b].output_bytes = 7;
	REQUIRE(graph_add_edge(g, a, b, 3, false, NULL) == DP_OK);
	REQUIRE(graph_add_edge(g, a, b, -1, true, NULL) == DP_OK);
	REQUIRE(graph_finalize(g, NULL) == DP_OK);
	char path[128];
	tmp_path("odd.json", path, sizeof path);
	dp_err err;
	REQUIRE(gen_write_json(path, g, &err) == DP_OK);
	dp_graph *back = NULL;
	REQUIRE(graph_load(path, DP_FMT_JSON, &back, &err) == DP_OK);
	CHECK(same_graph(g, back));
	CHECK_STR(back->name, "odd \"name\"");
	unlink(path);
	graph_free(g);
	graph_free(back);
}

static void test_gen_json_write_failure_leaves_no_file(void)
{
	dp_graph *g = make(100, 1);
	REQUIRE(g);
	dp_err err;
	CHECK(gen_write_json("/nonexistent-dir/x/g.json", g, &err) != DP_OK);
	CHECK(err.msg[0] != '\0');
	CHECK(access("/nonexistent-dir/x/g.json", F_OK) != 0);
	graph_free(g);
	if (tmpdir[0])
		rmdir(tmpdir);
}

TEST_MAIN(TEST(test_gen_makes_exactly_the_requested_op_count),
	  TEST(test_gen_rejects_counts_out_of_range),
	  TEST(test_gen_is_deterministic_and_seeded),
	  TEST(test_gen_has_training_structure),
	  TEST(test_gen_sizes_and_times_are_sane),
	  TEST(test_gen_json_reads_back_identically),
	  TEST(test_gen_json_escapes_names),
	  TEST(test_gen_json_write_failure_leaves_no_file))
