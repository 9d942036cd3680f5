/* strategy.c - strategies: their life cycle, the checks every kind shares
 * and the dispatch of lowering by kind (strategy.h; docs/formats.md "Strategy
 * files"). */
#include "dnnpart/strategy.h"
#include "internal/arrays.h"
#include "internal/lower.h"
#include "internal/nomem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *dp_strategy_kind_name(dp_strategy_kind k)
{
	static const char *const names[] = {[DP_STRAT_PLACEMENT] = "placement",
					    [DP_STRAT_SPMD] = "spmd",
					    [DP_STRAT_PIPELINE] = "pipeline"};
	return DPI_NAME_OF(names, k, "");
}

const char *dp_schedule_name(dp_schedule s)
{
	static const char *const names[] = {[DP_SCHED_GPIPE] = "gpipe",
					    [DP_SCHED_1F1B] = "1f1b",
					    [DP_SCHED_ZBH1] = "zb-h1",
					    [DP_SCHED_STASH] = "stash",
					    [DP_SCHED_2BW] = "2bw"};
	return DPI_NAME_OF(names, s, "");
}

dp_status dp_schedule_parse(const char *text, dp_schedule *out, dp_err *err)
{
	for (int s = DP_SCHED_GPIPE; s <= DP_SCHED_LAST; s++)
		if (strcmp(text, dp_schedule_name((dp_schedule)s)) == 0) {
			*out = (dp_schedule)s;
			return DP_OK;
		}
	return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
			  "unknown schedule '%s' (known: gpipe, 1f1b, "
			  "zb-h1, stash, 2bw)",
			  text);
}

void dp_strategy_init(dp_strategy *s)
{
	memset(s, 0, sizeof *s);
	s->kind = DP_STRAT_PLACEMENT;
	s->pipe.microbatches = 1;
	s->bucket = DP_BUCKET_DEFAULT;
}

void dp_strategy_free(dp_strategy *s)
{
	if (!s)
		return;
	DPI_FREE_ALL(s->placement, s->spmd.axes, s->spmd.device, s->pipe.stage,
		     s->pipe.group_off, s->pipe.group);
	dp_strategy_init(s);
}

dp_status dp_strategy_alloc(dp_strategy *s, dp_strategy_kind kind,
			    const dp_graph *g, int nstages, dp_err *err)
{
	dp_strategy t;
	dp_strategy_init(&t);
	t.kind = kind;
	t.nops = g->nops;
	size_t n = g->nops ? g->nops : 1;
	bool ok = true;
	if (kind == DP_STRAT_PLACEMENT) {
		ok = (t.placement = calloc(n, sizeof *t.placement)) != NULL;
	} else {
		if (kind == DP_STRAT_PIPELINE) {
			if (nstages < 1)
				return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
						  "a pipeline needs at least "
						  "one stage, got %d",
						  nstages);
			t.pipe.nstages = nstages;
			t.pipe.stage = calloc(n, sizeof *t.pipe.stage);
			t.pipe.group_off = calloc((size_t)nstages + 1,
						  sizeof *t.pipe.group_off);
			t.pipe.group =
				calloc((size_t)nstages, sizeof *t.pipe.group);
			ok = t.pipe.stage && t.pipe.group_off && t.pipe.group;
			for (int i = 0; ok && i <= nstages; i++) {
				t.pipe.group_off[i] = i;
				if (i < nstages)
					t.pipe.group[i] = i;
			}
			t.k = nstages;
		}
		t.spmd.axes = calloc(n * DP_MAX_OP_DIMS, 1);
		t.spmd.device = malloc(n * sizeof *t.spmd.device);
		ok = ok && t.spmd.axes && t.spmd.device;
		for (size_t u = 0; ok && u < n; u++)
			t.spmd.device[u] = -1;
	}
	if (!ok) {
		dp_strategy_free(&t);
		return dpi_nomem(err, "allocating a strategy");
	}
	snprintf(t.label, sizeof t.label, "%s", dp_strategy_kind_name(kind));
	*s = t;
	return DP_OK;
}

static void *dup_array(const void *src, size_t n, size_t size, bool *ok)
{
	if (!src || !*ok)
		return NULL;
	void *p = malloc(n ? n * size : 1);
	if (!p) {
		*ok = false;
		return NULL;
	}
	memcpy(p, src, n * size);
	return p;
}

dp_status dp_strategy_copy(dp_strategy *dst, const dp_strategy *src,
			   dp_err *err)
{
	dp_strategy t = *src;
	bool ok = true;
	size_t n = src->nops;
	size_t ns = src->pipe.nstages > 0 ? (size_t)src->pipe.nstages : 0;
	t.placement = dup_array(src->placement, n, sizeof *t.placement, &ok);
	t.spmd.axes = dup_array(src->spmd.axes, n * DP_MAX_OP_DIMS, 1, &ok);
	t.spmd.device =
		dup_array(src->spmd.device, n, sizeof *t.spmd.device, &ok);
	t.pipe.stage = dup_array(src->pipe.stage, n, sizeof *t.pipe.stage, &ok);
	t.pipe.group_off = dup_array(src->pipe.group_off, ns + 1,
				     sizeof *t.pipe.group_off, &ok);
	size_t ng =
		src->pipe.group_off && ns ? (size_t)src->pipe.group_off[ns] : 0;
	t.pipe.group =
		dup_array(src->pipe.group, ng, sizeof *t.pipe.group, &ok);
	if (!ok) {
		dp_strategy_free(&t);
		return dpi_nomem(err, "allocating a strategy");
	}
	*dst = t;
	return DP_OK;
}

int dp_spmd_size(const dp_spmd *sp)
{
	int n = 1;
	for (int a = 0; a < sp->naxes; a++)
		n *= sp->mesh[a];
	return n;
}

int dp_spmd_parts(const dp_spmd *sp, uint32_t u, uint32_t i)
{
	if (!sp->axes || i >= DP_MAX_OP_DIMS)
		return 1;
	uint8_t mask = sp->axes[(size_t)u * DP_MAX_OP_DIMS + i];
	int parts = 1;
	for (int a = 0; a < sp->naxes; a++)
		if (mask & (1u << a))
			parts *= sp->mesh[a];
	return parts;
}

dp_status dp_strategy_check(const dp_graph *g, const dp_machine *m,
			    const dp_strategy *s, dp_err *err)
{
	if (s->nops != g->nops)
		return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				  "the strategy was made for a graph of %u "
				  "ops, but '%s' has %u",
				  s->nops, g->name, g->nops);
	if (s->k < 1 || s->k > m->k)
		return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				  "the strategy uses %d devices, but the "
				  "machine has %d; set -k %d or more",
				  s->k, m->k, s->k);
	switch (s->kind) {
	case DP_STRAT_PLACEMENT:
		for (uint32_t u = 0; u < g->nops; u++) {
			int32_t d = s->placement[u];
			if (d < 0 || d >= m->k)
				return dp_err_set(
					err, DP_EINPUT, g->source, 0, 0,
					"op '%s' is placed on device %d; "
					"expected a device in 0..%d",
					dp_graph_op_name(g, u), d, m->k - 1);
		}
		return DP_OK;
	case DP_STRAT_SPMD:
		return dpi_strategy_check_spmd(g, m, s, err);
	case DP_STRAT_PIPELINE:
		return dpi_strategy_check_pipeline(g, m, s, err);
	}
	return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
			  "unknown strategy kind %d", (int)s->kind);
}

static dp_status lower_placement(const dp_graph *g, const dp_strategy *s,
				 dp_lowered *out, dp_err *err)
{
	dpi_lower_buf b;
	dp_status st = dpi_lower_begin(&b, g, g->nops, err);
	for (uint32_t u = 0; !st && u < g->nops; u++) {
		dpi_lower_op lo = dpi_lower_op_of(g, u, s->placement[u]);
		uint32_t id;
		st = dpi_lower_add(&b, dp_graph_op_name(g, u), &lo, &id, err);
	}
	for (uint32_t e = 0; !st && e < g->nedges; e++) {
		const dp_edge *ed = &g->edges[e];
		st = dpi_lower_edge(&b, ed->from, ed->to, ed->bytes,
				    ed->control, err);
	}
	if (st) {
		dpi_lower_abort(&b);
		return st;
	}
	return dpi_lower_finish(&b, out, err);
}

/* The price of small work (docs/simulator.md): every lowered op that runs
 * a fraction f = t' / t of its source op's time t (0 < t' < t: a
 * micro-batch copy, a shard, or both) takes o + (t - o) f, o = min(t,
 * m->kernel_us). Applied once, here, to whatever the lowerings built (they
 * nest: a pipeline of spmd shards divides twice). Ops of no time (sums,
 * sends, reduces) and whole copies keep theirs. */
static void kernel_overhead(const dp_graph *g, const dp_machine *m,
			    dp_lowered *l)
{
	if (!(m->kernel_us > 0))
		return;
	dp_graph *lg = l->g;
	for (uint32_t v = 0; v < lg->nops; v++) {
		double t = g->ops[l->source[v]].time_us,
		       tv = lg->ops[v].time_us;
		if (!(tv > 0 && tv < t))
			continue;
		double nt = dpi_kernel_time(t, tv / t, m->kernel_us);
		lg->total_time_us += nt - tv;
		lg->ops[v].time_us = nt;
	}
}

dp_status dp_strategy_lower(const dp_graph *g, const dp_machine *m,
			    const dp_strategy *s, const dp_progress *p,
			    dp_lowered *out, dp_err *err)
{
	dp_status st = dp_strategy_check(g, m, s, err);
	if (st)
		return st;
	switch (s->kind) {
	case DP_STRAT_PLACEMENT:
		return lower_placement(g, s, out, err);
	case DP_STRAT_SPMD:
		st = dpi_lower_spmd(g, m, s, p, out, err);
		break;
	case DP_STRAT_PIPELINE:
		if (dpi_pipe_is_tp(g, s))
			st = dpi_lower_pipeline_tp(g, m, s, p, out, err);
		else if (s->spmd.naxes > 0)
			st = dpi_lower_pipeline3d(g, m, s, p, out, err);
		else
			st = dpi_lower_pipeline(g, m, s, p, out, err);
		break;
	default:
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "unknown strategy kind %d", (int)s->kind);
	}
	if (!st)
		kernel_overhead(g, m, out);
	return st;
}

void dp_lowered_free(dp_lowered *l)
{
	if (!l)
		return;
	dp_graph_free(l->g);
	free(l->placement);
	free(l->source);
	free(l->micro);
	memset(l, 0, sizeof *l);
}
