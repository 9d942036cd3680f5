/* pipe_chunks.c - what the cut of a pipeline into stages or interleaved
 * chunks needs besides the balanced cut itself (algo_pipe.c;
 * docs/pipeline.md):
 *   - the forward op each backward op belongs to (dpi_pipe_owners): the
 *     op it mirrors by name, else the first forward op of its `layer`
 *     label, so a graph whose backward names do not mirror the forward
 *     ones (a bridge graph, a renamed graph) still has its backward ops
 *     in their layer's stage;
 *   - each forward op's time with its backward time (dpi_pipe_cut_times),
 *     what an interleaved cut balances;
 *   - the model's numbered layers (dpi_pipe_layer_count), the unit of
 *     --virtual-stages as Megatron-LM counts it, and the V a search tries
 *     (dpi_pipe_virtual_choices);
 *   - the device balance of S V chunks (dpi_pipe_balance_chunks).
 */
#include "internal/arrays.h"
#include "internal/graph_int.h"
#include "internal/pipeline.h"

#include "dnnpart/algo.h"

#include <stdlib.h>
#include <string.h>

typedef struct layer_op {
	uint32_t layer, op;
} layer_op;

static int layer_op_cmp(const void *pa, const void *pb)
{
	const layer_op *a = pa, *b = pb;
	if (a->layer != b->layer)
		return a->layer < b->layer ? -1 : 1;
	return a->op < b->op ? -1 : a->op > b->op;
}

/* The first forward op (in topological order) of each layer label, found
 * in the sorted v[n] by bsearch. */
static uint32_t first_of_layer(const layer_op *v, uint32_t n, uint32_t layer)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[mid].layer < layer)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].layer == layer ? v[lo].op : UINT32_MAX;
}

uint32_t *dpi_pipe_owners(const dp_graph *g, const uint8_t *kd)
{
	size_t n = g->nops ? g->nops : 1;
	uint32_t *own = malloc(n * sizeof *own);
	layer_op *v = malloc(n * sizeof *v);
	if (!own || !v) {
		DPI_FREE_ALL(own, v);
		return NULL;
	}
	uint32_t nv = 0;
	for (uint32_t k = 0; k < g->nops; k++) {
		uint32_t u = g->topo[k];
		if ((dpi_pipe_kind)kd[u] == DPI_PIPE_FWD && g->ops[u].layer)
			v[nv++] = (layer_op){g->ops[u].layer, k};
	}
	qsort(v, nv, sizeof *v, layer_op_cmp); /* op: its topological rank */
	for (uint32_t u = 0; u < g->nops; u++) {
		own[u] = UINT32_MAX;
		if ((dpi_pipe_kind)kd[u] == DPI_PIPE_FWD) {
			own[u] = u;
			continue;
		}
		if ((dpi_pipe_kind)kd[u] != DPI_PIPE_BWD)
			continue;
		uint32_t mir = dpi_pipe_mirror(g, u);
		if (mir != UINT32_MAX && (dpi_pipe_kind)kd[mir] == DPI_PIPE_FWD)
			own[u] = mir;
		else if (mir == UINT32_MAX && g->ops[u].layer) {
			uint32_t r = first_of_layer(v, nv, g->ops[u].layer);
			own[u] = r == UINT32_MAX ? r : g->topo[r];
		}
	}
	free(v);
	return own;
}

dp_status dpi_pipe_cut_times(const dp_graph *g, const uint8_t *kd,
			     bool with_bwd, double *t)
{
	uint32_t *own = with_bwd ? dpi_pipe_owners(g, kd) : NULL;
	uint32_t *idx =
		with_bwd ? malloc((g->nops ? g->nops : 1) * sizeof *idx) : NULL;
	if (with_bwd && (!own || !idx)) {
		DPI_FREE_ALL(own, idx);
		return DP_ENOMEM;
	}
	uint32_t i = 0;
	for (uint32_t k = 0; k < g->nops; k++) {
		uint32_t u = g->topo[k];
		if ((dpi_pipe_kind)kd[u] != DPI_PIPE_FWD)
			continue;
		if (idx)
			idx[u] = i;
		t[i++] = g->ops[u].time_us;
	}
	for (uint32_t u = 0; with_bwd && u < g->nops; u++)
		if ((dpi_pipe_kind)kd[u] == DPI_PIPE_BWD &&
		    own[u] != UINT32_MAX)
			t[idx[own[u]]] += g->ops[u].time_us;
	free(own);
	free(idx);
	return DP_OK;
}

/* The numbered block of a layer path: its prefix through the first
 * component whose last character is a digit ("model/h3" of
 * "model/h3/attn", "layers/7"); 0 when there is none. */
static size_t numbered_prefix(const char *l)
{
	size_t k = 0;
	while (l[k]) {
		size_t c = strcspn(l + k, "/.");
		if (c > 0 && l[k + c - 1] >= '0' && l[k + c - 1] <= '9')
			return k + c;
		k += c + (l[k + c] ? 1 : 0);
	}
	return 0;
}

uint32_t dpi_pipe_layer_count(const dp_graph *g, const uint8_t *kd)
{
	uint32_t layers = 0;
	const char *last = "";
	size_t last_n = 0;
	for (uint32_t i = 0; i < g->nops; i++) {
		uint32_t u = g->topo[i];
		const char *l = dp_graph_str(g, g->ops[u].layer);
		size_t n = kd[u] == DPI_PIPE_FWD ? numbered_prefix(l) : 0;
		if (n == 0 || (n == last_n && strncmp(l, last, n) == 0))
			continue;
		layers++;
		last = l;
		last_n = n;
	}
	return layers;
}

/* The virtual stages (interleaved 1F1B) to try on S stages: o's when
 * given (--virtual-stages pins V); else 1, and under 1F1B every V > 1
 * that divides the layers per stage (Megatron-LM's rule), S V at most
 * the forward ops. Into Vs; returns how many. */
int dpi_pipe_virtual_choices(const dp_graph *g, const dp_algo_opts *o,
			     dp_schedule sch, int S, uint32_t nf, int *Vs)
{
	int nv = 0;
	Vs[nv++] = o->virtual_stages > 0 ? o->virtual_stages : 1;
	if (o->virtual_stages > 0 || sch != DP_SCHED_1F1B || S < 2)
		return nv;
	uint8_t *kd = dpi_pipe_kinds(g);
	uint32_t layers = kd ? dpi_pipe_layer_count(g, kd) : 0;
	free(kd);
	if (layers == 0 || layers % (uint32_t)S)
		return nv;
	uint32_t per = layers / (uint32_t)S;
	for (uint32_t v = 2; v <= per && v <= DP_MAX_VIRTUAL_STAGES; v++)
		if (per % v == 0 && (uint64_t)S * v <= nf)
			Vs[nv++] = (int)v;
	return nv;
}

/* The device loads (time / speed) of chunks given by their first op. */
static void device_loads(const double *t, const uint32_t *first, int C, int P,
			 const double *sp, double *load)
{
	for (int d = 0; d < P; d++)
		load[d] = 0;
	for (int c = 0; c < C; c++)
		for (uint32_t i = first[c]; i < first[c + 1]; i++)
			load[c % P] += t[i] / sp[c % P];
}

/* Tries to move the ops at one end of chunk c (of device dmax) to the
 * neighbouring chunk: through the first op that takes time, leaving c at
 * least one op. Done when the neighbour's device stays below max. */
static bool move_end(const double *t, uint32_t *first, int C, int P,
		     const double *sp, const double *load, double max, int c,
		     bool head)
{
	int nb = head ? c - 1 : c + 1;
	if (nb < 0 || nb >= C)
		return false;
	double w = 0;
	uint32_t k = 0, len = first[c + 1] - first[c];
	while (k + 1 < len && w <= 0) {
		w += t[head ? first[c] + k : first[c + 1] - 1 - k];
		k++;
	}
	if (w <= 0 || load[nb % P] + w / sp[nb % P] >= max)
		return false;
	if (head)
		first[c] += k;
	else
		first[c + 1] -= k;
	return true;
}

void dpi_pipe_balance_chunks(const double *t, uint32_t n, int C, int P,
			     const double *sp, int32_t *fs)
{
	uint32_t *first = malloc(((size_t)C + 1) * sizeof *first);
	double *load = malloc((size_t)P * sizeof *load);
	if (!first || !load || C < 2 || P < 1) {
		free(first);
		free(load);
		return; /* the balance is a refinement: the cut stays */
	}
	for (int c = 0, i = 0; c <= C; c++) {
		while ((uint32_t)i < n && fs[i] < c)
			i++;
		first[c] = c == C ? n : (uint32_t)i;
	}
	/* each move takes time off the most loaded device and leaves the
	 * receiving one below it, so the sum of squared loads falls: it
	 * ends; the bound only guards against rounding */
	for (uint64_t it = 0; it < 64ull * n * (uint64_t)C; it++) {
		device_loads(t, first, C, P, sp, load);
		int dmax = 0;
		for (int d = 1; d < P; d++)
			dmax = load[d] > load[dmax] ? d : dmax;
		bool moved = false;
		for (int c = dmax; c < C && !moved; c += P)
			moved = move_end(t, first, C, P, sp, load, load[dmax],
					 c, true) ||
				move_end(t, first, C, P, sp, load, load[dmax],
					 c, false);
		if (!moved)
			break;
	}
	for (int c = 0; c < C; c++)
		for (uint32_t i = first[c]; i < first[c + 1]; i++)
			fs[i] = c;
	free(first);
	free(load);
}
