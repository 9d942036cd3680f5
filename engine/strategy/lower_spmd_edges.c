/* lower_spmd_edges.c - the edges of an spmd lowering (internal/spmd.h,
 * docs/spmd.md).
 *
 * Every data edge u -> v carries a tensor. Its axes, and how the producer
 * and the consumer split each of them, come from the edge:
 *   - an edge with dims: the axes are u's out dims, split as u splits
 *     them; the consumer splits axis j as it splits the edge's dim j. u's
 *     split dims that are not in its out are reduction dims: its
 *     instances hold partial sums;
 *   - an edge without dims whose two ends both have the batch (the batch
 *     dim among their dims, and in the producer's out when it has one; or
 *     a whole op with a batch role): one axis, the batch, split as each
 *     end splits its batch; the producer's other split dims give partial
 *     sums (the tensor's indexing is unknown, and a reduce moves as many
 *     bytes into the consumer as a gather);
 *   - an edge without dims into an op with a param whose bytes are that
 *     param tensor (a weight gradient into its update): the axes are the
 *     consumer's param dims; every split of the producer gives partial sums;
 *   - any other edge: one whole tensor; every split of the producer gives
 *     partial sums.
 * Blocks need not be equal (internal/spmd.h, dpi_spmd_lo). A consumer
 * instance needs its box of the tensor. It receives from each
 * producer instance whose box meets it the bytes of the intersection
 * (volume x element bytes; a tensor without dims: its bytes x the
 * intersection's share of the whole, rounded down). Among producer
 * instances with the same box (replicas), it reads the one whose
 * coordinates on the producer's other mesh axes are its own: on its own
 * device when the producer has an instance there.
 *
 * A linear op (linear_types below: sums, means, copies, reshapes) whose
 * data inputs all hold partial sums over the same mesh axes, and which
 * those axes do not split (or a whole grad op split along them), sums them
 * on each device without a reduce: each instance reads the partial sums
 * on its own coordinates of those axes, and its output holds partial sums
 * over them in turn (carry[]). So a gradient accumulated over time steps
 * is reduced once, where a non-linear op (the update) reads it. A linear op
 * that no op reads through a data edge does not carry: it reduces its
 * inputs, as there is no later consumer to reduce them.
 *
 * Partial sums are reduce-scattered first, once per (producer, consumer
 * layout): every box of the consumer's layout, held by r consumer
 * instances, is cut into r chunks; chunk k is summed by a reduce op
 * "u/rs#dD" (time 0: its cost is the transfers) on the k-th device that
 * holds the box, fed by every partial-sum instance with its share of the
 * chunk; each consumer instance then receives the r chunks of its box
 * (the all-gather). Per device that is 2(p-1)/p x the tensor for p
 * partial sums and a replicated consumer: ring all-reduce's bytes. A
 * producer's second layout names its reduces "u/rs2#dD", and so on.
 *
 * An update op split on its param dims (ZeRO) is followed by an all-gather
 * of the updated weights, "u/ag#dD" on every device, receiving every
 * instance's param block (the param tensor, not its optimizer state),
 * unless a param op before it, or the variable it updates (a param op of
 * its colocation group), is split at least as finely (the weights stay
 * sharded).
 *
 * Control edges join the instances of u and v on the same device; an
 * instance of v on a device without an instance of u waits for u's first.
 *
 * The tensor of an edge, a consumer's box and the producer blocks that
 * fill it are internal/spmd_tensor.h's (spmd_tensor.c), which pase's cost
 * model reads too, so that it prices exactly what this file moves.
 */
#include "internal/nomem.h"
#include "internal/spmd.h"

#include <stdlib.h>
#include <string.h>

#include "internal/poll.h"
#include "internal/arrays.h"
#include "internal/spmd_tensor.h"

#define MAXR DP_MAX_OP_DIMS
/* carry[]: the mesh axes of the partial sums an op holds, and whether
 * they came from a sum with whole inputs (its consumers reduce them) */
#define CARRY_AXES 0x0f
#define CARRY_MIXED 0x80

typedef dpi_spmd_tensor tensor;

/* A consumer layout of one producer's partial sums and its reduces. */
typedef struct layout {
	tensor key;
	uint32_t base; /* first reduce op; one per device (one when the
			  consumer is whole-placed) */
	int r;	       /* consumer instances per box */
	int *gid, *members;
} layout;

static int64_t bytes_of(const tensor *t, int64_t vol)
{
	return dpi_spmd_tensor_bytes(t, vol);
}

/* The tensor that edge e carries (see the top of the file). */
static void make_tensor(const dpi_spmd_ctx *c, uint32_t e, tensor *t)
{
	const dp_edge *ed = &c->g->edges[e];
	uint8_t um[DP_MAX_OP_DIMS], vm[DP_MAX_OP_DIMS];
	for (uint32_t i = 0; i < DP_MAX_OP_DIMS; i++) {
		um[i] = dpi_spmd_mask(c, ed->from, i);
		vm[i] = dpi_spmd_mask(c, ed->to, i);
	}
	dpi_spmd_tensor_make(c->g, e, c->bidx, um, vm, &c->mesh, t);
	t->cwhole = dpi_spmd_whole(c, ed->to);
	t->partial |= c->carry[ed->from] & CARRY_AXES;
}

/* Op types linear in their data inputs taken together: on partial sums
 * they give partial sums of their result (docs/spmd.md, "Partial sums"). */
static const char *const linear_types[] = {
	"Add",	    "AddV2",	"AddN",	   "BiasAdd", "Sum",	    "Mean",
	"Identity", "Snapshot", "Reshape", "Squeeze", "ExpandDims", "Transpose",
};

/* Op types whose output over a split reduction dim is not a partial sum
 * that a sum may carry: a cross-entropy over vocabulary-split logits
 * all-reduces its per-position values (the maximum, the sum of
 * exponentials) before the loss exists, as Megatron-LM's parallel
 * cross-entropy does; its consumers reduce them at once. */
static const char *const entropy_types[] = {
	"SparseSoftmaxCrossEntropyWithLogits",
	"SoftmaxCrossEntropyWithLogits",
	"CrossEntropyLoss",
	"cross_entropy",
};

/* Whether op v's type is one of the n names of types. */
static bool type_in(const dp_graph *g, uint32_t v, const char *const *types,
		    size_t n)
{
	const char *ty = dp_graph_str(g, g->ops[v].type);
	for (size_t i = 0; i < n; i++)
		if (strcmp(ty, types[i]) == 0)
			return true;
	return false;
}

static bool is_entropy(const dp_graph *g, uint32_t v)
{
	return type_in(g, v, entropy_types, DPI_NARR(entropy_types));
}

static bool is_linear(const dp_graph *g, uint32_t v)
{
	return type_in(g, v, linear_types, DPI_NARR(linear_types));
}

/* Sums: a sum of partial sums and whole tensors holds a partial sum when
 * one part adds the whole tensors (docs/spmd.md, "Partial sums"). */
static bool is_sum(const dp_graph *g, uint32_t v)
{
	const char *ty = dp_graph_str(g, g->ops[v].type);
	return !strcmp(ty, "Add") || !strcmp(ty, "AddV2") ||
	       !strcmp(ty, "AddN") || !strcmp(ty, "BiasAdd");
}

/* The mesh axes that split some dim of v. */
static uint8_t own_mask(const dpi_spmd_ctx *c, uint32_t v)
{
	dp_dims d;
	uint32_t n = dp_op_dims(c->g, v, &d) ? d.n : 1;
	uint8_t own = 0;
	for (uint32_t i = 0; i < n; i++)
		own |= dpi_spmd_mask(c, v, i);
	return own;
}

/* The mesh axes over which v sums its inputs' partial sums locally (see
 * the top of the file), 0 when it does not, with CARRY_MIXED when some
 * input is whole (a sum only): the producers' carries are known
 * (topological order). */
static uint8_t carried(const dpi_spmd_ctx *c, uint32_t v)
{
	const dp_graph *g = c->g;
	if (dpi_spmd_whole(c, v) >= 0 || !is_linear(g, v))
		return 0;
	uint8_t p = 0;
	bool whole = false;
	for (uint32_t i = g->pred_off[v]; i < g->pred_off[v + 1]; i++) {
		uint32_t e = g->pred_edge[i];
		if (g->edges[e].control)
			continue;
		uint32_t u = g->edges[e].from;
		if (dpi_spmd_whole(c, u) >= 0 ||
		    (c->carry[u] & CARRY_MIXED) || is_entropy(g, u))
			return 0;
		tensor t;
		make_tensor(c, e, &t);
		if (!t.partial) {
			whole = true;
			continue;
		}
		if (p && t.partial != p)
			return 0;
		p = t.partial;
	}
	if (!p || (whole && !is_sum(g, v)))
		return 0;
	uint8_t own = own_mask(c, v);
	/* a whole grad op split along the batch holds partial sums anyway */
	bool grad = c->bidx[v] == -2 && dp_op_role(g, v) == DP_ROLE_GRAD;
	if (own & p && !(grad && own == p))
		return 0;
	return (uint8_t)(p | (whole ? CARRY_MIXED : 0));
}

/* Whether v has a consumer through a data edge: one that can reduce the
 * partial sums v would carry. */
static bool has_data_consumer(const dp_graph *g, uint32_t v)
{
	for (uint32_t i = g->succ_off[v]; i < g->succ_off[v + 1]; i++)
		if (!g->edges[g->succ_edge[i]].control)
			return true;
	return false;
}

/* The box of the consumer instance on device d: [lo, hi) per axis. */
static void cons_box(const dpi_spmd_ctx *c, const tensor *t, int d, int64_t *lo,
		     int64_t *hi)
{
	dpi_spmd_tensor_box(t, &c->mesh, d, lo, hi);
}

static int64_t box_vol(const tensor *t, const int64_t *lo, const int64_t *hi)
{
	int64_t v = 1;
	for (int j = 0; j < t->r; j++)
		v *= hi[j] - lo[j];
	return v;
}

/* Where connect's messages go: lowered op `to`, from the producer's
 * instances (first: the first one's id; one per device unless whole). */
typedef struct conn {
	dpi_spmd_ctx *c;
	uint32_t first, to;
	bool whole;
	dp_err *err;
} conn;

static dp_status conn_edge(void *arg, int dev, int64_t bytes)
{
	conn *x = arg;
	uint32_t from = x->first + (x->whole ? 0 : (uint32_t)dev);
	return dpi_lower_edge(&x->c->b, from, x->to, bytes, false, x->err);
}

/* Edges into lowered op `to` from every producer instance (first, whole:
 * as conn's) whose box meets [lo, hi), chunk k of r of each intersection;
 * replicas chosen by ref's coordinates. */
static dp_status connect_from(dpi_spmd_ctx *c, const tensor *t, uint32_t first,
			      bool whole, int ref, const int64_t *lo,
			      const int64_t *hi, uint32_t to, int k, int r,
			      dp_err *err)
{
	conn x = {c, first, to, whole, err};
	return dpi_spmd_tensor_sources(t, &c->mesh, ref, lo, hi, k, r,
				       conn_edge, &x);
}

/* The same from the instances of op u. */
static dp_status connect(dpi_spmd_ctx *c, const tensor *t, uint32_t u, int ref,
			 const int64_t *lo, const int64_t *hi, uint32_t to,
			 int k, int r, dp_err *err)
{
	return connect_from(c, t, c->first[u], dpi_spmd_whole(c, u) >= 0, ref,
			    lo, hi, to, k, r, err);
}

/* Every instance of v (id, device). */
static int instances(const dpi_spmd_ctx *c, uint32_t v, int i, uint32_t *id,
		     int *dev)
{
	int w = dpi_spmd_whole(c, v);
	if (w >= 0) {
		*id = c->first[v];
		*dev = w;
		return i == 0;
	}
	*id = c->first[v] + (uint32_t)i;
	*dev = i;
	return i < c->size;
}

/* Makes the reduces of layout L (key set) of producer u, number nl, fed
 * by the instances from first on (one per device: u's, or the local sums
 * of a sum's inputs, whose reduces are named tag "/psum_rs"). */
static dp_status make_layout(dpi_spmd_ctx *c, uint32_t u, uint32_t first,
			     layout *L, int nl, dp_err *err)
{
	const char *tag = first == c->first[u] ? "/rs" : "/psum_rs";
	const tensor *t = &L->key;
	int n = t->cwhole >= 0 ? 1 : c->size;
	L->gid = calloc((size_t)c->size, sizeof *L->gid);
	L->members = calloc((size_t)c->size, sizeof *L->members);
	int *cnt = calloc((size_t)c->size, sizeof *cnt);
	int *rank = calloc((size_t)c->size, sizeof *rank);
	dp_status st = DP_OK;
	if (!L->gid || !L->members || !cnt || !rank) {
		st = dpi_nomem(err, "lowering a strategy");
		goto out;
	}
	uint8_t all = 0;
	for (int j = 0; j < t->r; j++)
		all |= t->cmask[j];
	L->r = n == 1 ? 1 : c->size / dpi_spmd_mask_parts(c, all);
	for (int d = 0; d < n; d++) {
		L->gid[d] = n == 1 ? 0 : dpi_spmd_mask_part(c, all, d);
		rank[d] = cnt[L->gid[d]]++;
		L->members[L->gid[d] * L->r + rank[d]] = n == 1 ? t->cwhole : d;
	}
	for (int d = 0; !st && d < n; d++) {
		int dev = n == 1 ? t->cwhole : d;
		int64_t lo[MAXR], hi[MAXR];
		cons_box(c, t, dev, lo, hi);
		dpi_lower_op lo_op = {
			.source = u,
			.device = dev,
			.micro = -1,
			.time_us = 0,
			.output_bytes = dpi_spmd_share(
				bytes_of(t, box_vol(t, lo, hi)), rank[d], L->r),
			.role = DP_ROLE_NONE,
		};
		uint32_t id;
		st = dpi_spmd_name(c, u, tag, nl, dev, err);
		if (!st)
			st = dpi_lower_add(&c->b, c->name, &lo_op, &id, err);
		if (!st && d == 0)
			L->base = id;
		if (!st)
			st = connect_from(c, t, first, false, dev, lo, hi, id,
					  rank[d], L->r, err);
	}
out:
	free(cnt);
	free(rank);
	return st;
}

/* Data edge e whose producer holds partial sums: through the reduces of
 * its layout. */
static dp_status reduce_edge(dpi_spmd_ctx *c, uint32_t v, const tensor *t,
			     const layout *L, dp_err *err)
{
	uint32_t id;
	int dev;
	for (int i = 0; instances(c, v, i, &id, &dev); i++) {
		int64_t lo[MAXR], hi[MAXR];
		cons_box(c, t, dev, lo, hi);
		int64_t bytes = bytes_of(t, box_vol(t, lo, hi));
		int g = t->cwhole >= 0 ? 0 : L->gid[dev];
		for (int k = 0; k < L->r; k++) {
			int owner = L->members[g * L->r + k];
			uint32_t from = t->cwhole >= 0
						? L->base
						: L->base + (uint32_t)owner;
			dp_status st = dpi_lower_edge(
				&c->b, from, id, dpi_spmd_share(bytes, k, L->r),
				false, err);
			if (st)
				return st;
		}
	}
	return DP_OK;
}

/* A sum v split on the axes of its inputs' partial sums, with two or more
 * inputs whose tensors are the same (same blocks, same partial axes: the
 * input gradients of Q, K and V meeting the residual's under sequence
 * parallelism): their partial sums are added on each device first
 * ("v/psum#dD", time 0), and that sum is reduce-scattered once. Returns
 * how many inputs have key's tensor (0 when v is not such a sum). */
static int psum_key(const dpi_spmd_ctx *c, uint32_t v, tensor *key)
{
	const dp_graph *g = c->g;
	if (!is_sum(g, v) || dpi_spmd_whole(c, v) >= 0 || c->carry[v])
		return 0;
	uint8_t own = own_mask(c, v);
	int n = 0;
	for (uint32_t i = g->pred_off[v]; i < g->pred_off[v + 1]; i++) {
		uint32_t e = g->pred_edge[i];
		if (g->edges[e].control ||
		    dpi_spmd_whole(c, g->edges[e].from) >= 0)
			continue;
		tensor t;
		make_tensor(c, e, &t);
		if (!(t.partial & own))
			continue;
		if (!n)
			*key = t;
		n += !memcmp(key, &t, sizeof t);
	}
	return n >= 2 ? n : 0;
}

/* Edge u -> v into such a sum: u's instance on each device feeds the
 * local sum there; the first such edge makes the local sums and their
 * reduce into v. */
static dp_status psum_edge(dpi_spmd_ctx *c, uint32_t u, uint32_t v,
			   const tensor *t, dp_err *err)
{
	dp_status st = DP_OK;
	if (!c->psum[v]) {
		for (int d = 0; !st && d < c->size; d++) {
			dpi_lower_op op = {.source = v,
					   .device = d,
					   .micro = -1,
					   .output_bytes = t->total,
					   .role = DP_ROLE_NONE};
			uint32_t id;
			st = dpi_spmd_name(c, v, "/psum", 1, d, err);
			if (!st)
				st = dpi_lower_add(&c->b, c->name, &op, &id,
						   err);
			if (!st && d == 0)
				c->psum[v] = id;
		}
		layout L;
		memset(&L, 0, sizeof L);
		L.key = *t;
		if (!st)
			st = make_layout(c, v, c->psum[v], &L, 1, err);
		if (!st)
			st = reduce_edge(c, v, t, &L, err);
		free(L.gid);
		free(L.members);
	}
	for (int d = 0; !st && d < c->size; d++)
		st = dpi_lower_edge(&c->b, c->first[u] + (uint32_t)d,
				    c->psum[v] + (uint32_t)d, 0, false, err);
	return st;
}

static dp_status control_edge(dpi_spmd_ctx *c, uint32_t u, uint32_t v,
			      dp_err *err)
{
	uint32_t id;
	int dev;
	int wu = dpi_spmd_whole(c, u);
	for (int i = 0; instances(c, v, i, &id, &dev); i++) {
		uint32_t from = c->first[u];
		if (wu < 0)
			from += (uint32_t)dev;
		dp_status st = dpi_lower_edge(&c->b, from, id, 0, true, err);
		if (st)
			return st;
	}
	return DP_OK;
}

/* Is w a param op split on its param dims into at least parts blocks (its
 * weights stay sharded, as tensor-parallel weights do)? */
static bool sharded_as_finely(const dpi_spmd_ctx *c, uint32_t w, int64_t parts)
{
	dp_dims wd;
	if (dp_op_role(c->g, w) != DP_ROLE_PARAM || !dp_op_dims(c->g, w, &wd) ||
	    wd.nparam <= 0 || dpi_spmd_whole(c, w) >= 0)
		return false;
	int64_t wp = 1;
	for (int k = 0; k < wd.nparam; k++)
		wp *= dpi_spmd_mask_parts(c, dpi_spmd_mask(c, w, wd.param[k]));
	return wp >= parts;
}

/* The all-gather after an update op split on its param dims (ZeRO). */
static dp_status zero_gather(dpi_spmd_ctx *c, uint32_t u, dp_err *err)
{
	const dp_graph *g = c->g;
	dp_dims d;
	if (dp_op_role(g, u) != DP_ROLE_UPDATE || dpi_spmd_whole(c, u) >= 0 ||
	    !dp_op_dims(g, u, &d) || d.nparam <= 0)
		return DP_OK;
	tensor t;
	memset(&t, 0, sizeof t);
	t.r = d.nparam;
	t.eb = d.elem_bytes;
	t.cwhole = -1;
	int64_t parts = 1;
	for (int k = 0; k < d.nparam; k++) {
		t.size[k] = d.sizes[d.param[k]];
		t.pmask[k] = dpi_spmd_mask(c, u, d.param[k]);
		parts *= dpi_spmd_mask_parts(c, t.pmask[k]);
	}
	if (parts == 1)
		return DP_OK;
	for (uint32_t i = g->pred_off[u]; i < g->pred_off[u + 1]; i++)
		if (sharded_as_finely(c, g->edges[g->pred_edge[i]].from, parts))
			return DP_OK;
	/* the variable whose update u is (its colocation group) */
	int32_t grp = g->ops[u].colocate;
	for (uint32_t i = grp >= 0 ? g->group_off[grp] : 0;
	     grp >= 0 && i < g->group_off[grp + 1]; i++) {
		uint32_t w = g->group_ops[i];
		if (c->upd[w] == u && sharded_as_finely(c, w, parts))
			return DP_OK;
	}
	t.total = t.eb;
	for (int j = 0; j < t.r; j++)
		t.total *= t.size[j];
	int64_t lo[MAXR], hi[MAXR];
	for (int j = 0; j < t.r; j++)
		lo[j] = 0, hi[j] = t.size[j];
	for (int dev = 0; dev < c->size; dev++) {
		dpi_lower_op op = {
			.source = u,
			.device = dev,
			.micro = -1,
			.output_bytes = t.total,
			.role = DP_ROLE_NONE,
		};
		uint32_t id;
		dp_status st = dpi_spmd_name(c, u, "/ag", 1, dev, err);
		if (!st)
			st = dpi_lower_add(&c->b, c->name, &op, &id, err);
		if (!st)
			st = connect(c, &t, u, dev, lo, hi, id, 0, 1, err);
		if (st)
			return st;
	}
	return DP_OK;
}

/* The out-edges of producer u; ls holds its layouts. */
static dp_status producer_edges(dpi_spmd_ctx *c, uint32_t u, layout **ls,
				int *nls, int *cap, dp_err *err)
{
	const dp_graph *g = c->g;
	dp_status st = zero_gather(c, u, err);
	for (uint32_t i = g->succ_off[u]; !st && i < g->succ_off[u + 1]; i++) {
		uint32_t e = g->succ_edge[i];
		const dp_edge *ed = &g->edges[e];
		if (ed->control) {
			st = control_edge(c, u, ed->to, err);
			continue;
		}
		tensor t;
		make_tensor(c, e, &t);
		if (c->carry[ed->to])
			t.partial = 0; /* summed on each device */
		tensor key;
		if (t.partial && dpi_spmd_whole(c, u) < 0 &&
		    psum_key(c, ed->to, &key) &&
		    !memcmp(&key, &t, sizeof t)) {
			st = psum_edge(c, u, ed->to, &t, err);
			continue;
		}
		if (t.partial && dpi_spmd_whole(c, u) < 0) {
			int l = 0;
			while (l < *nls &&
			       memcmp(&(*ls)[l].key, &t, sizeof t) != 0)
				l++;
			if (l == *nls) {
				if (*nls == *cap) {
					int nc = *cap ? *cap * 2 : 4;
					layout *q = realloc(
						*ls, (size_t)nc * sizeof *q);
					if (!q)
						return dpi_nomem(err, "lowering a strategy");
					*ls = q;
					*cap = nc;
				}
				layout *L = &(*ls)[(*nls)++];
				memset(L, 0, sizeof *L);
				memcpy(&L->key, &t, sizeof t);
				st = make_layout(c, u, c->first[u], L, l + 1,
						 err);
				if (st)
					break;
			}
			st = reduce_edge(c, ed->to, &t, &(*ls)[l], err);
			continue;
		}
		uint32_t id;
		int dev;
		for (int k = 0; !st && instances(c, ed->to, k, &id, &dev);
		     k++) {
			int64_t lo[MAXR], hi[MAXR];
			cons_box(c, &t, dev, lo, hi);
			st = connect(c, &t, u, dev, lo, hi, id, 0, 1, err);
		}
	}
	return st;
}

dp_status dpi_spmd_edges(dpi_spmd_ctx *c, dp_err *err)
{
	const dp_graph *g = c->g;
	layout *ls = NULL;
	int nls = 0, cap = 0;
	c->carry = calloc(g->nops ? g->nops : 1, 1);
	c->psum = calloc(g->nops ? g->nops : 1, sizeof *c->psum);
	if (!c->carry || !c->psum) {
		free(c->carry);
		free(c->psum);
		return dpi_nomem(err, "lowering a strategy");
	}
	for (uint32_t k = 0; k < g->nops; k++)
		c->carry[g->topo[k]] = carried(c, g->topo[k]);
	/* a linear op that no op reads (the end of a gradient's sums in a
	 * graph without updates) reduces its inputs: carried partial sums
	 * would never be reduced */
	for (uint32_t v = 0; v < g->nops; v++)
		if (c->carry[v] && !has_data_consumer(g, v))
			c->carry[v] = 0;
	dp_status st = DP_OK;
	for (uint32_t u = 0; !st && u < g->nops; u++) {
		if ((u & 4095) == 0)
			st = dpi_poll(c->p, "lowering", "lowering: edges",
					   0.3 + 0.7 * u / g->nops, err);
		if (!st)
			st = producer_edges(c, u, &ls, &nls, &cap, err);
		for (int l = 0; l < nls; l++) {
			free(ls[l].gid);
			free(ls[l].members);
		}
		nls = 0;
	}
	free(ls);
	free(c->carry);
	free(c->psum);
	c->carry = NULL;
	c->psum = NULL;
	return st;
}
