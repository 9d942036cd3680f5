/* msrdp_ideals.c - the ideals msr-dp searches over: all of them, or the
 * prefixes of the unit order (see internal/msrdp.h). */
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/arrays.h"
#include "internal/msrdp.h"
#include "internal/nomem.h"
#include "internal/sort_key.h"

/* Work bound of the enumeration and the frontiers: ideals x (units + unit
 * edges) steps, and frontier entries kept. */
#define MSR_WORK 100000000.0
#define MSR_FRONTIER_MAX 40000000u

void dpi_msr_ideals_free(msr_ideals *id)
{
	DPI_FREE_ALL(id->bits, id->pos, id->time, id->mem, id->fr_off, id->fr,
		     id->comm);
	memset(id, 0, sizeof *id);
}

static uint64_t hash_bits(const uint64_t *b, uint32_t w)
{
	uint64_t h = 0x9E3779B97F4A7C15ull;
	for (uint32_t i = 0; i < w; i++) {
		h ^= b[i] + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
		h *= 0xBF58476D1CE4E5B9ull;
	}
	return h ^ (h >> 31);
}

typedef struct enum_state {
	const msr_units *u;
	uint32_t w, cap, ni, max;
	uint64_t *bits;
	double *time, *mem;
	uint32_t *cnt;
	uint32_t *slots, nslots; /* hash: ideal index + 1, 0 empty */
} enum_state;

/* Index of ideal b, adding it when new; UINT32_MAX when over the limit. */
static uint32_t find_or_add(enum_state *e, const uint64_t *b, double t,
			    double m, uint32_t c)
{
	uint32_t mask = e->nslots - 1;
	uint32_t h = (uint32_t)hash_bits(b, e->w) & mask;
	while (e->slots[h]) {
		uint32_t i = e->slots[h] - 1;
		if (!memcmp(e->bits + (uint64_t)i * e->w, b, e->w * sizeof *b))
			return i;
		h = (h + 1) & mask;
	}
	if (e->ni == e->max)
		return UINT32_MAX;
	uint32_t i = e->ni++;
	memcpy(e->bits + (uint64_t)i * e->w, b, e->w * sizeof *b);
	e->time[i] = t;
	e->mem[i] = m;
	e->cnt[i] = c;
	e->slots[h] = i + 1;
	return i;
}

/* Frontier lists of every ideal (internal/msrdp.h); false when they are
 * too many. */
static int frontiers(const msr_units *u, msr_ideals *id)
{
	uint64_t total = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (pass) {
			if (total > MSR_FRONTIER_MAX)
				return 0;
			id->fr = malloc((total + 1) * sizeof *id->fr);
			if (!id->fr)
				return -1;
		}
		uint32_t k = 0;
		for (uint32_t i = 0; i < id->ni; i++) {
			if (pass)
				id->fr_off[i] = k;
			for (uint32_t a = 0; a < u->nu; a++) {
				bool in = dpi_msr_has(id, i, a);
				bool cut = false;
				for (uint32_t j = u->unb_off[a];
				     j < u->unb_off[a + 1] && !cut; j++)
					cut = dpi_msr_has(id, i, u->unb[j]) !=
					      in;
				if (!cut)
					continue;
				if (pass)
					id->fr[k] = a;
				k++;
			}
		}
		if (pass)
			id->fr_off[id->ni] = k;
		total = k;
	}
	return 1;
}

dp_status dpi_msr_ideals_all(const msr_units *u, uint32_t max_ideals,
			     const dp_progress *p, msr_ideals *id,
			     bool *complete, dp_err *err)
{
	memset(id, 0, sizeof *id);
	*complete = false;
	double per = (double)u->nu + (double)u->upred_off[u->nu] +
		     (double)u->unb_off[u->nu] + 1.0;
	double lim = MSR_WORK / per;
	uint32_t max = lim < (double)max_ideals ? (uint32_t)lim : max_ideals;
	if ((uint64_t)u->nu + 1 > max)
		return DP_OK;
	enum_state e = {.u = u, .w = (u->nu + 63) / 64 ? (u->nu + 63) / 64 : 1};
	e.max = max;
	e.cap = max;
	e.nslots = 1;
	while (e.nslots < 2 * (uint64_t)max)
		e.nslots *= 2;
	e.bits = calloc((size_t)e.cap * e.w, sizeof *e.bits);
	e.time = malloc((size_t)e.cap * sizeof *e.time);
	e.mem = malloc((size_t)e.cap * sizeof *e.mem);
	e.cnt = malloc((size_t)e.cap * sizeof *e.cnt);
	e.slots = calloc(e.nslots, sizeof *e.slots);
	uint64_t *tmp = malloc((size_t)e.w * sizeof *tmp);
	dp_status st = DP_OK;
	bool over = false;
	if (!e.bits || !e.time || !e.mem || !e.cnt || !e.slots || !tmp) {
		st = dpi_nomem(err, "computing msr-dp's ideals");
		goto done;
	}
	memset(tmp, 0, (size_t)e.w * sizeof *tmp);
	find_or_add(&e, tmp, 0.0, 0.0, 0);
	for (uint32_t i = 0; i < e.ni && !over; i++) {
		if ((i & 1023) == 0 &&
		    (st = dpi_poll(p, "msr-dp", "ideals", 0.3 * i / e.max,
					err)))
			goto done;
		const uint64_t *b = e.bits + (uint64_t)i * e.w;
		for (uint32_t a = 0; a < u->nu && !over; a++) {
			if ((b[a / 64] >> (a % 64)) & 1u)
				continue;
			bool ok = true;
			for (uint32_t j = u->upred_off[a];
			     j < u->upred_off[a + 1] && ok; j++) {
				uint32_t q = u->upred[j];
				ok = (b[q / 64] >> (q % 64)) & 1u;
			}
			if (!ok)
				continue;
			memcpy(tmp, b, (size_t)e.w * sizeof *tmp);
			tmp[a / 64] |= 1ull << (a % 64);
			if (find_or_add(&e, tmp, e.time[i] + u->utime[a],
					e.mem[i] + u->umem[a],
					e.cnt[i] + 1) == UINT32_MAX)
				over = true;
			b = e.bits + (uint64_t)i * e.w; /* unchanged */
		}
	}
	if (over)
		goto done;
	/* sort by (time, size, index): every proper subset sorts first; keep
	 * the arrays in that order */
	dpi_sort_key *keys = malloc((size_t)e.ni * sizeof *keys);
	id->ni = e.ni;
	id->w = e.w;
	id->bits = malloc((size_t)e.ni * e.w * sizeof *id->bits);
	id->time = malloc((size_t)e.ni * sizeof *id->time);
	id->mem = malloc((size_t)e.ni * sizeof *id->mem);
	id->fr_off = malloc(((size_t)e.ni + 1) * sizeof *id->fr_off);
	if (!keys || !id->bits || !id->time || !id->mem || !id->fr_off) {
		free(keys);
		st = dpi_nomem(err, "computing msr-dp's ideals");
		goto done;
	}
	for (uint32_t i = 0; i < e.ni; i++)
		keys[i] = (dpi_sort_key){e.time[i], e.cnt[i], i};
	qsort(keys, e.ni, sizeof *keys, dpi_sort_key_asc);
	for (uint32_t r = 0; r < e.ni; r++) {
		uint32_t i = keys[r].op;
		memcpy(id->bits + (uint64_t)r * e.w, e.bits + (uint64_t)i * e.w,
		       e.w * sizeof *e.bits);
		id->time[r] = e.time[i];
		id->mem[r] = e.mem[i];
	}
	free(keys);
	int fr = frontiers(u, id);
	if (fr < 0)
		st = dpi_nomem(err, "computing msr-dp's ideals");
	else if (fr > 0)
		*complete = true;
done:
	DPI_FREE_ALL(e.bits, e.time, e.mem, e.cnt, e.slots, tmp);
	if (st || !*complete)
		dpi_msr_ideals_free(id);
	return st;
}

/* Adds c to the cells [j0, j1] x [i0, i1] of the (n + 1)^2 difference
 * table d (nothing when empty). */
static void rect(long double *d, uint32_t n, int64_t j0, int64_t j1, int64_t i0,
		 int64_t i1, double c)
{
	if (j0 > j1 || i0 > i1)
		return;
	size_t w = (size_t)n + 1;
	d[(size_t)j0 * w + (size_t)i0] += c;
	d[(size_t)j0 * w + (size_t)i1 + 1] -= c;
	d[((size_t)j1 + 1) * w + (size_t)i0] -= c;
	d[((size_t)j1 + 1) * w + (size_t)i1 + 1] += c;
}

/* The communication of every piece [j, i) of blocks (throughput.h): block
 * t holds units pos[t] .. pos[t+1] - 1, the piece between prefixes j < i
 * the blocks j .. i-1. Op x in block b with transfer c pays c as a sender
 * when b is in the piece and a data consumer is not (every piece with
 * j <= b < i, less those holding all its consumers' blocks), and as a
 * receiver when b is not in the piece and a consumer is (for each distinct
 * consumer block s, the pieces whose first consumer block at or after j
 * is s, less those holding b). */
static dp_status chain_comm(const dp_graph *g, const msr_units *u,
			    msr_ideals *id, dp_err *err)
{
	uint32_t ni = id->ni, nb = ni - 1; /* blocks */
	size_t w = (size_t)ni + 1;
	long double *d = calloc(w * w, sizeof *d);
	uint32_t *blk = malloc(((size_t)u->nu + 1) * sizeof *blk);
	uint32_t *cb = malloc(((size_t)g->nedges + 1) * sizeof *cb);
	id->comm = malloc((size_t)ni * ni * sizeof *id->comm);
	if (!d || !blk || !cb || !id->comm) {
		free(d);
		free(blk);
		free(cb);
		return dpi_nomem(err, "computing msr-dp's ideals");
	}
	for (uint32_t t = 0; t < nb; t++)
		for (uint32_t a = id->pos[t]; a < id->pos[t + 1]; a++)
			blk[a] = t;
	int64_t last = (int64_t)nb; /* the largest prefix index i */
	for (uint32_t x = 0; x < g->nops; x++) {
		double c = u->xfer[x];
		int64_t b = blk[u->unit[x]];
		uint32_t m = 0;
		for (uint32_t s = g->succ_off[x]; s < g->succ_off[x + 1]; s++) {
			const dp_edge *e = &g->edges[g->succ_edge[s]];
			if (!e->control)
				cb[m++] = blk[u->unit[e->to]];
		}
		if (!m || c == 0)
			continue;
		qsort(cb, m, sizeof *cb, dpi_cmp_u32);
		int64_t lo = cb[0], hi = cb[m - 1];
		/* sender */
		rect(d, ni, 0, b, b + 1, last, c);
		rect(d, ni, 0, lo < b ? lo : b, (hi > b ? hi : b) + 1, last,
		     -c);
		/* receiver */
		int64_t prev = -1;
		for (uint32_t k = 0; k < m; k++) {
			int64_t s = cb[k];
			if (s == b || s == prev)
				continue;
			rect(d, ni, prev + 1, s, s + 1, last, c);
			rect(d, ni, prev + 1, s < b ? s : b,
			     (s > b ? s : b) + 1, last, -c);
			prev = s;
		}
	}
	for (uint32_t j = 0; j < ni; j++) {
		long double run = 0;
		for (uint32_t i = 0; i < ni; i++) {
			run += d[(size_t)j * w + i];
			long double up = j ? d[((size_t)j - 1) * w + i] : 0;
			d[(size_t)j * w + i] = run + up;
			id->comm[(size_t)j * ni + i] =
				(double)d[(size_t)j * w + i];
		}
	}
	free(d);
	free(blk);
	free(cb);
	return DP_OK;
}

dp_status dpi_msr_ideals_chain(const dp_graph *g, const msr_units *u,
			       uint32_t nb, msr_ideals *id, dp_err *err)
{
	memset(id, 0, sizeof *id);
	uint32_t nu = u->nu;
	if (nb < 1)
		nb = 1;
	uint32_t n = nu < nb ? nu : nb;
	id->pos = malloc(((size_t)n + 2) * sizeof *id->pos);
	if (!id->pos)
		return dpi_nomem(err, "computing msr-dp's ideals");
	double total = 0;
	for (uint32_t a = 0; a < nu; a++)
		total += u->utime[a];
	/* cut after the unit where the running time passes the next multiple
	 * of total / n (by count when all times are 0) */
	uint32_t ni = 0;
	id->pos[ni++] = 0;
	double run = 0;
	for (uint32_t a = 0; a < nu; a++) {
		run += u->utime[a];
		double goal = total > 0 ? total * ni / n : (double)nu * ni / n;
		double have = total > 0 ? run : (double)(a + 1);
		if ((have >= goal || a + 1 == nu) && ni <= n)
			id->pos[ni++] = a + 1;
	}
	if (id->pos[ni - 1] != nu)
		id->pos[ni++] = nu;
	id->ni = ni;
	id->w = 0;
	id->time = malloc((size_t)ni * sizeof *id->time);
	id->mem = malloc((size_t)ni * sizeof *id->mem);
	if (!id->time || !id->mem) {
		dpi_msr_ideals_free(id);
		return dpi_nomem(err, "computing msr-dp's ideals");
	}
	double t = 0, m = 0;
	uint32_t a = 0;
	for (uint32_t i = 0; i < ni; i++) {
		for (; a < id->pos[i]; a++) {
			t += u->utime[a];
			m += u->umem[a];
		}
		id->time[i] = t;
		id->mem[i] = m;
	}
	dp_status st = chain_comm(g, u, id, err);
	if (st)
		dpi_msr_ideals_free(id);
	return st;
}
