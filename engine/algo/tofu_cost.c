/* tofu_cost.c - the communication cost of one level of a Tofu split
 * (internal/tofu.h).
 *
 * The tensor an edge carries is classified the way the spmd lowering
 * classifies it (lower_spmd_edges.c, make_tensor): an edge with dims
 * indexes the producer's out; an edge without dims between two ops with
 * the batch carries one axis, the batch; an edge into an op whose param
 * tensor has the edge's bytes carries that param; any other edge is one
 * whole tensor.
 */
#include "internal/tofu.h"

#include <stdlib.h>
#include <string.h>

#include "internal/spmd.h"

/* The index of the batch dim of op u as the lowering sees it: -2 for an
 * op without dims, -1 when it has dims but not the batch. */
static int batch_index(const dp_graph *g, uint32_t u)
{
	dp_dims d;
	if (!dp_op_dims(g, u, &d))
		return -2;
	const char *bd = dp_graph_batch_dim(g);
	return bd[0] ? dp_op_find_dim(g, u, bd) : -1;
}

/* The dim of u that carries the batch on an edge (as a producer: in its
 * out), by the lowering's rule; -1 when none does. */
static int batch_of(const dp_graph *g, uint32_t u, bool producer)
{
	return dpi_spmd_batch_dim(g, (int8_t)batch_index(g, u), u, producer);
}

static void classify(const dp_graph *g, uint32_t e, dpi_tofu_edge *t)
{
	const dp_edge *ed = &g->edges[e];
	uint32_t u = ed->from, v = ed->to;
	t->from = u;
	t->to = v;
	t->bytes = ed->control ? 0 : (double)ed->bytes;
	t->pdiv = t->cdiv = 1;
	memset(t->pmap, DPI_TOFU_PARTIAL, sizeof t->pmap);
	memset(t->cmap, DPI_TOFU_NONE, sizeof t->cmap);
	dp_dims pd, cd;
	bool hp = dp_op_dims(g, u, &pd), hc = dp_op_dims(g, v, &cd);
	const uint32_t *names;
	int ne = dp_edge_dims(g, e, &names);
	int pb, cb;
	if (ne >= 0 && hp && hc && pd.nout == ne) {
		for (int j = 0; j < ne; j++) {
			t->pmap[pd.out[j]] = (int8_t)j;
			for (uint32_t k = 0; k < cd.n; k++)
				if (cd.name_off[k] == names[j])
					t->cmap[k] = (int8_t)j;
		}
	} else if ((pb = batch_of(g, u, true)) >= 0 &&
		   (cb = batch_of(g, v, false)) >= 0) {
		t->pmap[pb] = 0;
		t->cmap[cb] = 0;
	} else {
		int64_t pv = cd.elem_bytes;
		for (int k = 0; hc && k < cd.nparam; k++)
			pv *= cd.sizes[cd.param[k]];
		if (hc && cd.nparam > 0 && pv == ed->bytes)
			for (int k = 0; k < cd.nparam; k++)
				t->cmap[cd.param[k]] = (int8_t)k;
	}
}

void dpi_tofu_edges(const dp_graph *g, dpi_tofu_edge *te)
{
	for (uint32_t e = 0; e < g->nedges; e++)
		classify(g, e, &te[e]);
}

const double dpi_tofu_msg_scales[DPI_TOFU_NSCALES] = {1, 4, 16};

double dpi_tofu_edge_cost(const dpi_tofu_edge *te, int iu, int iv,
			  const dpi_tofu_level *lv)
{
	double b = te->bytes, f = lv->f, fm = f - 1;
	double msg = lv->alpha * lv->groups * f * fm; /* one per pair */
	if (b == 0 || lv->f <= 1)
		return 0;
	if (iu == -2) /* a pinned producer: everything comes from it */
		return iv == -2	 ? 0
		       : iv >= 0 ? b * fm / f + msg / f
				 : b * fm + msg / f;
	if (iu < 0)
		return 0;
	int p = te->pmap[iu];
	if (iv == -2) /* a pinned consumer gathers the whole tensor */
		return b * fm / f + msg / f;
	int c = iv >= 0 ? te->cmap[iv] : DPI_TOFU_NONE;
	/* every group moves its part (see tofu.h) */
	double bp = b * lv->groups / te->pdiv, bc = b * lv->groups / te->cdiv;
	if (p == DPI_TOFU_PARTIAL)
		return c >= 0 ? bp * fm + msg : bp * fm + bc * fm + 2 * msg;
	if (c == p)
		return 0;
	return (c >= 0 ? bp * fm / f : bc * fm) + msg;
}

/* The dim op u splits at level l under s: -2 pinned, -1 none. */
static int choice_at(const dp_graph *g, const dp_strategy *s, uint32_t u, int l)
{
	if (s->spmd.device && s->spmd.device[u] >= 0)
		return -2;
	dp_dims d;
	uint32_t n = dp_op_dims(g, u, &d) ? d.n : 1;
	for (uint32_t i = 0; s->spmd.axes && i < n; i++)
		if (s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS + i] & (1u << l))
			return (int)i;
	return -1;
}

bool dpi_tofu_free_replica(const dp_graph *g, uint32_t u)
{
	dp_role r = dp_op_role(g, u);
	const char *bd = dp_graph_batch_dim(g);
	dp_dims d;
	return r == DP_ROLE_PARAM || r == DP_ROLE_UPDATE ||
	       (bd[0] && dp_op_dims(g, u, &d) && dp_op_find_dim(g, u, bd) < 0);
}

double dpi_tofu_replica_cost(const dp_graph *g, uint32_t u, double prev_parts,
			     const dpi_tofu_level *lv, double bw)
{
	if (bw <= 0 || g->ops[u].pin >= 0 || dpi_tofu_free_replica(g, u))
		return 0;
	return bw * (lv->f - 1) * lv->groups * g->ops[u].time_us / prev_parts;
}

double dpi_tofu_uneven_cost(const dp_graph *g, uint32_t u, int64_t n,
			    int64_t parts, double prev_parts,
			    const dpi_tofu_level *lv, double bw)
{
	int64_t p = parts * lv->f;
	if (n % p == 0)
		return 0;
	double big = (double)((n + p - 1) / p) * (double)parts / (double)n;
	return bw * (big - 1.0 / lv->f) * lv->f * lv->groups *
	       g->ops[u].time_us / prev_parts;
}

/* The parts op u was split into by the levels before l under s. */
static double parts_before(const dp_graph *g, const dp_strategy *s, uint32_t u,
			   int l)
{
	dp_dims d;
	uint32_t n = dp_op_dims(g, u, &d) ? d.n : 1;
	double p = 1;
	for (uint32_t i = 0; s->spmd.axes && i < n; i++)
		for (int a = 0; a < l; a++)
			if (s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS + i] &
			    (1u << a))
				p *= s->spmd.mesh[a];
	return p;
}

double dpi_tofu_cost(const dp_graph *g, const dp_strategy *s, double alpha,
		     double bw)
{
	dpi_tofu_edge *te = malloc((g->nedges ? g->nedges : 1) * sizeof *te);
	if (!te)
		return -1;
	dpi_tofu_edges(g, te);
	double total = 0;
	dpi_tofu_level lv = {.groups = 1, .alpha = alpha};
	for (int l = 0; l < s->spmd.naxes; l++) {
		lv.f = s->spmd.mesh[l];
		for (uint32_t u = 0; lv.f > 1 && u < g->nops; u++)
			if (choice_at(g, s, u, l) == -1)
				total += dpi_tofu_replica_cost(
					g, u, parts_before(g, s, u, l), &lv,
					bw);
		for (uint32_t e = 0; e < g->nedges; e++) {
			int iu = choice_at(g, s, te[e].from, l);
			int iv = choice_at(g, s, te[e].to, l);
			total += dpi_tofu_edge_cost(&te[e], iu, iv, &lv);
			dpi_tofu_divide(&te[e], iu, iv, lv.f);
		}
		lv.groups *= lv.f;
	}
	free(te);
	return total;
}

double dpi_tofu_lowered_edges(const dp_graph *g, const dp_strategy *s)
{
	dpi_tofu_edge te;
	double n = 0;
	for (uint32_t e = 0; e < g->nedges; e++) {
		classify(g, e, &te);
		double x = s->k;
		dpi_tofu_level lv = {.groups = 1};
		for (int l = 0; l < s->spmd.naxes; l++) {
			lv.f = s->spmd.mesh[l];
			int iu = choice_at(g, s, te.from, l);
			int iv = choice_at(g, s, te.to, l);
			if (te.bytes > 0 &&
			    dpi_tofu_edge_cost(&te, iu, iv, &lv) > 0)
				x *= lv.f;
		}
		n += x;
	}
	return n;
}

/* Per-device memory estimate of s: params (with their gradients and
 * optimizer state) divided by the parts of their param dims, and the
 * activations (forward, input, no role) by the parts of their out. */
double dpi_tofu_estimate(const dp_graph *g, const dp_strategy *s)
{
	double mem = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		const dp_op *o = &g->ops[u];
		dp_role r = dp_op_role(g, u);
		bool act = r == DP_ROLE_FORWARD || r == DP_ROLE_INPUT ||
			   r == DP_ROLE_NONE;
		const uint8_t *ax = &s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS];
		dp_dims d;
		double pp = 1, op = 1;
		if (s->spmd.device[u] >= 0) {
		} else if (dp_op_dims(g, u, &d)) {
			for (int j = 0; j < d.nparam; j++)
				pp *= dp_spmd_parts(&s->spmd, u, d.param[j]);
			for (int j = 0; j < d.nout; j++)
				op *= dp_spmd_parts(&s->spmd, u, d.out[j]);
		} else if (ax[0]) {
			op = dp_spmd_parts(&s->spmd, u, 0);
		}
		mem += (double)o->param_bytes / pp;
		if (act)
			mem += (double)o->output_bytes / op;
	}
	return mem;
}

/* Mesh: K's prime factors, ascending, the smallest merged while there
 * are more than DP_MAX_MESH_AXES. Returns the number of axes. */
int dpi_tofu_mesh(int k, int *mesh)
{
	int n = 0, f[32];
	for (int p = 2; k > 1 && n < 32; p++)
		while (k % p == 0 && n < 32) {
			f[n++] = p;
			k /= p;
		}
	if (n == 0)
		f[n++] = 1;
	while (n > DP_MAX_MESH_AXES) {
		f[1] *= f[0];
		memmove(f, f + 1, (size_t)(n - 1) * sizeof *f);
		n--;
		for (int i = 1; i < n && f[i - 1] > f[i]; i++) {
			int x = f[i];
			f[i] = f[i - 1];
			f[i - 1] = x;
		}
	}
	memcpy(mesh, f, (size_t)n * sizeof *f);
	return n;
}
