/* test_export_dot.c - DOT export: read back with cgraph, one cluster per
 * device holding exactly its ops, the critical path bold and red, cross-
 * device edges labelled, coarsening of big graphs, files written whole. */
#include <cgraph.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnnpart/export.h"
#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

#define CRIT "#CC3311"

/* A fork and join across two devices with awkward names:
 *   in -> left -> join -> out, in -> "right, \"quoted\"\\x" -> join. */
static dp_graph *fork_join(void)
{
	dp_graph *g = dp_graph_new("fork join");
	uint32_t in = test_add_op(g, "in", 10, 1 << 20, "stem");
	uint32_t l = test_add_op(g, "left", 50, 2 << 20, "block/left");
	uint32_t r = test_add_op(g, "right, \"quoted\"\\x", 20, 3 << 20,
				 "block/right");
	uint32_t j = test_add_op(g, "join", 10, 1 << 20, "block/join");
	uint32_t o = test_add_op(g, "out", 5, 4096, "head");
	g->ops[l].param_bytes = 8 << 20;
	dp_graph_add_edge(g, in, l, -1, false, NULL);
	dp_graph_add_edge(g, in, r, -1, false, NULL);
	dp_graph_add_edge(g, l, j, -1, false, NULL);
	dp_graph_add_edge(g, r, j, -1, false, NULL);
	dp_graph_add_edge(g, j, o, -1, false, NULL);
	dp_graph_add_edge(g, in, o, 0, true, NULL); /* a control edge */
	return test_finalized(g);
}

/* fork_join() planned: placement pl on k devices, evaluated. */
typedef struct fj_plan {
	dp_graph *g;
	int32_t pl[5];
	dp_machine m;
	dp_plan plan;
} fj_plan;

static bool fj_evaluate(fj_plan *f, int k, const int32_t pl[5])
{
	f->g = fork_join();
	memcpy(f->pl, pl, sizeof f->pl);
	return test_evaluate(f->g, k, f->pl, &f->m, &f->plan);
}

static void fj_free(fj_plan *f)
{
	test_free(f->g, &f->m, &f->plan);
}

static const char *get(void *obj, const char *attr)
{
	char *v = agget(obj, (char *)attr);
	return v ? v : "";
}

static bool on_path(const dp_plan *plan, uint32_t u)
{
	for (uint32_t i = 0; i < plan->sim.cp_len; i++)
		if (plan->sim.cp_ops[i] == u)
			return true;
	return false;
}

/* Writes the DOT of plan, coarsened to at most max_nodes nodes, as the
 * temporary file name; its path, or NULL (recorded as a failure). */
static const char *write_coarse(const char *name, int max_nodes,
				const dp_graph *g, const dp_machine *m,
				const dp_plan *plan, dp_export_report *rep)
{
	dp_export_opts o;
	dp_export_opts_default(&o);
	o.coarsen = DP_COARSEN_ALWAYS;
	o.max_nodes = max_nodes;
	dp_err err;
	const char *path = test_tmp_path(name);
	if (dp_export_write_opts(path, DP_EXPORT_DOT, g, m, plan, &o, NULL, rep,
				 &err) == DP_OK)
		return path;
	test_fail(__FILE__, __LINE__, "export %s: %s", name, err.msg);
	return NULL;
}

static bool is_hop(const dp_plan *plan, uint32_t a, uint32_t b)
{
	for (uint32_t i = 1; i < plan->sim.cp_len; i++)
		if (plan->sim.cp_ops[i - 1] == a && plan->sim.cp_ops[i] == b)
			return true;
	return false;
}

static void test_dot_has_one_cluster_per_device_with_its_ops(void)
{
	fj_plan f; /* on 3 devices: device 2 stays empty */
	REQUIRE(fj_evaluate(&f, 3, (const int32_t[]){0, 0, 1, 1, 0}));
	const char *path = test_tmp_path("fj.dot");
	Agraph_t *G = test_dot_of(path, f.g, &f.m, &f.plan);
	REQUIRE(G);
	int clusters = 0, devs[3] = {0};
	uint32_t seen[5] = {0};
	for (Agraph_t *s = agfstsubg(G); s; s = agnxtsubg(s)) {
		int d = -1;
		REQUIRE(sscanf(agnameof(s), "cluster_dev%d", &d) == 1);
		REQUIRE(d >= 0 && d < 3);
		devs[d]++;
		clusters++;
		CHECK_CONTAINS(get(s, "label"), "GPU");
		CHECK_CONTAINS(get(s, "label"), "peak memory");
		for (Agnode_t *n = agfstnode(s); n; n = agnxtnode(s, n)) {
			uint32_t u = dp_graph_find(f.g, agnameof(n));
			REQUIRE(u != UINT32_MAX);
			CHECK_INT(f.pl[u], d);
			seen[u]++;
			CHECK_INT(atoi(get(n, "device")), d);
		}
	}
	CHECK_INT(clusters, 3);
	for (int d = 0; d < 3; d++)
		CHECK_INT(devs[d], 1);
	for (int u = 0; u < 5; u++)
		CHECK_INT(seen[u], 1);
	CHECK_INT(agnnodes(G), 5);
	/* each device has its own fill color */
	Agraph_t *c0 = agsubg(G, "cluster_dev0", 0),
		 *c1 = agsubg(G, "cluster_dev1", 0);
	REQUIRE(c0 && c1);
	CHECK(strcmp(get(c0, "fillcolor"), get(c1, "fillcolor")) != 0);
	Agnode_t *in = agnode(G, "in", 0), *join = agnode(G, "join", 0);
	REQUIRE(in && join);
	CHECK(strcmp(get(in, "fillcolor"), get(join, "fillcolor")) != 0);
	agclose(G);
	fj_free(&f);
}

static void test_dot_marks_the_critical_path_and_only_it(void)
{
	fj_plan f;
	REQUIRE(fj_evaluate(&f, 2, (const int32_t[]){0, 0, 1, 1, 0}));
	REQUIRE(f.plan.sim.cp_len >= 3);
	const char *path = test_tmp_path("cp.dot");
	Agraph_t *G = test_dot_of(path, f.g, &f.m, &f.plan);
	REQUIRE(G);
	int crit_nodes = 0, crit_edges = 0;
	for (Agnode_t *n = agfstnode(G); n; n = agnxtnode(G, n)) {
		uint32_t u = dp_graph_find(f.g, agnameof(n));
		REQUIRE(u != UINT32_MAX);
		bool red = strcmp(get(n, "color"), CRIT) == 0 &&
			   strcmp(get(n, "penwidth"), "3") == 0 &&
			   strstr(get(n, "style"), "bold") != NULL;
		CHECK_INT(red, on_path(&f.plan, u));
		CHECK_INT(strcmp(get(n, "critical"), "true") == 0,
			  on_path(&f.plan, u));
		crit_nodes += red;
		for (Agedge_t *e = agfstout(G, n); e; e = agnxtout(G, e)) {
			uint32_t a = dp_graph_find(f.g, agnameof(agtail(e)));
			uint32_t b = dp_graph_find(f.g, agnameof(aghead(e)));
			bool ered = strcmp(get(e, "color"), CRIT) == 0 &&
				    strcmp(get(e, "penwidth"), "3") == 0;
			CHECK_INT(ered, is_hop(&f.plan, a, b));
			crit_edges += ered;
			/* cross-device data edges carry their bytes */
			bool cross =
				f.pl[a] != f.pl[b] && !get(e, "control")[0];
			CHECK_INT(get(e, "label")[0] != '\0', cross);
		}
	}
	CHECK_INT(crit_nodes, f.plan.sim.cp_len);
	/* a hop that waited for the device has no graph edge: an op-by-op
	 * DOT stays a loadable graph, so it draws none */
	int hops = 0;
	for (uint32_t i = 1; i < f.plan.sim.cp_len; i++)
		hops += f.plan.sim.cp_cause[i] != DP_HOP_DEVICE;
	CHECK_INT(crit_edges, hops);
	/* the label of the transfer left -> join names its size */
	Agnode_t *l = agnode(G, "left", 0), *j = agnode(G, "join", 0);
	REQUIRE(l && j);
	Agedge_t *e = agedge(G, l, j, NULL, 0);
	REQUIRE(e);
	CHECK_STR(get(e, "label"), "2.00 MiB");
	CHECK_STR(get(e, "bytes"), "2097152");
	CHECK(agnode(G, "right, \"quoted\"\\x", 0) != NULL);
	agclose(G);
	fj_free(&f);
}

static void test_dot_loads_back_as_the_same_graph(void)
{
	fj_plan f;
	REQUIRE(fj_evaluate(&f, 2, (const int32_t[]){0, 1, 1, 0, 0}));
	const char *path = test_tmp_path("back.dot");
	REQUIRE(test_export(path, DP_EXPORT_DOT, f.g, &f.m, &f.plan));
	dp_err err;
	dp_graph *h = NULL;
	if (dp_graph_load(path, DP_FMT_DOT, &h, &err) != DP_OK) {
		test_fail(__FILE__, __LINE__, "reload: %s", err.msg);
		goto out;
	}
	CHECK_INT(h->nops, f.g->nops);
	CHECK_INT(h->nedges, f.g->nedges);
	for (uint32_t u = 0; u < f.g->nops; u++) {
		uint32_t v = dp_graph_find(h, dp_graph_op_name(f.g, u));
		REQUIRE(v != UINT32_MAX);
		CHECK_NEAR(h->ops[v].time_us, f.g->ops[u].time_us, 0);
		CHECK_INT(h->ops[v].output_bytes, f.g->ops[u].output_bytes);
		CHECK_INT(h->ops[v].param_bytes, f.g->ops[u].param_bytes);
		CHECK_STR(dp_graph_str(h, h->ops[v].layer),
			  dp_graph_str(f.g, f.g->ops[u].layer));
	}
	uint32_t controls = 0;
	for (uint32_t i = 0; i < h->nedges; i++)
		controls += h->edges[i].control;
	CHECK_INT(controls, 1);
	dp_graph_free(h);
out:
	fj_free(&f);
}

/* A 30,000-op graph is coarsened for DOT when asked: at most
 * max_nodes nodes, every op counted once, one cluster per device. */
static void test_dot_coarsened_groups_cover_every_op(void)
{
	dp_graph *g = test_layered_chain(30000);
	REQUIRE(g);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	REQUIRE(pl);
	for (uint32_t i = 0; i < g->nops; i++) /* 4 contiguous stages */
		pl[g->topo[i]] = (int32_t)((uint64_t)i * 4 / g->nops);
	dp_machine m;
	dp_plan plan;
	REQUIRE(test_evaluate(g, 4, pl, &m, &plan));
	dp_export_report rep;
	const char *path = write_coarse("coarse.dot", 500, g, &m, &plan, &rep);
	REQUIRE(path);
	CHECK(rep.coarsened);
	CHECK(rep.nodes <= 500);
	/* 3,000 units and 300 blocks: the layer paths are cut to 2 levels,
	 * and the largest groups drawn 3 levels deep while the 500 allow */
	CHECK_CONTAINS(
		rep.method,
		"layer prefix (2 levels, one more for the largest groups)");
	CHECK(rep.nodes > 300); /* some blocks split into their units */
	Agraph_t *G = test_read_dot(path);
	REQUIRE(G);
	CHECK_CONTAINS(get(G, "label"), "COARSENED");
	CHECK_INT(agnnodes(G), rep.nodes);
	long total = 0;
	int clusters = 0;
	for (Agraph_t *s = agfstsubg(G); s; s = agnxtsubg(s), clusters++)
		for (Agnode_t *n = agfstnode(s); n; n = agnxtnode(s, n)) {
			const char *ops = get(n, "ops");
			int d = atoi(get(n, "device"));
			total += ops[0] ? atol(ops) : 1;
			int cd = -1;
			sscanf(agnameof(s), "cluster_dev%d", &cd);
			CHECK_INT(d, cd);
			if (!ops[0]) { /* a single op: a critical one, kept */
				uint32_t u = dp_graph_find(g, agnameof(n));
				REQUIRE(u != UINT32_MAX);
				CHECK(on_path(&plan, u));
				CHECK_INT(pl[u], d);
			}
		}
	CHECK_INT(clusters, 4);
	CHECK_INT(total, g->nops);
	agclose(G);
	free(pl);
	test_free(g, &m, &plan);
}

/* Without layers, a wide graph is grouped into runs of each device's
 * schedule; its short critical path (a chain of ten heavy ops on device 0,
 * while devices 1 and 2 finish early) stays as single red ops. */
static void test_dot_runs_keep_a_short_critical_path(void)
{
	dp_graph *g = dp_graph_new("wide");
	for (uint32_t i = 0; i < 6000; i++) {
		bool heavy = i < 10;
		uint32_t id = test_add_opf(g, heavy ? 1000 : 1, 512, "c%u_%u",
					   i / 3, i % 3);
		if (heavy ? i > 0 : (i % 3) != 1)
			dp_graph_add_edge(g, id - 1, id, -1, false, NULL);
	}
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	REQUIRE(pl);
	for (uint32_t u = 0; u < g->nops; u++)
		pl[u] = u < 10 ? 0 : 1 + (int32_t)(((u - 10) / 3) % 2);
	dp_machine m;
	dp_plan plan;
	REQUIRE(test_evaluate(g, 3, pl, &m, &plan));
	REQUIRE(plan.sim.cp_len <= 25);
	dp_export_report rep;
	const char *path = write_coarse("runs.dot", 100, g, &m, &plan, &rep);
	REQUIRE(path);
	CHECK_CONTAINS(rep.method, "runs of up to");
	CHECK_CONTAINS(rep.method, "critical-path ops drawn singly");
	CHECK(rep.nodes <= 100);
	Agraph_t *G = test_read_dot(path);
	REQUIRE(G);
	long total = 0;
	uint32_t singles = 0;
	for (Agnode_t *n = agfstnode(G); n; n = agnxtnode(G, n)) {
		const char *ops = get(n, "ops");
		total += ops[0] ? atol(ops) : 1;
		bool red = strcmp(get(n, "color"), CRIT) == 0;
		if (!ops[0]) {
			uint32_t u = dp_graph_find(g, agnameof(n));
			REQUIRE(u != UINT32_MAX);
			CHECK(on_path(&plan, u));
			CHECK(red);
			singles++;
		} else {
			CHECK(!red); /* no group holds a critical op */
		}
	}
	CHECK_INT(singles, plan.sim.cp_len);
	CHECK_INT(total, g->nops);
	agclose(G);
	free(pl);
	test_free(g, &m, &plan);
}

static void raise_cancel(void *ud, const char *phase, double f)
{
	(void)phase;
	(void)f;
	atomic_store((atomic_int *)ud, 1);
}

static void test_dot_failure_or_cancel_keeps_the_old_file(void)
{
	fj_plan f;
	REQUIRE(fj_evaluate(&f, 2, (const int32_t[]){0, 0, 1, 1, 0}));
	atomic_int cancel = 0;
	dp_progress p = {raise_cancel, &cancel, &cancel};
	CHECK_EXPORT_KEEPS_OLD(DP_EXPORT_DOT, "keep.dot", f.g, &f.m, &f.plan,
			       &p);
	fj_free(&f);
}

static void test_dot_cleanup(void)
{
	CHECK(test_tmp_cleanup());
}

/* Layers a/0 .. a/19 (3 ops each) and b/0 .. b/3 (1 op each) on one
 * device, at most 16 nodes: by first level 2 groups, by two levels 24, too
 * many; "a" split would make 21, "b" split 5: b is drawn by its four
 * layers, a as one group. */
static void test_dot_largest_groups_one_level_finer(void)
{
	dp_graph *g = dp_graph_new("finer");
	char name[32], layer[32];
	uint32_t prev = UINT32_MAX;
	for (int i = 0; i < 64; i++) {
		if (i < 60)
			snprintf(layer, sizeof layer, "a/%d", i / 3);
		else
			snprintf(layer, sizeof layer, "b/%d", i - 60);
		snprintf(name, sizeof name, "op%d", i);
		uint32_t u = test_add_op(g, name, 1, 64, layer);
		if (prev != UINT32_MAX)
			dp_graph_add_edge(g, prev, u, -1, false, NULL);
		prev = u;
	}
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	int32_t pl[64] = {0};
	dp_machine m;
	dp_plan plan;
	REQUIRE(test_evaluate(g, 1, pl, &m, &plan));
	dp_export_report rep;
	const char *path = write_coarse("finer.dot", 16, g, &m, &plan, &rep);
	REQUIRE(path);
	CHECK_INT(rep.nodes, 5);
	CHECK_CONTAINS(
		rep.method,
		"layer prefix (1 level, one more for the largest groups)");
	char *dot = test_read_file(path, NULL);
	REQUIRE(dot);
	/* b's groups hold one op each: drawn as the op (a critical one) */
	CHECK_CONTAINS(dot, "label=\"op63\\n1 us");
	CHECK_CONTAINS(dot, "label=\"a\\n60 ops");
	CHECK(!strstr(dot, "label=\"a/0"));
	free(dot);
	dp_plan_free(&plan);
	dp_machine_free(&m);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_dot_has_one_cluster_per_device_with_its_ops),
	  TEST(test_dot_marks_the_critical_path_and_only_it),
	  TEST(test_dot_loads_back_as_the_same_graph),
	  TEST(test_dot_coarsened_groups_cover_every_op),
	  TEST(test_dot_largest_groups_one_level_finer),
	  TEST(test_dot_runs_keep_a_short_critical_path),
	  TEST(test_dot_failure_or_cancel_keeps_the_old_file),
	  TEST(test_dot_cleanup))
