/* algo_pardnn_map.c - pardnn step 2: mapping secondary paths onto K groups.
 *
 * Paper (arXiv 2008.08636, Sec. 4, mapping): the K primary paths seed K
 * groups, one per device. Secondary paths are taken in decreasing priority.
 * Each has a time span, from the latest finish of its head's parents to the
 * earliest start of its tail's children (top levels). For each group g,
 * load_g(span) is the work of g's ops whose top level falls in the span
 * (Fenwick trees over the ops ordered by top level), and comm(path, g) is the
 * communication that joining g saves. The path joins the group minimising
 * load_g(span) - comm(path, g); ties: more communication saved.
 *
 * Ours: with devices of different speeds the load is divided by the device's
 * speed (plus the path's own work), primary i goes to the i-th fastest
 * device, and fixed (pinned) ops count as work of their device from the
 * start. The K trees are stored as one tree of K-vectors (one cache line per
 * node for small K). When K * n is large the positions are bucketed (about
 * PD_FEN_CELLS counters in all, so the tree stays in cache); a bucket's work
 * counts whole when the span touches it. After mapping, each colocation
 * group is put on one device: its pin, else the device holding most of its
 * members' work (ties: smaller device).
 */
#include <stdlib.h>
#include <string.h>

#include "internal/pardnn.h"
#include "internal/sort_key.h"

/* Counters in the K-vector Fenwick tree: small enough to stay in cache
 * (about 2 MiB), which matters more at 1M ops than exact positions. */
#define PD_FEN_CELLS (1u << 18)
#define PD_FEN_MIN_BUCKETS 4096u

typedef struct fenwick {
	uint32_t nb; /* buckets (1-based tree of nb nodes) */
	int k;
	double *t; /* (nb + 1) * k */
} fenwick;

/* Adds v to group d at bucket i (0-based). */
static void fen_add(fenwick *f, uint32_t i, int d, double v)
{
	for (uint32_t x = i + 1; x <= f->nb; x += x & (0u - x))
		f->t[(size_t)x * (size_t)f->k + (size_t)d] += v;
}

/* out[d] += sum of buckets [0, i) for every group d. */
static void fen_prefix(const fenwick *f, uint32_t i, double sign, double *out)
{
	for (uint32_t x = i; x > 0; x -= x & (0u - x)) {
		const double *row = f->t + (size_t)x * (size_t)f->k;
		for (int d = 0; d < f->k; d++)
			out[d] += sign * row[d];
	}
}

static uint32_t bucket_of(uint32_t pos, uint32_t n, uint32_t nb)
{
	return (uint32_t)((uint64_t)pos * nb / (n ? n : 1));
}

/* Puts every colocation group on one device: its pin (already in c->fix),
 * else the device with the most member work, ties more members, then the
 * smaller device. */
static dp_status resolve_groups(pd_ctx *c)
{
	const dp_graph *g = c->g;
	double *work = calloc((size_t)c->k, sizeof *work);
	uint32_t *cnt = calloc((size_t)c->k, sizeof *cnt);
	if (!work || !cnt) {
		free(work);
		free(cnt);
		return dp_err_set(c->err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory while mapping");
	}
	for (uint32_t grp = 0; grp < g->ngroups; grp++) {
		uint32_t lo = g->group_off[grp], hi = g->group_off[grp + 1];
		if (lo == hi)
			continue;
		int32_t dev = c->fix[g->group_ops[lo]];
		if (dev < 0) {
			for (uint32_t i = lo; i < hi; i++) {
				uint32_t u = g->group_ops[i];
				work[c->place[u]] += c->w[u];
				cnt[c->place[u]]++;
			}
			dev = c->place[g->group_ops[lo]];
			for (uint32_t i = lo; i < hi; i++) {
				int32_t d = c->place[g->group_ops[i]];
				if (work[d] > work[dev] ||
				    (work[d] == work[dev] &&
				     (cnt[d] > cnt[dev] ||
				      (cnt[d] == cnt[dev] && d < dev))))
					dev = d;
			}
			for (uint32_t i = lo; i < hi; i++) {
				int32_t d = c->place[g->group_ops[i]];
				work[d] = 0;
				cnt[d] = 0;
			}
		}
		for (uint32_t i = lo; i < hi; i++)
			c->place[g->group_ops[i]] = dev;
	}
	free(work);
	free(cnt);
	return DP_OK;
}

dp_status dpi_pd_map(pd_ctx *c)
{
	const dp_graph *g = c->g;
	uint32_t n = c->n;
	int k = c->k;
	dp_status st = DP_OK;
	dpi_sort_key *keys = malloc(((size_t)n + 1) * sizeof *keys);
	double *ts = malloc(((size_t)n + 1) * sizeof *ts);
	uint32_t *pos = malloc(((size_t)n + 1) * sizeof *pos);
	double *load = malloc((size_t)k * sizeof *load);
	double *comm = malloc((size_t)k * sizeof *comm);
	fenwick f = {0, k, NULL};
	f.nb = PD_FEN_CELLS / (uint32_t)k;
	if (f.nb < PD_FEN_MIN_BUCKETS)
		f.nb = PD_FEN_MIN_BUCKETS;
	if (f.nb > n)
		f.nb = n ? n : 1;
	f.t = calloc(((size_t)f.nb + 1) * (size_t)k, sizeof *f.t);
	if (!keys || !ts || !pos || !load || !comm || !f.t) {
		st = dp_err_set(c->err, DP_ENOMEM, NULL, 0, 0,
				"out of memory while mapping %u ops", n);
		goto out;
	}

	/* time-ordered positions (by top level, ties by op id) */
	for (uint32_t u = 0; u < n; u++)
		keys[u] = (dpi_sort_key){c->tlev[u], u, u};
	qsort(keys, n, sizeof *keys, dpi_sort_key_asc);
	for (uint32_t i = 0; i < n; i++) {
		ts[i] = keys[i].key;
		pos[keys[i].op] = i;
	}

	/* seed: fixed ops and primaries (device devorder[i]) */
	for (uint32_t u = 0; u < n; u++) {
		int32_t d = c->fix[u];
		if (d < 0 && c->path_of[u] < (uint32_t)k)
			d = c->devorder[c->path_of[u]];
		c->place[u] = d;
		if (d >= 0)
			f.t[((size_t)bucket_of(pos[u], n, f.nb) + 1) *
				    (size_t)k +
			    (size_t)d] += c->w[u];
	}
	/* linear-time Fenwick construction from the raw bucket sums */
	for (uint32_t x = 1; x <= f.nb; x++) {
		uint32_t y = x + (x & (0u - x));
		if (y <= f.nb)
			for (int d = 0; d < k; d++)
				f.t[(size_t)y * (size_t)k + (size_t)d] +=
					f.t[(size_t)x * (size_t)k + (size_t)d];
	}

	uint32_t nsec = c->npaths > (uint32_t)k ? c->npaths - (uint32_t)k : 0;
	for (uint32_t pth = (uint32_t)k; pth < c->npaths; pth++) {
		uint32_t lo_i = c->path_off[pth], hi_i = c->path_off[pth + 1];
		if (((pth - (uint32_t)k) & 0x3fff) == 0) {
			if ((st = dpi_pd_check_cancel(c)))
				goto out;
			dpi_pd_progress(c, "mapping", 0.2, 0.35,
					(double)(pth - (uint32_t)k) /
						(nsec + 1));
		}
		uint32_t head = c->path_ops[lo_i], tail = c->path_ops[hi_i - 1];
		/* the span: latest finish of the head's parents to the
		 * earliest start of the tail's children */
		double lo = c->tlev[head], hi = -1, work = 0;
		bool parent = false;
		for (uint32_t i = g->pred_off[head]; i < g->pred_off[head + 1];
		     i++) {
			uint32_t p = g->edges[g->pred_edge[i]].from;
			double f_end = c->tlev[p] + c->w[p];
			if (!parent || f_end > lo)
				lo = f_end;
			parent = true;
		}
		for (uint32_t i = g->succ_off[tail]; i < g->succ_off[tail + 1];
		     i++) {
			uint32_t v = g->edges[g->succ_edge[i]].to;
			if (hi < 0 || c->tlev[v] < hi)
				hi = c->tlev[v];
		}
		if (hi < 0)
			hi = c->tlev[tail] + c->w[tail];
		if (hi < lo)
			hi = lo;
		uint32_t a = dpi_lower_bound(ts, n, lo),
			 b = dpi_lower_bound(ts, n, hi);
		memset(load, 0, (size_t)k * sizeof *load);
		if (b > a) {
			uint32_t ba = bucket_of(a, n, f.nb);
			uint32_t bb = bucket_of(b - 1, n, f.nb) + 1;
			fen_prefix(&f, bb, 1.0, load);
			fen_prefix(&f, ba, -1.0, load);
		}
		/* communication with ops already placed, per device */
		memset(comm, 0, (size_t)k * sizeof *comm);
		for (uint32_t i = lo_i; i < hi_i; i++) {
			uint32_t u = c->path_ops[i];
			work += c->w[u];
			dpi_pd_add_placed_comm(c, u, comm);
		}
		int best = 0;
		double bcost = 0;
		for (int d = 0; d < k; d++) {
			double cost =
				(load[d] + work) / c->m->speed[d] - comm[d];
			if (d == 0 || cost < bcost ||
			    (cost == bcost && comm[d] > comm[best])) {
				best = d;
				bcost = cost;
			}
		}
		for (uint32_t i = lo_i; i < hi_i; i++) {
			uint32_t u = c->path_ops[i];
			c->place[u] = best;
			fen_add(&f, bucket_of(pos[u], n, f.nb), best, c->w[u]);
		}
	}
	/* slicing covers every free op with a path */
	for (uint32_t u = 0; u < n; u++)
		if (c->place[u] < 0) {
			st = dp_err_set(c->err, DP_EINTERNAL, NULL, 0, 0,
					"pardnn: op '%s' is on no path after "
					"slicing",
					dp_graph_op_name(g, u));
			goto out;
		}
	st = resolve_groups(c);
	dpi_pd_progress(c, "mapping", 0.2, 0.35, 1.0);
out:
	free(keys);
	free(ts);
	free(pos);
	free(load);
	free(comm);
	free(f.t);
	return st;
}
