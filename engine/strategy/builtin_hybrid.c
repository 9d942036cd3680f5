/* builtin_hybrid.c - `hybrid` (pipeline stages that are data parallel,
 * searched over (S, D, M) with S x D = K) and the stage search of `gpipe`
 * and `1f1b` (docs/algorithms.md#hybrid).
 *
 * A candidate is a pipeline of S stages on D devices each (D = 1 for gpipe
 * and 1f1b), M micro-batches, cut either where forward time balances
 * (builtin_pipe.c) or by pipedream's program (builtin_pipedream.c) for that
 * D. Each candidate is lowered and simulated (the one simulator, no
 * formula); the shortest step whose every device fits its cap wins, and
 * when none fits, the one with the least peak / cap. Candidates, in this
 * order (ties keep the first):
 *   D: the divisors of K (hybrid; 1 for gpipe/1f1b), S = K / D (hybrid) or
 *      every divisor of K (gpipe/1f1b), S at most the forward ops;
 *   M: --microbatches when given, else the two largest powers of two up
 *      to 8 S with M x D dividing the batch (the larger first), and the
 *      built-ins' default (the largest M <= 4 S that M x D divides the
 *      batch with), so the search holds the fixed-stage plan (S = K);
 *   cut: balanced, then pipedream's.
 * At most 5 x 3 x 2 candidates for K = 16. Tensor parallel
 * stages (T > 1) are not searched: the 3D lowering splits the batch only.
 */
#include "internal/algo_int.h"
#include "internal/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/sim.h"

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

int64_t dpi_pipe_batch_gcd(const dp_graph *g)
{
	const char *bd = dp_graph_batch_dim(g);
	int64_t G = 0;
	for (uint32_t u = 0; bd[0] && u < g->nops; u++) {
		dp_role r = dp_op_role(g, u);
		if (r == DP_ROLE_PARAM || r == DP_ROLE_UPDATE)
			continue;
		int i = dp_op_find_dim(g, u, bd);
		if (i < 0)
			continue;
		dp_dims d;
		dp_op_dims(g, u, &d);
		G = gcd64(G, d.sizes[i]);
	}
	return G;
}

int dpi_pipe_pick_microbatches(int64_t G, int want, int D)
{
	if (want > DP_MAX_MICROBATCHES)
		want = DP_MAX_MICROBATCHES;
	if (G == 0)
		return want < 1 ? 1 : want;
	for (int M = want; M >= 1; M--)
		if (G % ((int64_t)M * D) == 0)
			return M;
	return 0;
}

dp_status dpi_pipe_widen(const dp_graph *g, dp_strategy *s, int D, dp_err *err)
{
	int S = s->pipe.nstages;
	int32_t *grp = realloc(s->pipe.group, (size_t)S * D * sizeof *grp);
	if (!grp)
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory while widening a pipeline");
	s->pipe.group = grp;
	for (int i = 0; i < S * D; i++)
		grp[i] = i;
	for (int i = 0; i <= S; i++)
		s->pipe.group_off[i] = i * D;
	s->spmd.naxes = 1;
	s->spmd.mesh[0] = D;
	const char *bd = dp_graph_batch_dim(g);
	for (uint32_t u = 0; s->spmd.axes && u < g->nops; u++) {
		dp_role r = dp_op_role(g, u);
		if (r == DP_ROLE_PARAM || r == DP_ROLE_UPDATE)
			continue;
		int i = g->ops[u].dims ? (bd[0] ? dp_op_find_dim(g, u, bd) : -1)
				       : 0;
		if (i >= 0)
			s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS + i] = 1;
	}
	s->k = S * D;
	return DP_OK;
}

typedef struct cand_best {
	dp_strategy s;
	bool have, fits;
	double makespan, over; /* over: max peak / cap */
	int32_t *last;	       /* the stages of the last candidate tried */
	int last_S, last_M, last_D;
} cand_best;

/* Whether s is the candidate tried just before (same S, M, D, stages):
 * then it is not simulated again; else it becomes the last one. */
static bool same_as_last(const dp_graph *g, const dp_strategy *s, int D,
			 cand_best *b)
{
	size_t n = (size_t)(g->nops ? g->nops : 1) * sizeof *b->last;
	if (b->last && b->last_S == s->pipe.nstages &&
	    b->last_M == s->pipe.microbatches && b->last_D == D &&
	    memcmp(b->last, s->pipe.stage, (size_t)g->nops * sizeof(int32_t)) ==
		    0)
		return true;
	if (!b->last)
		b->last = malloc(n);
	if (b->last) {
		memcpy(b->last, s->pipe.stage,
		       (size_t)g->nops * sizeof(int32_t));
		b->last_S = s->pipe.nstages;
		b->last_M = s->pipe.microbatches;
		b->last_D = D;
	}
	return false;
}

/* Lowers and simulates s; keeps it in *b when better (s is then owned by
 * *b), else frees it. */
static dp_status consider(const dp_graph *g, const dp_machine *m,
			  const dp_algo_opts *o, const dp_progress *p,
			  dp_strategy *s, cand_best *b, dp_err *err)
{
	dp_lowered l;
	memset(&l, 0, sizeof l);
	dp_status st = dp_strategy_lower(g, m, s, p, &l, err);
	dp_sim *sim = st ? NULL : dp_sim_new(l.g, m, err);
	if (!st && !sim)
		st = err && err->code ? err->code : DP_ENOMEM;
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	if (!st) {
		dp_sim_opts so;
		memset(&so, 0, sizeof so);
		so.contention = o->contention;
		st = dp_sim_run(sim, l.placement, &so, &r, err);
	}
	if (!st) {
		double over = 0;
		for (int d = 0; d < r.k; d++) {
			int64_t cap = m->cap[d];
			double f = cap == DP_CAP_UNLIMITED
					   ? 0
					   : (double)r.dev[d].peak_bytes /
						     (double)cap;
			over = f > over ? f : over;
		}
		bool fits = r.feasible;
		bool better =
			!b->have || (fits && !b->fits) ||
			(fits == b->fits &&
			 (fits ? r.makespan < b->makespan : over < b->over));
		if (better) {
			if (b->have)
				dp_strategy_free(&b->s);
			b->s = *s;
			dp_strategy_init(s);
			b->have = true;
			b->fits = fits;
			b->makespan = r.makespan;
			b->over = over;
		}
	}
	dp_sim_result_free(&r);
	dp_sim_free(sim);
	dp_lowered_free(&l);
	dp_strategy_free(s);
	return st;
}

static bool has_pins(const dp_graph *g)
{
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].pin >= 0)
			return true;
	return false;
}

static uint32_t forward_ops(const dp_graph *g)
{
	uint8_t *kd = dpi_pipe_kinds(g);
	uint32_t nf = 0;
	for (uint32_t u = 0; kd && u < g->nops; u++)
		nf += (dpi_pipe_kind)kd[u] == DPI_PIPE_FWD;
	free(kd);
	return nf;
}

/* One candidate (S, D, M, cut); DP_EINPUT from making it (a pin, caps in
 * pipedream's model) skips it. */
static dp_status try_one(const dp_graph *g, const dp_machine *m,
			 const dp_algo_opts *o, const dp_progress *p,
			 const char *name, dp_schedule sch, int S, int D, int M,
			 bool dp_cut, cand_best *b, dp_err *err)
{
	dp_algo_opts oo = *o;
	oo.microbatches = M;
	int32_t *fs = NULL;
	int Sc = S;
	dp_status st = DP_OK;
	if (dp_cut) {
		dp_machine sub = *m;
		sub.k = S * D;
		double cost;
		st = dpi_pd_cut(g, &sub, M, D, &Sc, &fs, &cost, NULL);
		if (st == DP_EINPUT)
			return DP_OK;
		if (st)
			return dp_err_set(err, st, NULL, 0, 0,
					  "%s: out of memory", name);
	}
	dp_strategy s;
	dp_strategy_init(&s);
	st = dpi_pipe_make(g, m, &oo, p, sch, name, Sc, fs, &s, err);
	free(fs);
	if (st == DP_EINPUT)
		return DP_OK;
	if (!st && same_as_last(g, &s, D, b)) {
		dp_strategy_free(&s);
		return DP_OK;
	}
	if (!st && D > 1)
		st = dpi_pipe_widen(g, &s, D, err);
	if (st) {
		dp_strategy_free(&s);
		return st;
	}
	if (D > 1 || strcmp(name, "hybrid") == 0)
		snprintf(s.label, sizeof s.label, "%s S=%d D=%d M=%d",
			 dp_schedule_name(sch), s.pipe.nstages, D, M);
	snprintf(s.algo, sizeof s.algo, "%s", name);
	st = consider(g, m, o, p, &s, b, err);
	return st == DP_EINPUT ? DP_OK : st;
}

static dp_status search(const dp_graph *g, const dp_machine *m,
			const dp_algo_opts *o, const dp_progress *p,
			const char *name, dp_schedule sch, bool hybrid,
			dp_strategy *out, dp_err *err)
{
	dp_algo_opts def;
	o = dpi_algo_opts_or_default(o, &def);
	dp_status st = dpi_algo_poll(p, name, "search", 0, err);
	if (st)
		return st;
	int K = m->k;
	uint32_t nf = forward_ops(g);
	int64_t G = dpi_pipe_batch_gcd(g);
	bool pins = has_pins(g);
	cand_best b;
	memset(&b, 0, sizeof b);
	dp_strategy_init(&b.s);
	for (int x = 1; !st && x <= K; x++) {
		if (K % x)
			continue;
		int D = hybrid ? x : 1, S = hybrid ? K / x : x;
		if ((uint32_t)S > nf || (D > 1 && pins))
			continue;
		/* M: o's, else the two largest powers of two <= 8 S that
		 * M x D divides the batch with */
		int Ms[3] = {0, 0, 0}, nm = 0;
		if (o->microbatches) {
			if (G == 0 || G % ((int64_t)o->microbatches * D) == 0)
				Ms[nm++] = o->microbatches;
		} else {
			for (int M = 1; M <= 8 * S; M *= 2) {
				if (G > 0 && G % ((int64_t)M * D))
					continue;
				Ms[1] = Ms[0];
				Ms[0] = M;
				nm = nm < 2 ? nm + 1 : 2;
			}
			int Md = dpi_pipe_pick_microbatches(G, 4 * S, D);
			if (Md > 0 && Md != Ms[0] && (nm < 2 || Md != Ms[1]))
				Ms[nm++] = Md;
		}
		for (int i = 0; !st && i < nm; i++) {
			for (int c = 0; !st && c < 2; c++)
				st = try_one(g, m, o, p, name, sch, S, D, Ms[i],
					     c == 1, &b, err);
			if (!st)
				st = dpi_algo_poll(p, name, "search",
						   (double)x / K, err);
		}
	}
	free(b.last);
	if (!st && !b.have)
		st = dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				"%s: no pipeline of stages that divide %d "
				"devices and micro-batches that divide the "
				"batch could be made for this graph",
				name, K);
	if (st) {
		if (b.have)
			dp_strategy_free(&b.s);
		return st;
	}
	*out = b.s;
	return DP_OK;
}

dp_status dpi_pipe_search(const dp_graph *g, const dp_machine *m,
			  const dp_algo_opts *o, const dp_progress *p,
			  const char *name, dp_schedule sch, dp_strategy *out,
			  dp_err *err)
{
	return search(g, m, o, p, name, sch, false, out, err);
}

static dp_status hybrid_strategize(const dp_graph *g, const dp_machine *m,
				   const dp_algo_opts *o, const dp_progress *p,
				   dp_strategy *out, dp_err *err)
{
	return search(g, m, o, p, "hybrid", dpi_pipe_schedule(o, DP_SCHED_1F1B),
		      true, out, err);
}

const dp_algo dpi_algo_hybrid = {
	.name = "hybrid",
	.summary = "pipeline of data-parallel stages: (S, D, M) with S x D = "
		   "K searched by simulation, cut balanced or by pipedream's "
		   "program; 1F1B",
	.source = "Narayanan et al., Megatron-LM 3D parallelism, SC 2021",
	.strategize = hybrid_strategize,
};
