/* pardnn_fixtures.h - graphs, machines and checks shared by the pardnn
 * tests (test_pardnn.c, test_pardnn_invariants.c). Header-only: static
 * inline functions, so a test that does not use one gets no warning. */
#ifndef DNNPART_TESTS_PARDNN_FIXTURES_H
#define DNNPART_TESTS_PARDNN_FIXTURES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/gen.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

typedef struct rand_opts {
	uint32_t n;
	uint64_t seed;
	int k;	     /* pins go to devices < k */
	bool groups; /* colocation groups of a few ops */
	bool pins;   /* a few pinned ops */
} rand_opts;

/* A random DAG (tests/lib's one generator): each op takes 1-3 inputs from
 * the 24 ops before it, one edge in 16 a control edge; times 1-200 µs,
 * outputs 1 KiB-4 MiB, a quarter of the ops hold parameters (to 8 MiB), an
 * eighth a temp (to 1 MiB); with groups one op in 10 joins a colocation
 * group, with pins one in 97 is pinned below k. */
static inline dp_graph *random_dag(const rand_opts *o)
{
	test_dag_opts d =
		test_dag_spec(o->n, "window=24 inputs=3 time=1..200 out=1K..4M "
				    "params=4:8M temps=8:1M control=16");
	d.group_every = o->groups ? 10 : 0;
	d.pin_every = o->pins ? 97 : 0;
	d.pin_k = o->k;
	return test_random_dag_with(o->seed, &d, "random");
}

static inline dp_graph *training_graph(uint32_t ops, uint64_t seed)
{
	dp_gen_opts o;
	dp_gen_opts_default(&o);
	o.ops = ops;
	o.seed = seed;
	dp_graph *g = NULL;
	if (dp_gen_graph(&o, &g, NULL))
		return NULL;
	return g;
}

static inline void machine_with(dp_machine *m, int k, int64_t cap)
{
	dp_machine_init(m, k, NULL);
	for (int d = 0; d < k; d++)
		m->cap[d] = cap;
}

typedef struct sim_out {
	double makespan;
	bool feasible;
	int64_t over; /* recomputed from the peaks and caps */
	int64_t max_peak;
} sim_out;

static inline dp_status simulate(const dp_graph *g, const dp_machine *m,
				 const int32_t *pl, dp_contention cont,
				 sim_out *out)
{
	*out = (sim_out){0}; /* a failed run leaves it zero */
	dp_err err;
	dp_sim *s = dp_sim_new(g, m, &err);
	if (!s)
		return err.code;
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	dp_sim_opts so = {.contention = cont, .detail = false};
	dp_status st = dp_sim_run(s, pl, &so, &r, &err);
	if (!st) {
		out->makespan = r.makespan;
		out->feasible = r.feasible;
		out->over = 0;
		out->max_peak = 0;
		for (int d = 0; d < m->k; d++) {
			if (r.dev[d].peak_bytes > m->cap[d])
				out->over += r.dev[d].peak_bytes - m->cap[d];
			if (r.dev[d].peak_bytes > out->max_peak)
				out->max_peak = r.dev[d].peak_bytes;
		}
	}
	dp_sim_result_free(&r);
	dp_sim_free(s);
	return st;
}

static inline dp_status run_algo(const char *name, const dp_graph *g,
				 const dp_machine *m, const dp_algo_opts *o,
				 int32_t *pl, dp_err *err)
{
	const dp_algo *a = dp_algo_find(name);
	if (!a)
		return DP_EINTERNAL;
	dp_algo_opts def;
	dp_algo_opts_default(&def);
	return dp_algo_place(a, g, m, o ? o : &def, NULL, pl, err);
}

/* The generator's towers (dnnpart gen, 4 towers) of about ops ops. */
static inline dp_graph *gen_towers(uint32_t ops)
{
	dp_gen_opts o;
	dp_gen_opts_default(&o);
	o.ops = ops;
	o.towers = 4;
	dp_graph *g = NULL;
	if (dp_gen_graph(&o, &g, NULL) != DP_OK)
		abort();
	return g;
}

/* fixtures.h's test_placement_valid, by its older name. */
#define placement_valid test_placement_valid

static inline int64_t one_device_peak(const dp_graph *g)
{
	dp_machine m;
	machine_with(&m, 1, DP_CAP_UNLIMITED);
	int32_t *pl = calloc(g->nops, sizeof *pl);
	sim_out so = {0};
	simulate(g, &m, pl, DP_CONT_PORT, &so);
	free(pl);
	dp_machine_free(&m);
	return so.max_peak;
}

/* A chain c0..c9 of 100 µs ops (the critical path) and three side branches
 * of two 100 µs ops each, from c0 to c9. Splitting the branches off the
 * chain's device is the only way to run faster than one device. */
static inline dp_graph *chain_with_branches(void)
{
	dp_graph *g = dp_graph_new("branches");
	uint32_t ch[10], br[3][2], id;
	char nm[32];
	for (int i = 0; i < 10; i++) {
		snprintf(nm, sizeof nm, "c%d", i);
		dp_graph_add_op(g, nm, &id, NULL);
		g->ops[id].time_us = 100;
		g->ops[id].output_bytes = 4096;
		ch[i] = id;
		if (i)
			dp_graph_add_edge(g, ch[i - 1], id, -1, false, NULL);
	}
	for (int b = 0; b < 3; b++)
		for (int j = 0; j < 2; j++) {
			snprintf(nm, sizeof nm, "b%d_%d", b, j);
			dp_graph_add_op(g, nm, &id, NULL);
			g->ops[id].time_us = 100;
			g->ops[id].output_bytes = 4096;
			br[b][j] = id;
			dp_graph_add_edge(g, j ? br[b][0] : ch[0], id, -1,
					  false, NULL);
			if (j)
				dp_graph_add_edge(g, id, ch[9], -1, false,
						  NULL);
		}
	if (dp_graph_finalize(g, NULL)) {
		dp_graph_free(g);
		return NULL;
	}
	return g;
}

#endif
