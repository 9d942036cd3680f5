/* algo_pipedream.c - the `pipedream` planner (docs/algorithms.md
 * #pipedream): the forward-kind ops (internal/pipeline.h) in a topological
 * order, coarsened to layers by their `layer` field (consecutive ops of one
 * layer are one unit; at most PD_MAX_UNITS units, merged evenly beyond),
 * are priced as the chain of internal/pipedream.h and cut by its dynamic
 * program; the other ops follow their forward ops as in algo_pipe.c,
 * and the pipeline runs 1F1B.
 *
 * Per unit, per micro-batch (M: --microbatches, or the default for K
 * stages): the time of its forward ops, of the backward and grad ops that
 * mirror them (dpi_pipe_mirror; else the unit of their latest forward
 * input, else the last unit) and of the update ops of its params, / M; the
 * activation across each cut: the bytes / M of the forward edges that
 * cross it; weights: the outputs of the param ops it consumes first;
 * static memory: params, their outputs, gradient buffers and the update's
 * state; stash: the outputs / M of its forward ops; weights: of its ops
 * (dpi_pipe_weight_bytes), once more per extra version of an asynchronous
 * schedule.
 *
 * Replication: a pipeline strategy gives every stage a group of the same
 * size (lowered by lower_pipe3d.c), so the planner solves the program once
 * per width D dividing K with every stage on D devices (rep = D, S <= K/D)
 * and keeps the best. The free replication of the paper (a width per
 * stage) is dpi_pipedream_solve with rep = 0, tested against brute force in
 * tests/test_pipedream.c, but no strategy can carry its result yet.
 */
#include "internal/algo_int.h"
#include "internal/graph_int.h"
#include "internal/pipedream.h"
#include "internal/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PD_MAX_UNITS 128

typedef struct pd_units {
	uint32_t *unit; /* per op: its unit, UINT32_MAX none */
	uint32_t n;
	dpi_pipedream_layer *l;
} pd_units;

static uint32_t fwd_unit_of_preds(const dp_graph *g, const uint8_t *kd,
				  const uint32_t *unit, uint32_t u, bool latest)
{
	uint32_t best = UINT32_MAX;
	for (uint32_t j = g->pred_off[u]; j < g->pred_off[u + 1]; j++) {
		uint32_t p = g->edges[g->pred_edge[j]].from;
		if ((dpi_pipe_kind)kd[p] != DPI_PIPE_FWD ||
		    unit[p] == UINT32_MAX)
			continue;
		if (best == UINT32_MAX ||
		    (latest ? unit[p] > best : unit[p] < best))
			best = unit[p];
	}
	return best;
}

static uint32_t first_fwd_succ(const dp_graph *g, const uint8_t *kd,
			       const uint32_t *unit, uint32_t u)
{
	uint32_t best = UINT32_MAX;
	for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
		uint32_t v = g->edges[g->succ_edge[j]].to;
		if ((dpi_pipe_kind)kd[v] == DPI_PIPE_FWD && unit[v] < best)
			best = unit[v];
	}
	return best;
}

/* Units of the forward ops, then every other op's unit and the layers'
 * numbers. */
static int make_units(const dp_graph *g, const uint8_t *kd, int M, pd_units *U)
{
	uint32_t nf = 0, raw = 0, last_layer = UINT32_MAX;
	for (uint32_t k = 0; k < g->nops; k++) {
		uint32_t u = g->topo[k];
		U->unit[u] = UINT32_MAX;
		if ((dpi_pipe_kind)kd[u] != DPI_PIPE_FWD)
			continue;
		uint32_t ly = g->ops[u].layer;
		if (nf == 0 || ly == 0 || ly != last_layer)
			raw++;
		last_layer = ly;
		U->unit[u] = raw - 1;
		nf++;
	}
	if (raw == 0)
		return 1;
	uint32_t n = raw > PD_MAX_UNITS ? PD_MAX_UNITS : raw;
	for (uint32_t u = 0; u < g->nops; u++)
		if (U->unit[u] != UINT32_MAX)
			U->unit[u] = (uint32_t)((uint64_t)U->unit[u] * n / raw);
	U->n = n;
	U->l = calloc(n, sizeof *U->l);
	int64_t *dact = calloc((size_t)n + 1, sizeof *dact);
	if (!U->l || !dact) {
		free(dact);
		return -1;
	}
	for (uint32_t k = 0; k < g->nops; k++) {
		uint32_t u = g->topo[k];
		const dp_op *o = &g->ops[u];
		dpi_pipe_kind ku = (dpi_pipe_kind)kd[u];
		dp_role r = dp_op_role(g, u);
		uint32_t un = U->unit[u];
		if (ku == DPI_PIPE_BWD) {
			uint32_t mir = dpi_pipe_mirror(g, u);
			if (mir != UINT32_MAX && U->unit[mir] != UINT32_MAX)
				un = U->unit[mir];
			else
				un = fwd_unit_of_preds(g, kd, U->unit, u, true);
			U->unit[u] = un = un == UINT32_MAX ? n - 1 : un;
		} else if (r == DP_ROLE_PARAM) {
			un = first_fwd_succ(g, kd, U->unit, u);
			U->unit[u] = un = un == UINT32_MAX ? 0 : un;
		} else if (ku == DPI_PIPE_ONCE) {
			uint32_t mir = dpi_pipe_mirror(g, u);
			un = mir != UINT32_MAX ? U->unit[mir] : UINT32_MAX;
			if (un == UINT32_MAX)
				un = fwd_unit_of_preds(g, kd, U->unit, u, true);
			U->unit[u] = un = un == UINT32_MAX ? n - 1 : un;
		}
		dpi_pipedream_layer *l = &U->l[un];
		l->time_us += o->time_us / M;
		l->stat += o->param_bytes;
		l->wts += dpi_pipe_weight_bytes(g, u);
		if (r == DP_ROLE_PARAM) {
			l->stat += o->output_bytes;
			l->weights += o->output_bytes > o->param_bytes
					      ? o->output_bytes
					      : o->param_bytes;
		} else if (r == DP_ROLE_GRAD || r == DP_ROLE_UPDATE) {
			l->stat += o->output_bytes + o->temp_bytes;
		} else if (ku == DPI_PIPE_FWD) {
			l->stash += o->output_bytes / M;
			for (uint32_t j = g->succ_off[u];
			     j < g->succ_off[u + 1]; j++) {
				const dp_edge *e = &g->edges[g->succ_edge[j]];
				uint32_t v = e->to;
				if (e->control ||
				    (dpi_pipe_kind)kd[v] != DPI_PIPE_FWD ||
				    U->unit[v] <= un)
					continue;
				dact[un] += e->bytes / M;
				dact[U->unit[v]] -= e->bytes / M;
			}
		}
	}
	int64_t run = 0;
	for (uint32_t i = 0; i < n; i++) {
		run += dact[i];
		U->l[i].act = run;
	}
	free(dact);
	return 0;
}

dp_status dpi_pipedream_cut(const dp_graph *g, const dp_machine *m, int M,
			    int D, dp_schedule sch, int *S, int32_t **fs,
			    double *cost, dp_err *err)
{
	pd_units U = {0};
	uint8_t *kd = dpi_pipe_kinds(g);
	U.unit = malloc((size_t)(g->nops ? g->nops : 1) * sizeof *U.unit);
	int r = kd && U.unit ? make_units(g, kd, M, &U) : -1;
	dp_status st = DP_OK;
	*fs = NULL;
	if (r < 0) {
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"out of memory in the pipedream planner");
	} else if (r > 0) {
		st = dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				"pipedream: the graph has no forward ops to "
				"cut into stages");
	} else {
		int64_t cap = DP_CAP_UNLIMITED;
		for (int d = 0; d < m->k; d++)
			cap = m->cap[d] < cap ? m->cap[d] : cap;
		dpi_pipedream_problem pb = {.layers = U.l,
				     .n = U.n,
				     .k = m->k,
				     .rep = D,
				     .bw = m->bw,
				     .lat = m->lat,
				     .cap = cap,
				     .m = M,
				     .sch = sch};
		uint32_t cut[DP_MAX_DEVICES + 1];
		int rep[DP_MAX_DEVICES];
		st = dpi_pipedream_solve(&pb, S, cut, rep, cost, err);
		if (!st && !(*fs = malloc((size_t)g->nops * sizeof **fs + 1)))
			st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
					"out of memory in the pipedream "
					"planner");
		uint32_t nf = 0;
		for (uint32_t k = 0; !st && k < g->nops; k++) {
			uint32_t u = g->topo[k];
			if ((dpi_pipe_kind)kd[u] != DPI_PIPE_FWD)
				continue;
			int s = 0;
			while (s + 1 < *S && U.unit[u] >= cut[s + 1])
				s++;
			(*fs)[nf++] = s;
		}
	}
	free(kd);
	free(U.unit);
	free(U.l);
	return st;
}

static dp_status pd_strategize(const dp_graph *g, const dp_machine *m,
			       const dp_algo_opts *o, const dp_progress *p,
			       dp_strategy *out, dp_err *err)
{
	dp_status st = dpi_poll(p, "pipedream", "layers", 0, err);
	if (st)
		return st;
	dp_algo_opts def;
	o = dpi_algo_opts_or_default(o, &def);
	st = dpi_algo_check_microbatches(o, "pipedream", err);
	if (!st)
		st = dpi_pipe_check_batch_known(g, o, "pipedream", err);
	if (st)
		return st;
	/* every replication D that divides K (and M x D the batch), each
	 * stage on D devices; the least slowest stage wins, then the
	 * smaller D */
	int64_t G = dpi_pipe_batch_gcd(g, NULL);
	dp_schedule sch = dpi_pipe_schedule(o, DP_SCHED_1F1B);
	double best = 0;
	int bestD = 0, bestS = 0, bestM = 0;
	int32_t *bestfs = NULL;
	dp_err e1;
	dp_err_clear(&e1);
	bool dp_ok = !dpi_graph_has_pins(g) &&
		     !dp_strategy_check_data_parallel(g, "pipedream", NULL);
	for (int D = 1; D <= m->k; D++) {
		if (m->k % D || (D > 1 && !dp_ok))
			continue;
		int M = o->microbatches ? o->microbatches
					: dpi_pipe_pick_microbatches(
						  G, 4 * (m->k / D), D);
		if (M < 1 || (G > 0 && G % ((int64_t)M * D)))
			continue;
		int S = 0;
		int32_t *fs = NULL;
		double cost = 0;
		dp_status s1 = dpi_pipedream_cut(g, m, M, D, sch, &S, &fs,
						 &cost, bestD ? NULL : &e1);
		if (s1 == DP_ENOMEM) {
			free(bestfs);
			return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
					  "out of memory in the pipedream "
					  "planner");
		}
		if (!s1 && (!bestD || cost < best)) {
			free(bestfs);
			bestfs = fs;
			best = cost;
			bestD = D;
			bestS = S;
			bestM = M;
		} else {
			free(fs);
		}
		st = dpi_poll(p, "pipedream", "layers", 0.6 * D / m->k,
				   err);
		if (st) {
			free(bestfs);
			return st;
		}
	}
	if (!bestD && !e1.code) /* no D that M x D divides the batch */
		return dpi_pipe_none_made(g, m, o, "pipedream", err);
	if (!bestD) {
		if (err)
			*err = e1;
		return e1.code;
	}
	dp_algo_opts oo = *o;
	oo.microbatches = bestM;
	st = dpi_pipe_make(g, m, &oo, p, sch, "pipedream", bestS, bestfs, out,
			   err);
	free(bestfs);
	if (!st && bestD > 1) {
		st = dpi_pipe_widen(g, out, bestD, 1, err);
		if (st)
			dp_strategy_free(out);
	}
	if (!st && bestD > 1)
		snprintf(out->label, sizeof out->label, "%s S=%d D=%d M=%d",
			 dp_schedule_name(sch), bestS, bestD, bestM);
	return st;
}

const dp_algo dpi_algo_pipedream = {
	.name = "pipedream",
	.summary = "PipeDream planner: dynamic program over layers for the "
		   "stages and data-parallel width whose slowest (compute, "
		   "cut transfer, all-reduce) is least, memory caps kept; 1F1B",
	.source = "Narayanan et al., PipeDream, SOSP 2019",
	.strategize = pd_strategize,
	.takes_schedule = true,
};
