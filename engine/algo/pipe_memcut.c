/* pipe_memcut.c - a pipeline cut that fits memory together with time
 * (internal/pipeline.h, dpi_pipe_cut_memory; docs/algorithms.md, "gpipe
 * and 1f1b").
 *
 * The balanced cut (algo_pipe.c) looks at forward time only. Under 1F1B
 * stage s keeps the activations of min(S - s, M) micro-batches (GPipe: M),
 * so the first stages hold the most: a cut balanced by time can overflow
 * stage 0's cap while the last stage has room (BPipe's observation, Kim et
 * al., ICML 2023; BPipe moves activations between stages, we move layers).
 * Here each forward op i carries its time t_i, the memory that stays with
 * its stage (s_i: the params of the ops it owns, dpi_pipe_owners, and the
 * whole outputs of its params and updates), its weights w_i (those ops'
 * dpi_pipe_weight_bytes) and its activation a_i (its output per
 * micro-batch), and stage c of S needs
 *   sum s_i + fl_c sum a_i + (v_c - 1) sum w_i <= the cap of device c,
 * fl_c = min(S - c, M) (GPipe: M), v_c = dp_schedule_versions (the weight
 * versions of an asynchronous schedule; 1 otherwise): the model of
 * dpi_pipe_estimate. The cut
 * is the least largest time / speed among the contiguous cuts that meet
 * every cap: a bisection on that bound with greedy packing (a stage takes
 * ops while both its time and its memory allow; both only grow with the
 * ops, so the greedy cut reaches furthest and decides feasibility).
 */
#include "internal/arrays.h"
#include "internal/graph_int.h"
#include "internal/nomem.h"
#include "internal/pipeline.h"

#include <stdlib.h>

typedef struct memcut {
	const double *t, *sp;
	const double *stat, *act, *wts;
	const int64_t *cap;
	uint32_t n;
	int S, M;
	dp_schedule sch;
} memcut;

static double in_flight(const memcut *c, int s)
{
	return c->sch == DP_SCHED_GPIPE ? c->M
					: (c->S - s < c->M ? c->S - s : c->M);
}

/* Whether stage s holds static st, activations ac per micro-batch and
 * weights wt within its cap (m[0..2]: st, ac, wt). */
static bool fits(const memcut *c, int s, const double *m)
{
	int v = dp_schedule_versions(c->sch, c->S, s);
	return c->cap[s] == DP_CAP_UNLIMITED ||
	       m[0] + in_flight(c, s) * m[1] + (v - 1) * m[2] <=
		       (double)c->cap[s];
}

/* Whether stage s fits with op i added to what it holds (m). */
static bool fits_with(const memcut *c, int s, const double *m, uint32_t i)
{
	double w[3] = {m[0] + c->stat[i], m[1] + c->act[i], m[2] + c->wts[i]};
	return fits(c, s, w);
}

/* The greedy cut under time bound b into fs (when not NULL); the stages
 * it needs, S + 1 when S do not suffice or an op alone does not fit. */
static int greedy(const memcut *c, double b, int32_t *fs)
{
	int s = 0;
	double ct = 0, mem[3] = {0, 0, 0};
	uint32_t cnt = 0;
	for (uint32_t i = 0; i < c->n; i++) {
		bool room_t = ct + c->t[i] <= b * c->sp[s] || cnt == 0;
		bool room_m = fits_with(c, s, mem, i);
		/* leave one op for each stage still to come */
		bool forced = fs && c->n - i == (uint32_t)(c->S - 1 - s);
		if (cnt > 0 && (!room_t || !room_m || forced)) {
			if (++s >= c->S)
				return c->S + 1;
			ct = mem[0] = mem[1] = mem[2] = 0;
			cnt = 0;
		}
		if (!fits_with(c, s, mem, i))
			return c->S + 1;
		ct += c->t[i];
		mem[0] += c->stat[i];
		mem[1] += c->act[i];
		mem[2] += c->wts[i];
		cnt++;
		if (fs)
			fs[i] = s;
	}
	return s + 1;
}

/* The op of kind forward that param or update op u's memory goes with:
 * the first forward op (topological order) a param feeds; for an update,
 * that of the param it mirrors. UINT32_MAX when none. */
static uint32_t once_owner(const dp_graph *g, const uint8_t *kd,
			   const uint32_t *rank, uint32_t u, int depth)
{
	if (dp_op_role(g, u) == DP_ROLE_UPDATE) {
		uint32_t p = dpi_pipe_mirror(g, u);
		return p != UINT32_MAX && depth == 0
			       ? once_owner(g, kd, rank, p, 1)
			       : UINT32_MAX;
	}
	uint32_t best = UINT32_MAX;
	for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
		uint32_t v = g->edges[g->succ_edge[j]].to;
		if ((dpi_pipe_kind)kd[v] == DPI_PIPE_FWD &&
		    (best == UINT32_MAX || rank[v] < rank[best]))
			best = v;
	}
	return best;
}

/* Fills the per forward op memory (stat, act, wts; idx: forward op -> its
 * index) as the top says. */
static void op_memory(const dp_graph *g, const uint8_t *kd, int M,
		      const uint32_t *own, const uint32_t *rank,
		      const uint32_t *idx, double *stat, double *act,
		      double *wts)
{
	for (uint32_t u = 0; u < g->nops; u++) {
		const dp_op *o = &g->ops[u];
		dpi_pipe_kind k = (dpi_pipe_kind)kd[u];
		uint32_t w = k == DPI_PIPE_ONCE ? once_owner(g, kd, rank, u, 0)
						: own[u];
		if (w == UINT32_MAX)
			continue;
		stat[idx[w]] += (double)o->param_bytes;
		wts[idx[w]] += (double)dpi_pipe_weight_bytes(g, u);
		if (k == DPI_PIPE_ONCE)
			stat[idx[w]] += (double)o->output_bytes;
		if (k == DPI_PIPE_FWD) {
			bool ts, os;
			dpi_pipe_scaling(g, u, &ts, &os);
			act[idx[w]] += (double)o->output_bytes / (os ? M : 1);
		}
	}
}

dp_status dpi_pipe_cut_memory(const dp_graph *g, const dp_machine *m, int S,
			      int M, dp_schedule sch, int32_t **fs_out,
			      dp_err *err)
{
	*fs_out = NULL;
	bool capped = false;
	for (int d = 0; d < S && d < m->k; d++)
		capped = capped || m->cap[d] != DP_CAP_UNLIMITED;
	if (S < 1 || S > m->k || M < 1 || !capped)
		return DP_EINPUT;
	uint8_t *kd = dpi_pipe_kinds(g);
	uint32_t *own = kd ? dpi_pipe_owners(g, kd) : NULL;
	size_t n = g->nops ? g->nops : 1;
	uint32_t *rank = malloc(n * sizeof *rank),
		 *idx = malloc(n * sizeof *idx);
	double *v = calloc(4 * n, sizeof *v);
	int32_t *fs = malloc(n * sizeof *fs);
	dp_status st = DP_OK;
	if (!kd || !own || !rank || !idx || !v || !fs)
		st = dpi_nomem(err, "cutting a pipeline by memory");
	memcut c = {.sp = m->speed,
		    .cap = m->cap,
		    .S = S,
		    .M = M,
		    .sch = sch};
	double total = 0, smin = 1e300, ssum = 0;
	for (uint32_t k = 0; !st && k < g->nops; k++) {
		uint32_t u = g->topo[k];
		rank[u] = k;
		if ((dpi_pipe_kind)kd[u] == DPI_PIPE_FWD)
			idx[u] = c.n++;
	}
	if (!st) {
		c.t = v;
		c.stat = v + n;
		c.act = v + 2 * n;
		c.wts = v + 3 * n;
		st = dpi_pipe_cut_times(g, kd, false, v);
	}
	if (!st)
		op_memory(g, kd, M, own, rank, idx, v + n, v + 2 * n,
			  v + 3 * n);
	for (uint32_t i = 0; i < c.n; i++)
		total += v[i];
	for (int s = 0; s < S; s++) {
		smin = m->speed[s] < smin ? m->speed[s] : smin;
		ssum += m->speed[s];
	}
	double lo = total / ssum, hi = total / smin + 1;
	if (!st && (c.n < (uint32_t)S || greedy(&c, hi, NULL) > S))
		st = DP_EINPUT; /* no cut fits every cap */
	for (int it = 0; !st && it < 100 && hi - lo > 1e-9 * hi; it++) {
		double mid = lo + (hi - lo) / 2;
		if (greedy(&c, mid, NULL) <= S)
			hi = mid;
		else
			lo = mid;
	}
	if (!st && greedy(&c, hi, fs) > S)
		st = DP_EINPUT;
	DPI_FREE_ALL(kd, own, rank, idx, v);
	if (!st)
		*fs_out = fs;
	else
		free(fs);
	return st;
}
