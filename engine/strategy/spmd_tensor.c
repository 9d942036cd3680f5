/* spmd_tensor.c - the block layout of an edge's tensor on a device mesh
 * (internal/spmd_tensor.h): the rule lower_spmd_edges.c's head comment
 * states, shared by the spmd lowering and pase's cost model.
 */
#include "internal/spmd_tensor.h"

#include <string.h>

#include "internal/intmath.h"
#include "internal/spmd.h"

void dpi_mesh_init(dpi_mesh *m, int naxes, const int *size)
{
	memset(m, 0, sizeof *m);
	m->naxes = naxes;
	m->ndev = 1;
	for (int a = naxes - 1; a >= 0; a--) {
		m->size[a] = size[a];
		m->stride[a] = m->ndev;
		m->ndev *= size[a];
	}
}

int dpi_mesh_parts(const dpi_mesh *m, uint8_t mask)
{
	int n = 1;
	for (int a = 0; a < m->naxes; a++)
		if (mask & (1u << a))
			n *= m->size[a];
	return n;
}

int dpi_mesh_part(const dpi_mesh *m, uint8_t mask, int d)
{
	int q = 0;
	for (int a = 0; a < m->naxes; a++)
		if (mask & (1u << a))
			q = q * m->size[a] + (d / m->stride[a]) % m->size[a];
	return q;
}

/* Does op u have the batch (and its mask)? dpi_spmd_batch_dim says. */
static bool has_batch(const dp_graph *g, const int8_t *bidx, uint32_t u,
		      const uint8_t *mask, bool producer, uint8_t *out)
{
	int b = dpi_spmd_batch_dim(g, bidx[u], u, producer);
	if (b < 0)
		return false;
	*out = mask[b];
	return true;
}

/* Index of the dim with name offset off in d, or -1. */
static int find_dim(const dp_dims *d, uint32_t off)
{
	for (uint32_t i = 0; i < d->n; i++)
		if (d->name_off[i] == off)
			return (int)i;
	return -1;
}

/* The masks of u's split dims except skip (-1: none). */
static uint8_t other_masks(const dp_graph *g, uint32_t u, const uint8_t *mask,
			   int skip)
{
	dp_dims d;
	uint32_t n = dp_op_dims(g, u, &d) ? d.n : 1;
	uint8_t mk = 0;
	for (uint32_t i = 0; i < n; i++)
		if ((int)i != skip)
			mk |= mask[i];
	return mk;
}

/* Edge e out of an op with several outputs (dims, no out), with dims: the
 * producer's dim of axis j is from_dims[j] when given, else the consumer's
 * name when the producer has a dim of that name and size; its split dims
 * outside them are reductions (partial sums). When some axis has none,
 * the producer is taken to hold the consumer's block (no partial sums). */
static void multi_output(const dp_graph *g, uint32_t e, const dp_dims *pd,
			 const dp_dims *cd, const uint8_t *umask,
			 const uint8_t *vmask, dpi_spmd_tensor *t)
{
	const uint32_t *names, *from;
	int ne = dp_edge_dims(g, e, &names);
	bool hf = dp_edge_from_dims(g, e, &from) >= 0;
	uint32_t used = 0;
	bool known = true;
	t->r = ne;
	t->eb = pd->elem_bytes;
	for (int j = 0; j < ne; j++) {
		int k = find_dim(cd, names[j]);
		t->size[j] = k >= 0 ? cd->sizes[k] : 1;
		t->cmask[j] = k >= 0 ? vmask[k] : 0;
		int q = find_dim(pd, hf ? from[j] : names[j]);
		if (q < 0 || pd->sizes[q] != t->size[j]) {
			known = false;
			continue;
		}
		used |= 1u << q;
		t->pmask[j] = umask[q];
	}
	for (uint32_t i = 0; known && i < pd->n; i++)
		if (!(used & (1u << i)))
			t->partial |= umask[i];
	for (int j = 0; !known && j < ne; j++)
		t->pmask[j] = t->cmask[j];
}

void dpi_spmd_tensor_make(const dp_graph *g, uint32_t e, const int8_t *bidx,
			  const uint8_t *umask, const uint8_t *vmask,
			  const dpi_mesh *m, dpi_spmd_tensor *t)
{
	const dp_edge *ed = &g->edges[e];
	uint32_t u = ed->from, v = ed->to;
	memset(t, 0, sizeof *t);
	t->total = ed->bytes;
	t->cwhole = -1;
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
			t->pmask[j] = umask[pi];
			for (uint32_t k = 0; k < cd.n; k++)
				if (cd.name_off[k] == names[j])
					t->cmask[j] = vmask[k];
		}
		for (uint32_t i = 0; i < pd.n; i++)
			if (!(in_out & (1u << i)))
				t->partial |= umask[i];
	} else if (ne >= 0 && hp && hc && pd.nout < 0) {
		multi_output(g, e, &pd, &cd, umask, vmask, t);
	} else if (has_batch(g, bidx, u, umask, true, &pb) &&
		   has_batch(g, bidx, v, vmask, false, &cb)) {
		int64_t a = dpi_mesh_parts(m, pb), b = dpi_mesh_parts(m, cb);
		t->r = 1;
		t->size[0] = a / dpi_gcd64(a, b) * b;
		t->pmask[0] = pb;
		t->cmask[0] = cb;
		/* an op with several outputs: the consumer's block, not
		 * partial sums (its outputs' indexing is unknown) */
		if (!(hp && pd.nout < 0))
			t->partial = other_masks(g, u, umask,
						 bidx[u] >= 0 ? bidx[u] : 0);
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
				t->cmask[k] = vmask[cd.param[k]];
			}
		} else {
			t->r = 0;
			t->eb = t->total;
		}
		t->partial = other_masks(g, u, umask, -1);
	}
	if (dpi_mesh_parts(m, t->partial) == 1)
		t->partial = 0;
}

int64_t dpi_spmd_tensor_bytes(const dpi_spmd_tensor *t, int64_t vol)
{
	if (t->eb)
		return vol * t->eb;
	int64_t all = 1;
	for (int j = 0; j < t->r; j++)
		all *= t->size[j];
	__extension__ typedef unsigned __int128 u128;
	return (int64_t)((u128)(uint64_t)t->total * (u128)(uint64_t)vol /
			 (u128)(uint64_t)all);
}

void dpi_spmd_tensor_box(const dpi_spmd_tensor *t, const dpi_mesh *m, int d,
			 int64_t *lo, int64_t *hi)
{
	for (int j = 0; j < t->r; j++) {
		int64_t n = dpi_mesh_parts(m, t->cmask[j]);
		int64_t q = dpi_mesh_part(m, t->cmask[j], d);
		lo[j] = dpi_spmd_lo(t->size[j], q, n);
		hi[j] = dpi_spmd_lo(t->size[j], q + 1, n);
	}
}

/* Sets coord[] on mask's axes from part index q (row-major). */
static void set_part(const dpi_mesh *m, uint8_t mask, int64_t q, int *coord)
{
	for (int a = m->naxes - 1; a >= 0; a--)
		if (mask & (1u << a)) {
			coord[a] = (int)(q % m->size[a]);
			q /= m->size[a];
		}
}

dp_status dpi_spmd_tensor_sources(const dpi_spmd_tensor *t, const dpi_mesh *m,
				  int ref, const int64_t *lo, const int64_t *hi,
				  int k, int r, dpi_spmd_source_fn fn,
				  void *arg)
{
	int64_t plo[DP_MAX_OP_DIMS], phi[DP_MAX_OP_DIMS], cur[DP_MAX_OP_DIMS],
		np[DP_MAX_OP_DIMS];
	for (int j = 0; j < t->r; j++) {
		np[j] = dpi_mesh_parts(m, t->pmask[j]);
		plo[j] = dpi_spmd_block_at(t->size[j], lo[j], np[j]);
		phi[j] = dpi_spmd_block_at(t->size[j], hi[j] - 1, np[j]);
		cur[j] = plo[j];
	}
	int64_t npart = dpi_mesh_parts(m, t->partial);
	for (;;) {
		int coord[DP_MAX_MESH_AXES];
		for (int a = 0; a < m->naxes; a++)
			coord[a] = (ref / m->stride[a]) % m->size[a];
		int64_t vol = 1;
		for (int j = 0; j < t->r; j++) {
			set_part(m, t->pmask[j], cur[j], coord);
			int64_t a = dpi_spmd_lo(t->size[j], cur[j], np[j]);
			int64_t b = dpi_spmd_lo(t->size[j], cur[j] + 1, np[j]);
			a = a > lo[j] ? a : lo[j];
			b = b < hi[j] ? b : hi[j];
			vol *= b - a;
		}
		int64_t bytes =
			dpi_spmd_share(dpi_spmd_tensor_bytes(t, vol), k, r);
		for (int64_t q = 0; q < npart; q++) {
			set_part(m, t->partial, q, coord);
			int dev = 0;
			for (int a = 0; a < m->naxes; a++)
				dev += coord[a] * m->stride[a];
			dp_status st = fn(arg, dev, bytes);
			if (st)
				return st;
		}
		int j = t->r - 1;
		while (j >= 0 && cur[j] == phi[j]) {
			cur[j] = plo[j];
			j--;
		}
		if (j < 0)
			return DP_OK;
		cur[j]++;
	}
}
