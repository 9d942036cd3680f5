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
#include "internal/nomem.h"
#include "internal/pase.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/spmd.h"
#include "internal/spmd_tensor.h"

#define PORTS_MAX DPI_PASE_PORTS_MAX

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
	dpi_mesh_init(&pm->grid, n, f);
	pm->naxes = n;
	pm->size = pm->grid.ndev;
	memcpy(pm->mesh, pm->grid.size, sizeof pm->mesh);
	memcpy(pm->stride, pm->grid.stride, sizeof pm->stride);
}

static int mask_parts(const dpi_pase_model *pm, uint8_t mask)
{
	return dpi_mesh_parts(&pm->grid, mask);
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

/* The all-gather of the updated weights after an update op split on its
 * param dims into q parts (the lowering's "u/ag", ZeRO): in each group of
 * q devices, every one sends its block to the q - 1 others, priced by the
 * port replay (pm->mat; above DPI_PASE_PORTS_MAX devices, the busiest
 * port: (q - 1) x (latency + block / bandwidth)). The lowering skips it
 * when the variable stays split as finely, which the update's own config
 * cannot see: priced always. */
static double zero_gather(const dpi_pase_model *pm, uint32_t u,
			  const dpi_pase_cfg *c)
{
	dp_dims d;
	if (dp_op_role(pm->g, u) != DP_ROLE_UPDATE ||
	    !dp_op_dims(pm->g, u, &d) || d.nparam <= 0)
		return 0;
	int q = 1;
	double bytes = d.elem_bytes;
	for (int k = 0; k < d.nparam; k++) {
		q *= mask_parts(pm, c->mask[d.param[k]]);
		bytes *= (double)d.sizes[d.param[k]];
	}
	if (q == 1)
		return 0;
	if (!pm->mat)
		return (q - 1) * (pm->m->lat + bytes / q / pm->m->bw);
	for (int s = 0; s < q; s++)
		for (int t = 0; t < q; t++)
			pm->mat[s * q + t] = s == t ? 0 : bytes / q;
	return dpi_pase_ports_time(pm->mat, q, pm->m->lat, pm->m->bw, pm->ports,
				   pm->ports + q);
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
	*time = op->time_us * (1.0 / (double)all) + zero_gather(pm, u, c);
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
		pm->mat = malloc(2 * (size_t)pm->size * (size_t)pm->size *
				 sizeof *pm->mat);
		pm->ports = malloc(2 * (size_t)pm->size * sizeof *pm->ports);
	}
	if (!pm->off || !pm->cfg || !pm->node || !pm->mem || !pm->res ||
	    !pm->bidx || !cs || !pm->memo ||
	    (pm->size <= PORTS_MAX && (!pm->mat || !pm->ports))) {
		free(cs);
		dpi_pase_model_free(pm);
		return dpi_nomem(err, "running pase");
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
		    (st = dpi_poll(p, "pase", "configurations",
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

uint32_t *dpi_pase_choice_new(const dpi_pase_model *pm, dp_err *err)
{
	uint32_t *c = malloc(((size_t)pm->g->nops + 1) * sizeof *c);
	if (!c)
		dp_err_set(err, DP_ENOMEM, NULL, 0, 0, "pase: out of memory");
	return c;
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

double dpi_pase_edge_cost(const dpi_pase_model *pm, uint32_t e, uint32_t cu,
			  uint32_t cv)
{
	const dp_graph *g = pm->g;
	const dp_edge *ed = &g->edges[e];
	if (ed->control || ed->bytes == 0)
		return 0;
	dpi_pase_key key;
	memset(&key, 0, sizeof key);
	dpi_spmd_tensor_make(g, e, pm->bidx, pm->cfg[cu].mask, pm->cfg[cv].mask,
			     &pm->grid, &key.t);
	/* a weight gradient's all-reduce waits behind the others */
	key.queued = key.t.partial && dp_op_role(g, ed->from) == DP_ROLE_GRAD;
	double time;
	if (pm->memo && dpi_pase_memo_get(pm->memo, &key, sizeof key, &time))
		return time;
	time = dpi_pase_tensor_time(pm, &key);
	if (pm->memo)
		dpi_pase_memo_put(pm->memo, &key, sizeof key, time);
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
