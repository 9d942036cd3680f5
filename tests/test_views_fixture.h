/* test_views_fixture.h - a small plan built by hand for the view tests.
 *
 * The plan is written out field by field (not simulated), so the view
 * goldens depend only on the views: ten ops of a toy transformer step on
 * three devices, with transfers, memory curves, the tensors live at each
 * peak and a schedule critical path. With over = true GPU1's cap (100 MiB)
 * is below its peak (120 MiB), so the plan is infeasible.
 */
#ifndef TEST_VIEWS_FIXTURE_H
#define TEST_VIEWS_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "state.h"

#define MiB (1024LL * 1024)

static const struct fx_op {
	const char *name, *type, *layer;
	int dev;
	double start, end;
	int64_t out, params, temp;
} fx_ops[] = {
	{"input", "Data", "data", 0, 0, 10, 4 * MiB, 0, 0},
	{"embed", "Gather", "embed", 0, 10, 30, 8 * MiB, 64 * MiB, 0},
	{"attn0", "MatMul", "enc/0", 1, 35, 75, 8 * MiB, 32 * MiB, 0},
	{"mlp0", "MatMul", "enc/0", 2, 41, 71, 8 * MiB, 0, 0},
	{"attn1", "MatMul", "enc/1", 1, 75, 115, 8 * MiB, 0, 64 * MiB},
	{"mlp1", "MatMul", "enc/1", 2, 71, 101, 8 * MiB, 0, 0},
	{"concat", "Concat", "head", 0, 120, 130, 16 * MiB, 0, 0},
	{"loss", "SoftmaxCrossEntropy", "head", 0, 130, 135, 1024, 0, 0},
	{"grad_attn", "MatMulGrad", "enc/1", 1, 140, 200, 8 * MiB, 0, 0},
	{"update", "ApplyAdam", "opt", 1, 200, 210, 0, 0, 0},
};
#define FX_NOPS 10

static const int fx_edges[][2] = {{0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 5},
				  {4, 6}, {5, 6}, {6, 7}, {7, 8}, {8, 9}};
#define FX_NEDGES 10

static const dp_transfer fx_xfers[] = {
	{1, 0, 1, 8 * MiB, 30, 35},   {1, 0, 2, 8 * MiB, 35, 41},
	{5, 2, 0, 8 * MiB, 101, 107}, {4, 1, 0, 8 * MiB, 115, 120},
	{7, 0, 1, 1024, 135, 140},
};
#define FX_NXFERS 5

static const dp_mem_point fx_curve[] = {
	/* GPU0 */
	{0, 68 * MiB},
	{10, 76 * MiB},
	{30, 84 * MiB},
	{41, 72 * MiB},
	{101, 80 * MiB},
	{120, 88 * MiB},
	{130, 72 * MiB},
	{140, 64 * MiB},
	/* GPU1 */
	{0, 32 * MiB},
	{30, 40 * MiB},
	{35, 48 * MiB},
	{75, 56 * MiB},
	{115, 120 * MiB},
	{140, 100 * MiB},
	{210, 32 * MiB},
	/* GPU2 */
	{0, 0},
	{35, 8 * MiB},
	{41, 16 * MiB},
	{71, 24 * MiB},
	{107, 8 * MiB},
	{108, 0},
};
static const uint32_t fx_curve_off[4] = {0, 8, 15, 21};

static const dp_live_tensor fx_live[] = {
	/* GPU0 at 120 */
	{1, DP_MEM_PARAM, 64 * MiB, 0, 210},
	{6, DP_MEM_OUTPUT, 16 * MiB, 120, 135},
	{5, DP_MEM_COPY, 8 * MiB, 101, 130},
	/* GPU1 at 115 */
	{4, DP_MEM_TEMP, 64 * MiB, 75, 115},
	{2, DP_MEM_PARAM, 32 * MiB, 0, 210},
	{2, DP_MEM_OUTPUT, 8 * MiB, 35, 115},
	{4, DP_MEM_OUTPUT, 8 * MiB, 75, 120},
	{1, DP_MEM_COPY, 8 * MiB, 30, 75},
	/* GPU2 at 71 */
	{3, DP_MEM_OUTPUT, 8 * MiB, 41, 71},
	{1, DP_MEM_COPY, 8 * MiB, 35, 71},
	{5, DP_MEM_OUTPUT, 8 * MiB, 71, 107},
};
static const uint32_t fx_live_off[4] = {0, 3, 8, 11};

static const uint32_t fx_cp[] = {0, 1, 2, 4, 6, 7, 8, 9};
static const uint8_t fx_cp_cause[] = {
	DP_HOP_START,	 DP_HOP_DATA, DP_HOP_TRANSFER, DP_HOP_DATA,
	DP_HOP_TRANSFER, DP_HOP_DATA, DP_HOP_TRANSFER, DP_HOP_DATA};
#define FX_CPLEN 8

static void *fx_dup(const void *p, size_t n)
{
	void *q = malloc(n ? n : 1);
	if (q && n)
		memcpy(q, p, n);
	return q;
}

static dp_graph *fx_graph(void)
{
	dp_graph *g = dp_graph_new("toy-transformer");
	for (int i = 0; i < FX_NOPS; i++) {
		uint32_t id;
		dp_graph_add_op(g, fx_ops[i].name, &id, NULL);
		dp_graph_set_type(g, id, fx_ops[i].type, NULL);
		dp_graph_set_layer(g, id, fx_ops[i].layer, NULL);
		g->ops[id].time_us = fx_ops[i].end - fx_ops[i].start;
		g->ops[id].output_bytes = fx_ops[i].out;
		g->ops[id].param_bytes = fx_ops[i].params;
		g->ops[id].temp_bytes = fx_ops[i].temp;
	}
	for (int e = 0; e < FX_NEDGES; e++)
		dp_graph_add_edge(g, (uint32_t)fx_edges[e][0],
			       (uint32_t)fx_edges[e][1], -1, false, NULL);
	dp_graph_finalize(g, NULL);
	return g;
}

static void fx_machine(dp_machine *m, bool over)
{
	dp_machine_init(m, 3, NULL);
	m->cap[0] = 1024 * MiB;
	m->cap[1] = over ? 100 * MiB : 256 * MiB;
	m->cap[2] = DP_CAP_UNLIMITED;
}

/* The plan, as the simulator would have filled it (see the header). */
static void fx_plan(dp_plan *p, const dp_machine *m)
{
	memset(p, 0, sizeof *p);
	p->nops = p->sim.nops = FX_NOPS;
	p->k = p->sim.k = 3;
	snprintf(p->algo, sizeof p->algo, "single");
	p->plan_ms = 1.5;
	p->placement = malloc(FX_NOPS * sizeof *p->placement);
	p->sim.start = malloc(FX_NOPS * sizeof(double));
	p->sim.end = malloc(FX_NOPS * sizeof(double));
	p->sim.avail = malloc(FX_NOPS * sizeof(double));
	for (int i = 0; i < FX_NOPS; i++) {
		p->placement[i] = fx_ops[i].dev;
		p->sim.start[i] = fx_ops[i].start;
		p->sim.end[i] = fx_ops[i].end;
		p->sim.avail[i] = fx_ops[i].start;
	}
	p->sim.xfers = fx_dup(fx_xfers, sizeof fx_xfers);
	p->sim.nxfers = FX_NXFERS;
	p->sim.dev = calloc(3, sizeof *p->sim.dev);
	for (int i = 0; i < FX_NOPS; i++) {
		dp_device_stats *d = &p->sim.dev[fx_ops[i].dev];
		d->ops++;
		d->busy_us += fx_ops[i].end - fx_ops[i].start;
		d->param_bytes += fx_ops[i].params;
	}
	for (int x = 0; x < FX_NXFERS; x++) {
		const dp_transfer *t = &fx_xfers[x];
		p->sim.dev[t->src].comm_out_bytes += t->bytes;
		p->sim.dev[t->src].comm_out_us += t->end - t->start;
		p->sim.dev[t->src].xfers_out++;
		p->sim.dev[t->dst].comm_in_bytes += t->bytes;
		p->sim.dev[t->dst].comm_in_us += t->end - t->start;
		p->sim.dev[t->dst].xfers_in++;
		p->sim.cut_bytes += t->bytes;
	}
	static const int64_t peak[3] = {88 * MiB, 120 * MiB, 24 * MiB};
	static const double peak_t[3] = {120, 115, 71};
	p->feasible = true;
	for (int d = 0; d < 3; d++) {
		p->sim.dev[d].peak_bytes = peak[d];
		p->sim.dev[d].peak_time = peak_t[d];
		p->sim.dev[d].cap_bytes = m->cap[d];
		if (peak[d] > m->cap[d])
			p->feasible = false;
	}
	p->sim.feasible = p->feasible;
	p->sim.makespan = 210;
	p->sim.cut_edges = 5;
	p->sim.cp_ops = fx_dup(fx_cp, sizeof fx_cp);
	p->sim.cp_cause = fx_dup(fx_cp_cause, sizeof fx_cp_cause);
	p->sim.cp_len = FX_CPLEN;
	p->sim.live = fx_dup(fx_live, sizeof fx_live);
	p->sim.live_off = fx_dup(fx_live_off, sizeof fx_live_off);
	p->sim.curve = fx_dup(fx_curve, sizeof fx_curve);
	p->sim.curve_off = fx_dup(fx_curve_off, sizeof fx_curve_off);
	p->bounds.graph_cp_us = 195;
	p->bounds.work_bound_us = 85;
	p->bounds.lb_us = 195;
	p->bounds.one_device_us = 255;
	p->xlb = 210.0 / 195.0;
	p->speedup = 255.0 / 210.0;
	p->one_device_fits = true;
	p->one_device_peak = 200 * MiB;
}

/* A second plan for the Diff view: the fixture's plan on fx_machine(m,
 * over) with op 4 moved to device 2 and op to dev. The caller frees *m. */
static inline void fx_moved_plan(dp_plan *p, dp_machine *m, bool over, int op,
				 int32_t dev)
{
	fx_machine(m, over);
	fx_plan(p, m);
	p->placement[4] = 2;
	p->placement[op] = dev;
}

/* A state holding the fixture graph, machine and plan, prepared. */
static void fx_state(vstate *st, bool over)
{
	dp_machine m;
	fx_machine(&m, over);
	state_init(st, fx_graph(), &m, dp_algo_find("single"), DP_CONT_PORT, NULL);
	dp_plan p;
	fx_plan(&p, &m);
	state_set_plan(st, &p, st->gen);
	dp_machine_free(&m);
	state_prepare(st);
}

#endif
