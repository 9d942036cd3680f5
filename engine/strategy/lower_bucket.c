/* lower_bucket.c - gradient buckets in a lowered graph (internal/lower.h;
 * docs/spmd.md, "Gradient buckets").
 *
 * A lowering declares each weight gradient's collective (its reduce ops:
 * a ring all-reduce's or a reduce-scatter's) with dpi_lower_grad_begin and
 * dpi_lower_add_reduce. With buckets (dpi_lower_buf.bucket > 0) those
 * reduces and every edge that touches them are held back, and
 * dpi_lower_finish groups them:
 *   - the collectives are ordered by the time their gradient is ready: the
 *     earliest finish of their source op in the user's graph by op times
 *     alone (no communication), ties by declaration order; that is the
 *     order backward makes them;
 *   - in that order each joins the open bucket of its stream and device
 *     set (the devices of its reduces: one per data-parallel group of a
 *     pipeline stage; the streams: gradients, and ZeRO's all-gathers of
 *     updated weights, which come after the updates that the gradients
 *     feed); once a bucket holds `bucket` bytes or more it is closed
 *     (DDP's rule: the gradient that crosses the cap is in it);
 *   - a bucket of one collective keeps its reduces and edges as declared;
 *   - a larger one becomes one collective: on each device D of its set,
 *     one reduce "SRC/bucketB#dD" (SRC: its first gradient's source op)
 *     sums what the members' reduces on D summed, and one pack op
 *     "SRC/packB#dD" (time 0) waits for every member's gradient on D and
 *     sends each reduce in one transfer the sum of what those gradients
 *     sent it; each reduce sends each consumer device one transfer, the
 *     sum of what the members' reduces sent there (on its first edge
 *     there; its other edges there carry 0 bytes). The bytes stay those
 *     of the collectives it merges; the number of transfers is that of
 *     one, so a bucket pays the link latency once per message.
 * A reduce starts when its last packed gradient is ready, so a bucket's
 * communication overlaps the backward pass that is still running.
 */
#include "internal/lower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/arrays.h"
#include "internal/grow.h"
#include "internal/nomem.h"

#define VIRT 0x80000000u /* ids of held-back reduces: VIRT + index */

typedef struct vset {
	uint32_t first, n; /* its reduces: vop[first .. first+n) */
	uint32_t source;   /* the user's op whose gradient it reduces */
	int stream;	   /* buckets never mix streams */
	int64_t bytes;	   /* the whole gradient */
	double ready;
	uint32_t bucket;
} vset;

typedef struct vedge {
	uint32_t from, to;
	int64_t bytes;
	bool control;
} vedge;

/* A merged edge being summed: (bucket, a, b) -> bytes. */
typedef struct tri {
	uint32_t bucket, a, b;
	int64_t bytes;
} tri;

/* A held-back reduce: what it is, its name, its collective. */
typedef struct vop {
	dpi_lower_op op;
	uint32_t name, set;
} vop;

struct dpi_bucket_state {
	vop *vop;
	uint32_t nv, cv;
	char *names;
	uint32_t nlen, ncap;
	vset *set;
	uint32_t ns, cs;
	vedge *edge;
	uint32_t ne, ce;
	double *ready;	/* per user op: earliest finish, by op times */
	uint32_t *real; /* per held-back reduce: its lowered op */
};

double *dpi_lower_ready_times(const dp_graph *g)
{
	double *r = calloc(g->nops ? g->nops : 1, sizeof *r);
	for (uint32_t k = 0; r && k < g->nops; k++) {
		uint32_t v = g->topo[k];
		double s = 0;
		for (uint32_t i = g->pred_off[v]; i < g->pred_off[v + 1]; i++) {
			double f = r[g->edges[g->pred_edge[i]].from];
			s = f > s ? f : s;
		}
		r[v] = s + g->ops[v].time_us;
	}
	return r;
}

dp_status dpi_lower_grad_begin(dpi_lower_buf *b, uint32_t source, int64_t bytes,
			       int stream, dp_err *err)
{
	if (b->bucket <= 0)
		return DP_OK;
	struct dpi_bucket_state *k = b->bk;
	if (!k && !(k = b->bk = calloc(1, sizeof *k)))
		return dpi_nomem(err, "lowering a strategy");
	if (!k->ready && !(k->ready = dpi_lower_ready_times(b->src_g)))
		return dpi_nomem(err, "lowering a strategy");
	if (dpi_grow((void **)&k->set, &k->cs, (uint64_t)k->ns + 1,
		     sizeof *k->set, 64))
		return dpi_nomem(err, "lowering a strategy");
	k->set[k->ns++] = (vset){.first = k->nv,
				 .source = source,
				 .stream = stream,
				 .bytes = bytes,
				 .ready = k->ready[source]};
	return DP_OK;
}

dp_status dpi_lower_add_reduce(dpi_lower_buf *b, const char *name,
			       const dpi_lower_op *op, uint32_t *id,
			       dp_err *err)
{
	struct dpi_bucket_state *k = b->bk;
	if (b->bucket <= 0 || !k || !k->ns)
		return dpi_lower_add(b, name, op, id, err);
	size_t len = strlen(name) + 1;
	if (dpi_grow((void **)&k->vop, &k->cv, (uint64_t)k->nv + 1,
		     sizeof *k->vop, 64) ||
	    dpi_grow((void **)&k->names, &k->ncap, (uint64_t)k->nlen + len, 1,
		     1024))
		return dpi_nomem(err, "lowering a strategy");
	k->vop[k->nv] = (vop){*op, k->nlen, k->ns - 1};
	memcpy(k->names + k->nlen, name, len);
	k->nlen += (uint32_t)len;
	k->set[k->ns - 1].n++;
	*id = VIRT + k->nv++;
	return DP_OK;
}

bool dpi_lower_held(const dpi_lower_buf *b, uint32_t from, uint32_t to)
{
	return b->bk && (from >= VIRT || to >= VIRT);
}

dp_status dpi_lower_hold_edge(dpi_lower_buf *b, uint32_t from, uint32_t to,
			      int64_t bytes, bool control, dp_err *err)
{
	struct dpi_bucket_state *k = b->bk;
	if (dpi_grow((void **)&k->edge, &k->ce, (uint64_t)k->ne + 1,
		     sizeof *k->edge, 256))
		return dpi_nomem(err, "lowering a strategy");
	k->edge[k->ne++] = (vedge){from, to, bytes, control};
	return DP_OK;
}

void dpi_lower_bucket_free(dpi_lower_buf *b)
{
	struct dpi_bucket_state *k = b->bk;
	if (!k)
		return;
	DPI_FREE_ALL(k->vop, k->names, k->set, k->edge, k->ready, k->real, k);
	b->bk = NULL;
}

static int by_ready(const void *pa, const void *pb)
{
	const vset *a = *(vset *const *)pa, *c = *(vset *const *)pb;
	if (a->ready != c->ready)
		return a->ready < c->ready ? -1 : 1;
	return a < c ? -1 : a > c;
}

static bool same_devices(const struct dpi_bucket_state *k, const vset *a,
			 const vset *c)
{
	if (a->n != c->n || a->stream != c->stream)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (k->vop[a->first + i].op.device !=
		    k->vop[c->first + i].op.device)
			return false;
	return true;
}

/* Assigns every collective its bucket, numbered in backward order, and
 * each bucket its first collective in that order (head); returns the
 * number of buckets, or UINT32_MAX when out of memory. */
static uint32_t assign(struct dpi_bucket_state *k, int64_t cap, uint32_t *head)
{
	vset **ord = malloc((k->ns ? k->ns : 1) * sizeof *ord);
	vset **open = malloc((k->ns ? k->ns : 1) * sizeof *open);
	int64_t *fill = malloc((k->ns ? k->ns : 1) * sizeof *fill);
	uint32_t nb = 0, nopen = 0;
	if (!ord || !open || !fill) {
		free(ord);
		free(open);
		free(fill);
		return UINT32_MAX;
	}
	for (uint32_t i = 0; i < k->ns; i++)
		ord[i] = &k->set[i];
	qsort(ord, k->ns, sizeof *ord, by_ready);
	for (uint32_t i = 0; i < k->ns; i++) {
		vset *s = ord[i];
		uint32_t o = 0;
		while (o < nopen && !same_devices(k, open[o], s))
			o++;
		if (o == nopen) {
			open[nopen] = s;
			fill[nopen++] = 0;
			head[nb] = (uint32_t)(s - k->set);
			s->bucket = nb++;
		} else {
			s->bucket = open[o]->bucket;
		}
		fill[o] += s->bytes;
		if (fill[o] >= cap) {
			open[o] = open[nopen - 1];
			fill[o] = fill[--nopen];
		}
	}
	free(ord);
	free(open);
	free(fill);
	return nb;
}

static int by_tri(const void *pa, const void *pb)
{
	const tri *a = pa, *c = pb;
	if (a->bucket != c->bucket)
		return a->bucket < c->bucket ? -1 : 1;
	if (a->a != c->a)
		return a->a < c->a ? -1 : 1;
	return (a->b > c->b) - (a->b < c->b);
}

/* The 16-bit digit d (0: the lowest of b, 5: the highest of bucket) of
 * t's key (bucket, a, b). */
static inline uint32_t tri_digit(const tri *t, int d)
{
	uint32_t w = d < 2 ? t->b : d < 4 ? t->a : t->bucket;
	return (d & 1) ? w >> 16 : w & 0xffffu;
}

/* Sorts t[0..n) by (bucket, a, b) as by_tri does, with a least
 * significant digit radix sort (16-bit digits, a pass skipped where every
 * key has the same digit): at 1,024 devices the held-back edges number
 * millions, and qsort's comparisons were most of a lowering's time.
 * false when out of memory (t untouched). */
static bool radix_tri(tri *t, uint32_t n)
{
	tri *tmp = malloc((size_t)n * sizeof *tmp);
	uint32_t *cnt = malloc(65536 * sizeof *cnt);
	if (!tmp || !cnt) {
		free(tmp);
		free(cnt);
		return false;
	}
	tri *buf[2] = {t, tmp}; /* the pass reads buf[at], writes the other */
	int at = 0;
	for (int d = 0; d < 6; d++) {
		const tri *src = buf[at];
		memset(cnt, 0, 65536 * sizeof *cnt);
		for (uint32_t i = 0; i < n; i++)
			cnt[tri_digit(&src[i], d)]++;
		if (cnt[tri_digit(&src[0], d)] == n)
			continue; /* one digit: already in order */
		for (uint32_t v = 0, sum = 0; v < 65536; v++) {
			sum += cnt[v];
			cnt[v] = sum - cnt[v]; /* where digit v starts */
		}
		for (uint32_t i = 0; i < n; i++)
			buf[1 - at][cnt[tri_digit(&src[i], d)]++] = src[i];
		at = 1 - at;
	}
	if (at)
		memcpy(t, tmp, (size_t)n * sizeof *t);
	free(tmp);
	free(cnt);
	return true;
}

/* Sorts t[0..n) and adds up the bytes of equal keys; returns the count. */
static uint32_t merge(tri *t, uint32_t n)
{
	if (n > 1 && (n < 4096 || !radix_tri(t, n)))
		qsort(t, n, sizeof *t, by_tri);
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++)
		if (m && !by_tri(&t[m - 1], &t[i]))
			t[m - 1].bytes += t[i].bytes;
		else
			t[m++] = t[i];
	return m;
}

typedef struct flush {
	dpi_lower_buf *b;
	struct dpi_bucket_state *k;
	uint32_t *members; /* per bucket: its collectives */
	uint32_t *first;   /* per bucket: its first collective in backward
			      order (its head) */
	dp_err *err;
} flush;

/* Adds a time-0 op of bucket bk on device dev named SRC/TAGbk#dDEV. */
static dp_status add_merged(flush *f, uint32_t bk, const char *tag, int32_t dev,
			    int64_t out, uint32_t *id)
{
	const vset *s = &f->k->set[f->first[bk]];
	char name[1024];
	snprintf(name, sizeof name, "%s/%s%u#d%d",
		 dp_graph_op_name(f->b->src_g, s->source), tag, (unsigned)bk,
		 (int)dev);
	dpi_lower_op op = f->k->vop[s->first].op;
	op.device = dev;
	op.time_us = 0;
	op.output_bytes = out;
	op.param_bytes = op.temp_bytes = 0;
	return dpi_lower_add(f->b, name, &op, id, f->err);
}

/* The lowered ops of the held-back reduces (k->real): first those of
 * each bucket's head (and of buckets of one), then the other members',
 * which are the head's. */
static dp_status make_reduces(flush *f)
{
	struct dpi_bucket_state *k = f->k;
	dp_status st = DP_OK;
	for (uint32_t x = 0; !st && x < 2 * k->ns; x++) {
		uint32_t i = x % k->ns;
		const vset *s = &k->set[i];
		uint32_t bk = s->bucket;
		bool head = f->members[bk] == 1 || f->first[bk] == i;
		if (head != (x < k->ns))
			continue;
		if (f->members[bk] == 1) {
			for (uint32_t v = s->first; !st && v < s->first + s->n;
			     v++)
				st = dpi_lower_add(
					f->b, k->names + k->vop[v].name,
					&k->vop[v].op, &k->real[v], f->err);
			continue;
		}
		if (f->first[bk] != i) {
			const vset *h = &k->set[f->first[bk]];
			for (uint32_t j = 0; j < s->n; j++) {
				uint32_t r = k->real[h->first + j];
				f->b->g->ops[r].output_bytes +=
					k->vop[s->first + j].op.output_bytes;
				k->real[s->first + j] = r;
			}
			continue;
		}
		for (uint32_t j = 0; !st && j < s->n; j++) {
			const dpi_lower_op *o = &k->vop[s->first + j].op;
			st = add_merged(f, bk, "bucket", o->device,
					o->output_bytes,
					&k->real[s->first + j]);
		}
	}
	return st;
}

/* The bucket of held-back reduce x when it was merged with others, else
 * UINT32_MAX. */
static uint32_t merged_bucket(const flush *f, uint32_t x)
{
	if (x < VIRT)
		return UINT32_MAX;
	uint32_t bk = f->k->set[f->k->vop[x - VIRT].set].bucket;
	return f->members[bk] > 1 ? bk : UINT32_MAX;
}

/* The entry of t[0..n) (sorted, merged) with t's key (bucket, a, b). */
static tri *find(tri *t, uint32_t n, tri key)
{
	return bsearch(&key, t, n, sizeof *t, by_tri);
}

/* The held-back edges: into merged reduces through pack ops, out of them
 * summed per target device, the others as declared. */
static dp_status make_edges(flush *f)
{
	struct dpi_bucket_state *k = f->k;
	dpi_lower_buf *b = f->b;
	size_t n = (size_t)k->ne + 1;
	/* in: (bucket, gradient, its device); pk: (bucket, device, reduce);
	 * out: (reduce, consumer); dv: (reduce, consumer's device) */
	tri *in = malloc(n * sizeof *in), *pk = malloc(n * sizeof *pk);
	tri *out = malloc(n * sizeof *out), *dv = malloc(n * sizeof *dv);
	tri *pd = NULL;
	uint32_t *pack = NULL;
	uint32_t nin = 0, npk = 0, nout = 0, ndv = 0, npd = 0;
	dp_status st = in && pk && out && dv ? DP_OK : dpi_nomem(f->err, "lowering a strategy");
	for (uint32_t i = 0; !st && i < k->ne; i++) {
		const vedge *e = &k->edge[i];
		uint32_t from =
			e->from >= VIRT ? k->real[e->from - VIRT] : e->from;
		uint32_t to = e->to >= VIRT ? k->real[e->to - VIRT] : e->to;
		uint32_t bin =
			e->control ? UINT32_MAX : merged_bucket(f, e->to);
		uint32_t bout =
			e->control ? UINT32_MAX : merged_bucket(f, e->from);
		uint32_t dfrom = (uint32_t)b->placement[from];
		if (bin != UINT32_MAX) {
			in[nin++] = (tri){bin, from, dfrom, e->bytes};
			pk[npk++] = (tri){bin, dfrom, to, e->bytes};
		} else if (bout != UINT32_MAX) {
			out[nout++] = (tri){from, to, 0, 0};
			dv[ndv++] = (tri){from, (uint32_t)b->placement[to], 0,
					  e->bytes};
		} else {
			st = dpi_lower_edge(b, from, to, e->bytes, e->control,
					    f->err);
		}
	}
	if (!st) {
		nin = merge(in, nin);
		npk = merge(pk, npk);
		nout = merge(out, nout);
		ndv = merge(dv, ndv);
		pd = malloc((size_t)(npk + 1) * sizeof *pd);
		pack = malloc((size_t)(npk + 1) * sizeof *pack);
		if (!pd || !pack)
			st = dpi_nomem(f->err, "lowering a strategy");
	}
	/* pack ops, one per (bucket, device), holding what they send */
	for (uint32_t i = 0; !st && i < npk; i++) {
		if (npd && pd[npd - 1].bucket == pk[i].bucket &&
		    pd[npd - 1].a == pk[i].a) {
			pd[npd - 1].bytes += pk[i].bytes;
			continue;
		}
		pd[npd++] = (tri){pk[i].bucket, pk[i].a, 0, pk[i].bytes};
	}
	for (uint32_t i = 0; !st && i < npd; i++) {
		st = add_merged(f, pd[i].bucket, "pack", (int32_t)pd[i].a,
				pd[i].bytes, &pack[i]);
		pd[i].bytes = 0;
	}
	for (uint32_t i = 0; !st && i < npk; i++) {
		tri *p = find(pd, npd, (tri){pk[i].bucket, pk[i].a, 0, 0});
		st = dpi_lower_edge(b, pack[p - pd], pk[i].b, pk[i].bytes,
				    false, f->err);
	}
	for (uint32_t i = 0; !st && i < nin; i++) {
		tri *p = find(pd, npd, (tri){in[i].bucket, in[i].b, 0, 0});
		st = dpi_lower_edge(b, in[i].a, pack[p - pd], in[i].bytes,
				    false, f->err);
	}
	/* out of a merged reduce: the first edge to a device carries the
	 * sum, the others 0 bytes (one transfer per target device carries
	 * its largest edge) */
	for (uint32_t i = 0; !st && i < nout; i++) {
		uint32_t d = (uint32_t)b->placement[out[i].a];
		tri *p = find(dv, ndv, (tri){out[i].bucket, d, 0, 0});
		st = dpi_lower_edge(b, out[i].bucket, out[i].a, p->bytes, false,
				    f->err);
		p->bytes = 0;
	}
	DPI_FREE_ALL(in, pk, out, dv, pd, pack);
	return st;
}

dp_status dpi_lower_bucket_flush(dpi_lower_buf *b, dp_err *err)
{
	struct dpi_bucket_state *k = b->bk;
	if (!k)
		return DP_OK;
	flush f = {.b = b, .k = k, .err = err};
	f.first = malloc(((size_t)k->ns + 1) * sizeof *f.first);
	uint32_t nb = f.first ? assign(k, b->bucket, f.first) : UINT32_MAX;
	dp_status st = nb == UINT32_MAX ? dpi_nomem(err, "lowering a strategy") : DP_OK;
	if (!st) {
		f.members = calloc((size_t)nb + 1, sizeof *f.members);
		k->real = malloc(((size_t)k->nv + 1) * sizeof *k->real);
		if (!f.members || !k->real)
			st = dpi_nomem(err, "lowering a strategy");
	}
	for (uint32_t i = 0; !st && i < k->ns; i++)
		f.members[k->set[i].bucket]++;
	if (!st)
		st = make_reduces(&f);
	if (!st)
		st = make_edges(&f);
	free(f.members);
	free(f.first);
	dpi_lower_bucket_free(b);
	return st;
}
