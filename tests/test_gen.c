/* test_gen.c - the synthetic graph generator and the native JSON writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnnpart/gen.h"
#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "lib/testlib.h"

#define GiB ((int64_t)1 << 30)

/* The default options with the op count and seed given. */
static dp_gen_opts opts_for(uint32_t ops, uint64_t seed)
{
	dp_gen_opts o;
	dp_gen_opts_default(&o);
	o.ops = ops;
	o.seed = seed;
	return o;
}

/* The default options with the scale fixed by hand (0: the rule picks). */
static dp_gen_opts scaled(uint32_t ops, uint32_t towers, uint32_t width,
			  uint32_t batch, uint32_t image)
{
	dp_gen_opts o;
	dp_gen_opts_default(&o);
	o.ops = ops;
	o.towers = towers;
	o.width = width;
	o.batch = batch;
	o.image = image;
	return o;
}

static dp_graph *make(uint32_t ops, uint64_t seed)
{
	dp_gen_opts o = opts_for(ops, seed);
	dp_graph *g = NULL;
	dp_err err;
	dp_err_clear(&err);
	if (dp_gen_graph(&o, &g, &err) != DP_OK)
		test_fail(__FILE__, __LINE__, "dp_gen_graph(%u): %s", ops,
			  err.msg);
	return g;
}

static dp_graph *make_opts(const dp_gen_opts *o)
{
	dp_graph *g = NULL;
	dp_err err;
	dp_err_clear(&err);
	if (dp_gen_graph(o, &g, &err) != DP_OK)
		test_fail(__FILE__, __LINE__, "dp_gen_graph(%u): %s", o->ops,
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
		dp_graph_free(g);
	}
	/* towers and scale fixed by hand, down to the fewest ops 8 towers
	 * need: data, stem, 8 means, concat, fc, loss and their gradients */
	static const uint32_t forced[][5] = {
		/* ops, towers, width, batch, image */
		{38, 8, 0, 0, 0},      {39, 8, 0, 0, 0},    {60, 8, 0, 0, 0},
		{501, 3, 8, 4, 64},    {5001, 1, 4, 1, 32}, {5002, 6, 0, 2, 0},
		{20001, 2, 16, 0, 96},
	};
	for (size_t i = 0; i < sizeof forced / sizeof forced[0]; i++) {
		dp_gen_opts o = scaled(forced[i][0], forced[i][1], forced[i][2],
				       forced[i][3], forced[i][4]);
		dp_graph *g = make_opts(&o);
		REQUIRE(g);
		CHECK_INT(g->nops, forced[i][0]);
		CHECK(g->finalized);
		dp_graph_free(g);
	}
}

static void test_gen_rejects_counts_out_of_range(void)
{
	dp_gen_opts o;
	dp_gen_opts_default(&o);
	dp_graph *g = NULL;
	dp_err err;
	o.ops = DP_GEN_MIN_OPS - 1;
	CHECK_INT(dp_gen_graph(&o, &g, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "expected an op count from 22");
	o.ops = DP_GEN_MAX_OPS + 1;
	CHECK_INT(dp_gen_graph(&o, &g, &err), DP_EINPUT);
	CHECK(g == NULL);

	/* scale fields out of range, each named with its range */
	static const struct {
		uint32_t ops, towers, width, batch, image;
		const char *msg;
	} bad[] = {
		{1000, 33, 0, 0, 0, "expected towers from 1 to 32"},
		{1000, 0, 3, 0, 0, "expected width from 4 to 1024"},
		{1000, 0, 1025, 0, 0, "expected width from 4 to 1024"},
		{1000, 0, 0, 4097, 0, "expected batch from 1 to 4096"},
		{1000, 0, 0, 0, 100, "a multiple of 32"},
		{1000, 0, 0, 0, 2080, "expected image from 32 to 2048"},
		{37, 8, 0, 0, 0, "with 8 towers: expected at least 38 ops"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		o = scaled(bad[i].ops, bad[i].towers, bad[i].width,
			   bad[i].batch, bad[i].image);
		dp_err_clear(&err);
		CHECK_INT(dp_gen_graph(&o, &g, &err), DP_EINPUT);
		CHECK_CONTAINS(err.msg, bad[i].msg);
		dp_gen_scale sc;
		CHECK_INT(dp_gen_compute_scale(&o, &sc, &err), DP_EINPUT);
	}
	CHECK(g == NULL);
}

/* Two ops have the same iteration space (names, sizes, out, param). */
static bool same_dims(const dp_graph *a, uint32_t u, const dp_graph *b,
		      uint32_t v)
{
	dp_dims x, y;
	bool hx = dp_op_dims(a, u, &x), hy = dp_op_dims(b, v, &y);
	if (hx != hy || x.n != y.n || x.nout != y.nout ||
	    x.nparam != y.nparam || x.elem_bytes != y.elem_bytes)
		return false;
	for (uint32_t i = 0; i < x.n; i++)
		if (strcmp(dp_graph_str(a, x.name_off[i]),
			   dp_graph_str(b, y.name_off[i])) ||
		    x.sizes[i] != y.sizes[i])
			return false;
	for (int i = 0; i < x.nout; i++)
		if (x.out[i] != y.out[i])
			return false;
	for (int i = 0; i < x.nparam; i++)
		if (x.param[i] != y.param[i])
			return false;
	return true;
}

static bool same_edge_dims(const dp_graph *a, const dp_graph *b, uint32_t e)
{
	const uint32_t *x, *y;
	int n = dp_edge_dims(a, e, &x);
	if (n != dp_edge_dims(b, e, &y))
		return false;
	for (int i = 0; i < n; i++)
		if (strcmp(dp_graph_str(a, x[i]), dp_graph_str(b, y[i])))
			return false;
	return true;
}

static bool same_graph(const dp_graph *a, const dp_graph *b)
{
	if (strcmp(dp_graph_batch_dim(a), dp_graph_batch_dim(b)))
		return false;
	if (a->nops != b->nops || a->nedges != b->nedges)
		return false;
	for (uint32_t u = 0; u < a->nops; u++) {
		const dp_op *x = &a->ops[u], *y = &b->ops[u];
		if (strcmp(dp_graph_op_name(a, u), dp_graph_op_name(b, u)) ||
		    strcmp(dp_graph_str(a, x->type),
			   dp_graph_str(b, y->type)) ||
		    strcmp(dp_graph_str(a, x->layer),
			   dp_graph_str(b, y->layer)) ||
		    x->time_us != y->time_us ||
		    x->output_bytes != y->output_bytes ||
		    x->param_bytes != y->param_bytes ||
		    x->temp_bytes != y->temp_bytes ||
		    (x->colocate < 0) != (y->colocate < 0) ||
		    x->pin != y->pin || dp_op_role(a, u) != dp_op_role(b, u) ||
		    !same_dims(a, u, b, u))
			return false;
		if (x->colocate >= 0 &&
		    strcmp(dp_graph_str(a, a->group_label[x->colocate]),
			   dp_graph_str(b, b->group_label[y->colocate])))
			return false;
	}
	for (uint32_t e = 0; e < a->nedges; e++) {
		const dp_edge *x = &a->edges[e], *y = &b->edges[e];
		if (x->from != y->from || x->to != y->to ||
		    x->bytes != y->bytes || x->control != y->control ||
		    !same_edge_dims(a, b, e))
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
	CHECK_STR(dp_graph_op_name(a, 3), "stem/conv");
	CHECK_STR(dp_graph_op_name(a, a->nops - 1), "update/stem/conv/w");
	dp_graph_free(a);
	dp_graph_free(b);
	dp_graph_free(c);
}

/* Training structure: forward, loss, mirrored backward, updates. */
static void test_gen_has_training_structure(void)
{
	dp_graph *g = make(20000, 3);
	REQUIRE(g);
	uint32_t loss = dp_graph_find(g, "head/loss");
	uint32_t lossgrad = dp_graph_find(g, "grad/head/loss");
	REQUIRE(loss != UINT32_MAX && lossgrad != UINT32_MAX);
	uint32_t nadd = 0, nconcat = 0, nvar = 0, nupd = 0, ngrad = 0, nfwd = 0,
		 saved = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		const char *nm = dp_graph_op_name(g, u);
		const char *ty = dp_graph_str(g, g->ops[u].type);
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
			CHECK_STR(
				dp_graph_str(
					g, g->group_label[g->ops[u].colocate]),
				nm + strlen("update/"));
		} else if (starts(nm, "grad/")) {
			ngrad++;
			/* its forward op exists */
			CHECK(dp_graph_find(g, nm + strlen("grad/")) !=
			      UINT32_MAX);
			CHECK(g->pred_off[u + 1] > g->pred_off[u]);
			for (uint32_t i = g->pred_off[u];
			     i < g->pred_off[u + 1]; i++) {
				uint32_t p = g->edges[g->pred_edge[i]].from;
				if (!starts(dp_graph_op_name(g, p), "grad/"))
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
	dp_graph_free(g);
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
	dp_graph_free(g);
}

/* Peak of the all-on-one-device schedule, as `plan --algo single -k 1`. */
static int64_t one_device_peak(const dp_graph *g)
{
	dp_machine m;
	dp_plan p;
	memset(&p, 0, sizeof p);
	int32_t *zero = calloc(g->nops, sizeof *zero);
	int64_t peak = -1;
	if (zero && dp_machine_init(&m, 1, NULL) == DP_OK) {
		if (dp_plan_evaluate(g, &m, zero, DP_CONT_PORT, &p, NULL) ==
		    DP_OK)
			peak = p.sim.dev[0].peak_bytes;
		dp_plan_free(&p);
		dp_machine_free(&m);
	}
	free(zero);
	return peak;
}

static double parallelism(const dp_graph *g)
{
	uint32_t len;
	double cp = dp_graph_critical_path(g, 1.0, NULL, &len);
	return cp > 0 ? g->total_time_us / cp : 0;
}

/* The rule without building: towers grow with size, the estimate stays in
 * the band however deep the model gets (1M ops too: only dry runs). */
static void test_gen_scale_rule_keeps_memory_in_band(void)
{
	static const uint32_t sizes[] = {1000, 10000, 100000, 1000000};
	static const uint32_t towers[] = {1, 2, 4, 5};
	uint32_t last_width = UINT32_MAX;
	for (size_t i = 0; i < 4; i++) {
		dp_gen_opts o;
		dp_gen_opts_default(&o);
		o.ops = sizes[i];
		dp_gen_scale sc;
		dp_err err;
		REQUIRE(dp_gen_compute_scale(&o, &sc, &err) == DP_OK);
		CHECK_INT(sc.towers, towers[i]);
		CHECK(sc.width >= 4 && sc.width <= 64);
		CHECK(sc.width <= last_width); /* deeper models are thinner */
		last_width = sc.width;
		CHECK(sc.image >= 32 && sc.image <= 224 && sc.image % 32 == 0);
		CHECK(sc.batch >= 1 && sc.batch <= 64);
		CHECK(sc.weight_bytes > 0 && sc.act_bytes > 0);
		if (sizes[i] >= 10000) {
			CHECK(sc.batch >= 8);
			CHECK(sc.estimate_bytes >= 16 * GiB);
			CHECK(sc.estimate_bytes <= 24 * GiB);
		} else {
			/* a small model is not blown up to fill the target */
			CHECK_INT(sc.width, 64);
			CHECK_INT(sc.batch, 64);
			CHECK(sc.estimate_bytes < 16 * GiB);
		}
	}
}

/* What the simulator says, for the default options: one step needs 16-28
 * GiB on one device (more than one 8 or 16 GiB device, well within 4 x 8
 * GiB), and the rule's estimate is that peak within 10%. */
static void test_gen_one_device_peak_is_in_band(void)
{
	static const uint32_t sizes[][2] = {
		{10000, 1}, {30000, 2}, {100000, 1}};
	for (size_t i = 0; i < 3; i++) {
		dp_gen_opts o = opts_for(sizes[i][0], sizes[i][1]);
		dp_gen_scale sc;
		REQUIRE(dp_gen_compute_scale(&o, &sc, NULL) == DP_OK);
		dp_graph *g = make_opts(&o);
		REQUIRE(g);
		int64_t peak = one_device_peak(g);
		if (peak < 16 * GiB || peak > 28 * GiB)
			test_fail(__FILE__, __LINE__,
				  "%u ops: one-device peak %.2f GiB, want "
				  "16-28 GiB",
				  o.ops, (double)peak / (double)GiB);
		int64_t diff = peak - sc.estimate_bytes;
		if (diff < 0)
			diff = -diff;
		if (diff > peak / 10)
			test_fail(__FILE__, __LINE__,
				  "%u ops: estimate %.2f GiB, peak %.2f GiB",
				  o.ops,
				  (double)sc.estimate_bytes / (double)GiB,
				  (double)peak / (double)GiB);
		/* the memory is activations, not an absurd weight count */
		CHECK(g->total_param_bytes < peak / 2);
		dp_graph_free(g);
	}
}

/* Towers make the graph wide: work / critical path >= 3 from 100k ops;
 * a one-tower model is close to a chain. */
static void test_gen_parallelism_grows_with_size(void)
{
	dp_graph *small = make(2000, 1), *big = make(100000, 1);
	REQUIRE(small && big);
	double ps = parallelism(small), pb = parallelism(big);
	if (pb < 3.0)
		test_fail(__FILE__, __LINE__,
			  "100k ops: parallelism %.2f, want >= 3", pb);
	CHECK(ps >= 1.0 && ps < 2.0);
	CHECK(pb > ps);
	dp_graph_free(small);
	dp_graph_free(big);
}

/* Options fix the scale; the rule fills in only what is left. */
static void test_gen_scale_options_are_respected(void)
{
	dp_gen_opts o = scaled(3000, 3, 8, 4, 64);
	dp_gen_scale sc;
	REQUIRE(dp_gen_compute_scale(&o, &sc, NULL) == DP_OK);
	CHECK_INT(sc.towers, 3);
	CHECK_INT(sc.width, 8);
	CHECK_INT(sc.batch, 4);
	CHECK_INT(sc.image, 64);
	dp_graph *g = make_opts(&o);
	REQUIRE(g);
	uint32_t img = dp_graph_find(g, "data/images");
	REQUIRE(img != UINT32_MAX);
	CHECK_INT(g->ops[img].output_bytes, 4 * 3 * 64 * 64 * 4);
	/* stem: 7x7 conv from 3 to 8 channels (+ Adam's moments) */
	uint32_t w = dp_graph_find(g, "stem/conv/w");
	REQUIRE(w != UINT32_MAX);
	CHECK_INT(g->ops[w].param_bytes, 3 * 7 * 7 * 3 * 8 * 4);
	CHECK(dp_graph_find(g, "t2/s1/b0/conv1") != UINT32_MAX ||
	      dp_graph_find(g, "t2/s1/b0/br0/conv0") != UINT32_MAX);
	CHECK(dp_graph_find(g, "head/mean2") != UINT32_MAX);
	CHECK(dp_graph_find(g, "head/mean3") == UINT32_MAX);
	dp_graph_free(g);

	/* only the batch fixed: the rule picks width and image around it */
	o = scaled(100000, 0, 0, 2, 0);
	REQUIRE(dp_gen_compute_scale(&o, &sc, NULL) == DP_OK);
	CHECK_INT(sc.batch, 2);
	CHECK_INT(sc.image, 224); /* 2 samples fit at the largest image */
	CHECK(sc.estimate_bytes < 16 * GiB);
}

/* Where a stage begins, each tower's projected skip reads the next
 * tower's features (a ring), so the towers are not disjoint. */
static void test_gen_towers_exchange_where_stages_begin(void)
{
	dp_graph *g = make(20000, 4);
	REQUIRE(g);
	uint32_t nexch = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		const char *nm = dp_graph_op_name(g, u);
		size_t l = strlen(nm);
		unsigned t, st, b;
		if (l < 5 || strcmp(nm + l - 5, "/proj") ||
		    sscanf(nm, "t%u/s%u/b%u/", &t, &st, &b) != 3)
			continue;
		for (uint32_t i = g->pred_off[u]; i < g->pred_off[u + 1]; i++) {
			uint32_t p = g->edges[g->pred_edge[i]].from;
			const char *pn = dp_graph_op_name(g, p);
			if (!strcmp(dp_graph_str(g, g->ops[p].type),
				    "VariableV2"))
				continue;
			unsigned pt;
			REQUIRE(sscanf(pn, "t%u/", &pt) == 1);
			CHECK_INT(pt, (t + 1) % 3);
			nexch++;
		}
	}
	CHECK_INT(nexch, 3 * 3); /* 3 towers, stages 2-4 */
	dp_graph_free(g);
}

/* Each optimizer update depends only on its weight gradient and its
 * variable, and nothing waits for it. */
static void test_gen_updates_are_independent(void)
{
	dp_graph *g = make(10000, 9);
	REQUIRE(g);
	uint32_t n = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		const char *nm = dp_graph_op_name(g, u);
		if (!starts(nm, "update/"))
			continue;
		n++;
		CHECK_INT(g->succ_off[u + 1] - g->succ_off[u], 0);
		REQUIRE(g->pred_off[u + 1] - g->pred_off[u] == 2);
		for (uint32_t i = g->pred_off[u]; i < g->pred_off[u + 1]; i++) {
			const dp_edge *e = &g->edges[g->pred_edge[i]];
			const char *pn = dp_graph_op_name(g, e->from);
			if (e->control)
				CHECK_STR(pn, nm + strlen("update/"));
			else
				CHECK(starts(pn, "grad/"));
		}
	}
	CHECK(n > 100);
	dp_graph_free(g);
}

static void test_gen_json_reads_back_identically(void)
{
	dp_gen_opts o = opts_for(3001, 5);
	o.devices = 4;
	o.memory_bytes = (int64_t)16 << 30;
	dp_graph *g = NULL, *back = NULL;
	dp_err err;
	REQUIRE(dp_gen_graph(&o, &g, &err) == DP_OK);
	char path[128];
	snprintf(path, sizeof path, "%s", test_tmp_path("g.json"));
	REQUIRE(dp_gen_write_json(path, g, &err) == DP_OK);
	dp_status st = dp_graph_load(path, DP_FMT_AUTO, &back, &err);
	if (st)
		test_fail(__FILE__, __LINE__, "reload: %s:%d:%d: %s", err.file,
			  err.line, err.col, err.msg);
	REQUIRE(st == DP_OK);
	CHECK(same_graph(g, back));
	CHECK_INT(back->hint.devices, 4);
	CHECK_INT(back->hint.memory_bytes, (int64_t)16 << 30);
	CHECK_STR(back->name, "synthetic-3001");
	unlink(path);
	dp_graph_free(g);
	dp_graph_free(back);
}

static void test_gen_json_escapes_names(void)
{
	dp_graph *g = dp_graph_new("odd \"name\"");
	uint32_t a, b;
	REQUIRE(dp_graph_add_op(g, "a\"q\\b", &a, NULL) == DP_OK);
	REQUIRE(dp_graph_add_op(g, "tab\there", &b, NULL) == DP_OK);
	g->ops[a].time_us = 0.1; /* not exact in binary: needs 17 digits */
	g->ops[b].output_bytes = 7;
	REQUIRE(dp_graph_add_edge(g, a, b, 3, false, NULL) == DP_OK);
	REQUIRE(dp_graph_add_edge(g, a, b, -1, true, NULL) == DP_OK);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	char path[128];
	snprintf(path, sizeof path, "%s", test_tmp_path("odd.json"));
	dp_err err;
	REQUIRE(dp_gen_write_json(path, g, &err) == DP_OK);
	dp_graph *back = NULL;
	REQUIRE(dp_graph_load(path, DP_FMT_JSON, &back, &err) == DP_OK);
	CHECK(same_graph(g, back));
	CHECK_STR(back->name, "odd \"name\"");
	unlink(path);
	dp_graph_free(g);
	dp_graph_free(back);
}

static void test_gen_json_write_failure_leaves_no_file(void)
{
	dp_graph *g = make(100, 1);
	REQUIRE(g);
	dp_err err;
	CHECK(dp_gen_write_json("/nonexistent-dir/x/g.json", g, &err) != DP_OK);
	CHECK(err.msg[0] != '\0');
	CHECK(access("/nonexistent-dir/x/g.json", F_OK) != 0);
	dp_graph_free(g);
	CHECK(test_tmp_cleanup());
}

/* Iteration spaces (docs/formats.md): every op has dims and a role, the batch
 * dim is b and indexes every activation, and the edges that carry one
 * op's whole output say how the consumer indexes it. finalize checked
 * that they agree with the bytes. */
static void test_gen_ops_have_dims_and_roles(void)
{
	/* a concat of 8 towers in the head */
	dp_gen_opts o = scaled(3001, 8, 0, 0, 0);
	dp_graph *g = make_opts(&o);
	REQUIRE(g);
	CHECK_STR(dp_graph_batch_dim(g), "b");
	uint32_t roles[DP_ROLE_COUNT] = {0}, with_out = 0, data = 0,
		 with_dims = 0;
	int bad = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		dp_dims d;
		if (!dp_op_dims(g, u, &d) || dp_op_role(g, u) == DP_ROLE_NONE)
			bad++;
		roles[dp_op_role(g, u)]++;
		with_out += d.nout >= 0;
		const char *t = dp_graph_str(g, g->ops[u].type);
		/* activations are [b, ...]; variables and updates have no b */
		bool weights =
			!strcmp(t, "VariableV2") || !strcmp(t, "ApplyAdam");
		if ((dp_op_find_dim(g, u, "b") >= 0) == weights)
			bad++;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(roles[DP_ROLE_INPUT], 2);
	CHECK_INT(roles[DP_ROLE_LOSS], 1);
	CHECK_INT(roles[DP_ROLE_PARAM], roles[DP_ROLE_UPDATE]);
	CHECK_INT(roles[DP_ROLE_BACKWARD], roles[DP_ROLE_FORWARD]);
	CHECK(with_out > g->nops / 2);
	for (uint32_t e = 0; e < g->nedges; e++) {
		const uint32_t *nm;
		data += !g->edges[e].control;
		with_dims += dp_edge_dims(g, e, &nm) >= 0;
	}
	CHECK(with_dims > data / 2);
	uint32_t cat = dp_graph_find(g, "head/concat");
	REQUIRE(cat != UINT32_MAX);
	CHECK_INT(dp_op_find_dim(g, cat, "c7"), 11);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_gen_makes_exactly_the_requested_op_count),
	  TEST(test_gen_rejects_counts_out_of_range),
	  TEST(test_gen_is_deterministic_and_seeded),
	  TEST(test_gen_has_training_structure),
	  TEST(test_gen_sizes_and_times_are_sane),
	  TEST(test_gen_scale_rule_keeps_memory_in_band),
	  TEST(test_gen_one_device_peak_is_in_band),
	  TEST(test_gen_parallelism_grows_with_size),
	  TEST(test_gen_scale_options_are_respected),
	  TEST(test_gen_towers_exchange_where_stages_begin),
	  TEST(test_gen_updates_are_independent),
	  TEST(test_gen_ops_have_dims_and_roles),
	  TEST(test_gen_json_reads_back_identically),
	  TEST(test_gen_json_escapes_names),
	  TEST(test_gen_json_write_failure_leaves_no_file))
