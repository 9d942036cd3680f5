/* state_fit.c - what fits (f): the explorer's state keeps the last fit
 * job's answers for one settings generation and says them in words; the
 * lever search's table is the Fit view's (view_fit.c). */
#include "state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

#include "dnnpart/units.h"

void state_fit_done(vstate *st, unsigned gen, int dev, const dp_fit_result *k,
		    const dp_fit_result *cap)
{
	state_fit_search_free(st);
	st->fit_valid = true;
	st->fit_gen = gen;
	st->fit_dev = dev;
	st->fit_k_found = k->found;
	st->fit_k = k->found ? k->k : 0;
	st->fit_k_max = 0;
	for (size_t i = 0; i < k->nprobes; i++)
		if (k->probes[i].k > st->fit_k_max)
			st->fit_k_max = k->probes[i].k;
	st->fit_cap_found = cap->found;
	st->fit_cap = cap->found ? cap->caps[dev] : 0;
	st->fit_probes = (int)(k->nprobes + cap->nprobes);
	if (gen != st->gen)
		return;
	char buf[160];
	state_fit_text(st, false, buf, sizeof buf);
	state_status(st, false, "%s (%d reruns)", buf, st->fit_probes);
}

bool state_fit_current(const vstate *st)
{
	return st->fit_valid && st->fit_gen == st->gen;
}

void state_fit_text(const vstate *st, bool shortform, char *buf, int size)
{
	char k[64] = "", c[80], b[32];
	if (st->fit_levers) {
		const dp_fit_search *f = &st->fit_search;
		char n[32];
		if (f->best < 0)
			snprintf(buf, (size_t)size,
				 "no K up to %d fits with any lever",
				 st->fit_k_max);
		else
			snprintf(buf, (size_t)size,
				 "fits with %d device%s: %s, levers %s", st->fit_k,
				 st->fit_k == 1 ? "" : "s",
				 dp_fit_cand_strategy(&f->cands[f->best], n,
						      sizeof n),
				 f->cands[f->best].levers);
		return;
	}
	if (!shortform) {
		if (st->fit_k_found)
			snprintf(k, sizeof k, "fits with %d device%s; ",
				 st->fit_k, st->fit_k == 1 ? "" : "s");
		else
			snprintf(k, sizeof k, "no K up to %d fits; ",
				 st->fit_k_max);
	}
	if (st->fit_cap_found)
		snprintf(c, sizeof c, "GPU%d fits with %s", st->fit_dev,
			 dp_units_fmt_bytes(st->fit_cap, b, sizeof b));
	else
		snprintf(c, sizeof c, "no cap of GPU%d fits", st->fit_dev);
	snprintf(buf, (size_t)size, "%s%s", k, c);
}

void state_fit_search_free(vstate *st)
{
	dp_fit_search_free(&st->fit_search);
	free(st->fit_rows);
	st->fit_rows = NULL;
	st->fit_nrows = st->fit_cursor = 0;
	st->fit_levers = false;
}

const dp_graph *state_fit_input(const vstate *st, dp_machine *m, int *dev)
{
	*dev = st->dev < st->m.k ? st->dev : st->m.k - 1;
	*m = st->m;
	if (!st->plain)
		return st->g;
	m->levers = (dp_levers){.gemm_ratio = st->m.levers.gemm_ratio,
				.no_bf16 = st->m.levers.no_bf16,
				.host_mem = st->m.levers.host_mem};
	return st->plain;
}

void state_fit_search_done(vstate *st, unsigned gen, dp_fit_search *s)
{
	state_fit_search_free(st);
	st->fit_search = *s;
	memset(s, 0, sizeof *s);
	s->best = -1;
	const dp_fit_search *f = &st->fit_search;
	size_t skipped[4] = {0};
	st->fit_rows = malloc((f->ncands + 1) * sizeof *st->fit_rows);
	st->fit_nrows = st->fit_rows ? (int)dp_fit_search_rows(
						f, dp_fit_search_k(f),
						st->fit_rows, skipped)
				     : 0;
	memcpy(st->fit_skipped, skipped, sizeof skipped);
	st->fit_levers = true;
	st->fit_valid = true;
	st->fit_gen = gen;
	st->fit_k_found = f->best >= 0;
	st->fit_k = f->best >= 0 ? f->cands[f->best].k : 0;
	st->fit_k_max = 0;
	for (size_t i = 0; i < f->r.nprobes; i++)
		if (f->r.probes[i].k > st->fit_k_max)
			st->fit_k_max = f->r.probes[i].k;
	st->fit_probes = (int)f->runs;
	if (gen != st->gen)
		return;
	view_show(st, VIEW_FIT);
	if (st->fit_k_found)
		state_status(st, false,
			     "fits with %d device%s (%d reruns); Enter adopts "
			     "the row",
			     st->fit_k, st->fit_k == 1 ? "" : "s",
			     st->fit_probes);
	else
		state_status(st, false, "no combination fits with K up to %d "
			     "(%d reruns)", st->fit_k_max, st->fit_probes);
}

dp_status state_relever(vstate *st, dp_graph *lg, dp_err *err)
{
	dp_graph *old = st->g, *plain = st->plain ? st->plain : st->g;
	dp_graph *g = lg ? lg : plain;
	if (g == old)
		return DP_OK;
	dp_status s = state_replace_graph(st, g, err);
	if (s != DP_OK)
		return s;
	if (old != plain)
		dp_graph_free(old);
	st->plain = lg ? plain : NULL;
	st->ops_dirty = true;
	return DP_OK;
}
