/* strategy_file.c - reading strategy files (strategy.h, docs/formats.md).
 *
 * {"format":"dnnpart-strategy","version":1,"kind":"placement|spmd|
 * pipeline",...}, read with the streaming scanner so that every fault
 * names its file, line and column and the path of the value
 * ("ops.fc1.split.n: 3 parts are more than n=2; ..."). The top level is scanned
 * first, remembering where each value starts, so that keys may come in
 * any order (the mesh is needed to read the splits). Numbers of parts are
 * turned into mesh axes here: the first axis the op does not use yet whose
 * size is the number, else the first run of consecutive unused axes whose
 * product is.
 */
#include "internal/strategy_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/load.h"
#include "dnnpart/units.h"
#include "internal/json_scan.h"
#include "internal/spmd.h"

/* Up to 32 "dim": value pairs of a default split. */
typedef struct defsplit {
	int n;
	char name[DP_MAX_OP_DIMS][DP_MAX_DIM_NAME + 1];
	size_t at[DP_MAX_OP_DIMS];
} defsplit;

dp_status dpi_sread_nomem(dpi_sread *R)
{
	return dp_err_set(R->js.err, DP_ENOMEM, R->js.path, 0, 0,
			  "out of memory while reading a strategy");
}

dp_status dpi_sread_op(dpi_sread *R, size_t key_off, const char *what,
		       const uint8_t *listed, uint32_t *u)
{
	jscan *js = &R->js;
	*u = dp_graph_find(R->g, js->sbuf);
	if (*u == UINT32_MAX)
		return dpi_jscan_error_at(js, key_off,
					  "%s: unknown op '%.200s': the graph "
					  "'%s' has no op of that name",
					  what, js->sbuf, R->g->name);
	if (listed && listed[*u])
		return dpi_sread_op_twice(R, key_off, what);
	return DP_OK;
}

dp_status dpi_sread_op_twice(dpi_sread *R, size_t key_off, const char *what)
{
	return dpi_jscan_error_at(&R->js, key_off,
				  "%s: op '%.200s' is listed twice", what,
				  R->js.sbuf);
}

const char *dpi_strategy_batch_key(const dp_graph *g)
{
	const char *b = dp_graph_batch_dim(g);
	return b[0] ? b : "batch";
}

/* Reads the integer at off into *v (lo..hi). */
dp_status dpi_sread_int(dpi_sread *R, size_t off, const char *what, long lo,
			long hi, long *v)
{
	jscan *js = &R->js;
	js->pos = off;
	size_t s, e;
	dp_status st = dpi_jscan_value(js, &s, &e);
	if (st)
		return st;
	double x;
	size_t k =
		js->text[s] == '"' ? 0 : dp_units_scan_number(js->text + s, &x);
	if (k != e - s || x != floor(x) || x < lo || x > hi)
		return dpi_jscan_error_at(js, s,
					  "%s: expected an integer from %ld to "
					  "%ld, got %.*s",
					  what, lo, hi,
					  (int)(e - s > 24 ? 24 : e - s),
					  js->text + s);
	*v = (long)x;
	return DP_OK;
}

/* Reads the string at off into js->sbuf. */
dp_status dpi_sread_str(dpi_sread *R, size_t off, const char *what)
{
	jscan *js = &R->js;
	js->pos = off;
	if (dpi_jscan_peek(js) != '"')
		return dpi_jscan_error_at(
			js, js->pos, "%s: expected a string, got %s %s", what,
			dpi_jscan_kind(js)[0] == 'a' ||
					dpi_jscan_kind(js)[0] == 'o'
				? "an"
				: "a",
			dpi_jscan_kind(js));
	return dpi_jscan_string(js);
}

/* Reads the mesh [a, b, ...] at off. */
static dp_status rd_mesh(dpi_sread *R, size_t off, const char *what,
			 dp_spmd *sp)
{
	jscan *js = &R->js;
	jscan_iter it;
	dp_status st = dpi_jscan_array_at(js, off, &it, what);
	long size = 1;
	sp->naxes = 0;
	while (dpi_jscan_element(js, &it, &st)) {
		dpi_jscan_peek(js);
		size_t at = js->pos;
		if (sp->naxes == DP_MAX_MESH_AXES)
			return dpi_jscan_error_at(js, at,
						  "%s: expected at most %d "
						  "axes",
						  what, DP_MAX_MESH_AXES);
		long v;
		if ((st = dpi_sread_int(R, at, what, 1, DP_MAX_DEVICES, &v)))
			return st;
		size *= v;
		if (size > DP_MAX_DEVICES)
			return dpi_jscan_error_at(js, at,
						  "%s: more than %d devices in "
						  "all",
						  what, DP_MAX_DEVICES);
		sp->mesh[sp->naxes++] = (int)v;
	}
	if (!st && sp->naxes == 0)
		return dpi_jscan_error_at(js, off,
					  "%s: expected 1 to %d axis sizes, "
					  "such as [8] or [2,4]",
					  what, DP_MAX_MESH_AXES);
	return st;
}

/* Reads a split's value at js->pos (a number of parts or a list of axes)
 * into *mask, given the axes the op already uses. note says which op
 * for a default ("" for a listed op). */
static dp_status rd_parts(dpi_sread *R, const dp_spmd *sp, uint8_t used,
			  uint8_t *mask, const char *note)
{
	jscan *js = &R->js;
	int c = dpi_jscan_peek(js);
	size_t at = js->pos;
	char mt[64];
	*mask = 0;
	if (c == '[') {
		jscan_iter it;
		dp_status st = dpi_jscan_array_begin(js, &it, R->path);
		while (dpi_jscan_element(js, &it, &st)) {
			dpi_jscan_peek(js);
			size_t a_at = js->pos;
			long a;
			if ((st = dpi_sread_int(R, a_at, R->path, 0,
						sp->naxes - 1, &a)))
				return st;
			if ((used | *mask) & (1u << a))
				return dpi_jscan_error_at(
					js, a_at,
					"%s%s: mesh axis %ld already splits "
					"%s of this op",
					R->path, note, a,
					(*mask & (1u << a)) ? "this dim"
							    : "another dim");
			*mask |= (uint8_t)(1u << a);
		}
		return st;
	}
	long n;
	dp_status st = dpi_sread_int(R, at, R->path, 1, DP_MAX_DEVICES, &n);
	if (st)
		return st;
	if (n == 1)
		return DP_OK;
	for (int a = 0; a < sp->naxes; a++)
		if (!(used & (1u << a)) && sp->mesh[a] == n) {
			*mask = (uint8_t)(1u << a);
			return DP_OK;
		}
	for (int a = 0; a < sp->naxes; a++) {
		long prod = 1;
		uint8_t m = 0;
		for (int b = a; b < sp->naxes && !(used & (1u << b)); b++) {
			prod *= sp->mesh[b];
			m |= (uint8_t)(1u << b);
			if (prod == n) {
				*mask = m;
				return DP_OK;
			}
			if (prod > n)
				break;
		}
	}
	return dpi_jscan_error_at(
		js, at,
		"%s%s: %ld parts are no unused axis of the mesh %s and no run "
		"of consecutive unused axes; give the axes as a list (such as "
		"[0]) or a mesh whose axes match the parts (such as [2,4])",
		R->path, note, n, dpi_spmd_mesh_text(sp, mt, sizeof mt));
}

/* Sets the split of dim i of op u to mask, checking that every part gets
 * at least one index (parts need not divide the dim). */
static dp_status set_split(dpi_sread *R, dp_spmd *sp, uint32_t u, int i,
			   uint8_t mask, size_t at, const char *note)
{
	const dp_graph *g = R->g;
	sp->axes[(size_t)u * DP_MAX_OP_DIMS + (uint32_t)i] = mask;
	dp_dims d;
	if (!dp_op_dims(g, u, &d))
		return DP_OK;
	int parts = dp_spmd_parts(sp, u, (uint32_t)i);
	if (d.sizes[i] >= parts)
		return DP_OK;
	const char *dn = dp_graph_str(g, d.name_off[i]);
	return dpi_jscan_error_at(&R->js, at,
				  "%s%s: %d parts are more than %s=%lld; "
				  "every part needs at least one index",
				  R->path, note, parts, dn,
				  (long long)d.sizes[i]);
}

/* The index of dim name in op u for a split: -1 when u has no such dim
 * (a whole op: its batch key, when its role allows a split). */
static int dim_of(const dp_graph *g, uint32_t u, const char *name)
{
	dp_dims d;
	if (dp_op_dims(g, u, &d))
		return dp_op_find_dim(g, u, name);
	if (strcmp(name, dpi_strategy_batch_key(g)) == 0 &&
	    dpi_spmd_batch_role(dp_op_role(g, u)))
		return 0;
	return -1;
}

/* The dims of u, "b, k, n", for messages. */
static const char *dims_text(const dp_graph *g, uint32_t u, char *buf, size_t n)
{
	dp_dims d;
	size_t pos = 0;
	buf[0] = '\0';
	dp_op_dims(g, u, &d);
	for (uint32_t i = 0; i < d.n && pos + 70 < n; i++)
		pos += (size_t)snprintf(buf + pos, n - pos, "%s%s",
					i ? ", " : "",
					dp_graph_str(g, d.name_off[i]));
	return buf;
}

/* The "split" object of a listed op u at js->pos. */
static dp_status rd_op_split(dpi_sread *R, dp_spmd *sp, uint32_t u,
			     const char *pre)
{
	jscan *js = &R->js;
	const dp_graph *g = R->g;
	const char *nm = dp_graph_op_name(g, u);
	jscan_iter it;
	snprintf(R->path, sizeof R->path, "%sops.%.200s.split", pre, nm);
	dp_status st = dpi_jscan_object_begin(js, &it, R->path);
	uint8_t used = 0;
	size_t key_off;
	while (dpi_jscan_member(js, &it, &key_off, &st)) {
		char dn[DP_MAX_DIM_NAME + 1];
		snprintf(dn, sizeof dn, "%s", js->sbuf);
		snprintf(R->path, sizeof R->path, "%sops.%.200s.split.%s", pre,
			 nm, dn);
		int i = dim_of(g, u, dn);
		char dt[300];
		dp_dims d;
		if (i < 0 && dp_op_dims(g, u, &d))
			return dpi_jscan_error_at(
				js, key_off,
				"%s: '%s' is not a dim of op "
				"'%s' (its dims: %s)",
				R->path, dn, nm,
				dims_text(g, u, dt, sizeof dt));
		if (i < 0)
			return dpi_jscan_error_at(
				js, key_off,
				"%s: op '%s' has no dims: only its batch, "
				"\"%s\", can be split, and only when its role "
				"is input, forward, backward, grad or loss",
				R->path, nm, dpi_strategy_batch_key(g));
		dpi_jscan_peek(js);
		size_t at = js->pos;
		uint8_t mask;
		if ((st = rd_parts(R, sp, used, &mask, "")) ||
		    (st = set_split(R, sp, u, i, mask, at, "")))
			return st;
		used |= mask;
	}
	return st;
}

/* The "ops" object at off: per op {"split": {...}} or {"device": d}. */
static dp_status rd_ops(dpi_sread *R, size_t off, const char *pre, dp_spmd *sp,
			uint8_t *listed)
{
	jscan *js = &R->js;
	const dp_graph *g = R->g;
	jscan_iter it;
	char what[64];
	snprintf(what, sizeof what, "%sops", pre);
	dp_status st = dpi_jscan_object_at(js, off, &it, what);
	int size = dp_spmd_size(sp);
	size_t key_off;
	while (dpi_jscan_member(js, &it, &key_off, &st)) {
		uint32_t u;
		if ((st = dpi_sread_op(R, key_off, what, listed, &u)))
			return st;
		listed[u] = 1;
		const char *nm = dp_graph_op_name(g, u);
		snprintf(R->path, sizeof R->path, "%s.%.200s", what, nm);
		jscan_iter io;
		if ((st = dpi_jscan_object_begin(js, &io, R->path)))
			break;
		size_t k_off;
		while (dpi_jscan_member(js, &io, &k_off, &st)) {
			if (strcmp(js->sbuf, "split") == 0) {
				st = rd_op_split(R, sp, u, pre);
			} else if (strcmp(js->sbuf, "device") == 0) {
				snprintf(R->path, sizeof R->path,
					 "%s.%.200s.device", what, nm);
				dpi_jscan_peek(js);
				long d;
				st = dpi_sread_int(R, js->pos, R->path, -1,
						   size - 1, &d);
				sp->device[u] = (int32_t)d;
			} else {
				return dpi_jscan_error_at(
					js, k_off,
					"%s.%.200s: unknown key '%.60s': "
					"expected \"split\" or \"device\"",
					what, nm, js->sbuf);
			}
		}
	}
	return st;
}

/* The "default" object at off, applied to every op not listed. */
static dp_status rd_default(dpi_sread *R, size_t off, const char *pre,
			    dp_spmd *sp, const uint8_t *listed)
{
	jscan *js = &R->js;
	const dp_graph *g = R->g;
	defsplit *ds = calloc(1, sizeof *ds);
	if (!ds)
		return dpi_sread_nomem(R);
	char what[64];
	snprintf(what, sizeof what, "%sdefault", pre);
	jscan_iter it, is;
	dp_status st = dpi_jscan_object_at(js, off, &it, what);
	size_t k_off;
	while (dpi_jscan_member(js, &it, &k_off, &st)) {
		if (strcmp(js->sbuf, "split") != 0) {
			st = dpi_jscan_error_at(js, k_off,
						"%s: unknown key '%.60s': "
						"expected \"split\"",
						what, js->sbuf);
			break;
		}
		snprintf(R->path, sizeof R->path, "%s.split", what);
		if ((st = dpi_jscan_object_begin(js, &is, R->path)))
			break;
		while (dpi_jscan_member(js, &is, &k_off, &st)) {
			if (ds->n == DP_MAX_OP_DIMS) {
				st = dpi_jscan_error_at(js, k_off,
							"%s.split: more than "
							"%d dims",
							what, DP_MAX_OP_DIMS);
				break;
			}
			snprintf(ds->name[ds->n], sizeof ds->name[0], "%s",
				 js->sbuf);
			dpi_jscan_peek(js);
			ds->at[ds->n++] = js->pos;
			st = dpi_jscan_value(js, NULL, NULL);
		}
	}
	for (uint32_t u = 0; !st && u < g->nops; u++) {
		if (listed[u])
			continue;
		if (g->ops[u].pin >= 0) {
			sp->device[u] = g->ops[u].pin;
			continue;
		}
		uint8_t used = 0;
		char note[300];
		snprintf(note, sizeof note, " (op '%.200s')",
			 dp_graph_op_name(g, u));
		for (int k = 0; !st && k < ds->n; k++) {
			int i = dim_of(g, u, ds->name[k]);
			if (i < 0)
				continue;
			snprintf(R->path, sizeof R->path, "%s.split.%s", what,
				 ds->name[k]);
			js->pos = ds->at[k];
			uint8_t mask;
			st = rd_parts(R, sp, used, &mask, note);
			if (!st)
				st = set_split(R, sp, u, i, mask, ds->at[k],
					       note);
			used |= mask;
		}
	}
	free(ds);
	return st;
}

/* An spmd part (top level, or "spmd" of a pipeline: pre "spmd."). */
dp_status dpi_sread_spmd(dpi_sread *R, size_t mesh, size_t ops, size_t def,
			 const char *pre, dp_spmd *sp)
{
	char what[64];
	snprintf(what, sizeof what, "%smesh", pre);
	if (!mesh)
		return dpi_jscan_error_at(&R->js, 0,
					  "missing \"%s\": the device mesh, "
					  "such as [8] or [2,4]",
					  what);
	dp_status st = rd_mesh(R, mesh, what, sp);
	uint8_t *listed = calloc(R->g->nops ? R->g->nops : 1, 1);
	if (!listed)
		return dpi_sread_nomem(R);
	if (!st && ops)
		st = rd_ops(R, ops, pre, sp, listed);
	if (!st && def)
		st = rd_default(R, def, pre, sp, listed);
	/* without a default, unlisted pinned ops are placed on their pin */
	for (uint32_t u = 0; !st && !def && u < R->g->nops; u++) {
		int32_t pin = R->g->ops[u].pin;
		if (!listed[u] && pin >= 0 && pin < dp_spmd_size(sp))
			sp->device[u] = pin;
	}
	free(listed);
	return st;
}
