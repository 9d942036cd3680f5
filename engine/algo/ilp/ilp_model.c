/* ilp_model.c - the MILP of ilp: placement and start times (see ilp.h and
 * docs/algorithms.md, "ilp", which states every row).
 *
 * A disjunctive (precedence + big-M order) formulation, not a time-indexed
 * one: binaries x[unit][d] place each colocation group (or lone op) on a
 * device, continuous S_u start each op, C is the makespan. Edges cost
 * latency + bytes / bandwidth when their ends are on different devices
 * (z_e >= x[a][d] - x[b][d]); two ops that may share a device and are not
 * ordered by a path get an order binary and two big-M rows, active only
 * when they do share one (s >= x[a][d] + x[b][d] - 1). Memory: on a device
 * with a cap, the params, outputs and temps of its ops and the copies it
 * receives (r[u][d] >= x[b][d] - x[a][d]) add up to at most the cap: a
 * conservative bound of the simulator's time-resolved peak.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/arrays.h"
#include "internal/ilp.h"

#define NOMEM(err)                                                             \
	dp_err_set(err, DP_ENOMEM, NULL, 0, 0,                                 \
		   "out of memory while building the MILP")

/* ---- what the model needs from the graph ---- */

/* Bytes of u's output as the simulator counts them: the larger of its
 * output_bytes and its largest data out-edge; copy: the largest data
 * out-edge (what a transfer of u carries at most). */
static int64_t out_bytes(const dp_graph *g, uint32_t u, int64_t *copy)
{
	int64_t big = 0;
	for (uint32_t i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
		const dp_edge *e = &g->edges[g->succ_edge[i]];
		if (!e->control && e->bytes > big)
			big = e->bytes;
	}
	*copy = big;
	return g->ops[u].output_bytes > big ? g->ops[u].output_bytes : big;
}

static double edge_comm(const dp_graph *g, const dp_machine *m, uint32_t e)
{
	const dp_edge *ed = &g->edges[e];
	return dp_machine_comm(m, 0, 1, ed->control ? 0 : ed->bytes);
}

bool dpi_ilp_mem_ok(const dp_graph *g, const dp_machine *m, const int32_t *pl)
{
	for (int d = 0; d < m->k; d++) {
		if (m->cap[d] == DP_CAP_UNLIMITED)
			continue;
		/* a finalized graph's bytes add up to less than 2^52 */
		int64_t sum = 0;
		for (uint32_t u = 0; u < g->nops; u++) {
			int64_t copy, out = out_bytes(g, u, &copy);
			if (pl[u] == d) {
				sum += g->ops[u].param_bytes + out +
				       g->ops[u].temp_bytes;
				continue;
			}
			for (uint32_t i = g->succ_off[u];
			     i < g->succ_off[u + 1]; i++) {
				const dp_edge *e = &g->edges[g->succ_edge[i]];
				if (!e->control && pl[e->to] == d) {
					sum += copy;
					break;
				}
			}
		}
		if (sum > m->cap[d])
			return false;
	}
	return true;
}

/* Units: a colocation group is one unit, every other op its own; units are
 * numbered in the topological order of their first op, so that symmetry
 * breaking ("device j is used only after device j-1") follows the
 * schedule's natural order. */
static dp_status make_units(ilp_model *md, const dp_graph *g, dp_err *err)
{
	uint32_t n = g->nops;
	md->unit_of = malloc(((size_t)n + 1) * sizeof *md->unit_of);
	uint32_t *grp_unit =
		malloc(((size_t)g->ngroups + 1) * sizeof *grp_unit);
	if (!md->unit_of || !grp_unit) {
		free(grp_unit);
		return NOMEM(err);
	}
	for (uint32_t c = 0; c < g->ngroups; c++)
		grp_unit[c] = UINT32_MAX;
	uint32_t nu = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t u = g->topo[i];
		int32_t c = g->ops[u].colocate;
		if (c < 0) {
			md->unit_of[u] = nu++;
		} else {
			if (grp_unit[c] == UINT32_MAX)
				grp_unit[c] = nu++;
			md->unit_of[u] = grp_unit[c];
		}
	}
	md->nunits = nu;
	free(grp_unit);
	return DP_OK;
}

/* Earliest start (longest compute path before u at the fastest speed) and
 * tail (longest compute path from u on, u included). */
static void levels(const dp_graph *g, const dp_machine *m, double *est,
		   double *tail)
{
	double vmax = dp_machine_max_speed(m);
	for (uint32_t i = 0; i < g->nops; i++) {
		uint32_t u = g->topo[i];
		double e = 0;
		for (uint32_t j = g->pred_off[u]; j < g->pred_off[u + 1]; j++) {
			uint32_t p = g->edges[g->pred_edge[j]].from;
			double t = est[p] + g->ops[p].time_us / vmax;
			if (t > e)
				e = t;
		}
		est[u] = e;
	}
	for (uint32_t i = g->nops; i-- > 0;) {
		uint32_t u = g->topo[i];
		double t = 0;
		for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
			uint32_t v = g->edges[g->succ_edge[j]].to;
			if (tail[v] > t)
				t = tail[v];
		}
		tail[u] = t + g->ops[u].time_us / vmax;
	}
}

/* reach[u] (bitset of nops bits): the ops reachable from u. */
static uint64_t *reachability(const dp_graph *g, size_t *words)
{
	size_t w = ((size_t)g->nops + 63) / 64;
	uint64_t *r = calloc((size_t)g->nops * w + 1, sizeof *r);
	if (!r)
		return NULL;
	for (uint32_t i = g->nops; i-- > 0;) {
		uint32_t u = g->topo[i];
		uint64_t *ru = r + (size_t)u * w;
		for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
			uint32_t v = g->edges[g->succ_edge[j]].to;
			const uint64_t *rv = r + (size_t)v * w;
			for (size_t b = 0; b < w; b++)
				ru[b] |= rv[b];
			ru[v / 64] |= (uint64_t)1 << (v % 64);
		}
	}
	*words = w;
	return r;
}

/* dur(u) as a linear expression of x: adds -scale * time / speed(d) for
 * each device, or returns the constant when the speeds are equal. */
static bool add_dur(ilp_lp *lp, const ilp_model *md, const dp_graph *g,
		    const dp_machine *m, uint32_t u, double sign, bool uniform,
		    double *constant)
{
	double t = g->ops[u].time_us * md->scale;
	if (uniform) {
		*constant += sign * t / m->speed[0];
		return true;
	}
	uint32_t a = md->unit_of[u];
	for (int d = 0; d < md->k; d++)
		if (!dpi_ilp_lp_nz(lp, md->x0 + (int)a * md->k + d,
				   -sign * t / m->speed[d]))
			return false;
	return true;
}

/* The largest duration of u over the devices, in model units. */
static double dur_max(const ilp_model *md, const dp_graph *g,
		      const dp_machine *m, uint32_t u)
{
	double smin = m->speed[0];
	for (int d = 1; d < m->k; d++)
		if (m->speed[d] < smin)
			smin = m->speed[d];
	return g->ops[u].time_us * md->scale / smin;
}

/* The horizon: a serial schedule in topological order, every op at its
 * slowest and every edge paid, is feasible for any placement that meets
 * the memory rows. */
static double serial_horizon(const dp_graph *g, const dp_machine *m)
{
	double smin = m->speed[0], h = 0;
	for (int d = 1; d < m->k; d++)
		if (m->speed[d] < smin)
			smin = m->speed[d];
	for (uint32_t u = 0; u < g->nops; u++)
		h += g->ops[u].time_us / smin;
	for (uint32_t e = 0; e < g->nedges; e++)
		h += edge_comm(g, m, e);
	return h;
}

typedef struct build {
	ilp_model *md;
	const dp_graph *g;
	const dp_machine *m;
	ilp_lp *lp;
	int32_t *pin; /* per unit */
	double *est, *tail;
	bool uniform;
	int64_t *mem_unit; /* per unit: params + outputs + temps */
	int64_t *copy;	   /* per op: largest data out-edge */
} build;

static bool add_columns(build *b)
{
	ilp_model *md = b->md;
	ilp_lp *lp = b->lp;
	int k = md->k;
	md->x0 = lp->ncols;
	for (uint32_t a = 0; a < md->nunits; a++)
		for (int d = 0; d < k; d++) {
			double hi = b->pin[a] < 0 || b->pin[a] == d ? 1 : 0;
			double lo = b->pin[a] == d ? 1 : 0;
			if (!dpi_ilp_lp_col(lp, lo, hi, 0, true, NULL))
				return false;
		}
	double ub = md->ub_us * md->scale * (1 + 1e-7) + 1e-9;
	md->s0 = lp->ncols;
	for (uint32_t u = 0; u < md->nops; u++) {
		double lo = b->est[u] * md->scale;
		double hi = ub - b->tail[u] * md->scale;
		if (hi < lo)
			hi = lo;
		if (!dpi_ilp_lp_col(lp, lo, hi, 0, false, NULL))
			return false;
	}
	dp_bounds bd;
	dp_sim_bounds(b->g, b->m, &bd);
	double lb = bd.lb_us * md->scale * (1 - 1e-9);
	return dpi_ilp_lp_col(lp, lb < ub ? lb : 0, ub, 1, false, &md->cmax);
}

/* Each unit on exactly one device. */
static bool add_assign(build *b)
{
	ilp_model *md = b->md;
	for (uint32_t a = 0; a < md->nunits; a++) {
		for (int d = 0; d < md->k; d++)
			if (!dpi_ilp_lp_nz(b->lp, md->x0 + (int)a * md->k + d,
					   1))
				return false;
		if (!dpi_ilp_lp_row_end(b->lp, 1, 1))
			return false;
	}
	return true;
}

/* Precedence with communication on cut edges, and C after every sink. */
static bool add_precedence(build *b)
{
	ilp_model *md = b->md;
	const dp_graph *g = b->g;
	ilp_lp *lp = b->lp;
	int k = md->k;
	for (uint32_t e = 0; e < g->nedges; e++) {
		uint32_t u = g->edges[e].from, v = g->edges[e].to;
		uint32_t a = md->unit_of[u], bb = md->unit_of[v];
		bool may_cut =
			a != bb && !(b->pin[a] >= 0 && b->pin[a] == b->pin[bb]);
		bool cut = may_cut && b->pin[a] >= 0 && b->pin[bb] >= 0;
		double c = edge_comm(g, b->m, e) * md->scale;
		int z = -1;
		if (may_cut && !cut) {
			if (!dpi_ilp_lp_col(lp, 0, 1, 0, false, &z))
				return false;
			/* z >= x[a][d] - x[b][d] */
			for (int d = 0; d < k; d++) {
				if (!dpi_ilp_lp_nz(lp, z, 1) ||
				    !dpi_ilp_lp_nz(lp, md->x0 + (int)a * k + d,
						   -1) ||
				    !dpi_ilp_lp_nz(lp, md->x0 + (int)bb * k + d,
						   1) ||
				    !dpi_ilp_lp_row_end(lp, 0, INFINITY))
					return false;
			}
		}
		/* S_v - S_u - dur(u) - c z >= 0 */
		double rhs = 0;
		if (!dpi_ilp_lp_nz(lp, md->s0 + (int)v, 1) ||
		    !dpi_ilp_lp_nz(lp, md->s0 + (int)u, -1) ||
		    !add_dur(lp, md, g, b->m, u, 1, b->uniform, &rhs))
			return false;
		if (z >= 0 && !dpi_ilp_lp_nz(lp, z, -c))
			return false;
		if (cut)
			rhs += c;
		if (!dpi_ilp_lp_row_end(lp, rhs, INFINITY))
			return false;
	}
	for (uint32_t u = 0; u < g->nops; u++) {
		if (g->succ_off[u + 1] > g->succ_off[u])
			continue;
		double rhs = 0;
		if (!dpi_ilp_lp_nz(lp, md->cmax, 1) ||
		    !dpi_ilp_lp_nz(lp, md->s0 + (int)u, -1) ||
		    !add_dur(lp, md, g, b->m, u, 1, b->uniform, &rhs) ||
		    !dpi_ilp_lp_row_end(lp, rhs, INFINITY))
			return false;
	}
	return true;
}

/* Load: a device runs its ops one at a time, so the makespan is at least
 * the work placed on it: C >= sum_u dur_d(u) x[a(u)][d]. Implied by the
 * disjunctions once every binary is integral, but the LP relaxation of
 * the big-M rows says nothing until then; these rows give branch and
 * bound its bound as soon as a few units are placed. */
static bool add_load(build *b)
{
	ilp_model *md = b->md;
	const dp_graph *g = b->g;
	int k = md->k;
	for (int d = 0; d < k; d++) {
		if (!dpi_ilp_lp_nz(b->lp, md->cmax, 1))
			return false;
		/* a unit's ops add up: one coefficient per unit */
		double *w = calloc((size_t)md->nunits + 1, sizeof *w);
		if (!w)
			return false;
		for (uint32_t u = 0; u < g->nops; u++)
			w[md->unit_of[u]] +=
				g->ops[u].time_us * md->scale / b->m->speed[d];
		bool ok = true;
		for (uint32_t a = 0; a < md->nunits && ok; a++)
			ok = dpi_ilp_lp_nz(b->lp, md->x0 + (int)a * k + d,
					   -w[a]);
		free(w);
		if (!ok || !dpi_ilp_lp_row_end(b->lp, 0, INFINITY))
			return false;
	}
	return true;
}

/* One-at-a-time on a device: for each pair (u before v in topological
 * order) that no path orders and that may share a device, an order binary
 * o (1: u first) and a same-device indicator s:
 *   S_v >= S_u + dur(u) - M (1 - o) - M (1 - s)
 *   S_u >= S_v + dur(v) - M o - M (1 - s)
 * with M the largest S_u + dur(u) - S_v the bounds of the starts allow
 * (no optimal schedule runs anything past the horizon). */
static bool add_pair(build *b, uint32_t u, uint32_t v)
{
	ilp_model *md = b->md;
	ilp_lp *lp = b->lp;
	int k = md->k;
	uint32_t a = md->unit_of[u], bb = md->unit_of[v];
	double ub = md->ub_us * md->scale * (1 + 1e-7) + 1e-9;
	/* M: the most S_u + dur(u) - S_v can be, from the bounds of S */
	double sc = md->scale;
	double hu = fmax(ub - b->tail[u] * sc, b->est[u] * sc);
	double hv = fmax(ub - b->tail[v] * sc, b->est[v] * sc);
	double mv = fmax(0, hu + dur_max(md, b->g, b->m, u) - b->est[v] * sc);
	double mu = fmax(0, hv + dur_max(md, b->g, b->m, v) - b->est[u] * sc);
	int o, s = -1;
	if (!dpi_ilp_lp_col(lp, 0, 1, 0, true, &o))
		return false;
	bool same = a == bb || (b->pin[a] >= 0 && b->pin[a] == b->pin[bb]);
	if (!same) {
		if (!dpi_ilp_lp_col(lp, 0, 1, 0, false, &s))
			return false;
		/* s >= x[a][d] + x[b][d] - 1 */
		for (int d = 0; d < k; d++)
			if (!dpi_ilp_lp_nz(lp, s, 1) ||
			    !dpi_ilp_lp_nz(lp, md->x0 + (int)a * k + d, -1) ||
			    !dpi_ilp_lp_nz(lp, md->x0 + (int)bb * k + d, -1) ||
			    !dpi_ilp_lp_row_end(lp, -1, INFINITY))
				return false;
	}
	/* S_v - S_u - dur(u) - M o - M s >= -2M (s = 1 when same) */
	double rhs = same ? -mv : -2 * mv;
	if (!dpi_ilp_lp_nz(lp, md->s0 + (int)v, 1) ||
	    !dpi_ilp_lp_nz(lp, md->s0 + (int)u, -1) ||
	    !add_dur(lp, md, b->g, b->m, u, 1, b->uniform, &rhs) ||
	    !dpi_ilp_lp_nz(lp, o, -mv) ||
	    (s >= 0 && !dpi_ilp_lp_nz(lp, s, -mv)) ||
	    !dpi_ilp_lp_row_end(lp, rhs, INFINITY))
		return false;
	/* S_u - S_v - dur(v) + M o - M s >= -M */
	rhs = same ? 0 : -mu;
	if (!dpi_ilp_lp_nz(lp, md->s0 + (int)u, 1) ||
	    !dpi_ilp_lp_nz(lp, md->s0 + (int)v, -1) ||
	    !add_dur(lp, md, b->g, b->m, v, 1, b->uniform, &rhs) ||
	    !dpi_ilp_lp_nz(lp, o, mu) ||
	    (s >= 0 && !dpi_ilp_lp_nz(lp, s, -mu)) ||
	    !dpi_ilp_lp_row_end(lp, rhs, INFINITY))
		return false;
	ilp_pair *np =
		realloc(md->pairs, ((size_t)md->npairs + 1) * sizeof *np);
	if (!np)
		return false;
	md->pairs = np;
	md->pairs[md->npairs++] = (ilp_pair){u, v, o};
	return true;
}

static bool add_disjunctive(build *b, const uint64_t *reach, size_t w)
{
	const dp_graph *g = b->g;
	for (uint32_t i = 0; i < g->nops; i++) {
		uint32_t u = g->topo[i];
		const uint64_t *ru = reach + (size_t)u * w;
		uint32_t a = b->md->unit_of[u];
		for (uint32_t j = i + 1; j < g->nops; j++) {
			uint32_t v = g->topo[j];
			if (ru[v / 64] >> (v % 64) & 1)
				continue; /* a path orders them */
			if (g->ops[u].time_us == 0 && g->ops[v].time_us == 0)
				continue; /* any order works */
			uint32_t bb = b->md->unit_of[v];
			if (b->pin[a] >= 0 && b->pin[bb] >= 0 &&
			    b->pin[a] != b->pin[bb])
				continue; /* never on one device */
			if (!add_pair(b, u, v))
				return false;
		}
	}
	return true;
}

/* Memory rows, scaled by the cap: on device d,
 *   sum_a mem(a) x[a][d] + sum_u copy(u) r[u][d] <= cap(d),
 *   r[u][d] >= x[unit(v)][d] - x[unit(u)][d] for each data consumer v. */
static bool add_memory(build *b)
{
	ilp_model *md = b->md;
	const dp_graph *g = b->g;
	ilp_lp *lp = b->lp;
	int k = md->k;
	int64_t total = 0;
	for (uint32_t a = 0; a < md->nunits; a++)
		total += b->mem_unit[a];
	for (uint32_t u = 0; u < g->nops; u++)
		total += b->copy[u];
	for (int d = 0; d < k; d++) {
		int64_t cap = b->m->cap[d];
		if (cap == DP_CAP_UNLIMITED || total <= cap)
			continue;
		double div = cap > 0 ? (double)cap : 1.0;
		/* the copies first: their columns and linking rows */
		int *rcol = malloc(((size_t)g->nops + 1) * sizeof *rcol);
		if (!rcol)
			return false;
		for (uint32_t u = 0; u < g->nops; u++) {
			rcol[u] = -1;
			uint32_t a = md->unit_of[u];
			for (uint32_t i = g->succ_off[u];
			     i < g->succ_off[u + 1]; i++) {
				const dp_edge *e = &g->edges[g->succ_edge[i]];
				uint32_t bb = md->unit_of[e->to];
				if (e->control || bb == a)
					continue;
				if (rcol[u] < 0) {
					if (!dpi_ilp_lp_col(lp, 0, 1, 0, false,
							    &rcol[u])) {
						free(rcol);
						return false;
					}
				}
				if (!dpi_ilp_lp_nz(lp, rcol[u], 1) ||
				    !dpi_ilp_lp_nz(lp, md->x0 + (int)bb * k + d,
						   -1) ||
				    !dpi_ilp_lp_nz(lp, md->x0 + (int)a * k + d,
						   1) ||
				    !dpi_ilp_lp_row_end(lp, 0, INFINITY)) {
					free(rcol);
					return false;
				}
			}
		}
		bool ok = true;
		for (uint32_t a = 0; a < md->nunits && ok; a++)
			ok = dpi_ilp_lp_nz(lp, md->x0 + (int)a * k + d,
					   (double)b->mem_unit[a] / div);
		for (uint32_t u = 0; u < g->nops && ok; u++)
			if (rcol[u] >= 0)
				ok = dpi_ilp_lp_nz(lp, rcol[u],
						   (double)b->copy[u] / div);
		free(rcol);
		if (!ok ||
		    !dpi_ilp_lp_row_end(lp, -INFINITY, cap > 0 ? 1.0 : 0.0))
			return false;
		md->mem_rows++;
	}
	return true;
}

/* Symmetry: devices with the same speed and cap and no pinned unit are
 * interchangeable. Within such a class c_0 < c_1 < ..., device c_j takes
 * unit i only when c_{j-1} already holds a unit before i:
 *   x[i][c_j] <= sum_{i' < i} x[i'][c_{j-1}]
 * (any solution can be relabelled so: order the class's devices by their
 * first unit). */
static bool add_symmetry(build *b)
{
	ilp_model *md = b->md;
	const dp_machine *m = b->m;
	int k = md->k;
	bool *pinned = calloc((size_t)k, sizeof *pinned);
	bool *done = calloc((size_t)k, sizeof *done);
	int *cls = malloc((size_t)k * sizeof *cls);
	bool ok = pinned && done && cls;
	for (uint32_t a = 0; ok && a < md->nunits; a++)
		if (b->pin[a] >= 0)
			pinned[b->pin[a]] = true;
	for (int d0 = 0; ok && d0 < k; d0++) {
		if (done[d0] || pinned[d0])
			continue;
		int n = 0;
		for (int d = d0; d < k; d++)
			if (!done[d] && !pinned[d] &&
			    m->speed[d] == m->speed[d0] &&
			    m->cap[d] == m->cap[d0]) {
				cls[n++] = d;
				done[d] = true;
			}
		if (n < 2)
			continue;
		md->sym_classes++;
		for (int j = 1; ok && j < n; j++)
			for (uint32_t i = 0; ok && i < md->nunits; i++) {
				ok = dpi_ilp_lp_nz(
					b->lp, md->x0 + (int)i * k + cls[j], 1);
				for (uint32_t i2 = 0; ok && i2 < i; i2++)
					ok = dpi_ilp_lp_nz(b->lp,
							   md->x0 +
								   (int)i2 * k +
								   cls[j - 1],
							   -1);
				ok = ok &&
				     dpi_ilp_lp_row_end(b->lp, -INFINITY, 0);
			}
	}
	free(pinned);
	free(done);
	free(cls);
	return ok;
}

dp_status dpi_ilp_build(ilp_model *md, const dp_graph *g, const dp_machine *m,
			const int32_t *warm, double warm_us, dp_err *err)
{
	memset(md, 0, sizeof *md);
	md->k = m->k;
	md->nops = g->nops;
	dp_status st = make_units(md, g, err);
	if (st)
		return st;
	build b = {.md = md, .g = g, .m = m, .lp = &md->lp};
	size_t n1 = (size_t)g->nops + 1;
	b.pin = malloc(((size_t)md->nunits + 1) * sizeof *b.pin);
	b.est = malloc(n1 * sizeof *b.est);
	b.tail = malloc(n1 * sizeof *b.tail);
	b.mem_unit = calloc((size_t)md->nunits + 1, sizeof *b.mem_unit);
	b.copy = malloc(n1 * sizeof *b.copy);
	size_t w = 0;
	uint64_t *reach = reachability(g, &w);
	if (!b.pin || !b.est || !b.tail || !b.mem_unit || !b.copy || !reach)
		goto nomem;
	for (uint32_t a = 0; a < md->nunits; a++)
		b.pin[a] = -1;
	for (uint32_t u = 0; u < g->nops; u++) {
		uint32_t a = md->unit_of[u];
		if (g->ops[u].pin >= 0)
			b.pin[a] = g->ops[u].pin;
		b.mem_unit[a] += g->ops[u].param_bytes + g->ops[u].temp_bytes +
				 out_bytes(g, u, &b.copy[u]);
	}
	b.uniform = true;
	for (int d = 1; d < m->k; d++)
		b.uniform = b.uniform && m->speed[d] == m->speed[0];
	levels(g, m, b.est, b.tail);
	md->ub_us = serial_horizon(g, m);
	if (warm && warm_us < md->ub_us && dpi_ilp_mem_ok(g, m, warm))
		md->ub_us = warm_us;
	md->scale = md->ub_us > 0 ? 1000.0 / md->ub_us : 1.0;
	if (!add_columns(&b) || !add_assign(&b) || !add_precedence(&b) ||
	    !add_load(&b) || !add_disjunctive(&b, reach, w) ||
	    !add_memory(&b) || !add_symmetry(&b))
		goto nomem;
	DPI_FREE_ALL(b.pin, b.est, b.tail, b.mem_unit, b.copy, reach);
	return DP_OK;
nomem:
	DPI_FREE_ALL(b.pin, b.est, b.tail, b.mem_unit, b.copy, reach);
	dpi_ilp_free(md);
	return NOMEM(err);
}

void dpi_ilp_free(ilp_model *md)
{
	dpi_ilp_lp_free(&md->lp);
	free(md->unit_of);
	free(md->pairs);
	memset(md, 0, sizeof *md);
}

int dpi_ilp_start(const ilp_model *md, const int32_t *pl, const double *start,
		  const double *end, int *cols, double *vals)
{
	int n = 0;
	/* x: every unit's columns once (the ops of a group share a device) */
	int32_t *dev = malloc(((size_t)md->nunits + 1) * sizeof *dev);
	if (!dev)
		return -1;
	for (uint32_t u = 0; u < md->nops; u++)
		dev[md->unit_of[u]] = pl[u];
	for (uint32_t a = 0; a < md->nunits; a++)
		for (int d = 0; d < md->k; d++) {
			cols[n] = md->x0 + (int)a * md->k + d;
			vals[n++] = dev[a] == d ? 1.0 : 0.0;
		}
	free(dev);
	for (uint32_t i = 0; i < md->npairs; i++) {
		const ilp_pair *p = &md->pairs[i];
		cols[n] = p->ord;
		vals[n++] = end[p->u] <= start[p->v] ? 1.0 : 0.0;
	}
	return n;
}

void dpi_ilp_placement(const ilp_model *md, const double *sol, int32_t *pl)
{
	for (uint32_t u = 0; u < md->nops; u++) {
		int base = md->x0 + (int)md->unit_of[u] * md->k, best = 0;
		for (int d = 1; d < md->k; d++)
			if (sol[base + d] > sol[base + best])
				best = d;
		pl[u] = best;
	}
}
