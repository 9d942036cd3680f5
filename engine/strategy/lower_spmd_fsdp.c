/* lower_spmd_fsdp.c - ZeRO stage 3 (FSDP's full shard) in the spmd lowering
 * (internal/spmd.h; docs/spmd.md, "ZeRO stages").
 *
 * Under stage 3 every param op split on its param dims (zero splits them K
 * ways) keeps only its shard. Its weights reach their consumers through
 * per-layer all-gathers, as FSDP runs them: the param ops of one `layer`
 * form one unit (a param op without a layer is a unit by itself), and each
 * unit is gathered twice per step, once for its forward consumers (role
 * forward, loss, input or none) and once for its backward ones (backward,
 * grad); its update reads its own shard. For a unit and a phase, on every
 * device D:
 *   - a send op "P/fsdp_fs#dD" ("P/fsdp_bs#dD" for backward; P: the unit's
 *     first param op), time 0, reads the unit's shards on D and sends
 *     them to every device's gather: (K-1)/K x the unit's weights leave
 *     each device per phase;
 *   - a gather op "P/fsdp_f#dD" ("P/fsdp_b#dD") holds the unit's whole
 *     weights from the moment the first shard arrives until the unit's
 *     last consumer of the phase on D ends: the weights are freed after
 *     the forward and gathered again for the backward.
 * Prefetch: the units are ordered by their first consumer of the phase
 * (earliest finish by op times, then topological position); the send of a
 * unit waits (a control edge) for the first consumer of the unit before it
 * (for the first unit of backward, the first forward consumer of the last
 * unit of forward), so the next unit's gather overlaps the current unit's
 * compute, and the first unit of forward is gathered at once. A send whose
 * trigger would be one of its own unit's consumers has none.
 * With the gradients' reduce-scatter that makes 3(K-1)/K x the weights
 * sent per device per step.
 */
#include "internal/nomem.h"
#include "internal/spmd.h"

#include <stdlib.h>
#include <string.h>

#include "internal/arrays.h"

static bool backward_role(dp_role r)
{
	return r == DP_ROLE_BACKWARD || r == DP_ROLE_GRAD;
}

/* Is u a param op that stage 3 shards? */
static bool sharded(const dpi_spmd_ctx *c, uint32_t u)
{
	dp_dims d;
	if (dp_op_role(c->g, u) != DP_ROLE_PARAM || dpi_spmd_whole(c, u) >= 0 ||
	    !dp_op_dims(c->g, u, &d) || d.nparam <= 0)
		return false;
	for (int k = 0; k < d.nparam; k++)
		if (dpi_spmd_mask(c, u, d.param[k]))
			return true;
	return false;
}

/* Bytes of param op u's shard on dev, and of all of it (*whole). */
static int64_t shard(const dpi_spmd_ctx *c, uint32_t u, int dev, int64_t *whole)
{
	dp_dims d;
	dp_op_dims(c->g, u, &d);
	int64_t w = d.elem_bytes, q = 0, n = 1;
	for (int k = 0; k < d.nparam; k++) {
		uint8_t m = dpi_spmd_mask(c, u, d.param[k]);
		int np = dpi_spmd_mask_parts(c, m);
		w *= d.sizes[d.param[k]];
		q = q * np + dpi_spmd_mask_part(c, m, dev);
		n *= np;
	}
	*whole = w;
	return dpi_spmd_share(w, q, n);
}

/* A unit's key in a phase: its first consumer (UINT32_MAX: none). */
typedef struct ukey {
	uint32_t first;
	double ready;
	uint32_t pos;
} ukey;

static bool before(ukey a, ukey b)
{
	return a.ready < b.ready || (a.ready == b.ready && a.pos < b.pos);
}

typedef struct fsdp_build {
	dpi_spmd_ctx *c;
	uint32_t nu;
	uint32_t *head; /* per unit: its first param op */
	uint32_t *moff; /* per unit: its param ops mem[moff[i]..moff[i+1]) */
	uint32_t *mem;
	ukey *key; /* per unit and phase: [2i + phase] */
	double *ready;
} fsdp_build;

/* Bytes of unit i's shards on dev (and of all of it, *whole). */
static int64_t unit_shard(const fsdp_build *f, uint32_t i, int dev,
			  int64_t *whole)
{
	int64_t sum = 0, w;
	*whole = 0;
	for (uint32_t j = f->moff[i]; j < f->moff[i + 1]; j++) {
		sum += shard(f->c, f->mem[j], dev, &w);
		*whole += w;
	}
	return sum;
}

/* The send and gather ops of unit i in phase ph, and the edges into the
 * sends (shards, trigger) and from them to the gathers. */
static dp_status unit_ops(fsdp_build *f, uint32_t i, int ph, uint32_t trig,
			  dp_err *err)
{
	dpi_spmd_ctx *c = f->c;
	uint32_t h = f->head[i], send0 = 0;
	int64_t total, wh;
	unit_shard(f, i, 0, &total);
	dp_status st = DP_OK;
	for (int pass = 0; !st && pass < 2; pass++)
		for (int dev = 0; !st && dev < c->size; dev++) {
			dpi_lower_op op = {
				.source = h,
				.device = dev,
				.micro = -1,
				.output_bytes =
					pass ? total
					     : unit_shard(f, i, dev, &wh),
				.role = ph ? DP_ROLE_BACKWARD : DP_ROLE_FORWARD,
			};
			const char *tag = pass ? (ph ? "/fsdp_b" : "/fsdp_f")
					       : (ph ? "/fsdp_bs" : "/fsdp_fs");
			uint32_t id;
			st = dpi_spmd_name(c, h, tag, 1, dev, err);
			if (!st)
				st = dpi_lower_add(&c->b, c->name, &op, &id,
						   err);
			if (st)
				break;
			if (dev == 0 && pass == 0)
				send0 = id;
			if (dev == 0 && pass == 1)
				c->fsdp_g[2 * i + (uint32_t)ph] = id;
			if (pass == 0) {
				for (uint32_t j = f->moff[i];
				     !st && j < f->moff[i + 1]; j++) {
					uint32_t u = f->mem[j];
					st = dpi_lower_edge(
						&c->b,
						c->first[u] + (uint32_t)dev, id,
						shard(c, u, dev, &wh), false,
						err);
				}
				uint32_t at =
					trig != UINT32_MAX &&
							dpi_spmd_whole(c,
								       trig) < 0
						? (uint32_t)dev
						: 0;
				if (!st && trig != UINT32_MAX)
					st = dpi_lower_edge(&c->b,
							    c->first[trig] + at,
							    id, 0, true, err);
				continue;
			}
			for (int s = 0; !st && s < c->size; s++)
				st = dpi_lower_edge(
					&c->b, send0 + (uint32_t)s, id,
					unit_shard(f, i, s, &wh), false, err);
		}
	return st;
}

/* The keys of every unit: its first consumer in each phase. */
static void unit_keys(fsdp_build *f)
{
	const dp_graph *g = f->c->g;
	for (uint32_t i = 0; i < 2 * f->nu; i++)
		f->key[i] = (ukey){UINT32_MAX, 0, 0};
	for (uint32_t e = 0; e < g->nedges; e++) {
		const dp_edge *ed = &g->edges[e];
		uint32_t i = f->c->fsdp[ed->from], v = ed->to;
		dp_role r = dp_op_role(g, v);
		if (ed->control || i == UINT32_MAX || r == DP_ROLE_UPDATE)
			continue;
		ukey k = {v, f->ready[v], g->topo_pos[v]};
		ukey *slot = &f->key[2 * i + (backward_role(r) ? 1 : 0)];
		if (slot->first == UINT32_MAX || before(k, *slot))
			*slot = k;
	}
}

/* The units (c->fsdp, f->head, f->moff, f->mem): one per layer string,
 * or per param op without one. */
static void make_units(fsdp_build *f)
{
	dpi_spmd_ctx *c = f->c;
	const dp_graph *g = c->g;
	for (uint32_t u = 0; u < g->nops; u++) {
		c->fsdp[u] = UINT32_MAX;
		if (!sharded(c, u))
			continue;
		uint32_t ly = g->ops[u].layer, i = 0;
		while (ly && i < f->nu && g->ops[f->head[i]].layer != ly)
			i++;
		if (!ly || i == f->nu)
			f->head[i = f->nu++] = u;
		c->fsdp[u] = i;
	}
	memset(f->moff, 0, ((size_t)f->nu + 1) * sizeof *f->moff);
	for (uint32_t u = 0; u < g->nops; u++)
		if (c->fsdp[u] != UINT32_MAX)
			f->moff[c->fsdp[u] + 1]++;
	for (uint32_t i = 0; i < f->nu; i++)
		f->moff[i + 1] += f->moff[i];
	for (uint32_t u = 0; u < g->nops; u++)
		if (c->fsdp[u] != UINT32_MAX)
			f->mem[f->moff[c->fsdp[u]]++] = u;
	for (uint32_t i = f->nu; i > 0; i--)
		f->moff[i] = f->moff[i - 1];
	f->moff[0] = 0;
}

dp_status dpi_spmd_fsdp_begin(dpi_spmd_ctx *c, dp_err *err)
{
	const dp_graph *g = c->g;
	if (c->zero_stage != 3)
		return DP_OK;
	size_t n = g->nops ? g->nops : 1;
	fsdp_build f = {.c = c};
	c->fsdp = malloc(n * sizeof *c->fsdp);
	f.head = malloc(n * sizeof *f.head);
	f.moff = malloc((n + 1) * sizeof *f.moff);
	f.mem = malloc(n * sizeof *f.mem);
	f.key = malloc(2 * n * sizeof *f.key);
	uint32_t *order = malloc(n * sizeof *order);
	c->fsdp_g = malloc(2 * n * sizeof *c->fsdp_g);
	f.ready = dpi_lower_ready_times(g);
	dp_status st = DP_OK;
	if (!c->fsdp || !f.head || !f.moff || !f.mem || !f.key || !order ||
	    !c->fsdp_g || !f.ready)
		st = dpi_nomem(err, "lowering a strategy");
	if (!st)
		make_units(&f);
	for (uint32_t i = 0; !st && i < 2 * f.nu; i++)
		c->fsdp_g[i] = UINT32_MAX;
	if (!st)
		unit_keys(&f);
	/* each phase in order: sends triggered by the unit before */
	ukey prev = {UINT32_MAX, 0, 0};
	for (int ph = 0; !st && ph < 2; ph++) {
		/* the units that have consumers in this phase, by their keys
		 * (insertion: units are few) */
		const ukey *key = f.key + ph;
		uint32_t m = 0;
		for (uint32_t i = 0; i < f.nu; i++) {
			if (key[2 * i].first == UINT32_MAX)
				continue;
			uint32_t j = m++;
			for (;
			     j > 0 && before(key[2 * i], key[2 * order[j - 1]]);
			     j--)
				order[j] = order[j - 1];
			order[j] = i;
		}
		for (uint32_t j = 0; !st && j < m; j++) {
			ukey k = key[2 * order[j]];
			uint32_t trig =
				prev.first != UINT32_MAX && before(prev, k)
					? prev.first
					: UINT32_MAX;
			st = unit_ops(&f, order[j], ph, trig, err);
			prev = k;
		}
		/* backward's first unit waits for forward's last unit
		 * (prev is its key now) */
	}
	DPI_FREE_ALL(f.head, f.moff, f.mem, f.key, order, f.ready);
	return st;
}

uint32_t dpi_spmd_fsdp_gather(const dpi_spmd_ctx *c, uint32_t u, uint32_t v)
{
	if (!c->fsdp || c->fsdp[u] == UINT32_MAX)
		return UINT32_MAX;
	dp_role r = dp_op_role(c->g, v);
	if (r == DP_ROLE_UPDATE)
		return UINT32_MAX;
	return c->fsdp_g[2 * c->fsdp[u] + (backward_role(r) ? 1 : 0)];
}

void dpi_spmd_fsdp_end(dpi_spmd_ctx *c)
{
	free(c->fsdp);
	free(c->fsdp_g);
	c->fsdp = c->fsdp_g = NULL;
}
