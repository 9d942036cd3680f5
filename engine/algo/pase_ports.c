/* pase_ports.c - what a resharding costs in the simulator's port model,
 * for the `pase` cost model (internal/pase.h; docs/algorithms.md#pase).
 *
 * The simulator (DESIGN 3.1) reserves each device's send and receive
 * ports in the order transfers are created: producers in increasing
 * device number, each to its targets in increasing device number, a
 * transfer starting when both its ports are free. An all-gather over K
 * devices then takes about twice its K-1 messages, not K-1, and the
 * paper's sum of bytes / bandwidth per device under-prices it. So an
 * edge's time is this reservation replayed on the messages of one
 * resharding (all producers ready at once, ports free): ours, not the
 * paper's. Results are memoised by the tensor's layout, since a
 * transformer repeats a few layouts thousands of times.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/pase.h"

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

/* Eight bytes at a time (the keys are ~100-byte layouts, hashed for every
 * pair of configs of every edge: byte by byte it was a sixth of a 100k-op
 * run), each word mixed down so that every byte reaches the low bits that
 * index the table. */
static uint64_t fnv(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 1469598103934665603ull;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, sizeof w);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 32;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h ^ (h >> 29);
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
