/* algo_hybrid.c - `hybrid` (Megatron-LM's 3D parallelism: a pipeline
 * of stages that are data parallel D ways and tensor parallel T ways,
 * searched over (S, T, D, M) with S x T x D = K) and the stage search of
 * `gpipe` and `1f1b` (docs/algorithms.md#hybrid).
 *
 * A candidate is a pipeline of S stages on D x T devices each (D = T = 1
 * for gpipe and 1f1b), M micro-batches, cut either where forward time
 * balances (algo_pipe.c) or by pipedream's program (algo_pipedream.c)
 * for that D, with Megatron's layout inside the stages when T > 1
 * (internal/megatron.h). Candidates, in this order:
 *   T: 1, then (hybrid, no pins) the divisors of K that divide every `f`
 *      and every `heads`, as Megatron-LM needs (--tp: that T alone, heads
 *      split unevenly where it does not divide them, as megatron does);
 *   D: the divisors of K / T (hybrid; 1 for gpipe/1f1b, and for a graph
 *      that data parallelism does not apply to, dp's rule), S = K / (T D)
 *      (hybrid) or every divisor of K (gpipe/1f1b), S at most the forward
 *      ops;
 *   M: --microbatches when given, else the two largest powers of two up
 *      to 8 S with M x D dividing the batch, the built-ins' default (the
 *      largest M <= 4 S that M x D divides the batch with), and 1 when
 *      S = 1;
 *   cut: balanced, then pipedream's.
 * Each is ranked by dpi_pipe_estimate (pipe_estimate.c); only the best few
 * are lowered and simulated (the one simulator, no formula; see search()),
 * and the shortest simulated step whose every device fits its cap wins,
 * and when none fits, the one with the least peak / cap.
 */
#include "internal/algo_int.h"
#include "internal/graph_int.h"
#include "internal/grow.h"
#include "internal/megatron.h"
#include "internal/pipeline.h"
#include "internal/spmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/sim.h"

dp_status dpi_pipe_widen(const dp_graph *g, dp_strategy *s, int D, int T,
			 dp_err *err)
{
	int S = s->pipe.nstages, W = D * T;
	int P = S / (s->pipe.virtual_stages > 1 ? s->pipe.virtual_stages : 1);
	int32_t *grp = realloc(s->pipe.group, (size_t)S * W * sizeof *grp);
	if (!grp)
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory while widening a pipeline");
	s->pipe.group = grp;
	for (int i = 0; i < S * W; i++) /* chunk c on the group of c mod P */
		grp[i] = (i / W % P) * W + i % W;
	for (int i = 0; i <= S; i++)
		s->pipe.group_off[i] = i * W;
	s->k = P * W;
	if (T > 1) {
		s->spmd.naxes = 2;
		s->spmd.mesh[0] = D;
		s->spmd.mesh[1] = T;
		return dpi_megatron_layout(g, s, D, T, err);
	}
	s->spmd.naxes = 1;
	s->spmd.mesh[0] = D;
	const char *bd = dp_graph_batch_dim(g);
	for (uint32_t u = 0; s->spmd.axes && u < g->nops; u++) {
		dp_role r = dp_op_role(g, u);
		if (r == DP_ROLE_PARAM || r == DP_ROLE_UPDATE)
			continue;
		int i = g->ops[u].dims ? (bd[0] ? dp_op_find_dim(g, u, bd) : -1)
			: dpi_spmd_batch_role(r) ? 0
						 : -1; /* as dp splits it */
		if (i >= 0)
			s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS + i] = 1;
	}
	return DP_OK;
}

/* A candidate: its strategy, shape and estimate (dpi_pipe_estimate). */
typedef struct cand {
	dp_strategy s;
	int D, T;
	double est;
	int64_t peak;
	bool est_fits;
	uint32_t order; /* made in this order: ties keep the first */
	bool memcut;	/* cut fitted to memory: simulated when none fits */
	bool fixed;	/* gpipe's or 1f1b's plan for a given M before the
			   search took it (S = K, balanced): simulated */
} cand;

typedef struct cand_list {
	cand *v;
	uint32_t n, cap;
	int64_t cap_min; /* the smallest cap on m */
} cand_list;

/* Whether s repeats the candidate made just before (same shape, same
 * stages): then it is dropped. */
static bool same_as_last(const dp_graph *g, const cand_list *L,
			 const dp_strategy *s, int D)
{
	if (L->n == 0)
		return false;
	const cand *c = &L->v[L->n - 1];
	return c->D == D && c->s.k == s->k &&
	       c->s.pipe.nstages == s->pipe.nstages &&
	       c->s.pipe.microbatches == s->pipe.microbatches &&
	       memcmp(c->s.pipe.stage, s->pipe.stage,
		      (size_t)g->nops * sizeof(int32_t)) == 0;
}

/* Adds s (taken over: s is left empty) with its estimate. */
static dp_status add_cand(const dp_graph *g, const dp_machine *m, cand_list *L,
			  dp_strategy *s, int D, int T, dp_err *err)
{
	if (dpi_grow((void **)&L->v, &L->cap, (uint64_t)L->n + 1, sizeof *L->v,
		     32))
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory while searching pipelines");
	cand *c = &L->v[L->n];
	c->D = D;
	c->T = T;
	c->est = dpi_pipe_estimate(g, m, s, D, &c->peak);
	c->est_fits = c->peak <= L->cap_min;
	c->order = L->n++;
	c->memcut = false;
	c->fixed = false;
	c->s = *s;
	dp_strategy_init(s);
	return DP_OK;
}

/* Estimated to fit first, by estimated step; then by estimated peak. */
static int cand_cmp(const void *pa, const void *pb)
{
	const cand *a = pa, *b = pb;
	if (a->est_fits != b->est_fits)
		return a->est_fits ? -1 : 1;
	if (a->est_fits && a->est != b->est)
		return a->est < b->est ? -1 : 1;
	if (!a->est_fits && a->peak != b->peak)
		return a->peak < b->peak ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

typedef struct cand_best {
	dp_strategy s;
	bool have, fits;
	double makespan, over; /* over: max peak / cap; makespan: the
				  steady step of an asynchronous schedule */
} cand_best;

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
		/* an asynchronous schedule's step is its steady one */
		double t = dpi_pipe_steady_us(g, s, l.source, l.placement, &r);
		t = t > 0 ? t : r.makespan;
		bool better = !b->have || (fits && !b->fits) ||
			      (fits == b->fits &&
			       (fits ? t < b->makespan : over < b->over));
		if (better) {
			if (b->have)
				dp_strategy_free(&b->s);
			b->s = *s;
			dp_strategy_init(s);
			b->have = true;
			b->fits = fits;
			b->makespan = t;
			b->over = over;
		}
	}
	dp_sim_result_free(&r);
	dp_sim_free(sim);
	dp_lowered_free(&l);
	dp_strategy_free(s);
	return st;
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

/* Whether T > 1 can split g Megatron's way: it has an MLP (`f`) or
 * attention (`heads`) to split, T divides every `f` and, with even_heads,
 * every `heads`: Megatron-LM splits attention by whole heads, and so does
 * the Megatron export of the plan. The search asks for even heads; a T
 * given with --tp may split them unevenly, as megatron does. */
static bool tp_ok(const dp_graph *g, int T, bool even_heads)
{
	bool any = false;
	for (uint32_t u = 0; !any && u < g->nops; u++)
		any = dp_op_find_dim(g, u, "f") >= 0 ||
		      dp_op_find_dim(g, u, "heads") >= 0;
	return any && dpi_megatron_divides(g, "f", T) &&
	       (!even_heads || dpi_megatron_divides(g, "heads", T));
}

/* One shape of the search. */
typedef struct shape {
	const char *name;
	dp_schedule sch;
	int S, T, D, M, V;
	int cut; /* 0 balanced, 1 pipedream's program, 2 fitted to memory */
} shape;

/* Makes the candidate of shape h and adds it to L; DP_EINPUT from making
 * it (a pin, caps in pipedream's model) skips it. */
static dp_status make_one(const dp_graph *g, const dp_machine *m,
			  const dp_algo_opts *o, const dp_progress *p,
			  const shape *h, cand_list *L, dp_err *err)
{
	dp_algo_opts oo = *o;
	oo.microbatches = h->M;
	oo.virtual_stages = h->V;
	int32_t *fs = NULL;
	int Sc = h->S, D = h->D;
	dp_status st = DP_OK;
	if (h->cut) {
		dp_machine sub = *m;
		sub.k = h->S * D;
		double cost;
		st = h->cut == 1 ? dpi_pipedream_cut(g, &sub, h->M, D, h->sch,
						     &Sc, &fs, &cost, NULL)
				 : dpi_pipe_cut_memory(g, m, h->S, h->M, h->sch,
						       &fs, NULL);
		if (st == DP_EINPUT)
			return DP_OK;
		if (st)
			return dp_err_set(err, st, NULL, 0, 0,
					  "%s: out of memory", h->name);
	}
	/* an asynchronous schedule on one stage is no pipeline: nothing to
	 * run without a flush, and 2bw's second version buys nothing */
	if (dp_schedule_is_async(h->sch) && Sc < 2) {
		free(fs);
		return DP_OK;
	}
	dp_strategy s;
	dp_strategy_init(&s);
	st = dpi_pipe_make(g, m, &oo, p, h->sch, h->name, Sc, fs, &s, err);
	free(fs);
	if (st == DP_EINPUT)
		return DP_OK;
	s.sp = o->sp && h->T > 1; /* the layout inside each stage */
	if (!st && (D > 1 || h->T > 1))
		st = dpi_pipe_widen(g, &s, D, h->T, err);
	if (!st && same_as_last(g, L, &s, D)) {
		dp_strategy_free(&s);
		return DP_OK;
	}
	if (!st && strcmp(h->name, "hybrid") == 0) {
		char v[16] = "";
		if (h->V > 1)
			snprintf(v, sizeof v, " V=%d", h->V);
		bool own = h->sch == DP_SCHED_1F1B; /* else named */
		snprintf(s.label, sizeof s.label,
			 "hybrid S=%d T=%d D=%d%s M=%d%s%s%s",
			 s.pipe.nstages / (h->V > 1 ? h->V : 1), h->T, D, v,
			 h->M, own ? "" : " ", own ? "" : dp_schedule_name(h->sch),
			 s.sp ? " sp" : "");
	}
	snprintf(s.algo, sizeof s.algo, "%s", h->name);
	if (!st)
		st = add_cand(g, m, L, &s, D, h->T, err);
	if (!st && h->cut == 2)
		L->v[L->n - 1].memcut = true;
	if (!st && o->microbatches && strcmp(h->name, "hybrid") &&
	    h->S == m->k && h->cut == 0 && h->V <= 1)
		L->v[L->n - 1].fixed = true;
	dp_strategy_free(&s);
	return st;
}

/* The micro-batch counts for S stages of D-way data parallel groups: o's,
 * else the two largest powers of two <= 8 S that M x D divides the batch
 * with, and the built-ins' default; 1 as well when S = 1 (no pipeline:
 * plain data or tensor parallelism). Asynchronous schedules pay no fill
 * per step: the least M >= S too (pipeline_check.c says why).
 * Returns how many, into Ms[4]. */
static int micro_choices(const dp_algo_opts *o, dp_schedule sch, int64_t G,
			 int S, int D, int *Ms)
{
	int nm = 0;
	int lo = dp_schedule_is_async(sch) ? S : 1; /* the least M */
	if (o->microbatches) {
		if (G == 0 || G % ((int64_t)o->microbatches * D) == 0)
			Ms[nm++] = o->microbatches;
		return nm;
	}
	int least = 0;
	for (int M = 1; M <= 8 * S; M *= 2) {
		if ((G > 0 && G % ((int64_t)M * D)) || M < lo)
			continue;
		least = least ? least : M;
		Ms[1] = Ms[0];
		Ms[0] = M;
		nm = nm < 2 ? nm + 1 : 2;
	}
	int Md = dpi_pipe_pick_microbatches(G, 4 * S, D);
	if (Md >= lo && (nm < 1 || Md != Ms[0]) && (nm < 2 || Md != Ms[1]))
		Ms[nm++] = Md;
	bool one = false;
	for (int i = 0; i < nm; i++)
		one = one || Ms[i] == 1;
	if (S == 1 && !one && (G == 0 || G % D == 0))
		Ms[nm++] = 1;
	bool have = false;
	for (int i = 0; i < nm; i++)
		have = have || Ms[i] == least;
	if (dp_schedule_is_async(sch) && least && !have && nm < 4)
		Ms[nm++] = least;
	return nm;
}

/* The candidates of shape h by each cut: balanced, pipedream's program,
 * and, when the balanced one is estimated not to fit the caps and its
 * stages are one device each, the cut fitted to memory (pipe_memcut.c).
 * Interleaved (V > 1): the balanced chunks only, with M that S divides. */
static dp_status cuts(const dp_graph *g, const dp_machine *m,
		      const dp_algo_opts *o, const dp_progress *p,
		      cand_list *L, dp_err *err, shape h)
{
	dp_status st = DP_OK;
	bool over = false;
	for (h.cut = 0; !st && h.cut < 3; h.cut++) {
		if ((h.V > 1 && (h.cut > 0 || h.M % h.S)) ||
		    (h.cut == 2 && (!over || h.D > 1 || h.T > 1)))
			continue;
		uint32_t n = L->n;
		st = make_one(g, m, o, p, &h, L, err);
		if (h.cut == 0)
			over = L->n > n && !L->v[L->n - 1].est_fits;
	}
	return st;
}

/* Every candidate, in the order (T, D or S, V, M, cut). */
static dp_status enumerate(const dp_graph *g, const dp_machine *m,
			   const dp_algo_opts *o, const dp_progress *p,
			   const char *name, dp_schedule sch, bool hybrid,
			   bool even_heads, cand_list *L, dp_err *err)
{
	int K = m->k;
	uint32_t nf = forward_ops(g);
	int64_t G = dpi_pipe_batch_gcd(g, NULL);
	bool pins = dpi_graph_has_pins(g);
	/* data-parallel stages where dp would apply (its rule) */
	bool dp_ok = !pins && !dp_strategy_check_data_parallel(g, name, NULL);
	dp_status st = DP_OK;
	int want = hybrid ? o->tp : 0; /* --tp: that T alone */
	if (want > 0 && K % want)
		return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				  "%s: --tp %d must divide the %d devices",
				  name, want, K);
	if (want > 1 && (pins || !tp_ok(g, want, false)))
		return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				  "%s: --tp %d: %s", name, want,
				  pins ? "a graph with pins is not split"
				       : "the graph needs an `f` or `heads` "
					 "dim, and T must divide every `f`");
	for (int T = 1; !st && T <= (hybrid ? K : 1); T++) {
		if (K % T ||
		    (T > 1 &&
		     (pins || !tp_ok(g, T, even_heads && want == 0))) ||
		    (want > 0 && T != want))
			continue;
		/* the second search (hybrid_strategize): only the T that
		 * split heads unevenly, the first searched the others */
		if (!even_heads && want == 0 && (T == 1 || tp_ok(g, T, true)))
			continue;
		for (int x = 1; !st && x <= K / T; x++) {
			if ((K / T) % x)
				continue;
			int D = hybrid ? x : 1, S = hybrid ? K / T / x : x;
			if ((uint32_t)S > nf || (D > 1 && !dp_ok))
				continue;
			int Ms[4], nm = micro_choices(o, sch, G, S, D, Ms);
			int Vs[DP_MAX_VIRTUAL_STAGES + 1];
			int nv = dpi_pipe_virtual_choices(g, o, sch, S, nf, Vs);
			for (int v = 0; !st && v < nv; v++)
				for (int i = 0; !st && i < nm; i++)
					st = cuts(g, m, o, p, L, err,
						  (shape){name, sch, S, T, D,
							  Ms[i], Vs[v], 0});
			if (!st)
				st = dpi_poll(
					p, name, "search: candidates",
					0.3 * x / (K / T) / K * T, err);
		}
	}
	return st;
}

/* Simulated, in the order of the ranking, for plain pipelines and for
 * interleaved ones (V > 1) apart: in each of three classes (every
 * candidate; those without tensor parallelism, T = 1, where the estimate
 * is closest to the simulator; those with one device per stage as well,
 * what gpipe's and 1f1b's own search simulates) the best by the estimate
 * and, up to HYBRID_SIM in the class, those near it: estimated to fit as
 * it is, and within HYBRID_NEAR of its estimated step, or of its
 * estimated peak when it is not estimated to fit (and then not both
 * slower and larger by the estimate than one chosen). Then up to HYBRID_SIM
 * more that are estimated to fit, while none simulated fits. So hybrid
 * simulates what 1f1b's search simulates, and more; except that the third
 * class is skipped when its leader and the overall leader are estimated
 * to fit and its step is estimated HYBRID_FAR times the leader's. */
#define HYBRID_SIM 3
#define HYBRID_NEAR 1.05
#define HYBRID_FAR 1.5

/* Whether candidate c is close enough to the leader c0 to simulate. */
static bool near_leader(const cand *c0, const cand *c)
{
	if (c->est_fits != c0->est_fits)
		return false;
	return c0->est_fits ? c->est <= HYBRID_NEAR * c0->est
			    : (double)c->peak <= HYBRID_NEAR * (double)c0->peak;
}

/* Whether c is in class cls: cls mod 3 is 0 for every candidate, 1 for
 * those without tensor parallelism (T = 1), 2 for those with one device
 * per stage as well (gpipe's and 1f1b's own space); cls / 3 is 0 for
 * plain pipelines, 1 for interleaved ones (V > 1), so that each kind has
 * its leaders simulated. */
static bool in_class(const cand *c, int cls)
{
	int k = cls % 3;
	if ((c->s.pipe.virtual_stages > 1) != (cls >= 3))
		return false;
	return k == 0 || (c->T == 1 && (k == 1 || c->D == 1));
}

/* Marks the candidates of class cls to simulate: its leader, and those
 * near it, up to HYBRID_SIM. */
static void select_class(const cand_list *L, uint8_t *mark, int cls)
{
	const cand *c0 = NULL;
	int n = 0;
	const cand *pl = NULL; /* the plain leader of the class, if before */
	/* interleaved classes: their leader alone, when the estimate ranks it
	 * before the plain leader or gives it a shorter step (each costs a
	 * simulation of a larger lowered graph; 1f1b's three classes are
	 * one) */
	for (uint32_t i = 0; i < L->n && n < (cls >= 3 ? 1 : HYBRID_SIM); i++) {
		const cand *c = &L->v[i];
		if (!pl && cls >= 3 && in_class(c, cls - 3) && !c->memcut)
			pl = c;
		if (!in_class(c, cls) || c->memcut)
			continue;
		if (pl && c->est >= pl->est)
			break;
		if (c0 && !near_leader(c0, c))
			break;
		/* one device per stage, while the overall leader is estimated
		 * to fit and to be much faster: not worth its simulation */
		if (!c0 && cls % 3 == 2 && L->v[0].est_fits && c->est_fits &&
		    c->est > HYBRID_FAR * L->v[0].est)
			break;
		/* not estimated to fit, and both slower and larger than one
		 * already chosen: the estimate gives no reason to try it */
		bool worse = false;
		for (uint32_t j = 0; c0 && !c->est_fits && j < i; j++)
			worse = worse || (mark[j] && in_class(&L->v[j], cls) &&
					  L->v[j].est < c->est &&
					  L->v[j].peak < c->peak);
		if (worse)
			continue;
		c0 = c0 ? c0 : c;
		mark[i] = 1;
		n++;
	}
}

static dp_status search(const dp_graph *g, const dp_machine *m,
			const dp_algo_opts *o, const dp_progress *p,
			const char *name, dp_schedule sch, bool hybrid,
			bool even_heads, dp_strategy *out, bool *fits,
			dp_err *err)
{
	dp_algo_opts def;
	o = dpi_algo_opts_or_default(o, &def);
	dp_status st = dpi_poll(p, name, "search", 0, err);
	if (st)
		return st;
	cand_list L;
	memset(&L, 0, sizeof L);
	L.cap_min = DP_CAP_UNLIMITED;
	for (int d = 0; d < m->k; d++)
		L.cap_min = m->cap[d] < L.cap_min ? m->cap[d] : L.cap_min;
	st = enumerate(g, m, o, p, name, sch, hybrid, even_heads, &L, err);
	if (!st && L.n > 1)
		qsort(L.v, L.n, sizeof *L.v, cand_cmp);
	cand_best b;
	memset(&b, 0, sizeof b);
	dp_strategy_init(&b.s);
	uint8_t *mark = calloc(L.n ? L.n : 1, 1);
	if (!st && !mark)
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"out of memory while searching pipelines");
	for (int cls = 0; !st && cls < 6; cls++)
		select_class(&L, mark, cls);
	for (uint32_t i = 0; !st && i < L.n; i++) /* never worse than it */
		mark[i] |= L.v[i].fixed;
	/* the marked ones, then up to HYBRID_SIM more that are estimated to
	 * fit while none simulated fits */
	for (uint32_t i = 0, extra = 0; !st && i < L.n; i++) {
		if (!mark[i] && (L.v[i].memcut || b.fits ||
				 !L.v[i].est_fits || extra++ >= HYBRID_SIM))
			continue;
		st = consider(g, m, o, p, &L.v[i].s, &b, err);
		if (st == DP_EINPUT)
			st = DP_OK;
		if (!st)
			st = dpi_poll(p, name, "search: simulating",
					   0.3 + 0.7 * (i + 1) / L.n, err);
	}
	/* then, while none fits, the cuts fitted to memory, best first */
	for (uint32_t i = 0, n = 0; !st && i < L.n && n < HYBRID_SIM; i++) {
		if (b.fits || !L.v[i].memcut)
			continue;
		n++;
		st = consider(g, m, o, p, &L.v[i].s, &b, err);
		st = st == DP_EINPUT ? DP_OK : st;
	}
	free(mark);
	for (uint32_t i = 0; i < L.n; i++)
		dp_strategy_free(&L.v[i].s);
	free(L.v);
	if (!st && !b.have)
		st = dpi_pipe_none_made(g, m, o, name, err);
	if (st) {
		if (b.have)
			dp_strategy_free(&b.s);
		return st;
	}
	*out = b.s;
	if (fits)
		*fits = b.fits;
	return DP_OK;
}

dp_status dpi_pipe_search(const dp_graph *g, const dp_machine *m,
			  const dp_algo_opts *o, const dp_progress *p,
			  const char *name, dp_schedule sch, dp_strategy *out,
			  dp_err *err)
{
	return search(g, m, o, p, name, sch, false, true, out, NULL, err);
}

/* Whether some T > 1 dividing K splits g only with uneven heads. */
static bool uneven_only_t(const dp_graph *g, int K)
{
	for (int T = 2; T <= K; T++)
		if (K % T == 0 && tp_ok(g, T, false) && !tp_ok(g, T, true))
			return true;
	return false;
}

/* The search keeps to T that divide every head count (Megatron-LM's
 * rule, so that the plan exports); when its best plan does not fit the
 * caps, a second search also takes T that split heads unevenly (as
 * megatron does), and its plan wins only when it fits: a plan that fits
 * but that Megatron-LM will not run (plan says so) beats one that does
 * not fit. */
static dp_status hybrid_strategize(const dp_graph *g, const dp_machine *m,
				   const dp_algo_opts *o, const dp_progress *p,
				   dp_strategy *out, dp_err *err)
{
	dp_schedule sch = dpi_pipe_schedule(o, DP_SCHED_1F1B);
	bool fits = false;
	dp_status st = dpi_poll(p, "hybrid", "search", 0, err);
	if (!st)
		st = dpi_pipe_check_batch_known(g, o, "hybrid", err);
	if (st)
		return st;
	st = search(g, m, o, p, "hybrid", sch, true, true, out, &fits, err);
	if ((st != DP_OK && st != DP_EINPUT) || (st == DP_OK && fits) ||
	    (o && o->tp > 0) || !uneven_only_t(g, m->k))
		return st;
	dp_strategy s2;
	dp_strategy_init(&s2);
	bool fits2 = false;
	dp_err e2;
	dp_err_clear(&e2);
	dp_status st2 = search(g, m, o, p, "hybrid", sch, true, false, &s2,
			       &fits2, &e2);
	if (st2 == DP_OK && fits2) {
		if (st == DP_OK)
			dp_strategy_free(out);
		else
			dp_err_clear(err);
		*out = s2;
		return DP_OK;
	}
	if (st2 == DP_OK)
		dp_strategy_free(&s2);
	else if (st2 != DP_EINPUT) { /* canceled, out of memory */
		if (st == DP_OK)
			dp_strategy_free(out);
		if (err)
			*err = e2;
		return st2;
	}
	return st;
}

const dp_algo dpi_algo_hybrid = {
	.name = "hybrid",
	.summary = "3D: a 1F1B pipeline of stages data and tensor parallel "
		   "(Megatron's layout); (S, T, D, M) with S x T x D = K "
		   "ranked by an estimate, the best simulated",
	.source = "Narayanan et al., Megatron-LM 3D parallelism, SC 2021",
	.strategize = hybrid_strategize,
	.takes_tp = true,
	.takes_schedule = true,
};
