/* graph_dims.c - storing and reading iteration spaces and the batch dim
 * (graph.h "Iteration spaces and roles", docs/formats.md); the rules that tie
 * them to bytes and to other ops are in graph_dims_check.c, roles in
 * graph_roles.c.
 *
 * Storage: an op's or edge's dims are one record in g->dims, a byte arena
 * of 8-byte aligned records; dp_op.dims / dp_edge.dims hold the record's
 * offset in 8-byte units (0: none). Equal records are stored once (hash
 * index g->dims_hash), so the ops of a model's repeated layers share theirs
 * and a million ops with dims take little more than their distinct shapes.
 * Dim names are interned in the string arena, so comparing two names is
 * comparing two offsets.
 *
 * An op record: header, int64 sizes[n], uint32 names[n], uint8 out[nout],
 * uint8 param[nparam], zero padding to 8 bytes. An edge record: header,
 * uint32 names[n], then (nout1 = 1: the producer's dims that index the
 * tensor, for a producer with several outputs) uint32 from[n], padding. Records are written with memcpy from arrays of
 * those types and read through pointers of the same types.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/graph_int.h"
#include "internal/nomem.h"

#define MAX_SIZE ((int64_t)1 << 62)

enum { REC_OP = 1, REC_EDGE = 2 };

typedef struct rec_hdr {
	uint8_t kind;
	uint8_t n;
	uint8_t nout1;	 /* nout + 1; 0 = out not given */
	uint8_t nparam1; /* nparam + 1; 0 = param not given */
	uint32_t elem_bytes;
} rec_hdr;

/* the largest record: an op with every dim in out and in param */
#define REC_MAX                                                                \
	(sizeof(rec_hdr) + DP_MAX_OP_DIMS * (8 + 4) + 2 * DP_MAX_OP_DIMS + 8)

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static size_t rec_len(const rec_hdr *h)
{
	if (h->kind == REC_EDGE)
		return pad8(sizeof *h + 4 * (size_t)h->n * (h->nout1 ? 2 : 1));
	size_t nout = h->nout1 ? h->nout1 - 1u : 0;
	size_t nparam = h->nparam1 ? h->nparam1 - 1u : 0;
	return pad8(sizeof *h + 12 * (size_t)h->n + nout + nparam);
}

static const rec_hdr *rec_at(const dp_graph *g, uint32_t word)
{
	return (const rec_hdr *)(const void *)(g->dims + (size_t)word * 8);
}

static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

static int hash_insert(uint32_t *tab, uint32_t cap, const dp_graph *g,
		       uint32_t word)
{
	const rec_hdr *h = rec_at(g, word);
	uint32_t i =
		(uint32_t)hash_bytes((const unsigned char *)h, rec_len(h)) &
		(cap - 1);
	while (tab[i])
		i = (i + 1) & (cap - 1);
	tab[i] = word;
	return 0;
}

/* Stores the record rec (len bytes, padding zeroed) once: *word gets the
 * offset of an equal record already stored, or of a new one. */
static dp_status rec_store(dp_graph *g, const unsigned char *rec, size_t len,
			   uint32_t *word, dp_err *err)
{
	uint64_t h = hash_bytes(rec, len);
	if (g->dims_hash_cap) {
		for (uint32_t i = (uint32_t)h & (g->dims_hash_cap - 1);
		     g->dims_hash[i]; i = (i + 1) & (g->dims_hash_cap - 1)) {
			const rec_hdr *o = rec_at(g, g->dims_hash[i]);
			if (rec_len(o) == len && !memcmp(o, rec, len)) {
				*word = g->dims_hash[i];
				return DP_OK;
			}
		}
	}
	/* the offset 0 means "none": the arena starts with 8 unused bytes */
	size_t at = g->dims_len ? g->dims_len : 8;
	if ((at + len) / 8 > UINT32_MAX)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "too many distinct dims in the graph (more "
				  "than 32 GiB of them)");
	if (at + len > g->dims_cap) {
		size_t nc = g->dims_cap ? g->dims_cap * 2 : 4096;
		while (nc < at + len)
			nc *= 2;
		unsigned char *q = realloc(g->dims, nc);
		if (!q)
			return dpi_nomem(err, "storing dims");
		if (!g->dims_cap)
			memset(q, 0, 8);
		g->dims = q;
		g->dims_cap = nc;
	}
	if ((uint64_t)(g->ndims_records + 1) * 2 > g->dims_hash_cap) {
		uint32_t nc = g->dims_hash_cap ? g->dims_hash_cap * 2 : 256;
		uint32_t *nt = calloc(nc, sizeof *nt);
		if (!nt)
			return dpi_nomem(err, "storing dims");
		for (uint32_t i = 0; i < g->dims_hash_cap; i++)
			if (g->dims_hash[i])
				hash_insert(nt, nc, g, g->dims_hash[i]);
		free(g->dims_hash);
		g->dims_hash = nt;
		g->dims_hash_cap = nc;
	}
	memcpy(g->dims + at, rec, len);
	g->dims_len = at + len;
	*word = (uint32_t)(at / 8);
	hash_insert(g->dims_hash, g->dims_hash_cap, g, *word);
	g->ndims_records++;
	return DP_OK;
}

dp_status dpi_graph_dims_fail(dpi_dims_at *at, const char *field, int index,
			      dp_err *err, const char *fmt, ...)
{
	if (at) {
		at->field = field;
		at->index = index;
	}
	char msg[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return dp_err_set(err, DP_EINPUT, NULL, 0, 0, "%s", msg);
}

/* A dim name: 1..DP_MAX_DIM_NAME of [A-Za-z0-9_], not starting with a
 * digit (so that DOT's "b=8,s=1024" and strategy files stay unambiguous). */
static bool dim_name_ok(const char *s)
{
	size_t i = 0;
	for (; s[i]; i++) {
		char c = s[i];
		bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     c == '_';
		if (!alpha && !(i && c >= '0' && c <= '9'))
			return false;
	}
	return i >= 1 && i <= DP_MAX_DIM_NAME;
}

static dp_status bad_name(dpi_dims_at *at, const char *field, int index,
			  const char *s, dp_err *err)
{
	return dpi_graph_dims_fail(
		at, field, index, err,
		"'%.80s' is not a dim name: expected 1 to %d letters, "
		"digits or '_', not starting with a digit",
		s, DP_MAX_DIM_NAME);
}

/* Resolves the names of out or param (nsel >= 0) into indices of the dims
 * being set (names[0..n), offs[0..n)). */
static dp_status select_dims(dp_graph *g, const char *field, int32_t nsel,
			     const char *const *sel, uint32_t n,
			     const char *const *names, const uint32_t *offs,
			     uint8_t *idx, dpi_dims_at *at, dp_err *err)
{
	if (nsel > (int32_t)DP_MAX_OP_DIMS)
		return dpi_graph_dims_fail(
			at, field, -1, err,
			"%d names, more than an op may have dims (%d)",
			(int)nsel, DP_MAX_OP_DIMS);
	for (int32_t j = 0; j < nsel; j++) {
		const char *s = sel[j] ? sel[j] : "";
		if (!dim_name_ok(s))
			return bad_name(at, field, (int)j, s, err);
		uint32_t off;
		dp_status st = dpi_graph_intern(g, s, "dim name", &off, err);
		if (st)
			return st;
		int k = -1;
		for (uint32_t i = 0; i < n && k < 0; i++)
			if (offs[i] == off)
				k = (int)i;
		if (k < 0) {
			if (!n)
				return dpi_graph_dims_fail(
					at, field, (int)j, err,
					"'%s' is not a dim of this op: it "
					"has no dims (give them in dims)",
					s);
			char list[300];
			size_t pos = 0;
			list[0] = '\0';
			for (uint32_t i = 0; i < n && pos < sizeof list - 8;
			     i++) {
				int w = snprintf(list + pos, sizeof list - pos,
						 "%s%s", i ? ", " : "",
						 names[i]);
				if (w < 0)
					break;
				pos += (size_t)w;
			}
			if (pos >= sizeof list - 8)
				snprintf(list + sizeof list - 8, 8, ", ...");
			return dpi_graph_dims_fail(
				at, field, (int)j, err,
				"'%s' is not a dim of this op (its dims: "
				"%s)",
				s, list);
		}
		for (int32_t i = 0; i < j; i++)
			if (idx[i] == k)
				return dpi_graph_dims_fail(
					at, field, (int)j, err,
					"dim '%s' appears twice (a tensor "
					"is indexed by each dim at most "
					"once)",
					s);
		idx[j] = (uint8_t)k;
	}
	return DP_OK;
}

/* The tensor that idx[0..n) of spec's dims index, of elem-byte elements,
 * holds at most 2^62 bytes (the largest size). The loop nest itself may be
 * larger: its volume is never stored as one number. */
static dp_status tensor_fits(const dp_dims_spec *spec, const char *field,
			     int32_t n, const uint8_t *idx, int64_t elem,
			     dpi_dims_at *at, dp_err *err)
{
	int64_t bytes = elem;
	for (int32_t i = 0; i < n; i++) {
		int64_t z = spec->sizes[idx[i]];
		if (bytes > MAX_SIZE / z)
			return dpi_graph_dims_fail(
				at, field, -1, err,
				"the tensor is larger than 2^62 bytes (at dim "
				"'%s' of size %lld, with %lld-byte elements)",
				spec->names[idx[i]], (long long)z,
				(long long)elem);
		bytes *= z;
	}
	return DP_OK;
}

/* Dim i of names (NULL: ""): a valid name, interned into offs[i], not
 * one of offs[0..i) (else "dim 'NAME' " and twice). */
static dp_status intern_dim(dp_graph *g, const char *const *names, uint32_t i,
			    uint32_t *offs, const char *twice, dpi_dims_at *at,
			    dp_err *err)
{
	const char *s = names[i] ? names[i] : "";
	if (!dim_name_ok(s))
		return bad_name(at, "dims", (int)i, s, err);
	dp_status st = dpi_graph_intern(g, s, "dim name", &offs[i], err);
	if (st)
		return st;
	for (uint32_t j = 0; j < i; j++)
		if (offs[j] == offs[i])
			return dpi_graph_dims_fail(at, "dims", (int)i, err,
						   "dim '%s' %s", s, twice);
	return DP_OK;
}

/* A caller's mistake: dims for an op or edge i that is not there, or on a
 * finalized graph. */
static dp_status not_editable(const char *fn, const char *what, uint32_t i,
			      dp_err *err)
{
	return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
			  "%s: no %s %u, or a finalized graph", fn, what, i);
}

dp_status dpi_graph_set_op_dims(dp_graph *g, uint32_t op,
				const dp_dims_spec *spec, dpi_dims_at *at,
				dp_err *err)
{
	if (op >= g->nops || g->finalized)
		return not_editable("dp_graph_set_op_dims", "op", op, err);
	uint32_t n = spec->n;
	if (n > DP_MAX_OP_DIMS)
		return dpi_graph_dims_fail(at, "dims", -1, err,
					   "%u dims: an op may have at most %d",
					   n, DP_MAX_OP_DIMS);
	uint32_t offs[DP_MAX_OP_DIMS];
	for (uint32_t i = 0; i < n; i++) {
		const char *s = spec->names[i] ? spec->names[i] : "";
		dp_status st = intern_dim(g, spec->names, i, offs,
					  "is named twice", at, err);
		if (st)
			return st;
		int64_t z = spec->sizes[i];
		if (z < 1 || z > MAX_SIZE)
			return dpi_graph_dims_fail(
				at, "dims", (int)i, err,
				"dim '%s' has size %lld: expected an "
				"integer from 1 to 2^62",
				s, (long long)z);
	}
	int64_t elem =
		spec->elem_bytes ? spec->elem_bytes : DP_DEFAULT_ELEM_BYTES;
	if (elem < 1 || elem > DP_MAX_ELEM_BYTES)
		return dpi_graph_dims_fail(
			at, "elem_bytes", -1, err,
			"expected an integer from 1 to %d (the bytes of "
			"one element), got %lld",
			DP_MAX_ELEM_BYTES, (long long)spec->elem_bytes);
	uint8_t out[DP_MAX_OP_DIMS], param[DP_MAX_OP_DIMS];
	dp_status st;
	if ((st = select_dims(g, "out", spec->nout, spec->out, n, spec->names,
			      offs, out, at, err)) ||
	    (st = select_dims(g, "param", spec->nparam, spec->param, n,
			      spec->names, offs, param, at, err)))
		return st;
	if ((st = tensor_fits(spec, "out", spec->nout, out, elem, at, err)) ||
	    (st = tensor_fits(spec, "param", spec->nparam, param, elem, at,
			      err)))
		return st;

	unsigned char rec[REC_MAX];
	memset(rec, 0, sizeof rec);
	rec_hdr h = {REC_OP, (uint8_t)n,
		     (uint8_t)(spec->nout < 0 ? 0 : spec->nout + 1),
		     (uint8_t)(spec->nparam < 0 ? 0 : spec->nparam + 1),
		     (uint32_t)elem};
	size_t p = 0;
	memcpy(rec + p, &h, sizeof h);
	p += sizeof h;
	if (n) {
		memcpy(rec + p, spec->sizes, n * sizeof(int64_t));
		p += n * sizeof(int64_t);
		memcpy(rec + p, offs, n * sizeof(uint32_t));
		p += n * sizeof(uint32_t);
	}
	if (spec->nout > 0) {
		memcpy(rec + p, out, (size_t)spec->nout);
		p += (size_t)spec->nout;
	}
	if (spec->nparam > 0)
		memcpy(rec + p, param, (size_t)spec->nparam);
	return rec_store(g, rec, rec_len(&h), &g->ops[op].dims, err);
}

void dpi_graph_dims_label(const dp_graph *g, bool edge, uint32_t id,
			  const dpi_dims_at *at, dp_err *err)
{
	if (!err)
		return;
	char what[300], field[64] = "";
	if (!at->field)
		what[0] = '\0';
	else if (!strcmp(at->field, "batch_dim"))
		snprintf(what, sizeof what, "batch_dim: ");
	else if (edge)
		snprintf(what, sizeof what, "edge '%.100s' -> '%.100s', ",
			 dp_graph_op_name(g, g->edges[id].from),
			 dp_graph_op_name(g, g->edges[id].to));
	else
		snprintf(what, sizeof what, "op '%.200s', ",
			 dp_graph_op_name(g, id));
	if (at->field && strcmp(at->field, "batch_dim")) {
		if (at->index >= 0)
			snprintf(field, sizeof field, "%s[%d]: ", at->field,
				 at->index);
		else
			snprintf(field, sizeof field, "%s: ", at->field);
	}
	char msg[sizeof what + sizeof field + sizeof err->msg];
	snprintf(msg, sizeof msg, "%s%s%s", what, field, err->msg);
	size_t n = strlen(msg); /* a long message loses its end */
	if (n >= sizeof err->msg)
		n = sizeof err->msg - 1;
	memcpy(err->msg, msg, n);
	err->msg[n] = '\0';
}

dp_status dp_graph_set_op_dims(dp_graph *g, uint32_t op,
			       const dp_dims_spec *spec, dp_err *err)
{
	dpi_dims_at at = {NULL, -1};
	dp_status st = dpi_graph_set_op_dims(g, op, spec, &at, err);
	if (st == DP_EINPUT)
		dpi_graph_dims_label(g, false, op, &at, err);
	return st;
}

bool dp_op_dims(const dp_graph *g, uint32_t op, dp_dims *d)
{
	uint32_t w = g->ops[op].dims;
	if (!w) {
		memset(d, 0, sizeof *d);
		d->nout = d->nparam = -1;
		d->elem_bytes = DP_DEFAULT_ELEM_BYTES;
		return false;
	}
	const rec_hdr *h = rec_at(g, w);
	const unsigned char *p = (const unsigned char *)h + sizeof *h;
	d->n = h->n;
	d->elem_bytes = h->elem_bytes;
	d->sizes = (const int64_t *)(const void *)p;
	p += (size_t)h->n * sizeof(int64_t);
	d->name_off = (const uint32_t *)(const void *)p;
	p += (size_t)h->n * sizeof(uint32_t);
	d->nout = (int32_t)h->nout1 - 1;
	d->out = p;
	if (d->nout > 0)
		p += d->nout;
	d->nparam = (int32_t)h->nparam1 - 1;
	d->param = p;
	return true;
}

int dp_op_find_dim(const dp_graph *g, uint32_t op, const char *name)
{
	dp_dims d;
	if (!dp_op_dims(g, op, &d))
		return -1;
	for (uint32_t i = 0; i < d.n; i++)
		if (!strcmp(dp_graph_str(g, d.name_off[i]), name))
			return (int)i;
	return -1;
}

dp_status dpi_graph_set_edge_dims(dp_graph *g, uint32_t e, uint32_t n,
				  const char *const *names,
				  const char *const *from, dpi_dims_at *at,
				  dp_err *err)
{
	if (e >= g->nedges || g->finalized)
		return not_editable("dp_graph_set_edge_dims", "edge", e, err);
	if (n > DP_MAX_OP_DIMS)
		return dpi_graph_dims_fail(
			at, "dims", -1, err,
			"%u dims: a tensor may have at most %d", n,
			DP_MAX_OP_DIMS);
	uint32_t offs[2 * DP_MAX_OP_DIMS];
	for (uint32_t i = 0; i < n; i++) {
		dp_status st = intern_dim(g, names, i, offs,
					  "appears twice (a tensor is indexed "
					  "by each dim at most once)",
					  at, err);
		if (!st && from)
			st = intern_dim(g, from, i, offs + n,
					"appears twice in from_dims", at, err);
		if (st)
			return st;
	}
	unsigned char rec[REC_MAX];
	memset(rec, 0, sizeof rec);
	rec_hdr h = {REC_EDGE, (uint8_t)n, from ? 1 : 0, 0, 0};
	memcpy(rec, &h, sizeof h);
	if (n)
		memcpy(rec + sizeof h, offs,
		       (from ? 2 : 1) * n * sizeof(uint32_t));
	return rec_store(g, rec, rec_len(&h), &g->edges[e].dims, err);
}

dp_status dp_graph_set_edge_dims(dp_graph *g, uint32_t e, uint32_t n,
				 const char *const *names, dp_err *err)
{
	dpi_dims_at at = {NULL, -1};
	dp_status st = dpi_graph_set_edge_dims(g, e, n, names, NULL, &at, err);
	if (st == DP_EINPUT)
		dpi_graph_dims_label(g, true, e, &at, err);
	return st;
}

int dp_edge_dims(const dp_graph *g, uint32_t e, const uint32_t **name_off)
{
	uint32_t w = g->edges[e].dims;
	if (!w) {
		*name_off = NULL;
		return -1;
	}
	const rec_hdr *h = rec_at(g, w);
	*name_off = (const uint32_t *)(const void *)((const unsigned char *)h +
						     sizeof *h);
	return h->n;
}

int dp_edge_from_dims(const dp_graph *g, uint32_t e, const uint32_t **name_off)
{
	const uint32_t *names;
	int n = dp_edge_dims(g, e, &names);
	*name_off = NULL;
	if (n < 0 || !rec_at(g, g->edges[e].dims)->nout1)
		return -1;
	*name_off = names + n;
	return n;
}

dp_status dp_graph_set_batch_dim(dp_graph *g, const char *name, dp_err *err)
{
	if (!name || !name[0]) {
		g->batch_dim = 0;
		return DP_OK;
	}
	if (!dim_name_ok(name)) {
		dpi_dims_at at;
		bad_name(&at, "batch_dim", -1, name, err);
		dpi_graph_dims_label(g, false, 0, &at, err);
		return DP_EINPUT;
	}
	return dpi_graph_intern(g, name, "batch_dim", &g->batch_dim, err);
}

const char *dp_graph_batch_dim(const dp_graph *g)
{
	return dp_graph_str(g, g->batch_dim);
}

size_t dpi_graph_dims_memory(const dp_graph *g)
{
	return g->dims_cap + (size_t)g->dims_hash_cap * sizeof(uint32_t) +
	       g->roles_cap;
}

void dpi_graph_free_dims(dp_graph *g)
{
	free(g->dims);
	free(g->dims_hash);
	free(g->roles);
}
