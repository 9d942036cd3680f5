/* pase_model.c - the configurations of every op and their costs for the
 * `pase` search (internal/pase.h; docs/algorithms.md#pase).
 *
 * The mesh: K's prime factors in ascending order, the smallest two merged
 * while there are more than DP_MAX_MESH_AXES (32 = [2,2,2,4]). A
 * configuration of an op with dims gives each mesh axis to one dim or to
 * none, in dim order (axis a's dim <= axis a+1's), so that one vector of
 * parts per dim has one layout; parts must divide their dim. An op without
 * dims is replicated, or, when its role allows (as dp does), split along
 * the batch on the whole mesh. A pinned op stays whole on its pin (priced
 * as a replica). Configs whose shard memory exceeds the smallest device
 * cap are pruned (an op with none left keeps its smallest one: the result
 * is then infeasible, and says so); then at most DPI_PASE_MAX_CFGS are
 * kept: the replica and data parallelism's config (the batch alone, split
 * into the most parts that divide it) when they exist, then the
 * cheapest by the local estimate (shard time plus, for a split reduction
 * dim, the all-reduce of the output block), ties in enumeration order.
 */
#include "internal/pase.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/spmd.h"

#define PORTS_MAX DPI_PASE_PORTS_MAX

static dp_status nomem(dp_err *err)
{
	return dp_err_set(err, DP_ENOMEM, NULL, 0, 0, "pase: out of memory");
}

static void make_mesh(dpi_pase_model *pm, int k)
{
	int f[32], n = 0;
	for (int p = 2; k > 1 && n < 32;) {
		if (k % p == 0) {
			f[n++] = p;
			k /= p;
		} else {
			p++;
		}
	}
	while (n > DP_MAX_MESH_AXES) { /* merge the two smallest */
		f[1] *= f[0];
		memmove(f, f + 1, (size_t)(n - 1) * sizeof f[0]);
		n--;
		for (int i = 1; i < n && f[i - 1] > f[i]; i++) {
			int t = f[i];
			f[i] = f[i - 1];
			f[i - 1] = t;
		}
	}
	if (n == 0)
		f[n++] = 1;
	pm->naxes = n;
	pm->size = 1;
	for (int a = n - 1; a >= 0; a--) {
		pm->mesh[a] = f[a];
		pm->stride[a] = pm->size;
		pm->size *= f[a];
	}
}

static int mask_parts(const dpi_pase_model *pm, uint8_t mask)
{
	int n = 1;
	for (int a = 0; a < pm->naxes; a++)
		if (mask & (1u << a))
			n *= pm->mesh[a];
	return n;
}

static int mask_part(const dpi_pase_model *pm, uint8_t mask, int d)
{
	int q = 0;
	for (int a = 0; a < pm->naxes; a++)
		if (mask & (1u << a))
			q = q * pm->mesh[a] + (d / pm->stride[a]) % pm->mesh[a];
	return q;
}

/* Does op u's output live until the backward pass reads it (an
 * activation)? Outputs of backward, grad and update ops are transient;
 * ops without roles count as kept. */
static bool kept_output(const dp_graph *g, uint32_t u)
{
	dp_role r = dp_op_role(g, u);
	return r != DP_ROLE_BACKWARD && r != DP_ROLE_GRAD &&
	       r != DP_ROLE_UPDATE;
}

/* Shard time, shard memory, what a device keeps and the local estimate
 * of one config. */
static void price(const dpi_pase_model *pm, uint32_t u, const dpi_pase_cfg *c,
		  double *time, int64_t *mem, int64_t *res, double *est)
{
	const dp_graph *g = pm->g;
	const dp_op *op = &g->ops[u];
	dp_dims d;
	bool has = dp_op_dims(g, u, &d);
	int64_t all = 1, outp = 1, parp = 1, red = 1;
	for (uint32_t i = 0; i < (has ? d.n : 1); i++) {
		int64_t p = mask_parts(pm, c->mask[i]);
		all *= p;
		bool in_out = !has || d.nout < 0;
		for (int k = 0; has && k < d.nout; k++)
			in_out = in_out || d.out[k] == i;
		if (in_out)
			outp *= p;
		else
			red *= p;
		for (int k = 0; has && k < d.nparam; k++)
			if (d.param[k] == i)
				parp *= p;
	}
	if (has && d.nout < 0) /* several outputs: divided by the batch */
		outp = pm->bidx[u] >= 0 ? mask_parts(pm, c->mask[pm->bidx[u]])
					: 1;
	*time = op->time_us * (1.0 / (double)all);
	int64_t par = op->param_bytes;
	if (has && parp > 1)
		par = op->param_bytes / parp;
	*mem = par + op->output_bytes / outp + op->temp_bytes / all;
	*res = par + (kept_output(g, u) ? op->output_bytes / outp : 0);
	double comm = 0;
	if (red > 1)
		comm = 2 * pm->m->lat +
		       2.0 * (double)(red - 1) / (double)red *
			       (double)(op->output_bytes / outp) / pm->m->bw;
	*est = *time + comm;
}

typedef struct cand {
	dpi_pase_cfg c;
	double time, est;
	int64_t mem, res;
	int keep; /* 2 replica, 1 whole-batch split, 0 other */
} cand;

static int cand_cmp(const void *a, const void *b)
{
	const cand *x = a, *y = b;
	if (x->keep != y->keep)
		return y->keep - x->keep;
	if (x->est != y->est)
		return x->est < y->est ? -1 : 1;
	return 0; /* qsort is not stable: the caller breaks ties by index */
}

typedef struct cand_ix {
	cand c;
	uint32_t ix;
} cand_ix;

static int candix_cmp(const void *a, const void *b)
{
	const cand_ix *x = a, *y = b;
	int r = cand_cmp(&x->c, &y->c);
	if (r)
		return r;
	return x->ix < y->ix ? -1 : x->ix > y->ix;
}

/* The candidate configs of op u into cs (room for cap); returns how many. */
static uint32_t enumerate(const dpi_pase_model *pm, uint32_t u, cand_ix *cs,
			  uint32_t cap)
{
	const dp_graph *g = pm->g;
	uint32_t n = 0;
	dp_dims d;
	bool has = dp_op_dims(g, u, &d);
	memset(&cs[n].c, 0, sizeof cs[n].c);
	cs[n].c.keep = 2;
	cs[n].ix = n;
	n++;
	if (g->ops[u].pin >= 0 || pm->size == 1)
		return n;
	if (!has) {
		uint8_t full = (uint8_t)((1u << pm->naxes) - 1);
		if (dpi_spmd_batch_role(dp_op_role(g, u))) {
			memset(&cs[n], 0, sizeof cs[n]);
			cs[n].c.c.mask[0] = full;
			cs[n].c.keep = 1;
			cs[n].ix = n;
			n++;
		}
		return n;
	}
	/* non-decreasing sequences seq[a] in 0..d.n (d.n = none) */
	int seq[DP_MAX_MESH_AXES] = {0};
	for (;;) {
		int64_t parts[DP_MAX_OP_DIMS];
		for (uint32_t i = 0; i < d.n; i++)
			parts[i] = 1;
		bool any = false, ok = true;
		for (int a = 0; a < pm->naxes; a++)
			if (seq[a] < (int)d.n) {
				parts[seq[a]] *= pm->mesh[a];
				any = true;
			}
		for (uint32_t i = 0; ok && i < d.n; i++)
			ok = d.sizes[i] % parts[i] == 0;
		/* the same parts by another layout: keep the first */
		for (uint32_t j = 1; ok && any && j < n; j++) {
			bool same = true;
			for (uint32_t i = 0; same && i < d.n; i++)
				same = mask_parts(pm, cs[j].c.c.mask[i]) ==
				       parts[i];
			ok = !same;
		}
		if (ok && any && n < cap) {
			memset(&cs[n], 0, sizeof cs[n]);
			for (int a = 0; a < pm->naxes; a++)
				if (seq[a] < (int)d.n)
					cs[n].c.c.mask[seq[a]] |=
						(uint8_t)(1u << a);
			cs[n].ix = n;
			n++;
		}
		int a = pm->naxes - 1;
		while (a >= 0 && seq[a] == (int)d.n)
			a--;
		if (a < 0)
			break;
		seq[a]++;
		for (int b2 = a + 1; b2 < pm->naxes; b2++)
			seq[b2] = seq[a];
	}
	/* data parallelism's config: the batch alone, split the most */
	int b = pm->bidx[u], best = -1, bp = 1;
	for (uint32_t j = 1; b >= 0 && j < n; j++) {
		bool alone = true;
		for (uint32_t i = 0; alone && i < d.n; i++)
			alone = (int)i == b || !cs[j].c.c.mask[i];
		int q = mask_parts(pm, cs[j].c.c.mask[b]);
		if (alone && q > bp) {
			bp = q;
			best = (int)j;
		}
	}
	if (best > 0)
		cs[best].c.keep = 1;
	return n;
}

/* Upper bound of candidates of one op: sequences of naxes over 33 values. */
#define MAX_CANDS 4096

dp_status dpi_pase_model_build(dpi_pase_model *pm, const dp_graph *g,
			       const dp_machine *m, const dp_progress *p,
			       dp_err *err)
{
	memset(pm, 0, sizeof *pm);
	pm->g = g;
	pm->m = m;
	make_mesh(pm, m->k);
	pm->cap = DP_CAP_UNLIMITED;
	for (int i = 0; i < m->k; i++)
		if (m->cap[i] < pm->cap)
			pm->cap = m->cap[i];
	uint32_t n = g->nops;
	size_t maxc = (size_t)n * DPI_PASE_MAX_CFGS;
	pm->off = malloc((n + 1u) * sizeof *pm->off);
	pm->cfg = malloc(maxc * sizeof *pm->cfg);
	pm->node = malloc(maxc * sizeof *pm->node);
	pm->mem = malloc(maxc * sizeof *pm->mem);
	pm->res = malloc(maxc * sizeof *pm->res);
	pm->bidx = malloc(n ? n : 1);
	cand_ix *cs = malloc(MAX_CANDS * sizeof *cs);
	pm->memo = dpi_pase_memo_new();
	if (pm->size <= PORTS_MAX) {
		pm->mat = malloc((size_t)pm->size * (size_t)pm->size *
				 sizeof *pm->mat);
		pm->ports = malloc(2 * (size_t)pm->size * sizeof *pm->ports);
	}
	if (!pm->off || !pm->cfg || !pm->node || !pm->mem || !pm->res ||
	    !pm->bidx || !cs || !pm->memo ||
	    (pm->size <= PORTS_MAX && (!pm->mat || !pm->ports))) {
		free(cs);
		dpi_pase_model_free(pm);
		return nomem(err);
	}
	const char *bd = dp_graph_batch_dim(g);
	for (uint32_t u = 0; u < n; u++) {
		dp_dims d;
		if (!dp_op_dims(g, u, &d))
			pm->bidx[u] = -2;
		else
			pm->bidx[u] =
				(int8_t)(bd[0] ? dp_op_find_dim(g, u, bd) : -1);
	}
	uint32_t tot = 0;
	dp_status st = DP_OK;
	for (uint32_t u = 0; u < n; u++) {
		if ((u & 1023) == 0 &&
		    (st = dpi_algo_poll(p, "pase", "configurations",
					0.2 * u / (n ? n : 1), err)))
			break;
		pm->off[u] = tot;
		uint32_t nc = enumerate(pm, u, cs, MAX_CANDS);
		uint32_t fit = 0, small = 0;
		for (uint32_t j = 0; j < nc; j++) {
			price(pm, u, &cs[j].c.c, &cs[j].c.time, &cs[j].c.mem,
			      &cs[j].c.res, &cs[j].c.est);
			if (cs[j].c.mem < cs[small].c.mem)
				small = j;
		}
		for (uint32_t j = 0; j < nc; j++)
			if (cs[j].c.mem <= pm->cap)
				cs[fit++] = cs[j];
			else
				pm->npruned++;
		if (fit == 0) { /* nothing fits: keep the smallest */
			pm->nover++;
			cs[0] = cs[small];
			fit = 1;
		}
		qsort(cs, fit, sizeof *cs, candix_cmp);
		if (fit > DPI_PASE_MAX_CFGS) {
			pm->ncapped++;
			fit = DPI_PASE_MAX_CFGS;
		}
		for (uint32_t j = 0; j < fit; j++) {
			pm->cfg[tot] = cs[j].c.c;
			pm->node[tot] = cs[j].c.time;
			pm->mem[tot] = cs[j].c.mem;
			pm->res[tot] = cs[j].c.res;
			tot++;
		}
	}
	free(cs);
	if (st) {
		dpi_pase_model_free(pm);
		return st;
	}
	pm->off[n] = tot;
	return DP_OK;
}

void dpi_pase_model_free(dpi_pase_model *pm)
{
	free(pm->off);
	free(pm->cfg);
	free(pm->node);
	free(pm->mem);
	free(pm->res);
	free(pm->bidx);
	dpi_pase_memo_free(pm->memo);
	free(pm->mat);
	free(pm->ports);
	memset(pm, 0, sizeof *pm);
}

/* The tensor of edge e under two configs, as lower_spmd_edges.c makes it. */
typedef struct tens {
	int r;
	int64_t size[DP_MAX_OP_DIMS];
	uint8_t pm[DP_MAX_OP_DIMS], cm[DP_MAX_OP_DIMS];
	uint8_t partial;
	int64_t total, eb;
} tens;

/* Does op u have the batch under c (and its mask)? The lowering's rule,
 * dpi_spmd_batch_dim. */
static bool has_batch(const dpi_pase_model *pm, uint32_t u,
		      const dpi_pase_cfg *c, bool producer, uint8_t *mask)
{
	int b = dpi_spmd_batch_dim(pm->g, pm->bidx[u], u, producer);
	if (b < 0)
		return false;
	*mask = c->mask[b];
	return true;
}

static uint8_t other(const dpi_pase_model *pm, uint32_t u,
		     const dpi_pase_cfg *c, int skip)
{
	dp_dims d;
	uint32_t n = dp_op_dims(pm->g, u, &d) ? d.n : 1;
	uint8_t mk = 0;
	for (uint32_t i = 0; i < n; i++)
		if ((int)i != skip)
			mk |= c->mask[i];
	return mk;
}

static void make_tens(const dpi_pase_model *pm, uint32_t e,
		      const dpi_pase_cfg *cu, const dpi_pase_cfg *cv, tens *t)
{
	const dp_graph *g = pm->g;
	const dp_edge *ed = &g->edges[e];
	uint32_t u = ed->from, v = ed->to;
	memset(t, 0, sizeof *t);
	t->total = ed->bytes;
	dp_dims pd, cd;
	bool hp = dp_op_dims(g, u, &pd), hc = dp_op_dims(g, v, &cd);
	const uint32_t *names;
	int ne = dp_edge_dims(g, e, &names);
	uint8_t pb = 0, cb = 0;
	if (ne >= 0 && hp && hc && pd.nout == ne) {
		t->r = ne;
		t->eb = pd.elem_bytes;
		uint32_t in_out = 0;
		for (int j = 0; j < ne; j++) {
			uint8_t pi = pd.out[j];
			in_out |= 1u << pi;
			t->size[j] = pd.sizes[pi];
			t->pm[j] = cu->mask[pi];
			for (uint32_t k = 0; k < cd.n; k++)
				if (cd.name_off[k] == names[j])
					t->cm[j] = cv->mask[k];
		}
		for (uint32_t i = 0; i < pd.n; i++)
			if (!(in_out & (1u << i)))
				t->partial |= cu->mask[i];
	} else if (has_batch(pm, u, cu, true, &pb) &&
		   has_batch(pm, v, cv, false, &cb)) {
		int64_t a = mask_parts(pm, pb), b = mask_parts(pm, cb);
		t->r = 1;
		t->size[0] = a / dpi_gcd64(a, b) * b;
		t->pm[0] = pb;
		t->cm[0] = cb;
		t->partial =
			other(pm, u, cu, pm->bidx[u] >= 0 ? pm->bidx[u] : 0);
		t->eb = t->total % t->size[0] == 0 ? t->total / t->size[0] : 0;
	} else {
		int64_t pv = cd.elem_bytes;
		for (int k = 0; hc && k < cd.nparam; k++)
			pv *= cd.sizes[cd.param[k]];
		if (hc && cd.nparam > 0 && pv == t->total) {
			t->r = cd.nparam;
			t->eb = cd.elem_bytes;
			for (int k = 0; k < cd.nparam; k++) {
				t->size[k] = cd.sizes[cd.param[k]];
				t->cm[k] = cv->mask[cd.param[k]];
			}
		} else {
			t->r = 0;
			t->eb = t->total;
		}
		t->partial = other(pm, u, cu, -1);
	}
	if (mask_parts(pm, t->partial) == 1)
		t->partial = 0;
}

static double bytes_of(const tens *t, double vol)
{
	if (t->eb)
		return vol * (double)t->eb;
	double all = 1;
	for (int j = 0; j < t->r; j++)
		all *= (double)t->size[j];
	return floor((double)t->total * vol / all);
}

/* The bytes each device sends each other one (pm->mat) to reshard t
 * without partial sums: every consumer box reads the intersection from
 * each producer block that meets it, held by the device with the
 * consumer's coordinates on the producer's other axes (as the lowering
 * reads replicas). */
static void reshard_matrix(const dpi_pase_model *pm, const tens *t)
{
	int k = pm->size;
	memset(pm->mat, 0, (size_t)k * (size_t)k * sizeof *pm->mat);
	for (int d = 0; d < k; d++) {
		int64_t lo[DP_MAX_OP_DIMS], n[DP_MAX_OP_DIMS],
			first[DP_MAX_OP_DIMS], q[DP_MAX_OP_DIMS];
		int64_t cl[DP_MAX_OP_DIMS], pl[DP_MAX_OP_DIMS];
		for (int j = 0; j < t->r; j++) {
			cl[j] = t->size[j] / mask_parts(pm, t->cm[j]);
			pl[j] = t->size[j] / mask_parts(pm, t->pm[j]);
			lo[j] = mask_part(pm, t->cm[j], d) * cl[j];
			first[j] = lo[j] / pl[j];
			n[j] = (lo[j] + cl[j] - 1) / pl[j] - first[j] + 1;
			q[j] = 0;
		}
		for (;;) {
			int coord[DP_MAX_MESH_AXES];
			for (int a = 0; a < pm->naxes; a++)
				coord[a] = (d / pm->stride[a]) % pm->mesh[a];
			double ivol = 1;
			for (int j = 0; j < t->r; j++) {
				int64_t b = first[j] + q[j];
				int64_t plo = b * pl[j];
				int64_t a0 = plo > lo[j] ? plo : lo[j];
				int64_t a1 = plo + pl[j] < lo[j] + cl[j]
						     ? plo + pl[j]
						     : lo[j] + cl[j];
				ivol *= (double)(a1 - a0);
				for (int a = pm->naxes - 1; a >= 0; a--)
					if (t->pm[j] & (1u << a)) {
						coord[a] =
							(int)(b % pm->mesh[a]);
						b /= pm->mesh[a];
					}
			}
			int src = 0;
			for (int a = 0; a < pm->naxes; a++)
				src += coord[a] * pm->stride[a];
			if (src != d)
				pm->mat[(size_t)src * (size_t)k + (size_t)d] +=
					bytes_of(t, ivol);
			int j = 0;
			while (j < t->r && ++q[j] == n[j])
				q[j++] = 0;
			if (j == t->r)
				break;
		}
	}
}

/* The old per-device estimate: the busiest receiver's bytes and
 * messages, one latency each. */
static double busiest(const dpi_pase_model *pm, const tens *t, int p)
{
	double worst = 0;
	for (int d = 0; d < pm->size; d++) {
		double cvol = 1, ivol = 1, peers = 1;
		for (int j = 0; j < t->r; j++) {
			int64_t cn = mask_parts(pm, t->cm[j]);
			int64_t pn = mask_parts(pm, t->pm[j]);
			int64_t cl = t->size[j] / cn, pl = t->size[j] / pn;
			int64_t clo = mask_part(pm, t->cm[j], d) * cl;
			int64_t plo = mask_part(pm, t->pm[j], d) * pl;
			int64_t lo = clo > plo ? clo : plo;
			int64_t hi = clo + cl < plo + pl ? clo + cl : plo + pl;
			cvol *= (double)cl;
			ivol *= hi > lo ? (double)(hi - lo) : 0.0;
			peers *= (double)((clo + cl - 1) / pl - clo / pl + 1);
		}
		double b, msgs;
		if (p > 1) { /* reduce-scatter + all-gather of its block */
			b = 2.0 * (p - 1) / p * bytes_of(t, cvol);
			msgs = 2.0 * (p - 1);
		} else {
			b = bytes_of(t, cvol) - bytes_of(t, ivol);
			msgs = peers - (ivol > 0 ? 1 : 0);
		}
		double time = b > 0 ? msgs * pm->m->lat + b / pm->m->bw : 0;
		if (time > worst)
			worst = time;
	}
	return worst;
}

double dpi_pase_edge_cost(const dpi_pase_model *pm, uint32_t e, uint32_t cu,
			  uint32_t cv)
{
	const dp_edge *ed = &pm->g->edges[e];
	if (ed->control || ed->bytes == 0)
		return 0;
	tens t;
	make_tens(pm, e, &pm->cfg[cu], &pm->cfg[cv], &t);
	double time;
	if (pm->memo && dpi_pase_memo_get(pm->memo, &t, sizeof t, &time))
		return time;
	int p = mask_parts(pm, t.partial);
	double *sf = pm->ports, *rf = pm->ports + pm->size;
	if (pm->size > PORTS_MAX || !pm->mat) {
		time = busiest(pm, &t, p);
	} else if (p > 1) {
		/* reduce-scatter then all-gather: in each group of p partial
		 * sums, two all-to-alls of 1/p of the consumer's block */
		double cvol = 1;
		for (int j = 0; j < t.r; j++)
			cvol *= (double)(t.size[j] / mask_parts(pm, t.cm[j]));
		double chunk = bytes_of(&t, cvol) / p;
		for (int s = 0; s < p; s++)
			for (int d = 0; d < p; d++)
				pm->mat[s * p + d] = s == d ? 0 : chunk;
		time = 2 * dpi_pase_ports_time(pm->mat, p, pm->m->lat,
					       pm->m->bw, sf, rf);
	} else {
		reshard_matrix(pm, &t);
		time = dpi_pase_ports_time(pm->mat, pm->size, pm->m->lat,
					   pm->m->bw, sf, rf);
	}
	if (pm->memo)
		dpi_pase_memo_put(pm->memo, &t, sizeof t, time);
	return time;
}

double dpi_pase_total(const dpi_pase_model *pm, const uint32_t *choice)
{
	const dp_graph *g = pm->g;
	double c = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		c += pm->node[choice[u]];
	for (uint32_t e = 0; e < g->nedges; e++)
		c += dpi_pase_edge_cost(pm, e, choice[g->edges[e].from],
					choice[g->edges[e].to]);
	return c;
}
