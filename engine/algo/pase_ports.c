/* pase_ports.c - what a resharding costs in the simulator's port model,
 * for the `pase` cost model (internal/pase.h; docs/algorithms.md#pase).
 *
 * The simulator (docs/simulator.md) reserves each device's send and receive
 * ports in the order transfers are created: producers in increasing
 * device number, each to its targets in increasing device number, a
 * transfer starting when both its ports are free. An all-gather over K
 * devices then takes about twice its K-1 messages, not K-1, and the
 * paper's sum of bytes / bandwidth per device under-prices it. So an
 * edge's time is this reservation replayed on the messages of one
 * resharding (all producers ready at once, ports free), built as the
 * lowering builds them (internal/spmd_tensor.h): ours, not the paper's.
 * A weight gradient's all-reduce that loads every device the same is the
 * exception: in the backward pass such all-reduces queue behind each
 * other and overlap the compute, and bench/bench_pasemodel measured the
 * step growing by their busiest port's time, not by their replays.
 * Results are memoised by the tensor's layout, since a transformer
 * repeats a few layouts thousands of times.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/pase.h"
#include "internal/spmd.h"

double dpi_pase_ports_time(const double *bytes, int k, double lat, double bw,
			   double *send_free, double *recv_free)
{
	double end = 0;
	for (int d = 0; d < k; d++)
		send_free[d] = recv_free[d] = 0;
	for (int s = 0; s < k; s++)
		for (int d = 0; d < k; d++) {
			double b = bytes[(size_t)s * (size_t)k + (size_t)d];
			if (s == d || b <= 0)
				continue;
			double t0 = send_free[s] > recv_free[d] ? send_free[s]
								: recv_free[d];
			double t1 = t0 + lat + b / bw;
			send_free[s] = recv_free[d] = t1;
			if (t1 > end)
				end = t1;
		}
	return end;
}

/* The busiest port of a set of messages: the most time one device spends
 * sending or receiving them, one latency each. *even becomes false unless
 * every device spends the same time sending and the same receiving (within
 * rounding). */
static double ports_busy(const double *bytes, int k, double lat, double bw,
			 double *send, double *recv, bool *even)
{
	for (int d = 0; d < k; d++)
		send[d] = recv[d] = 0;
	double most = 0;
	for (int s = 0; s < k; s++)
		for (int d = 0; d < k; d++) {
			double b = bytes[(size_t)s * (size_t)k + (size_t)d];
			if (s == d || b <= 0)
				continue;
			send[s] += lat + b / bw;
			recv[d] += lat + b / bw;
			if (send[s] > most)
				most = send[s];
			if (recv[d] > most)
				most = recv[d];
		}
	for (int d = 1; d < k; d++)
		if (fabs(send[d] - send[0]) > 1e-3 * most ||
		    fabs(recv[d] - recv[0]) > 1e-3 * most)
			*even = false;
	return most;
}

/* Adds the messages of dpi_spmd_tensor_sources into device dst. */
typedef struct acc {
	double *mat;
	int k, dst;
} acc;

static dp_status acc_add(void *arg, int src, int64_t bytes)
{
	acc *a = arg;
	if (src != a->dst)
		a->mat[(size_t)src * (size_t)a->k + (size_t)a->dst] +=
			(double)bytes;
	return DP_OK;
}

/* The messages of t into mat (k x k, zeroed): every consumer box, chunk
 * rank[d] of r (r = 1: the whole box), read from the producer blocks that
 * meet it. */
static void box_messages(const dpi_pase_model *pm, const dpi_spmd_tensor *t,
			 const int *rank, int r, double *mat)
{
	for (int d = 0; d < pm->size; d++) {
		int64_t lo[DP_MAX_OP_DIMS], hi[DP_MAX_OP_DIMS];
		dpi_spmd_tensor_box(t, &pm->grid, d, lo, hi);
		acc a = {mat, pm->size, d};
		dpi_spmd_tensor_sources(t, &pm->grid, d, lo, hi,
					rank ? rank[d] : 0, r, acc_add, &a);
	}
}

/* Partial sums, as lower_spmd_edges.c's make_layout and reduce_edge: the
 * r devices that hold one consumer box each reduce chunk (their rank) of
 * it from every partial sum (rs), then every device gathers the r chunks
 * of its box (ag). */
static void partial_messages(const dpi_pase_model *pm, const dpi_spmd_tensor *t,
			     double *rs, double *ag)
{
	int k = pm->size, gid[DPI_PASE_PORTS_MAX] = {0};
	int rank[DPI_PASE_PORTS_MAX] = {0};
	int cnt[DPI_PASE_PORTS_MAX] = {0}, owner[DPI_PASE_PORTS_MAX] = {0};
	uint8_t all = 0;
	for (int j = 0; j < t->r; j++)
		all |= t->cmask[j];
	int r = k / dpi_mesh_parts(&pm->grid, all);
	for (int d = 0; d < k; d++) {
		gid[d] = dpi_mesh_part(&pm->grid, all, d);
		rank[d] = cnt[gid[d]]++;
		owner[gid[d] * r + rank[d]] = d;
	}
	box_messages(pm, t, rank, r, rs);
	for (int d = 0; d < k; d++) {
		int64_t lo[DP_MAX_OP_DIMS], hi[DP_MAX_OP_DIMS], vol = 1;
		dpi_spmd_tensor_box(t, &pm->grid, d, lo, hi);
		for (int j = 0; j < t->r; j++)
			vol *= hi[j] - lo[j];
		int64_t b = dpi_spmd_tensor_bytes(t, vol);
		for (int q = 0; q < r; q++) {
			int s = owner[gid[d] * r + q];
			if (s != d)
				ag[(size_t)s * (size_t)k + (size_t)d] +=
					(double)dpi_spmd_share(b, q, r);
		}
	}
}

/* Above DPI_PASE_PORTS_MAX devices: the busiest receiver's bytes and
 * messages, one latency each (p partial sums: a reduce-scatter and an
 * all-gather of its block). */
static double busiest(const dpi_pase_model *pm, const dpi_spmd_tensor *t)
{
	const dpi_mesh *m = &pm->grid;
	int p = dpi_mesh_parts(m, t->partial);
	double worst = 0;
	for (int d = 0; d < pm->size; d++) {
		int64_t cvol = 1, ivol = 1;
		double peers = 1;
		for (int j = 0; j < t->r; j++) {
			int64_t cn = dpi_mesh_parts(m, t->cmask[j]);
			int64_t pn = dpi_mesh_parts(m, t->pmask[j]);
			int64_t cl = t->size[j] / cn, pl = t->size[j] / pn;
			int64_t clo = dpi_mesh_part(m, t->cmask[j], d) * cl;
			int64_t plo = dpi_mesh_part(m, t->pmask[j], d) * pl;
			int64_t lo = clo > plo ? clo : plo;
			int64_t hi = clo + cl < plo + pl ? clo + cl : plo + pl;
			cvol *= cl;
			ivol *= hi > lo ? hi - lo : 0;
			peers *= (double)((clo + cl - 1) / pl - clo / pl + 1);
		}
		double b, msgs;
		double cb = (double)dpi_spmd_tensor_bytes(t, cvol);
		if (p > 1) {
			b = 2.0 * (p - 1) / p * cb;
			msgs = 2.0 * (p - 1);
		} else {
			b = cb - (double)dpi_spmd_tensor_bytes(t, ivol);
			msgs = peers - (ivol > 0 ? 1 : 0);
		}
		double time = b > 0 ? msgs * pm->m->lat + b / pm->m->bw : 0;
		if (time > worst)
			worst = time;
	}
	return worst;
}

double dpi_pase_tensor_time(const dpi_pase_model *pm, const dpi_pase_key *key)
{
	const dpi_spmd_tensor *t = &key->t;
	int k = pm->size;
	if (k > DPI_PASE_PORTS_MAX || !pm->mat)
		return busiest(pm, t);
	size_t kk = (size_t)k * (size_t)k;
	double *a = pm->mat, *b = pm->mat + kk;
	double *sf = pm->ports, *rf = pm->ports + k;
	double lat = pm->m->lat, bw = pm->m->bw;
	memset(a, 0, 2 * kk * sizeof *a);
	if (!t->partial) {
		box_messages(pm, t, NULL, 1, a);
		return dpi_pase_ports_time(a, k, lat, bw, sf, rf);
	}
	partial_messages(pm, t, a, b);
	if (key->queued) {
		bool even = true;
		double busy = ports_busy(a, k, lat, bw, sf, rf, &even) +
			      ports_busy(b, k, lat, bw, sf, rf, &even);
		if (even)
			return busy;
	}
	return dpi_pase_ports_time(a, k, lat, bw, sf, rf) +
	       dpi_pase_ports_time(b, k, lat, bw, sf, rf);
}

typedef struct slot {
	uint64_t hash;
	uint32_t off; /* key in keys[off .. off + len) */
	uint32_t len;
	double val;
	bool used;
} slot;

struct dpi_pase_memo {
	slot *slots;
	size_t nslots, nused;
	unsigned char *keys;
	size_t nkeys, cap_keys;
};

/* FNV-1a over 8-byte words (then the tail bytes), mixed at the end: the
 * keys are structs of a hundred bytes, looked up for every edge cost. */
static uint64_t fnv(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 1469598103934665603ull;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 1099511628211ull;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

dpi_pase_memo *dpi_pase_memo_new(void)
{
	dpi_pase_memo *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->nslots = 1024;
	m->slots = calloc(m->nslots, sizeof *m->slots);
	if (!m->slots) {
		free(m);
		return NULL;
	}
	return m;
}

void dpi_pase_memo_free(dpi_pase_memo *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m->keys);
	free(m);
}

static slot *find(const dpi_pase_memo *m, const void *key, size_t len,
		  uint64_t h)
{
	size_t i = (size_t)h & (m->nslots - 1);
	for (;;) {
		slot *s = &m->slots[i];
		if (!s->used || (s->hash == h && s->len == len &&
				 memcmp(m->keys + s->off, key, len) == 0))
			return s;
		i = (i + 1) & (m->nslots - 1);
	}
}

bool dpi_pase_memo_get(const dpi_pase_memo *m, const void *key, size_t len,
		       double *val)
{
	const slot *s = find(m, key, len, fnv(key, len));
	if (!s->used)
		return false;
	*val = s->val;
	return true;
}

static bool grow(dpi_pase_memo *m)
{
	size_t n = m->nslots * 2;
	slot *q = calloc(n, sizeof *q);
	if (!q)
		return false;
	slot *old = m->slots;
	size_t nold = m->nslots;
	m->slots = q;
	m->nslots = n;
	for (size_t i = 0; i < nold; i++)
		if (old[i].used) {
			size_t j = (size_t)old[i].hash & (n - 1);
			while (q[j].used)
				j = (j + 1) & (n - 1);
			q[j] = old[i];
		}
	free(old);
	return true;
}

bool dpi_pase_memo_put(dpi_pase_memo *m, const void *key, size_t len,
		       double val)
{
	if (2 * (m->nused + 1) > m->nslots && !grow(m))
		return false;
	if (m->nkeys + len > m->cap_keys) {
		size_t c = m->cap_keys ? m->cap_keys * 2 : 4096;
		while (c < m->nkeys + len)
			c *= 2;
		unsigned char *q = realloc(m->keys, c);
		if (!q)
			return false;
		m->keys = q;
		m->cap_keys = c;
	}
	uint64_t h = fnv(key, len);
	slot *s = find(m, key, len, h);
	if (s->used)
		return true;
	memcpy(m->keys + m->nkeys, key, len);
	*s = (slot){.hash = h,
		    .off = (uint32_t)m->nkeys,
		    .len = (uint32_t)len,
		    .val = val,
		    .used = true};
	m->nkeys += len;
	m->nused++;
	return true;
}
