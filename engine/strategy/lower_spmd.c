/* lower_spmd.c - spmd strategies: their check and the instances of every op
 * (strategy.h, docs/spmd.md; the edges are in lower_spmd_edges.c).
 *
 * An op on every device (device -1) becomes one instance per mesh device,
 * "NAME#dD". The mesh is row-major: device D has coordinates (c0, c1, ...)
 * with D = c0 x stride0 + c1 x stride1 + ..., the last axis varying
 * fastest. Dim i of the op, split by the axes of its mask, is cut into
 * parts blocks, equal when parts divides the dim, else of ceil and floor
 * size (block q is [floor(q x size / parts), floor((q+1) x size / parts)),
 * internal/spmd.h); device D holds the block whose index is D's
 * coordinates on those axes, read row-major. Axes that split none of the
 * op's dims replicate it. An instance's time is the op's time x its block's
 * share of the whole loop nest (a replica keeps the full time: redundant
 * compute; with unequal blocks, its block's share: the slowest part sets
 * the step's time); its output is its out-block; its param bytes are divided by
 * the parts of the param dims (weights, gradients and optimizer state
 * alike) or kept whole; its temp bytes scale like its time. An op with dims
 * but no out has several output tensors: its output bytes are divided by
 * the parts of the batch dim. A whole op (no dims) split along the batch
 * divides its time, output and temp bytes evenly and keeps its params.
 * A whole-placed op (device D >= 0) stays one op, named as in the graph.
 *
 * ZeRO: a param op that is not split itself, whose update op (the op of
 * role update in its colocation group, else one it feeds) is split on its
 * param dims, keeps its weights whole on every device but holds only its
 * update's share of the rest of its param bytes (the gradients and
 * optimizer state that graphs count on the variable).
 */
#include "internal/arrays.h"
#include "internal/spmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/poll.h"

int dpi_spmd_mask_parts(const dpi_spmd_ctx *c, uint8_t mask)
{
	return dpi_mesh_parts(&c->mesh, mask);
}

int dpi_spmd_mask_part(const dpi_spmd_ctx *c, uint8_t mask, int d)
{
	return dpi_mesh_part(&c->mesh, mask, d);
}

int64_t dpi_spmd_share(int64_t total, int64_t q, int64_t n)
{
	if (n <= 1)
		return total;
	__extension__ typedef unsigned __int128 u128;
	u128 t = (u128)(uint64_t)total;
	return (int64_t)(t * (u128)(q + 1) / (u128)n - t * (u128)q / (u128)n);
}

dp_status dpi_spmd_name(dpi_spmd_ctx *c, uint32_t u, const char *tag,
			int layout, int dev, dp_err *err)
{
	const char *nm = dp_graph_op_name(c->g, u);
	size_t need = strlen(nm) + strlen(tag) + 32;
	if (need > c->name_cap) {
		char *q = realloc(c->name, need);
		if (!q)
			return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
					  "out of memory while lowering a "
					  "strategy");
		c->name = q;
		c->name_cap = need;
	}
	if (layout > 1)
		snprintf(c->name, c->name_cap, "%s%s%d#d%d", nm, tag, layout,
			 dev);
	else
		snprintf(c->name, c->name_cap, "%s%s#d%d", nm, tag, dev);
	return DP_OK;
}

const char *dpi_spmd_mesh_text(const dp_spmd *sp, char *buf, size_t n)
{
	size_t pos = 0;
	buf[pos++] = '[';
	for (int a = 0; a < sp->naxes && pos + 16 < n; a++)
		pos += (size_t)snprintf(buf + pos, n - pos, "%s%d",
					a ? "," : "", sp->mesh[a]);
	snprintf(buf + pos, n - pos, "]");
	return buf;
}

/* The checks of one op's split and device. */
static dp_status check_op(const dp_graph *g, const dp_spmd *sp, int size,
			  uint32_t u, dp_err *err)
{
	const char *src = g->source, *nm = dp_graph_op_name(g, u);
	char mt[64];
	int32_t dev = sp->device ? sp->device[u] : -1;
	if (dev < -1 || dev >= size)
		return dp_err_set(err, DP_EINPUT, src, 0, 0,
				  "op '%s' is placed on mesh device %d; "
				  "expected -1 (every device) or a device "
				  "of the mesh %s, 0..%d",
				  nm, dev,
				  dpi_spmd_mesh_text(sp, mt, sizeof mt),
				  size - 1);
	dp_dims d;
	bool has = dp_op_dims(g, u, &d);
	uint32_t nd = has ? d.n : 1;
	uint8_t used = 0;
	uint32_t used_by[DP_MAX_MESH_AXES] = {0};
	bool split = false;
	for (uint32_t i = 0; sp->axes && i < DP_MAX_OP_DIMS; i++) {
		uint8_t mask = sp->axes[(size_t)u * DP_MAX_OP_DIMS + i];
		if (!mask)
			continue;
		split = true;
		if (i >= nd && has)
			return dp_err_set(err, DP_EINPUT, src, 0, 0,
					  "op '%s' has %u dims, but dim #%u "
					  "of its split is set",
					  nm, d.n, i);
		const char *dn = has ? dp_graph_str(g, d.name_off[i]) : "";
		if (!has && (i > 0 || !dpi_spmd_batch_role(dp_op_role(g, u))))
			return dp_err_set(
				err, DP_EINPUT, src, 0, 0,
				"op '%s' has no dims: it can only be "
				"replicated or placed (or split along the "
				"batch when its role is input, forward, "
				"backward, grad or loss)",
				nm);
		if (mask >> sp->naxes)
			return dp_err_set(err, DP_EINPUT, src, 0, 0,
					  "op '%s', dim '%s': split by a mesh "
					  "axis the mesh %s does not have "
					  "(axes 0..%d)",
					  nm, has ? dn : "(batch)",
					  dpi_spmd_mesh_text(sp, mt, sizeof mt),
					  sp->naxes - 1);
		if (mask & used) {
			int a = 0;
			while (!((mask & used) & (1u << a)))
				a++;
			return dp_err_set(
				err, DP_EINPUT, src, 0, 0,
				"op '%s': mesh axis %d splits both '%s' and "
				"'%s'; an axis splits at most one dim of an op",
				nm, a, dp_graph_str(g, d.name_off[used_by[a]]),
				dn);
		}
		used |= mask;
		for (int a = 0; a < sp->naxes; a++)
			if (mask & (1u << a))
				used_by[a] = i;
		int parts = dp_spmd_parts(sp, u, i);
		if (has && d.sizes[i] < parts)
			return dp_err_set(err, DP_EINPUT, src, 0, 0,
					  "op '%s', dim '%s': %d parts are "
					  "more than %s=%lld; every part needs "
					  "at least one index",
					  nm, dn, parts, dn,
					  (long long)d.sizes[i]);
	}
	if (split && dev >= 0)
		return dp_err_set(err, DP_EINPUT, src, 0, 0,
				  "op '%s' is both split and placed on device "
				  "%d; give one or the other",
				  nm, dev);
	int32_t pin = g->ops[u].pin;
	if (pin >= 0 && pin >= size)
		return dp_err_set(err, DP_EINPUT, src, 0, 0,
				  "op '%s' is pinned to device %d, outside "
				  "the mesh %s of %d devices",
				  nm, pin,
				  dpi_spmd_mesh_text(sp, mt, sizeof mt), size);
	if (pin >= 0 && dev != pin)
		return dp_err_set(err, DP_EINPUT, src, 0, 0,
				  "op '%s' is pinned to device %d: the "
				  "strategy must place it whole there, not %s",
				  nm, pin,
				  split	    ? "split it"
				  : dev < 0 ? "replicate it on every device"
					    : "on another device");
	return DP_OK;
}

dp_status dpi_strategy_check_spmd(const dp_graph *g, const dp_machine *m,
				  const dp_strategy *s, dp_err *err)
{
	(void)m;
	const dp_spmd *sp = &s->spmd;
	const char *src = g->source;
	if (sp->naxes < 1 || sp->naxes > DP_MAX_MESH_AXES)
		return dp_err_set(err, DP_EINPUT, src, 0, 0,
				  "the spmd mesh has %d axes; expected 1 to "
				  "%d, such as [8] or [2,4]",
				  sp->naxes, DP_MAX_MESH_AXES);
	int64_t size = 1;
	for (int a = 0; a < sp->naxes; a++) {
		if (sp->mesh[a] < 1)
			return dp_err_set(err, DP_EINPUT, src, 0, 0,
					  "axis %d of the spmd mesh has size "
					  "%d; expected a size >= 1",
					  a, sp->mesh[a]);
		size *= sp->mesh[a];
		if (size > DP_MAX_DEVICES)
			break;
	}
	char mt[64];
	if (size != s->k)
		return dp_err_set(err, DP_EINPUT, src, 0, 0,
				  "the spmd mesh %s has %lld devices, but the "
				  "strategy uses %d; the mesh's product must "
				  "be the number of devices",
				  dpi_spmd_mesh_text(sp, mt, sizeof mt),
				  (long long)size, s->k);
	for (uint32_t u = 0; u < g->nops; u++) {
		dp_status st = check_op(g, sp, (int)size, u, err);
		if (st)
			return st;
	}
	return DP_OK;
}

/* Linear part index and parts of u's block over the dims idx[0..n) (all
 * dims when idx is NULL). */
static void block_of(const dpi_spmd_ctx *c, uint32_t u, const uint8_t *idx,
		     int n, int d, int64_t *q, int64_t *parts)
{
	*q = 0;
	*parts = 1;
	for (int k = 0; k < n; k++) {
		uint8_t mask = dpi_spmd_mask(c, u, idx ? idx[k] : (uint32_t)k);
		int np = dpi_spmd_mask_parts(c, mask);
		*q = *q * np + dpi_spmd_mask_part(c, mask, d);
		*parts *= np;
	}
}

/* Whether some split dim of u (dims d) has blocks of unequal size. */
static bool uneven(const dpi_spmd_ctx *c, uint32_t u, const dp_dims *d)
{
	for (uint32_t i = 0; i < d->n; i++)
		if (d->sizes[i] %
		    dpi_spmd_mask_parts(c, dpi_spmd_mask(c, u, i)))
			return true;
	return false;
}

/* total x the share of u's block on dev of the dims idx[0..n) (all dims
 * when idx is NULL), dim by dim: floor(total x hi / size) - floor(total x
 * lo / size) of the block [lo, hi) of each, so the parts add up exactly. */
static int64_t uneven_share(const dpi_spmd_ctx *c, uint32_t u, const dp_dims *d,
			    const uint8_t *idx, int n, int dev, int64_t total)
{
	__extension__ typedef unsigned __int128 u128;
	for (int k = 0; k < n; k++) {
		uint32_t i = idx ? idx[k] : (uint32_t)k;
		uint8_t mask = dpi_spmd_mask(c, u, i);
		int64_t np = dpi_spmd_mask_parts(c, mask);
		int64_t q = dpi_spmd_mask_part(c, mask, dev), z = d->sizes[i];
		u128 t = (u128)(uint64_t)total;
		total = (int64_t)(t * (u128)dpi_spmd_lo(z, q + 1, np) /
					  (u128)z -
				  t * (u128)dpi_spmd_lo(z, q, np) / (u128)z);
	}
	return total;
}

/* Time, temp, output and param of the instance on dev of u (dims d) when
 * its blocks are unequal: each scaled by its block's share of the dims
 * that index it (the loop nest for time and temp). */
static void uneven_instance(const dpi_spmd_ctx *c, uint32_t u, const dp_dims *d,
			    int dev, dpi_lower_op *lo)
{
	const dp_op *o = &c->g->ops[u];
	double f = 1;
	for (uint32_t i = 0; i < d->n; i++) {
		uint8_t mask = dpi_spmd_mask(c, u, i);
		int64_t np = dpi_spmd_mask_parts(c, mask);
		int64_t q = dpi_spmd_mask_part(c, mask, dev), z = d->sizes[i];
		f *= (double)(dpi_spmd_lo(z, q + 1, np) -
			      dpi_spmd_lo(z, q, np)) /
		     (double)z;
	}
	lo->time_us = o->time_us * f;
	lo->temp_bytes =
		uneven_share(c, u, d, NULL, (int)d->n, dev, o->temp_bytes);
	if (d->nout >= 0)
		lo->output_bytes = uneven_share(c, u, d, d->out, d->nout, dev,
						o->output_bytes);
	else if (c->bidx[u] >= 0)
		lo->output_bytes =
			uneven_share(c, u, d, &(uint8_t){(uint8_t)c->bidx[u]},
				     1, dev, o->output_bytes);
	if (d->nparam >= 0)
		lo->param_bytes = uneven_share(c, u, d, d->param, d->nparam,
					       dev, o->param_bytes);
}

/* Param bytes of the instance on dev of param op u (block qp of np of its
 * own param dims) under ZeRO (see the top of the file). */
static int64_t zero_param_bytes(const dpi_spmd_ctx *c, uint32_t u,
				const dp_dims *d, int dev, int64_t own)
{
	uint32_t up = c->upd[u];
	dp_dims ud;
	if (up == UINT32_MAX || dpi_spmd_whole(c, up) >= 0 ||
	    !dp_op_dims(c->g, up, &ud) || ud.nparam <= 0 || d->nparam <= 0 ||
	    own == 0)
		return own;
	int64_t q, n;
	block_of(c, up, ud.param, ud.nparam, dev, &q, &n);
	int64_t w = d->elem_bytes;
	for (int k = 0; k < d->nparam; k++)
		w *= d->sizes[d->param[k]];
	if (n == 1 || own < w)
		return own;
	return w + dpi_spmd_share(own - w, q, n);
}

/* The update op of every param op (ctx.upd). */
static void find_updates(dpi_spmd_ctx *c)
{
	const dp_graph *g = c->g;
	for (uint32_t u = 0; u < g->nops; u++)
		c->upd[u] = UINT32_MAX;
	for (uint32_t grp = 0; grp < g->ngroups; grp++) {
		uint32_t up = UINT32_MAX;
		for (uint32_t i = g->group_off[grp]; i < g->group_off[grp + 1];
		     i++)
			if (up == UINT32_MAX &&
			    dp_op_role(g, g->group_ops[i]) == DP_ROLE_UPDATE)
				up = g->group_ops[i];
		for (uint32_t i = g->group_off[grp]; i < g->group_off[grp + 1];
		     i++)
			if (dp_op_role(g, g->group_ops[i]) == DP_ROLE_PARAM)
				c->upd[g->group_ops[i]] = up;
	}
	for (uint32_t e = 0; e < g->nedges; e++) {
		uint32_t a = g->edges[e].from, b = g->edges[e].to;
		if (c->upd[a] == UINT32_MAX &&
		    dp_op_role(g, a) == DP_ROLE_PARAM &&
		    dp_op_role(g, b) == DP_ROLE_UPDATE)
			c->upd[a] = b;
	}
}

/* Adds the instances of op u. */
static dp_status add_instances(dpi_spmd_ctx *c, uint32_t u, dp_err *err)
{
	const dp_op *o = &c->g->ops[u];
	dpi_lower_op lo = dpi_lower_op_of(c->g, u, 0);
	int whole = dpi_spmd_whole(c, u);
	if (whole >= 0) {
		lo.device = whole;
		return dpi_lower_add(&c->b, dp_graph_op_name(c->g, u), &lo,
				     &c->first[u], err);
	}
	dp_dims d;
	bool has = dp_op_dims(c->g, u, &d);
	for (int dev = 0; dev < c->size; dev++) {
		int64_t q, n, qo, no, qp, np;
		if (has) {
			block_of(c, u, NULL, (int)d.n, dev, &q, &n);
			if (d.nout >= 0)
				block_of(c, u, d.out, d.nout, dev, &qo, &no);
			else if (c->bidx[u] >= 0)
				block_of(c, u, &(uint8_t){(uint8_t)c->bidx[u]},
					 1, dev, &qo, &no);
			else
				qo = 0, no = 1;
			if (d.nparam >= 0)
				block_of(c, u, d.param, d.nparam, dev, &qp,
					 &np);
			else
				qp = 0, np = 1;
		} else {
			/* a whole grad op's parts hold whole partial sums */
			block_of(c, u, NULL, 1, dev, &q, &n);
			bool grad = dp_op_role(c->g, u) == DP_ROLE_GRAD;
			qo = grad ? 0 : q, no = grad ? 1 : n, qp = 0, np = 1;
		}
		lo.device = dev;
		lo.time_us = o->time_us / (double)n;
		lo.temp_bytes = dpi_spmd_share(o->temp_bytes, q, n);
		lo.output_bytes = dpi_spmd_share(o->output_bytes, qo, no);
		lo.param_bytes = dpi_spmd_share(o->param_bytes, qp, np);
		if (has && uneven(c, u, &d))
			uneven_instance(c, u, &d, dev, &lo);
		if (has && np == 1 && dp_op_role(c->g, u) == DP_ROLE_PARAM)
			lo.param_bytes =
				zero_param_bytes(c, u, &d, dev, lo.param_bytes);
		uint32_t id;
		dp_status st = dpi_spmd_name(c, u, "", 1, dev, err);
		if (!st)
			st = dpi_lower_add(&c->b, c->name, &lo, &id, err);
		if (st)
			return st;
		if (dev == 0)
			c->first[u] = id;
	}
	return DP_OK;
}

dp_status dpi_lower_spmd(const dp_graph *g, const dp_machine *m,
			 const dp_strategy *s, const dp_progress *p,
			 dp_lowered *out, dp_err *err)
{
	(void)m;
	dpi_spmd_ctx c = {.g = g, .sp = &s->spmd, .p = p};
	c.size = dp_spmd_size(c.sp);
	for (int a = c.sp->naxes - 1, st = 1; a >= 0; a--) {
		c.stride[a] = st;
		st *= c.sp->mesh[a];
	}
	dpi_mesh_init(&c.mesh, c.sp->naxes, c.sp->mesh);
	size_t n = g->nops ? g->nops : 1;
	c.bidx = malloc(n);
	c.first = malloc(n * sizeof *c.first);
	c.upd = malloc(n * sizeof *c.upd);
	if (!c.bidx || !c.first || !c.upd) {
		free(c.bidx);
		free(c.first);
		free(c.upd);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory while lowering a strategy");
	}
	const char *bd = dp_graph_batch_dim(g);
	uint64_t expect = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		dp_dims d;
		if (!dp_op_dims(g, u, &d))
			c.bidx[u] = -2;
		else
			c.bidx[u] =
				(int8_t)(bd[0] ? dp_op_find_dim(g, u, bd) : -1);
		expect += dpi_spmd_whole(&c, u) >= 0 ? 1 : (uint64_t)c.size;
	}
	if (expect > DP_MAX_OPS) {
		free(c.bidx);
		free(c.first);
		free(c.upd);
		return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				  "the lowered graph would have %llu ops, more "
				  "than the %u a graph may have; use fewer "
				  "devices",
				  (unsigned long long)expect, DP_MAX_OPS);
	}
	find_updates(&c);
	dp_status st = dpi_lower_begin(&c.b, g, (uint32_t)expect, err);
	for (uint32_t u = 0; !st && u < g->nops; u++) {
		if ((u & 4095) == 0)
			st = dpi_poll(p, "lowering", "lowering: ops",
					   0.3 * u / g->nops, err);
		if (!st)
			st = add_instances(&c, u, err);
	}
	if (!st)
		st = dpi_spmd_edges(&c, err);
	DPI_FREE_ALL(c.bidx, c.first, c.upd, c.name);
	if (st) {
		dpi_lower_abort(&c.b);
		return st;
	}
	return dpi_lower_finish(&c.b, out, err);
}
