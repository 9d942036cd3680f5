/* algo_pipe.c - the reference pipeline strategies `gpipe` and `1f1b`
 * (docs/algorithms.md): one stage per device, cut where each
 * stage's forward time is balanced, M micro-batches in the schedule's
 * order. The lowering (lower_pipeline.c) and the simulator then price the
 * bubble, the activation stash and the transfers between stages.
 *
 * Stages: the forward-kind ops (internal/pipeline.h), in the graph's
 * topological order, are cut into S = min(K, their number) contiguous runs
 * whose largest forward time is the least possible (a binary search on
 * that bound with greedy packing). Every other op follows:
 *   param     the earliest stage of a forward op it feeds (else of any op
 *             it feeds, else 0);
 *   backward  the stage of the forward op it mirrors (dpi_pipe_mirror:
 *   grad      by name; when no op has the name it points to, the first
 *             forward op of its `layer` label: dpi_pipe_owners), but never
 *             later than a backward op that feeds it (backward data goes
 *             to the same or an earlier stage); without a mirror, or when
 *             it mirrors a param (a sum of a shared
 *             weight's gradients), the earliest stage of the backward ops
 *             that feed it, else the latest of its forward inputs, else
 *             the last;
 *   update    the stage of the param it mirrors, else the latest stage of
 *             its inputs.
 * Pins are honoured (stage s runs on device s) where the stage order
 * allows it, and refused with the ops' names where it does not.
 * M: dp_algo_opts.microbatches, or 0 for 4 S, or, when the graph has a
 * batch dim, the largest divisor of its size (the gcd over the ops) that is
 * at most 4 S.
 */
#include "internal/algo_int.h"
#include "internal/graph_int.h"
#include "internal/lower.h"
#include "internal/nomem.h"
#include "internal/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The stages a greedy cut of the n op times t (in order) needs when stage
 * c holds at most bound x sp[c] (sp: the speed of its device; NULL: 1),
 * S + 1 when S do not suffice. */
static int greedy_stages(const double *t, uint32_t n, double bound,
			 const double *sp, int S)
{
	int k = 0;
	double cur = 0;
	for (uint32_t i = 0; i < n && k < S; i++) {
		if (cur > 0 && cur + t[i] > bound * (sp ? sp[k] : 1)) {
			k++;
			cur = 0;
		}
		cur += t[i];
	}
	return k + 1;
}

/* Stage of each of the n forward ops (times t, in order) into st: S runs
 * whose times over their device's speed (sp, NULL: all 1) have the least
 * largest value, so a faster device takes more (HetPipe's balance). With
 * alone, an op longer than that bound may be a run of its own and the
 * others still balance below it (interleaved chunks: one large op, a
 * language model's head, would otherwise set the bound of every chunk). */
static void cut_forward(const double *t, uint32_t n, int S, const double *sp,
			bool alone, int32_t *st)
{
	double total = 0, tmax = 0, ssum = 0, smin = 1e300, smax = 0;
	for (uint32_t i = 0; i < n; i++) {
		total += t[i];
		tmax = t[i] > tmax ? t[i] : tmax;
	}
	for (int c = 0; c < S; c++) {
		double v = sp ? sp[c] : 1;
		ssum += v;
		smin = v < smin ? v : smin;
		smax = v > smax ? v : smax;
	}
	if (!(total > 0)) {
		for (uint32_t i = 0; i < n; i++)
			st[i] = (int32_t)((uint64_t)i * (uint64_t)S / n);
		return;
	}
	double lo = total / ssum > tmax / smax || alone ? total / ssum
						       : tmax / smax;
	double hi = total / smin;
	if (greedy_stages(t, n, lo, sp, S) <= S)
		hi = lo;
	for (int it = 0; it < 100 && hi - lo > 1e-9 * hi; it++) {
		double mid = lo + (hi - lo) / 2;
		if (greedy_stages(t, n, mid, sp, S) <= S)
			hi = mid;
		else
			lo = mid;
	}
	int c = 0;
	double cur = 0;
	uint32_t cnt = 0;
	for (uint32_t i = 0; i < n; i++) {
		bool forced = n - i == (uint32_t)(S - 1 - c);
		if (c < S - 1 && cnt > 0 &&
		    (forced ||
		     (cur > 0 && cur + t[i] > hi * (sp ? sp[c] : 1)))) {
			c++;
			cur = 0;
			cnt = 0;
		}
		st[i] = c;
		cur += t[i];
		cnt++;
	}
}

static int32_t min_succ_stage(const dp_graph *g, const uint8_t *kd,
			      const int32_t *stage, uint32_t u,
			      bool forward_only)
{
	int32_t best = -1;
	for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
		uint32_t v = g->edges[g->succ_edge[j]].to;
		if (forward_only && (dpi_pipe_kind)kd[v] != DPI_PIPE_FWD)
			continue;
		if (stage[v] >= 0 && (best < 0 || stage[v] < best))
			best = stage[v];
	}
	return best;
}

/* Backward op u's stage, at least lo (a pin among its backward
 * descendants) and at most the earliest stage of its backward inputs;
 * *against gets the input that is earlier than lo, when one is. */
static int32_t backward_stage(const dp_graph *g, const uint8_t *kd,
			      const int32_t *stage, const uint32_t *own,
			      uint32_t u, int S, int32_t lo, uint32_t *against)
{
	int32_t cap = S - 1, fmax = -1;
	bool has_bwd = false;
	*against = UINT32_MAX;
	for (uint32_t j = g->pred_off[u]; j < g->pred_off[u + 1]; j++) {
		uint32_t p = g->edges[g->pred_edge[j]].from;
		dpi_pipe_kind k = (dpi_pipe_kind)kd[p];
		if (k == DPI_PIPE_BWD) {
			has_bwd = true;
			if (stage[p] < cap) {
				cap = stage[p];
				if (cap < lo)
					*against = p;
			}
		} else if (k == DPI_PIPE_FWD && stage[p] > fmax) {
			fmax = stage[p];
		}
	}
	int32_t want;
	/* own: the mirror by name, else the first forward op of u's layer */
	uint32_t mir = own[u] != UINT32_MAX ? own[u] : dpi_pipe_mirror(g, u);
	if (g->ops[u].pin >= 0)
		want = g->ops[u].pin;
	else if (mir != UINT32_MAX && stage[mir] >= 0 &&
		 dp_op_role(g, mir) != DP_ROLE_PARAM)
		want = stage[mir] < cap ? stage[mir] : cap;
	else if (has_bwd)
		want = cap;
	else
		want = fmax >= 0 ? fmax : S - 1;
	return want < lo ? lo : want;
}

static int32_t update_stage(const dp_graph *g, const int32_t *stage, uint32_t u)
{
	uint32_t mir = dpi_pipe_mirror(g, u);
	if (mir != UINT32_MAX && stage[mir] >= 0)
		return stage[mir];
	int32_t best = 0;
	for (uint32_t j = g->pred_off[u]; j < g->pred_off[u + 1]; j++) {
		uint32_t p = g->edges[g->pred_edge[j]].from;
		best = stage[p] > best ? stage[p] : best;
	}
	return best;
}

/* Pins (algo.h: an algorithm honours them). Stage s runs on device s, so
 * an op pinned to device p is in stage p. bound[u] is, for a forward op,
 * the earliest pin among its forward descendants (its latest legal stage),
 * and for a backward op the latest pin among its backward descendants (its
 * earliest legal stage). A pin beyond the last stage is refused. */
static dp_status pin_bounds(const dp_graph *g, const uint8_t *kd, int S,
			    const char *name, int32_t *bound, dp_err *err)
{
	for (uint32_t k = g->nops; k-- > 0;) {
		uint32_t u = g->topo[k];
		int32_t pin = g->ops[u].pin;
		if (pin >= S)
			return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
					  "%s: op '%s' is pinned to device %d, "
					  "but the pipeline has %d stages, on "
					  "devices 0..%d",
					  name, dp_graph_op_name(g, u),
					  (int)pin, S, S - 1);
		dpi_pipe_kind ku = (dpi_pipe_kind)kd[u];
		if (ku == DPI_PIPE_ONCE)
			continue;
		bool fwd = ku == DPI_PIPE_FWD;
		int32_t b = pin >= 0 ? pin : fwd ? S - 1 : 0;
		for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
			uint32_t v = g->edges[g->succ_edge[j]].to;
			if ((dpi_pipe_kind)kd[v] != ku)
				continue;
			if (fwd ? bound[v] < b : bound[v] > b)
				b = bound[v];
		}
		bound[u] = b;
	}
	return DP_OK;
}

/* The message for a pin a pipeline cannot honour: u (its stage in
 * stage[u]) between its input p (or none) and bound, the pin of an op of
 * the same kind that depends on it. */
static dp_status pin_conflict(const dp_graph *g, const char *name,
			      const char *kind, uint32_t u, uint32_t p,
			      const int32_t *stage, int32_t bound, dp_err *err)
{
	const char *nu = dp_graph_op_name(g, u);
	int32_t pin = g->ops[u].pin;
	if (pin >= 0 && p != UINT32_MAX)
		return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				  "%s: op '%s' is pinned to device %d, but "
				  "it depends on %s op '%s' in stage %d; a "
				  "pipeline runs %s ops in stage order, so "
				  "that pin cannot be honoured",
				  name, nu, (int)pin, kind,
				  dp_graph_op_name(g, p), (int)stage[p], kind);
	if (pin >= 0)
		return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				  "%s: op '%s' is pinned to device %d, but a "
				  "%s op that depends on it is pinned to "
				  "device %d; a pipeline runs %s ops in stage "
				  "order, so those pins cannot be honoured",
				  name, nu, (int)pin, kind, (int)bound, kind);
	return dp_err_set(
		err, DP_EINPUT, g->source, 0, 0,
		"%s: %s op '%s' depends on '%s' in stage %d, but a "
		"%s op that depends on it is pinned to device %d; "
		"a pipeline runs %s ops in stage order, so that pin "
		"cannot be honoured",
		name, kind, nu, p != UINT32_MAX ? dp_graph_op_name(g, p) : "?",
		p != UINT32_MAX ? (int)stage[p] : -1, kind, (int)bound, kind);
}

/* Moves each forward op into [latest stage of its forward inputs (or its
 * pin), bound]: its cut stage when that is legal. */
static dp_status clamp_forward(const dp_graph *g, const uint8_t *kd,
			       const char *name, const int32_t *bound,
			       int32_t *stage, dp_err *err)
{
	for (uint32_t k = 0; k < g->nops; k++) {
		uint32_t u = g->topo[k];
		if ((dpi_pipe_kind)kd[u] != DPI_PIPE_FWD)
			continue;
		int32_t pin = g->ops[u].pin;
		int32_t lo = pin >= 0 ? pin : 0;
		uint32_t arg = UINT32_MAX;
		for (uint32_t j = g->pred_off[u]; j < g->pred_off[u + 1]; j++) {
			uint32_t p = g->edges[g->pred_edge[j]].from;
			if ((dpi_pipe_kind)kd[p] == DPI_PIPE_FWD &&
			    stage[p] > lo) {
				lo = stage[p];
				arg = p;
			}
		}
		if (lo > bound[u])
			return pin_conflict(g, name, "forward", u, arg, stage,
					    bound[u], err);
		stage[u] = stage[u] < lo ? lo : stage[u];
		stage[u] = stage[u] > bound[u] ? bound[u] : stage[u];
	}
	return DP_OK;
}

/* Fills stage (nops, -1 on entry) with S stages; *S_out gets S. With
 * given (a stage per forward op in topological order, S_want stages) the
 * forward ops take those stages; else they are cut balanced into
 * min(S_want, their number). With S_want > P (interleaved chunks, chunk
 * c on device c mod P) the cut balances forward + backward time, per
 * chunk and then per device (dpi_pipe_balance_chunks). */
static dp_status assign_stages(const dp_graph *g, const uint8_t *kd, int S_want,
			       int P, const int32_t *given, const double *sp,
			       const char *name, int32_t *stage, int *S_out,
			       dp_err *err)
{
	uint32_t nf = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		nf += (dpi_pipe_kind)kd[u] == DPI_PIPE_FWD;
	int S = nf < (uint32_t)S_want ? (int)nf : S_want;
	S = S < 1 ? 1 : S;
	if (given)
		S = S_want;
	size_t n = g->nops ? g->nops : 1;
	double *t = malloc((size_t)(nf ? nf : 1) * sizeof *t);
	int32_t *fs = malloc((size_t)(nf ? nf : 1) * sizeof *fs);
	int32_t *bound = malloc(n * sizeof *bound);
	if (!t || !fs || !bound) {
		free(t);
		free(fs);
		free(bound);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory while cutting a pipeline");
	}
	bool chunks = !given && S_want > P;
	if (dpi_pipe_cut_times(g, kd, chunks, t)) {
		free(t);
		free(fs);
		free(bound);
		return dpi_nomem(err, "cutting a pipeline");
	}
	if (given)
		memcpy(fs, given, (size_t)nf * sizeof *fs);
	else
		cut_forward(t, nf, S, sp, chunks, fs);
	if (chunks && S == S_want)
		dpi_pipe_balance_chunks(t, nf, S, P, sp, fs);
	uint32_t i = 0;
	for (uint32_t k = 0; k < g->nops; k++)
		if ((dpi_pipe_kind)kd[g->topo[k]] == DPI_PIPE_FWD)
			stage[g->topo[k]] = fs[i++];
	free(t);
	free(fs);
	uint32_t *own = dpi_pipe_owners(g, kd);
	dp_status st = own ? pin_bounds(g, kd, S, name, bound, err)
			   : dpi_nomem(err, "cutting a pipeline");
	if (!st)
		st = clamp_forward(g, kd, name, bound, stage, err);
	for (uint32_t u = 0; !st && u < g->nops; u++)
		if (dp_op_role(g, u) == DP_ROLE_PARAM)
			stage[u] = min_succ_stage(g, kd, stage, u, true);
	for (uint32_t k = 0; !st && k < g->nops; k++) {
		uint32_t u = g->topo[k];
		if ((dpi_pipe_kind)kd[u] != DPI_PIPE_BWD)
			continue;
		uint32_t against;
		stage[u] = backward_stage(g, kd, stage, own, u, S, bound[u],
					  &against);
		if (against != UINT32_MAX ||
		    (g->ops[u].pin >= 0 && stage[u] != g->ops[u].pin))
			st = pin_conflict(g, name, "backward", u, against,
					  stage, bound[u], err);
	}
	for (uint32_t u = 0; !st && u < g->nops; u++)
		if (dp_op_role(g, u) == DP_ROLE_PARAM && stage[u] < 0) {
			int32_t s = min_succ_stage(g, kd, stage, u, false);
			stage[u] = s >= 0 ? s : 0;
		}
	for (uint32_t k = 0; !st && k < g->nops; k++) {
		uint32_t u = g->topo[k];
		if (dp_op_role(g, u) == DP_ROLE_UPDATE)
			stage[u] = update_stage(g, stage, u);
	}
	for (uint32_t u = 0; !st && u < g->nops; u++)
		if ((dpi_pipe_kind)kd[u] == DPI_PIPE_ONCE && g->ops[u].pin >= 0)
			stage[u] = g->ops[u].pin;
	free(bound);
	free(own);
	*S_out = S;
	return st;
}

/* A pipeline's pins can leave stages without a forward op: a forward op
 * pinned to device p puts every forward op after it in stage p or later
 * (stages run forward ops in order), one pinned to p every forward op
 * before it in stage p or earlier; a stage without forward work (ops that
 * take time) idles its device. When that happens the label says how
 * many stages are empty and s->note which pin did it and why. */
static void pin_note(const dp_graph *g, const uint8_t *kd, dp_strategy *s)
{
	int S = s->pipe.nstages, empty = 0, first_empty = -1, last_empty = -1;
	if (S < 2 || !dpi_graph_has_pins(g))
		return;
	for (int st = 0; st < S; st++) {
		/* empty: no forward op that takes time (an input may be
		 * there) */
		bool any = false;
		for (uint32_t u = 0; u < g->nops && !any; u++)
			any = (dpi_pipe_kind)kd[u] == DPI_PIPE_FWD &&
			      s->pipe.stage[u] == st && g->ops[u].time_us > 0;
		if (!any) {
			empty++;
			first_empty = first_empty < 0 ? st : first_empty;
			last_empty = st;
		}
	}
	if (!empty)
		return;
	/* the pin that pushed: the first pinned forward op (in the step's
	 * order) pinned past an empty stage, else the last pinned before one */
	uint32_t who = UINT32_MAX;
	bool later = true;
	for (uint32_t k = 0; k < g->nops && who == UINT32_MAX; k++) {
		uint32_t u = g->topo[k];
		if ((dpi_pipe_kind)kd[u] == DPI_PIPE_FWD && g->ops[u].pin >= 0 &&
		    g->ops[u].pin > first_empty)
			who = u;
	}
	for (uint32_t k = g->nops; k-- > 0 && who == UINT32_MAX;) {
		uint32_t u = g->topo[k];
		if ((dpi_pipe_kind)kd[u] == DPI_PIPE_FWD && g->ops[u].pin >= 0 &&
		    g->ops[u].pin < last_empty) {
			who = u;
			later = false;
		}
	}
	size_t n = strlen(s->label);
	snprintf(s->label + n, sizeof s->label - n, ", %d stage%s empty (pins)",
		 empty, empty == 1 ? "" : "s");
	if (who == UINT32_MAX) {
		snprintf(s->note, sizeof s->note,
			 "the pins leave %d of %d stages without forward work "
			 "(a pipeline runs forward ops in stage order)",
			 empty, S);
		return;
	}
	int p = g->ops[who].pin;
	snprintf(s->note, sizeof s->note,
		 "op '%.60s' is pinned to GPU%d, and a pipeline runs forward "
		 "ops in stage order: every forward op %s it runs in stage %d "
		 "or %s, so %d of %d stages get no forward work",
		 dp_graph_op_name(g, who), p, later ? "after" : "before", p,
		 later ? "later" : "earlier", empty, S);
}

/* The default number of micro-batches for S stages (see the top). */
static int default_microbatches(const dp_graph *g, const uint8_t *kd, int S)
{
	int64_t want = 4 * (int64_t)S, G = dpi_pipe_batch_gcd(g, kd);
	if (want > DP_MAX_MICROBATCHES)
		want = DP_MAX_MICROBATCHES;
	if (G == 0)
		return (int)want;
	for (int64_t m = want; m > 1; m--)
		if (G % m == 0)
			return (int)m;
	return 1;
}

int dpi_pipe_default_microbatches(const dp_graph *g, int S)
{
	uint8_t *kd = dpi_pipe_kinds(g);
	int M = kd ? default_microbatches(g, kd, S) : 1;
	free(kd);
	return M;
}

/* --virtual-stages V: S stages of V chunks each cut the model's layers
 * (its numbered blocks, "model/h3", in forward order; Megatron-LM's
 * transformer layers) into S V chunks, so V must divide the layers per
 * stage (Megatron-LM's --num-layers-per-virtual-pipeline-stage is their
 * quotient). A graph without numbered layers is cut by forward time. */
static dp_status virtual_layers(const dp_graph *g, const uint8_t *kd, int S,
				int V, const char *name, dp_err *err)
{
	if (V <= 1)
		return DP_OK;
	uint32_t layers = dpi_pipe_layer_count(g, kd);
	if (layers == 0 || (layers % (uint32_t)S == 0 &&
			    (layers / (uint32_t)S) % (uint32_t)V == 0))
		return DP_OK;
	return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
			  "%s: --virtual-stages %d does not divide the layers "
			  "per stage: %u layers on %d stages%s; choose V "
			  "dividing the layers per stage",
			  name, V, layers, S,
			  layers % (uint32_t)S ? " do not split evenly" : "");
}

dp_status dpi_pipe_make(const dp_graph *g, const dp_machine *m,
			const dp_algo_opts *o, const dp_progress *p,
			dp_schedule sch, const char *name, int S_want,
			const int32_t *given, dp_strategy *out, dp_err *err)
{
	dp_status st = dpi_poll(p, name, "stages", 0, err);
	if (st)
		return st;
	dp_algo_opts def;
	o = dpi_algo_opts_or_default(o, &def);
	st = dpi_algo_check_microbatches(o, name, err);
	if (st)
		return st;
	if (sch < DP_SCHED_GPIPE || sch > DP_SCHED_LAST)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "%s: a pipeline's schedule is gpipe, 1f1b, "
				  "zb-h1, stash or 2bw, got %d",
				  name, (int)sch);
	int32_t *stage =
		malloc((size_t)(g->nops ? g->nops : 1) * sizeof *stage);
	if (!stage)
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory while cutting a pipeline");
	for (uint32_t u = 0; u < g->nops; u++)
		stage[u] = -1;
	int S = 1, V = o->virtual_stages > 1 ? o->virtual_stages : 1;
	uint8_t *kd = dpi_pipe_kinds(g);
	st = kd ? virtual_layers(g, kd, S_want, V, name, err)
		: dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
			     "out of memory while cutting a pipeline");
	/* stage (chunk) c on device c mod S_want: its speed */
	double *sp = st ? NULL : malloc((size_t)S_want * V * sizeof *sp);
	if (!st && !sp)
		st = dpi_nomem(err, "cutting a pipeline");
	for (int c = 0; !st && c < S_want * V; c++)
		sp[c] = c % S_want < m->k ? m->speed[c % S_want] : 1;
	if (!st)
		st = assign_stages(g, kd, S_want * V, S_want, given, sp, name, stage,
				   &S, err);
	free(sp);
	if (!st && V > 1 && S != S_want * V)
		st = dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				"%s: --virtual-stages %d: %d stages of %d "
				"chunks need %d chunks of forward ops, but "
				"only %d could be cut",
				name, V, S_want, V, S_want * V, S);
	dp_strategy s;
	dp_strategy_init(&s);
	if (!st)
		st = dp_strategy_alloc(&s, DP_STRAT_PIPELINE, g, S, err);
	if (st) {
		free(stage);
		free(kd);
		return st;
	}
	if (g->nops)
		memcpy(s.pipe.stage, stage, (size_t)g->nops * sizeof *stage);
	free(stage);
	if (V > 1) { /* chunk c on device c mod S_want */
		s.pipe.virtual_stages = V;
		s.k = S_want;
		for (int c = 0; c < S; c++)
			s.pipe.group[c] = c % S_want;
	}
	s.pipe.microbatches = o->microbatches > 0
				      ? o->microbatches
				      : default_microbatches(g, kd, S);
	s.pipe.schedule = sch;
	if (V > 1)
		snprintf(s.label, sizeof s.label, "%s S=%d V=%d M=%d",
			 dp_schedule_name(sch), S_want, V, s.pipe.microbatches);
	else
		snprintf(s.label, sizeof s.label, "%s S=%d M=%d",
			 dp_schedule_name(sch), S, s.pipe.microbatches);
	pin_note(g, kd, &s);
	free(kd);
	snprintf(s.algo, sizeof s.algo, "%s", name);
	st = dp_strategy_check(g, m, &s, err);
	if (st == DP_EINPUT && err) {
		dp_err was = *err;
		dp_err_set(err, DP_EINPUT, was.file, was.line, was.col,
			   "%s: %s", name, was.msg);
	}
	if (!st)
		st = dpi_poll(p, name, "stages", 1, err);
	if (st) {
		dp_strategy_free(&s);
		return st;
	}
	*out = s;
	return DP_OK;
}

dp_schedule dpi_pipe_schedule(const dp_algo_opts *o, dp_schedule own)
{
	if (o && o->schedule >= DP_SCHED_GPIPE && o->schedule <= DP_SCHED_LAST)
		return (dp_schedule)o->schedule;
	return own;
}

/* The stages, V and M are searched (dpi_pipe_search), M fixed when o
 * gives it (when no candidate of that M can be made, the plan of S = K
 * is made or says why not, except under an asynchronous schedule, whose
 * search refuses one stage); with --virtual-stages V > 1, one stage per
 * device with V chunks each and the given or default M. The schedule is own unless o names one
 * (--schedule, the explorer's S). */
static dp_status pipe_strategize(const dp_graph *g, const dp_machine *m,
				 const dp_algo_opts *o, const dp_progress *p,
				 dp_strategy *out, dp_err *err, dp_schedule own)
{
	const char *name = dp_schedule_name(own);
	dp_schedule sch = dpi_pipe_schedule(o, own);
	dp_status st = dpi_poll(p, name, "stages", 0, err);
	if (!st)
		st = dpi_pipe_check_batch_known(g, o, name, err);
	if (st)
		return st;
	if (!(o && o->virtual_stages > 1)) {
		st = dpi_pipe_search(g, m, o, p, name, sch, out, err);
		if (st != DP_EINPUT || !o || o->microbatches == 0 ||
		    dp_schedule_is_async(sch))
			return st;
		/* nothing made with that M: the plan of S = K says why
		 * (a pin, the batch), or is made */
		if (err)
			dp_err_clear(err);
	}
	return dpi_pipe_make(g, m, o, p, sch, name, m->k, NULL, out, err);
}

static dp_status gpipe_strategize(const dp_graph *g, const dp_machine *m,
				  const dp_algo_opts *o, const dp_progress *p,
				  dp_strategy *out, dp_err *err)
{
	return pipe_strategize(g, m, o, p, out, err, DP_SCHED_GPIPE);
}

static dp_status f1b1_strategize(const dp_graph *g, const dp_machine *m,
				 const dp_algo_opts *o, const dp_progress *p,
				 dp_strategy *out, dp_err *err)
{
	return pipe_strategize(g, m, o, p, out, err, DP_SCHED_1F1B);
}

const dp_algo dpi_algo_gpipe = {
	.name = "gpipe",
	.summary = "pipeline: stages S | K, M and cut searched by simulation "
		   "(--microbatches M: M fixed, the rest searched); all "
		   "forwards then all backwards",
	.source = "Huang et al., GPipe, NeurIPS 2019",
	.strategize = gpipe_strategize,
	.takes_schedule = true,
};

const dp_algo dpi_algo_1f1b = {
	.name = "1f1b",
	.summary = "pipeline as gpipe, in the 1F1B order (warm-up forwards, "
		   "then one forward one backward): stashes S micro-batches, "
		   "not M",
	.source = "Narayanan et al., PipeDream-Flush, ICML 2021; Megatron-LM",
	.strategize = f1b1_strategize,
	.takes_schedule = true,
};
