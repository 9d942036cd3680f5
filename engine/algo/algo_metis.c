/* algo_metis.c - METIS k-way partitioning of the undirected op graph.
 *
 * Karypis and Kumar, "A fast and high quality multilevel scheme for
 * partitioning irregular graphs", SIAM J. Sci. Comput. 1998; libmetis 5
 * (METIS_PartGraphKway, multi-constraint: Karypis and Kumar, SC 1998).
 *
 * The graph handed to METIS: one vertex per op, except that a colocation
 * group is one vertex and all ops pinned to one device (with their groups)
 * are one vertex; edges made undirected, parallel and anti-parallel edges
 * merged (weights added), self-loops dropped. Two vertex weights, balanced
 * separately: time_us and memory (param + output + temp bytes), each scaled
 * to integers; target shares per part follow the device speeds (time) and
 * caps (memory). Without any cap, memory is left out (ncon = 1): balancing
 * it would only pull against the time balance on unequal devices. Edge weight: bytes (at least 1, so control edges count),
 * scaled to fit idx_t. METIS minimises the total weight of cut edges.
 * The fixed seed makes it deterministic.
 *
 * Time windows (dpi_metis_windows, pardnn's second seed; ours): the same
 * partition, but its balance constraints are the work in each of W windows
 * of the critical path (an op counts in the window of the middle of its
 * compute-only top-level interval) and its edge weights are what a cut
 * costs (latency + bytes / bandwidth), so that each part has work all
 * along the step: parallel branches (towers, copies of a network) end up
 * on different devices instead of a pipeline-like split of each branch.
 *
 * What it ignores: edge direction and time order (a cut edge costs the same
 * whether or not the transfer is on the critical path), latency, and when
 * memory is live (it balances sums). The simulator then schedules the
 * placement. Pins: METIS does not know which part is which device, so
 * parts are renamed afterwards to put the pinned vertices on their devices
 * (heaviest first); pinned ops whose part went to another device are then
 * moved to their pin.
 */
#include <math.h>
#include <metis.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"

#include "internal/algo_int.h"
#include "internal/arrays.h"
#include "internal/listsched.h"
#include "internal/sort_key.h"

/* Fewest vertices per part before METIS is asked for fewer parts. */
#define METIS_MIN_VERTICES_PER_PART 8

#define VWGT_SCALE ((double)(1 << 26)) /* each constraint's total */
#define EWGT_TOTAL ((double)(1 << 28)) /* all edge weights, both ways */

typedef struct epair {
	idx_t a, b; /* a < b */
	double w;
} epair;

DPI_CMP_DEFINE(epair_cmp, epair, DPI_CMP(x->a, y->a), DPI_CMP(x->b, y->b))

typedef struct mgraph {
	idx_t nv;
	uint32_t *vmap; /* op -> vertex */
	int32_t *vpin;	/* vertex -> device it is pinned to, or -1 */
	double *vtime, *vmem;
	idx_t *xadj, *adjncy, *adjwgt, *vwgt;
	epair *pairs;
} mgraph;

static void mgraph_free(mgraph *mg)
{
	DPI_FREE_ALL(mg->vmap, mg->vpin, mg->vtime, mg->vmem, mg->xadj,
		     mg->adjncy, mg->adjwgt, mg->vwgt, mg->pairs);
}

/* Contracts groups and per-device pins into vertices (vmap, vpin). */
static int contract(const dp_graph *g, const ls_cons *cons, int k, mgraph *mg)
{
	uint32_t n = g->nops;
	int32_t *pin_v = malloc((size_t)k * sizeof *pin_v);
	int32_t *grp_v = malloc(((size_t)g->ngroups + 1) * sizeof *grp_v);
	mg->vmap = malloc(((size_t)n + 1) * sizeof *mg->vmap);
	mg->vpin = malloc(((size_t)n + 1) * sizeof *mg->vpin);
	mg->vtime = calloc((size_t)n + 1, sizeof *mg->vtime);
	mg->vmem = calloc((size_t)n + 1, sizeof *mg->vmem);
	if (!pin_v || !grp_v || !mg->vmap || !mg->vpin || !mg->vtime ||
	    !mg->vmem) {
		free(pin_v);
		free(grp_v);
		return -1;
	}
	for (int d = 0; d < k; d++)
		pin_v[d] = -1;
	for (uint32_t c = 0; c < g->ngroups; c++)
		grp_v[c] = -1;
	idx_t nv = 0;
	for (uint32_t u = 0; u < n; u++) {
		int32_t pin = cons->forced[u], grp = g->ops[u].colocate;
		int32_t *slot = pin >= 0   ? &pin_v[pin]
				: grp >= 0 ? &grp_v[grp]
					   : NULL;
		uint32_t v;
		if (slot && *slot >= 0) {
			v = (uint32_t)*slot;
		} else {
			v = (uint32_t)nv++;
			mg->vpin[v] = pin;
			if (slot)
				*slot = (int32_t)v;
		}
		mg->vmap[u] = v;
		const dp_op *op = &g->ops[u];
		mg->vtime[v] += op->time_us;
		mg->vmem[v] += (double)op->param_bytes +
			       (double)op->output_bytes +
			       (double)op->temp_bytes;
	}
	mg->nv = nv;
	free(pin_v);
	free(grp_v);
	return 0;
}

/* Undirected, merged, weighted adjacency in CSR form for METIS. */
static int build_adjacency(const dp_graph *g, const dp_machine *cost,
			   mgraph *mg)
{
	uint32_t np = 0;
	mg->pairs = malloc(((size_t)g->nedges + 1) * sizeof *mg->pairs);
	mg->xadj = calloc((size_t)mg->nv + 1, sizeof *mg->xadj);
	if (!mg->pairs || !mg->xadj)
		return -1;
	double total = 0;
	for (uint32_t e = 0; e < g->nedges; e++) {
		const dp_edge *ed = &g->edges[e];
		idx_t a = (idx_t)mg->vmap[ed->from],
		      b = (idx_t)mg->vmap[ed->to];
		if (a == b)
			continue;
		double w = cost ? dp_machine_comm(cost, 0, 1, ed->bytes)
			   : ed->control ? 0.0
					 : (double)ed->bytes;
		mg->pairs[np++] = (epair){a < b ? a : b, a < b ? b : a, w};
	}
	qsort(mg->pairs, np, sizeof *mg->pairs, epair_cmp);
	uint32_t m = 0;
	for (uint32_t i = 0; i < np; i++) {
		if (m && mg->pairs[m - 1].a == mg->pairs[i].a &&
		    mg->pairs[m - 1].b == mg->pairs[i].b)
			mg->pairs[m - 1].w += mg->pairs[i].w;
		else
			mg->pairs[m++] = mg->pairs[i];
	}
	for (uint32_t i = 0; i < m; i++) {
		total += 2 * mg->pairs[i].w;
		mg->xadj[mg->pairs[i].a + 1]++;
		mg->xadj[mg->pairs[i].b + 1]++;
	}
	for (idx_t v = 0; v < mg->nv; v++)
		mg->xadj[v + 1] += mg->xadj[v];
	size_t nadj = (size_t)mg->xadj[mg->nv];
	mg->adjncy = malloc((nadj + 1) * sizeof *mg->adjncy);
	mg->adjwgt = malloc((nadj + 1) * sizeof *mg->adjwgt);
	idx_t *fill = malloc(((size_t)mg->nv + 1) * sizeof *fill);
	if (!mg->adjncy || !mg->adjwgt || !fill) {
		free(fill);
		return -1;
	}
	memcpy(fill, mg->xadj, (size_t)mg->nv * sizeof *fill);
	/* bytes scaled so that the sum over both directions fits idx_t with
	 * room to spare; every edge weighs at least 1 */
	double scale = total > EWGT_TOTAL ? total / EWGT_TOTAL : 1.0;
	for (uint32_t i = 0; i < m; i++) {
		double w = floor(mg->pairs[i].w / scale + 0.5);
		idx_t iw = w < 1 ? 1 : (idx_t)w;
		idx_t a = mg->pairs[i].a, b = mg->pairs[i].b;
		mg->adjncy[fill[a]] = b;
		mg->adjwgt[fill[a]++] = iw;
		mg->adjncy[fill[b]] = a;
		mg->adjwgt[fill[b]++] = iw;
	}
	free(fill);
	return 0;
}

/* Integer vertex weights, ncon per vertex: each constraint scaled to a
 * total of VWGT_SCALE (all ones when a constraint is zero everywhere, which
 * METIS rejects). */
static int vertex_weights(mgraph *mg, int ncon)
{
	mg->vwgt = malloc(((size_t)mg->nv * 2 + 1) * sizeof *mg->vwgt);
	if (!mg->vwgt)
		return -1;
	for (int c = 0; c < ncon; c++) {
		const double *x = c == 0 ? mg->vtime : mg->vmem;
		double total = 0;
		for (idx_t v = 0; v < mg->nv; v++)
			total += x[v];
		for (idx_t v = 0; v < mg->nv; v++)
			mg->vwgt[ncon * v + c] =
				total > 0 ? (idx_t)floor(x[v] / total *
								 VWGT_SCALE +
							 0.5)
					  : 1;
	}
	return 0;
}

/* Vertex weights for nwin time windows (see the top of the file): window w
 * of a vertex holds the time of its ops whose compute-only top-level
 * interval has its middle in [w, w + 1) * cp / nwin; each window scaled to
 * VWGT_SCALE (all ones for an empty window). */
static int window_weights(const dp_graph *g, mgraph *mg, int nwin, int k)
{
	uint32_t n = g->nops;
	double *tl = calloc((size_t)n + 1, sizeof *tl);
	double *x = calloc((size_t)mg->nv * (size_t)nwin + 1, sizeof *x);
	mg->vwgt = malloc(((size_t)mg->nv * (size_t)nwin + 1) *
			  sizeof *mg->vwgt);
	if (!tl || !x || !mg->vwgt) {
		free(tl);
		free(x);
		return -1;
	}
	double cp = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t u = g->topo[i];
		for (uint32_t j = g->pred_off[u]; j < g->pred_off[u + 1]; j++) {
			uint32_t q = g->edges[g->pred_edge[j]].from;
			double f = tl[q] + g->ops[q].time_us;
			if (f > tl[u])
				tl[u] = f;
		}
		if (tl[u] + g->ops[u].time_us > cp)
			cp = tl[u] + g->ops[u].time_us;
	}
	for (uint32_t u = 0; u < n; u++) {
		double mid = tl[u] + g->ops[u].time_us / 2;
		int w = cp > 0 ? (int)(mid / cp * nwin) : 0;
		if (w >= nwin)
			w = nwin - 1;
		x[(size_t)mg->vmap[u] * (size_t)nwin + (size_t)w] +=
			g->ops[u].time_us;
	}
	for (int w = 0; w < nwin; w++) {
		double total = 0;
		for (idx_t v = 0; v < mg->nv; v++)
			total += x[(size_t)v * (size_t)nwin + (size_t)w];
		/* between 1 and one part's share: libmetis's
		 * multi-constraint bisection prints "Cannot bisect a graph
		 * with 0 vertices" and "too many parts" to stdout when a
		 * constraint leaves most vertices weightless or one vertex
		 * holds more of a window than a part may (lstm-lm, K=8 and
		 * 32); a clipped heavy op is still whole in one part, and the
		 * simulator judges the seed */
		for (idx_t v = 0; v < mg->nv; v++) {
			size_t i = (size_t)v * (size_t)nwin + (size_t)w;
			idx_t wt = total > 0 ? (idx_t)floor(x[i] / total *
								VWGT_SCALE +
							    0.5)
					     : 1;
			idx_t top = (idx_t)(VWGT_SCALE / (double)k);
			if (wt > top)
				wt = top;
			mg->vwgt[i] = wt < 1 ? 1 : wt;
		}
	}
	free(tl);
	free(x);
	return 0;
}

/* Whether memory is a constraint: some device has a finite cap. Without
 * one, balancing memory would only fight the time balance. */
static bool any_cap(const dp_machine *m)
{
	for (int d = 0; d < m->k; d++)
		if (m->cap[d] != DP_CAP_UNLIMITED)
			return true;
	return false;
}

/* Target share of each part per constraint: speeds for time, caps for
 * memory (an unlimited cap counts as the largest finite one; equal shares
 * when every cap is 0). */
static void target_shares(const dp_machine *m, int ncon, bool all_time,
			  real_t *tp)
{
	int k = m->k;
	double ssum = dp_machine_sum_speed(m), csum = 0, cmax = 0;
	for (int d = 0; d < k; d++)
		if (m->cap[d] != DP_CAP_UNLIMITED && (double)m->cap[d] > cmax)
			cmax = (double)m->cap[d];
	for (int d = 0; d < k; d++)
		csum += m->cap[d] == DP_CAP_UNLIMITED ? cmax
						      : (double)m->cap[d];
	for (int c = 0; c < ncon; c++) {
		double left = 1.0;
		for (int d = 0; d < k; d++) {
			double cap = m->cap[d] == DP_CAP_UNLIMITED
					     ? cmax
					     : (double)m->cap[d];
			double s = c == 0 || all_time ? m->speed[d] / ssum
				   : csum > 0 ? cap / csum
					      : 1.0 / k;
			/* a zero share makes METIS refuse the input */
			if (s < 1e-6)
				s = 1e-6;
			if (d == k - 1)
				s = left > 1e-6 ? left : 1e-6;
			tp[ncon * d + c] = (real_t)s;
			left -= (double)tp[ncon * d + c];
		}
	}
}

/* Renames parts so that pinned vertices land on their devices: pinned
 * vertices in decreasing time weight claim (part, device) when both are
 * free; other parts keep their order on the devices left. */
static void map_parts(const mgraph *mg, const idx_t *part, int k,
		      int32_t *to_dev)
{
	int32_t *owner = malloc((size_t)k * sizeof *owner);
	idx_t *pins = malloc(((size_t)mg->nv + 1) * sizeof *pins);
	for (int p = 0; p < k; p++)
		to_dev[p] = -1;
	if (!owner || !pins) {
		for (int p = 0; p < k; p++)
			to_dev[p] = p;
		free(owner);
		free(pins);
		return;
	}
	for (int d = 0; d < k; d++)
		owner[d] = -1;
	idx_t npins = 0;
	for (idx_t v = 0; v < mg->nv; v++)
		if (mg->vpin[v] >= 0)
			pins[npins++] = v;
	/* at most k pinned vertices: a selection sort is plenty */
	for (idx_t i = 0; i < npins; i++) {
		idx_t best = i;
		for (idx_t j = i + 1; j < npins; j++)
			if (mg->vtime[pins[j]] > mg->vtime[pins[best]])
				best = j;
		idx_t t = pins[i];
		pins[i] = pins[best];
		pins[best] = t;
		idx_t p = part[pins[i]];
		int32_t d = mg->vpin[pins[i]];
		if (to_dev[p] < 0 && owner[d] < 0) {
			to_dev[p] = d;
			owner[d] = (int32_t)p;
		}
	}
	int d = 0;
	for (int p = 0; p < k; p++) {
		if (to_dev[p] >= 0)
			continue;
		while (owner[d] >= 0)
			d++;
		to_dev[p] = d;
		owner[d] = p;
	}
	free(owner);
	free(pins);
}

/* The partition of g on m into placement: the classic constraints (time,
 * and memory with caps) when nwin is 0, else nwin time windows. */
static dp_status metis_place(const dp_graph *g, const dp_machine *m,
			     const dp_progress *p, int nwin, int32_t *placement,
			     dp_err *err)
{
	dp_status st = DP_OK;
	int k = m->k;
	mgraph mg = {0};
	ls_cons cons;
	if ((st = dpi_ls_cons_init(&cons, g, err)))
		return st;
	idx_t *part = NULL;
	real_t *tp = NULL, *ubvec = NULL;
	int32_t *to_dev = NULL;
	dp_progress_report(p, "metis", 0.0);
	if (contract(g, &cons, k, &mg))
		goto nomem;
	part = malloc(((size_t)mg.nv + 1) * sizeof *part);
	to_dev = malloc((size_t)k * sizeof *to_dev);
	if (!part || !to_dev)
		goto nomem;
	if (k == 1 || mg.nv <= k) {
		/* nothing for METIS to do (it refuses nparts > nvtxs): one
		 * vertex per part */
		for (idx_t v = 0; v < mg.nv; v++)
			part[v] = k == 1 ? 0 : v;
	} else {
		idx_t ncon = nwin > 0 ? nwin : any_cap(m) ? 2 : 1;
		if (build_adjacency(g, nwin > 0 ? m : NULL, &mg) ||
		    (nwin > 0 ? window_weights(g, &mg, nwin, k)
			      : vertex_weights(&mg, (int)ncon)))
			goto nomem;
		tp = malloc((size_t)k * (size_t)ncon * sizeof *tp);
		ubvec = malloc((size_t)ncon * sizeof *ubvec);
		if (!tp || !ubvec)
			goto nomem;
		target_shares(m, (int)ncon, nwin > 0, tp);
		ubvec[0] = nwin > 0 ? 1.10f : 1.05f;
		for (idx_t c = 1; c < ncon; c++)
			ubvec[c] = 1.10f;
		if (dp_progress_canceled(p)) {
			st = dpi_canceled(err, nwin ? "pardnn" : "metis");
			goto out;
		}
		dp_progress_report(p, "metis", 0.2);
		idx_t options[METIS_NOPTIONS];
		METIS_SetDefaultOptions(options);
		options[METIS_OPTION_SEED] = 1;
		options[METIS_OPTION_NUMBERING] = 0;
		idx_t nv = mg.nv, nparts = k, objval = 0;
		/* libmetis prints "Cannot bisect a graph with 0 vertices" and
		 * "too many parts" to stdout (over the explorer's screen) when
		 * a part would get fewer than a handful of vertices (seen on
		 * 70 vertices into 16 parts); a tiny graph then uses fewer,
		 * equal parts, and the extra devices stay empty */
		real_t *shares = tp;
		/* the windows' multi-constraint bisection needs more per part
		 * (418 ops into 32 parts of 4 windows printed) */
		idx_t minv = METIS_MIN_VERTICES_PER_PART * (nwin > 0 ? ncon : 1);
		if (nv < minv * k) {
			nparts = nv / minv;
			if (nparts < 2)
				nparts = 2;
			shares = NULL;
		}
		int rc = METIS_PartGraphKway(&nv, &ncon, mg.xadj, mg.adjncy,
					     mg.vwgt, NULL, mg.adjwgt, &nparts,
					     shares, ubvec, options, &objval,
					     part);
		if (rc != METIS_OK) {
			/* METIS's own allocation failed: say so, as
			 * every out-of-memory message does */
			st = dp_err_set(
				err,
				rc == METIS_ERROR_MEMORY ? DP_ENOMEM
							 : DP_EINTERNAL,
				NULL, 0, 0,
				"METIS_PartGraphKway failed (code %d%s) "
				"on %ld vertices into %d parts",
				rc,
				rc == METIS_ERROR_MEMORY ? ": out of memory"
							 : "",
				(long)nv, k);
			goto out;
		}
	}
	if (dp_progress_canceled(p)) {
		st = dpi_canceled(err, nwin ? "pardnn" : "metis");
		goto out;
	}
	map_parts(&mg, part, k, to_dev);
	for (uint32_t u = 0; u < g->nops; u++) {
		placement[u] = to_dev[part[mg.vmap[u]]];
		if (cons.forced[u] >= 0)
			placement[u] = cons.forced[u];
	}
	dp_progress_report(p, "metis", 1.0);
	goto out;
nomem:
	st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
			"out of memory preparing %u ops for METIS", g->nops);
out:
	dpi_ls_cons_free(&cons);
	mgraph_free(&mg);
	free(part);
	free(tp);
	free(ubvec);
	free(to_dev);
	return st;
}

static dp_status metis_run(const dp_graph *g, const dp_machine *m,
			   const dp_algo_opts *o, const dp_progress *p,
			   int32_t *placement, dp_err *err)
{
	(void)o;
	return metis_place(g, m, p, 0, placement, err);
}

dp_status dpi_metis_windows(const dp_graph *g, const dp_machine *m, int nwin,
			    int32_t *placement, dp_err *err)
{
	return metis_place(g, m, NULL, nwin < 1 ? 1 : nwin, placement, err);
}

DPI_ALGO_DEFINE(metis,
		"METIS k-way min edge cut, time and memory balanced "
		"(ignores direction and time order)",
		"Karypis and Kumar, SIAM J. Sci. Comput. 1998 (libmetis 5)",
		metis_run);
