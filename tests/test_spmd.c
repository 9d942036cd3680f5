/* test_spmd.c - the spmd lowering and the dp and zero strategies
 * (strategy.h, docs/spmd.md): hand-computed bytes of a Megatron-style MLP (its
 * uneven and mesh splits are in test_spmd_mesh.c) and of data parallelism,
 * the checks with their messages, and invariants of random graphs with dims
 * under random splits. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/load.h"
#include "dnnpart/sim.h"
#include "dnnpart/strategy.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

extern const dp_algo dpi_algo_dp, dpi_algo_zero;

/* x -> mm1 {b,k,n} -> mm2 {b,n,o} -> y (sizes b 8, k 16, n 32, o 16). */
#define MLP "tests/data/spmd_mlp.json"

static void test_megatron_mlp_moves_one_all_reduce(void)
{
	dp_graph *g = test_load_ok(MLP);
	REQUIRE(g);
	for (int p = 2; p <= 8; p *= 2) {
		dp_strategy s;
		REQUIRE(test_spmd_strategy(g, p, &s));
		test_spmd_split(g, &s, "mm1", "n", 1); /* its output dim */
		test_spmd_split(g, &s, "mm2", "n", 1); /* its reduction dim */
		dp_lowered l = {0};
		if (!test_lower(g, &s, p, &l)) {
			dp_strategy_free(&s);
			break;
		}
		/* 4 ops x p instances + p reduces */
		CHECK_INT(l.g->nops, 5 * p);
		CHECK(dp_graph_find(l.g, "mm2/rs#d0") != UINT32_MAX);
		CHECK(dp_graph_find(l.g, "mm1#d1") != UINT32_MAX);
		/* size = mm2's output, 512 bytes: 2(p-1)/p x 512 per device */
		int64_t per = 2 * (p - 1) * 512 / p;
		CHECK_INT(test_cross_bytes(&l), per * p);
		/* shards: mm1#d0 does 1/p of the work, holds 1/p output */
		uint32_t a = dp_graph_find(l.g, "mm1#d0");
		CHECK_NEAR(l.g->ops[a].time_us, 40.0 / p, 1e-12);
		CHECK_INT(l.g->ops[a].output_bytes, 1024 / p);
		CHECK_INT(l.g->ops[a].temp_bytes, 100 / p);
		uint32_t x = dp_graph_find(l.g, "x#d1");
		CHECK_NEAR(l.g->ops[x].time_us, 1.0, 1e-12); /* a replica */
		uint32_t rs = dp_graph_find(l.g, "mm2/rs#d1");
		CHECK_INT(l.g->ops[rs].output_bytes, 512 / p);
		CHECK_INT(l.source[rs], dp_graph_find(g, "mm2"));
		CHECK_INT(l.placement[rs], 1);
		CHECK_COMM_EACH(&l, p, per);
		dp_lowered_free(&l);
		dp_strategy_free(&s);
	}
	dp_graph_free(g);
}

/* x -> fc (with w) -> loss; fc -> grad -> update of w. Weights 4 x 8 x 4 =
 * 128 bytes; the variable holds them and two optimizer states (384), the
 * update its optimizer's 256. */
#define TRAIN "tests/data/spmd_train.json"

static bool run_builtin(const dp_algo *a, const dp_graph *g, int k,
			dp_strategy *s, dp_err *err)
{
	dp_machine m;
	dp_strategy_init(s);
	if (dp_machine_init(&m, k, err))
		return false;
	dp_status st = a->strategize(g, &m, NULL, NULL, s, err);
	dp_machine_free(&m);
	return st == DP_OK;
}

static void test_dp_moves_two_k_minus_one_over_k_params(void)
{
	dp_graph *g = test_load_ok(TRAIN);
	REQUIRE(g);
	for (int k = 1; k <= 8; k *= 2) {
		dp_strategy s;
		dp_err err;
		if (!run_builtin(&dpi_algo_dp, g, k, &s, &err)) {
			test_fail(__FILE__, __LINE__, "dp: %s", err.msg);
			break;
		}
		char want[16];
		snprintf(want, sizeof want, "dp %d", k);
		CHECK_STR(s.label, want);
		CHECK_STR(s.algo, "dp");
		dp_lowered l = {0};
		if (test_lower(g, &s, k, &l)) {
			int64_t per = 2 * (k - 1) * 128 / k;
			CHECK_INT(test_cross_bytes(&l), per * k);
			CHECK_COMM_EACH(&l, k, per);
			/* replicated weights and update keep their bytes */
			uint32_t w = dp_graph_find(l.g, "w#d0");
			CHECK_INT(l.g->ops[w].param_bytes, 384);
			uint32_t fc = dp_graph_find(l.g, "fc#d0");
			CHECK_NEAR(l.g->ops[fc].time_us, 16.0 / k, 1e-12);
			dp_lowered_free(&l);
		}
		dp_strategy_free(&s);
	}
	dp_graph_free(g);
}

static void test_zero_splits_update_and_moves_what_dp_moves(void)
{
	dp_graph *g = test_load_ok(TRAIN);
	REQUIRE(g);
	const int k = 4;
	dp_strategy s;
	dp_err err;
	REQUIRE(run_builtin(&dpi_algo_zero, g, k, &s, &err));
	CHECK_STR(s.label, "zero 4");
	dp_lowered l = {0};
	if (test_lower(g, &s, k, &l)) {
		int64_t per = 2 * (k - 1) * 128 / k;
		CHECK_INT(test_cross_bytes(&l), per * k);
		uint32_t u = dp_graph_find(l.g, "update#d2");
		CHECK_INT(l.g->ops[u].param_bytes, 256 / k);
		/* the variable keeps its 128 bytes of weights whole and a
		 * quarter of the rest (gradient, optimizer state) */
		uint32_t w = dp_graph_find(l.g, "w#d2");
		CHECK_INT(l.g->ops[w].param_bytes, 128 + 256 / k);
		CHECK_NEAR(l.g->ops[u].time_us, 1.0, 1e-12);
		uint32_t ag = dp_graph_find(l.g, "update/ag#d3");
		REQUIRE(ag != UINT32_MAX);
		CHECK_INT(l.g->ops[ag].output_bytes, 128);
		CHECK_INT(l.placement[ag], 3);
		CHECK_COMM_EACH(&l, k, per);
		dp_lowered_free(&l);
	}
	dp_strategy_free(&s);
	dp_graph_free(g);
}

static void test_dp_refuses_what_it_cannot_split(void)
{
	dp_graph *g = test_load_ok(TRAIN);
	REQUIRE(g);
	dp_strategy s;
	dp_err err;
	CHECK(!run_builtin(&dpi_algo_dp, g, 3, &s, &err));
	CHECK_STR(err.msg, "dp: op 'x' has the batch dim 'b' of size 8, which "
			   "3 devices do not divide; choose a number of "
			   "devices that divides the batch");
	dp_graph_free(g);
	/* no batch dim, dims: refused; no dims, roles everywhere: split */
	g = test_json_text("{\"ops\":[{\"name\":\"a\",\"dims\":{\"b\":2},"
			   "\"out\":[\"b\"]}],\"edges\":[]}");
	REQUIRE(g);
	CHECK(!run_builtin(&dpi_algo_zero, g, 2, &s, &err));
	CHECK_STR(err.msg, "zero: graph 't' has no batch_dim; zero needs dims "
			   "(or, for a graph without any, a role on every "
			   "op): see docs/formats.md");
	dp_graph_free(g);
	g = test_json_text(
		"{\"ops\":[{\"name\":\"a\",\"role\":\"input\","
		"\"time_us\":8,\"output_bytes\":64},{\"name\":\"w\","
		"\"role\":\"param\",\"param_bytes\":8},{\"name\":\"f\","
		"\"role\":\"forward\",\"time_us\":8,\"output_bytes\":"
		"64},{\"name\":\"g\",\"role\":\"grad\",\"time_us\":8,"
		"\"output_bytes\":64},{\"name\":\"u\",\"role\":"
		"\"update\",\"time_us\":1}],\"edges\":[{\"from\":\"a\","
		"\"to\":\"f\"},{\"from\":\"w\",\"to\":\"f\"},{\"from\":"
		"\"f\",\"to\":\"g\"},{\"from\":\"g\",\"to\":\"u\"}]}");
	REQUIRE(g);
	REQUIRE(run_builtin(&dpi_algo_dp, g, 4, &s, &err));
	dp_lowered l = {0};
	if (test_lower(g, &s, 4, &l)) {
		uint32_t f = dp_graph_find(l.g, "f#d1");
		CHECK_NEAR(l.g->ops[f].time_us, 2.0, 1e-12);
		CHECK_INT(l.g->ops[f].output_bytes, 16);
		/* batch-split a -> f -> g: local, a quarter each; g's parts
		 * hold partial sums of the whole 64-byte weight gradient,
		 * all-reduced into the replicated update: 2(4-1)/4 x 64 per
		 * device */
		uint32_t gi = dp_graph_find(l.g, "g#d2");
		CHECK_NEAR(l.g->ops[gi].time_us, 2.0, 1e-12);
		CHECK_INT(l.g->ops[gi].output_bytes, 64);
		CHECK_INT(test_cross_bytes(&l), 4 * 96);
		CHECK_COMM_EACH(&l, 4, 96);
		uint32_t w = dp_graph_find(l.g, "w#d3");
		CHECK_INT(l.g->ops[w].param_bytes, 8);
		dp_lowered_free(&l);
	}
	dp_strategy_free(&s);
	dp_graph_free(g);
}

/* The message dp_strategy_check gives s, "" when it passes. */
static const char *check_msg(const dp_graph *g, const dp_strategy *s, int k)
{
	static dp_err err;
	dp_machine m;
	dp_err_clear(&err);
	if (dp_machine_init(&m, k, &err))
		return "machine";
	dp_status st = dp_strategy_check(g, &m, s, &err);
	dp_machine_free(&m);
	return st ? err.msg : "";
}

static void test_check_names_op_dim_and_expectation(void)
{
	dp_strategy s;
	dp_graph *g = test_spmd_load(MLP, 9, &s);
	REQUIRE(g);
	CHECK_STR(check_msg(g, &s, 9), "");
	test_spmd_split(g, &s, "mm1", "n",
			1); /* 9 parts of 32: unequal, but valid */
	CHECK_STR(check_msg(g, &s, 9), "");
	test_spmd_split(g, &s, "mm1", "b", 1);
	test_spmd_split(g, &s, "mm1", "n", 0);
	CHECK_STR(check_msg(g, &s, 9),
		  "op 'mm1', dim 'b': 9 parts are more than b=8; every part "
		  "needs at least one index");
	dp_strategy_free(&s);

	REQUIRE(test_spmd_strategy(g, 4, &s));
	s.spmd.naxes = 2;
	s.spmd.mesh[0] = 2;
	s.spmd.mesh[1] = 2;
	test_spmd_split(g, &s, "mm1", "n", 1);
	test_spmd_split(g, &s, "mm1", "b", 3);
	CHECK_STR(check_msg(g, &s, 4),
		  "op 'mm1': mesh axis 0 splits both 'b' and 'n'; an axis "
		  "splits at most one dim of an op");
	test_spmd_split(g, &s, "mm1", "b", 4);
	CHECK_STR(check_msg(g, &s, 4),
		  "op 'mm1', dim 'b': split by a mesh axis the mesh [2,2] does "
		  "not have (axes 0..1)");
	test_spmd_split(g, &s, "mm1", "b", 0);
	s.spmd.mesh[1] = 4;
	CHECK_STR(check_msg(g, &s, 8),
		  "the spmd mesh [2,4] has 8 devices, but the strategy uses "
		  "4; the mesh's product must be the number of devices");
	s.spmd.mesh[1] = 2;
	s.spmd.device[dp_graph_find(g, "y")] = 4;
	CHECK_STR(check_msg(g, &s, 4),
		  "op 'y' is placed on mesh device 4; expected -1 (every "
		  "device) or a device of the mesh [2,2], 0..3");
	s.spmd.device[dp_graph_find(g, "y")] = 1;
	CHECK_STR(check_msg(g, &s, 4), "");
	s.spmd.device[dp_graph_find(g, "mm1")] = 1;
	CHECK_STR(check_msg(g, &s, 4),
		  "op 'mm1' is both split and placed on device 1; give one or "
		  "the other");
	dp_strategy_free(&s);
	dp_graph_free(g);

	g = test_json_text("{\"ops\":[{\"name\":\"w\",\"role\":\"param\"},"
			   "{\"name\":\"p\",\"pin\":1}],\"edges\":[]}");
	REQUIRE(g);
	REQUIRE(test_spmd_strategy(g, 2, &s));
	s.spmd.device[1] = 1;
	s.spmd.axes[0] = 1;
	CHECK_STR(check_msg(g, &s, 2),
		  "op 'w' has no dims: it can only be replicated or placed (or "
		  "split along the batch when its role is input, forward, "
		  "backward, grad or loss)");
	s.spmd.axes[0] = 0;
	s.spmd.device[1] = -1;
	CHECK_STR(check_msg(g, &s, 2),
		  "op 'p' is pinned to device 1: the strategy must place it "
		  "whole there, not replicate it on every device");
	dp_strategy_free(&s);
	dp_graph_free(g);
}

static void test_lowering_stops_on_a_raised_flag(void)
{
	dp_strategy s;
	dp_graph *g = test_spmd_load(MLP, 2, &s);
	REQUIRE(g);
	dp_machine m;
	dp_err err;
	REQUIRE(dp_machine_init(&m, 2, &err) == DP_OK);
	atomic_int flag = 1;
	dp_progress p = {NULL, NULL, &flag};
	dp_lowered l = {0};
	CHECK_INT(dp_strategy_lower(g, &m, &s, &p, &l, &err), DP_ECANCELED);
	CHECK_STR(err.msg, "lowering: canceled");
	CHECK(l.g == NULL && l.placement == NULL);
	/* and twice the same strategy lowers to the same graph */
	atomic_store(&flag, 0);
	test_spmd_split(g, &s, "mm2", "n", 1);
	dp_lowered a = {0}, b = {0};
	REQUIRE(dp_strategy_lower(g, &m, &s, &p, &a, &err) == DP_OK);
	REQUIRE(dp_strategy_lower(g, &m, &s, &p, &b, &err) == DP_OK);
	CHECK_INT(a.g->nops, b.g->nops);
	CHECK_INT(a.g->nedges, b.g->nedges);
	for (uint32_t e = 0; e < a.g->nedges && e < b.g->nedges; e++)
		CHECK(a.g->edges[e].from == b.g->edges[e].from &&
		      a.g->edges[e].to == b.g->edges[e].to &&
		      a.g->edges[e].bytes == b.g->edges[e].bytes);
	dp_lowered_free(&a);
	dp_lowered_free(&b);
	dp_machine_free(&m);
	dp_strategy_free(&s);
	dp_graph_free(g);
}

/* ---- invariants on random graphs with dims ---- */

static const char *const dim_names[] = {"b", "x", "y", "z"};

/* A random training-like DAG: ops with 2..4 dims of size 8 (some whole),
 * outs of 0..3 dims, edges with dims, without, and control; every third op
 * an Add (a linear op, which may sum partial sums without a reduce). */
static dp_graph *random_dims_graph(uint64_t *rs, uint32_t n)
{
	size_t cap = 4096 + (size_t)n * 400;
	char *t = malloc(cap);
	if (!t)
		return NULL;
	size_t pos = 0;
	int nd[64], nout[64];
	pos += (size_t)snprintf(
		t + pos, cap - pos,
		"{\"name\":\"r\",\"batch_dim\":\"b\",\"ops\":[");
	for (uint32_t i = 0; i < n; i++) {
		bool whole = test_randn(rs, 6) == 0;
		nd[i] = whole ? 0 : 2 + (int)test_randn(rs, 3);
		pos += (size_t)snprintf(
			t + pos, cap - pos,
			"%s{\"name\":\"o%u\",\"time_us\":%u,\"role\":\"%s\","
			"\"temp_bytes\":%u%s",
			i ? ",\n" : "", i, 1 + test_randn(rs, 50),
			whole ? "forward" : "backward", test_randn(rs, 3) * 7,
			/* every third op sums, carrying partial sums */
			i % 3 == 2 ? ",\"type\":\"Add\"" : "");
		if (whole) {
			nout[i] = -1;
			pos += (size_t)snprintf(t + pos, cap - pos,
						",\"output_bytes\":%u}",
						64 * test_randn(rs, 9));
			continue;
		}
		pos += (size_t)snprintf(t + pos, cap - pos, ",\"dims\":{");
		for (int k = 0; k < nd[i]; k++)
			pos += (size_t)snprintf(t + pos, cap - pos,
						"%s\"%s\":8", k ? "," : "",
						dim_names[k]);
		/* out: a random subset of the dims, in a random order */
		nout[i] = (int)test_randn(rs, (uint32_t)nd[i] + 1);
		uint8_t perm[4] = {0, 1, 2, 3};
		for (int k = nd[i] - 1; k > 0; k--) {
			int j = (int)test_randn(rs, (uint32_t)k + 1);
			uint8_t x = perm[k];
			perm[k] = perm[j];
			perm[j] = x;
		}
		pos += (size_t)snprintf(t + pos, cap - pos, "},\"out\":[");
		int64_t ob = 4;
		for (int k = 0; k < nout[i]; k++) {
			ob *= 8;
			pos += (size_t)snprintf(t + pos, cap - pos, "%s\"%s\"",
						k ? "," : "",
						dim_names[perm[k]]);
		}
		bool param = test_randn(rs, 3) == 0;
		pos += (size_t)snprintf(t + pos, cap - pos,
					"],\"output_bytes\":%lld%s}",
					(long long)ob,
					param ? ",\"param\":[\"x\"],"
						"\"param_bytes\":96"
					      : "");
	}
	pos += (size_t)snprintf(t + pos, cap - pos, "],\"edges\":[");
	bool first = true;
	for (uint32_t v = 1; v < n; v++) {
		uint32_t ins = 1 + test_randn(rs, 3), seen[3];
		for (uint32_t k = 0; k < ins; k++) {
			uint32_t u = v - 1 - test_randn(rs, v < 6 ? v : 6);
			bool dup = false;
			for (uint32_t j = 0; j < k; j++)
				dup = dup || seen[j] == u;
			seen[k] = u;
			if (dup)
				continue;
			pos += (size_t)snprintf(t + pos, cap - pos,
						"%s{\"from\":\"o%u\",\"to\":"
						"\"o%u\"",
						first ? "" : ",\n", u, v);
			first = false;
			uint32_t kind = test_randn(rs, 8);
			if (kind == 0) {
				pos += (size_t)snprintf(t + pos, cap - pos,
							",\"control\":true}");
			} else if (kind > 2 && nout[u] >= 0 &&
				   nd[v] >= nout[u]) {
				/* dims: distinct dims of v */
				pos += (size_t)snprintf(t + pos, cap - pos,
							",\"dims\":[");
				uint8_t perm[4] = {0, 1, 2, 3};
				for (int a = nd[v] - 1; a > 0; a--) {
					int j = (int)test_randn(
						rs, (uint32_t)a + 1);
					uint8_t x = perm[a];
					perm[a] = perm[j];
					perm[j] = x;
				}
				for (int a = 0; a < nout[u]; a++)
					pos += (size_t)snprintf(
						t + pos, cap - pos, "%s\"%s\"",
						a ? "," : "",
						dim_names[perm[a]]);
				pos += (size_t)snprintf(t + pos, cap - pos,
							"]}");
			} else {
				pos += (size_t)snprintf(t + pos, cap - pos,
							",\"bytes\":%u}",
							64 * test_randn(rs, 5));
			}
		}
	}
	snprintf(t + pos, cap - pos, "]}\n");
	dp_graph *g = test_json_text(t);
	free(t);
	return g;
}

/* A random valid split of g over a random mesh. */
static void random_split(const dp_graph *g, uint64_t *rs, dp_strategy *s)
{
	static const int meshes[][4] = {{1, 2},	   {1, 4}, {2, 2, 2},
					{2, 2, 4}, {1, 8}, {3, 2, 2, 2}};
	const int *m = meshes[test_randn(rs, 6)];
	dp_err err;
	dp_strategy_init(s);
	if (dp_strategy_alloc(s, DP_STRAT_SPMD, g, 0, &err))
		return;
	s->spmd.naxes = m[0];
	s->k = 1;
	for (int a = 0; a < m[0]; a++) {
		s->spmd.mesh[a] = m[1 + a];
		s->k *= m[1 + a];
	}
	for (uint32_t u = 0; u < g->nops; u++) {
		if (test_randn(rs, 10) == 0) {
			s->spmd.device[u] =
				(int32_t)test_randn(rs, (uint32_t)s->k);
			continue;
		}
		dp_dims d;
		bool has = dp_op_dims(g, u, &d);
		for (int a = 0; a < s->spmd.naxes; a++) {
			uint32_t pick = test_randn(rs, has ? d.n + 1 : 2);
			if (pick == 0)
				continue;
			uint8_t *ax = &s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS +
						    pick - 1];
			*ax |= (uint8_t)(1u << a);
			if (dp_spmd_parts(&s->spmd, u, pick - 1) > 8)
				*ax &= (uint8_t) ~(1u << a);
		}
	}
}

/* Bytes of the box of tensor e that consumer instance id needs. */
static int64_t need_bytes(const dp_graph *g, const dp_strategy *s, uint32_t e,
			  int dev)
{
	const dp_edge *ed = &g->edges[e];
	const uint32_t *names;
	int ne = dp_edge_dims(g, e, &names);
	dp_dims pd;
	dp_op_dims(g, ed->from, &pd);
	int64_t b = pd.elem_bytes;
	(void)dev;
	for (int j = 0; j < ne; j++) {
		int k = dp_op_find_dim(g, ed->to, dp_graph_str(g, names[j]));
		int parts =
			s->spmd.device[ed->to] >= 0
				? 1
				: dp_spmd_parts(&s->spmd, ed->to, (uint32_t)k);
		b *= 8 / parts;
	}
	return b;
}

static void test_random_graphs_keep_the_invariants(void)
{
	uint64_t rs = 12345;
	for (int round = 0; round < 60 && !test_failed(); round++) {
		dp_graph *g = random_dims_graph(&rs, 5 + test_randn(&rs, 55));
		REQUIRE(g);
		dp_strategy s;
		random_split(g, &rs, &s);
		dp_lowered l = {0};
		if (!test_lower(g, &s, s.k, &l)) {
			dp_strategy_free(&s);
			dp_graph_free(g);
			break;
		}
		double *tsum = calloc(g->nops, sizeof *tsum);
		REQUIRE(tsum);
		for (uint32_t v = 0; v < l.g->nops; v++) {
			CHECK(l.placement[v] >= 0 && l.placement[v] < s.k);
			CHECK(l.source[v] < g->nops);
			tsum[l.source[v]] += l.g->ops[v].time_us;
		}
		for (uint32_t u = 0; u < g->nops; u++) {
			double rep = 1;
			if (s.spmd.device[u] < 0) {
				dp_dims d;
				uint32_t n = dp_op_dims(g, u, &d) ? d.n : 1;
				int parts = 1;
				for (uint32_t i = 0; i < n; i++)
					parts *= dp_spmd_parts(&s.spmd, u, i);
				rep = (double)s.k / parts;
			}
			CHECK_NEAR(tsum[u], g->ops[u].time_us * rep, 1e-9);
		}
		free(tsum);
		/* each consumer instance of an edge with dims receives its
		 * box: the bytes of its in-edges from lowered ops of the
		 * producer (instances or reduces, not gathers); a sum whose
		 * inputs' partial sums are added on each device first
		 * ("v/psum#dD") receives it from its own reduces */
		for (uint32_t e = 0; e < g->nedges; e++) {
			const dp_edge *ed = &g->edges[e];
			const uint32_t *names;
			if (ed->control || dp_edge_dims(g, e, &names) < 0)
				continue;
			for (uint32_t c = 0; c < l.g->nops; c++) {
				if (l.source[c] != ed->to ||
				    strchr(dp_graph_op_name(l.g, c), '/'))
					continue;
				char ps[160];
				snprintf(ps, sizeof ps, "%s/psum#d0",
					 dp_graph_op_name(g, ed->to));
				uint32_t from = dp_graph_find(l.g, ps) !=
							UINT32_MAX
						? ed->to
						: ed->from;
				int64_t got = 0;
				for (uint32_t i = l.g->pred_off[c];
				     i < l.g->pred_off[c + 1]; i++) {
					const dp_edge *le =
						&l.g->edges[l.g->pred_edge[i]];
					if (!le->control &&
					    l.source[le->from] == from)
						got += le->bytes;
				}
				int64_t want =
					need_bytes(g, &s, e, l.placement[c]);
				if (got != want) {
					test_fail(__FILE__, __LINE__,
						  "round %d: %s gets %lld "
						  "bytes of %s, wants %lld",
						  round,
						  dp_graph_op_name(l.g, c),
						  (long long)got,
						  dp_graph_op_name(g, ed->from),
						  (long long)want);
					break;
				}
			}
		}
		dp_sim_result r;
		if (test_simulate_lowered(&l, s.k, &r))
			dp_sim_result_free(&r);
		dp_lowered_free(&l);
		dp_strategy_free(&s);
		dp_graph_free(g);
	}
}

TEST_MAIN(TEST(test_megatron_mlp_moves_one_all_reduce),
	  TEST(test_dp_moves_two_k_minus_one_over_k_params),
	  TEST(test_zero_splits_update_and_moves_what_dp_moves),
	  TEST(test_dp_refuses_what_it_cannot_split),
	  TEST(test_check_names_op_dim_and_expectation),
	  TEST(test_lowering_stops_on_a_raised_flag),
	  TEST(test_random_graphs_keep_the_invariants))
