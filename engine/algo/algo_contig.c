/* algo_contig.c - contiguous split of one topological order into K stages.
 *
 * The partition GPipe (Huang et al., NeurIPS 2019) and PipeDream (Narayanan
 * et al., SOSP 2019) use for pipelines: cut the op sequence g->topo into K
 * consecutive stages, stage i on device i, minimising the largest stage
 * time sum(time_us) / speed(i) subject to each stage's memory fitting its
 * device's cap. Evaluated here as a one-batch schedule by the simulator.
 *
 * Stage memory estimate, for a stage that runs its ops in the order: the
 * params of its ops, plus one copy of every tensor it receives from outside
 * (copies arrive early in a one-batch schedule, so each counts for the
 * whole stage), plus the largest amount of its own outputs live at once,
 * each from its producer until its last consumer inside the stage (outputs
 * for later stages leave by a transfer as soon as they are made), with the
 * temp of the op running then. The simulator's schedule may differ, and
 * its peak is the real number. (Summing every output of a stage would count
 * tensors that are long gone, and keeping outputs until their last consumer
 * anywhere would count tensors that live on other devices: both reject
 * splits that fit.)
 *
 * Method: binary search on the answer T. For a bound T, each stage in turn
 * takes as many ops as fit under T and under its cap; this greedy split
 * decides whether K stages suffice. It is optimal when a stage's time and
 * memory only drop as it loses ops: always true for time, and for memory
 * except where an op at the front of a stage, once cut off, becomes a copy
 * that is counted for the whole stage. A stage's end under T comes from
 * prefix sums of time; a memory check of a segment costs O(length + edges);
 * when the cap cuts a stage shorter, its end is found by bisection, and
 * what each check learns about a stage start is kept across the ~30 rounds
 * of bisection on T, so that most rounds cost one check per stage:
 * O((n + e) log n) per round at worst, O(n + e) typically.
 * When the caps cannot be met at any T, the caps are scaled up by the
 * smallest factor r that makes a split possible, so that the overflow is
 * spread in proportion to the caps, and T is minimised under those.
 *
 * Pins and colocation: a pinned op (and every op of a group with a pinned
 * member) goes to its pin and counts, time and memory, as a fixed load of
 * that device's stage; a colocation group goes with its earliest member in
 * the order, and the time and bytes (params, outputs, temps) of its other
 * members count in that stage. These ops are the only ones that break the
 * contiguity of the stages.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "internal/algo_int.h"
#include "internal/arrays.h"
#include "internal/listsched.h"

#define NONE UINT32_MAX

typedef struct memo_slot {
	uint64_t key;	  /* a * K + stage, + 1 (0 = empty) */
	uint32_t ok, bad; /* see memo_get */
} memo_slot;

typedef struct contig {
	const dp_graph *g;
	const dp_machine *m;
	double r;	     /* the cap scale in force */
	ls_cons cons;	     /* forced[v]: the pin of v or of its group */
	uint32_t *leader;    /* per group: its earliest member in the order */
	double *grp_time;    /* per group: time of the other members */
	int64_t *grp_mem;    /* per group: bytes of the other members */
	double *base_time;   /* per device: time of the ops forced there */
	int64_t *base_mem;   /* per device: bytes of the ops forced there */
	double *ptime;	     /* n+1: prefix sums of the time each position
				brings to its stage */
	uint32_t *next_free; /* n+1: the first free position at or after */
	uint8_t *free_pos;   /* per position: is_free of the op there */
	uint32_t *last_in;   /* per position: scratch for memory checks */
	int64_t *diff;	     /* n+2: scratch difference array */
	uint32_t *seen;	     /* per op: token of the check that counted a
				copy of its output */
	uint32_t token;
	memo_slot *memo;
	uint32_t memo_cap, memo_len;
	uint32_t *end; /* per stage: one past its last position */
} contig;

static int64_t op_bytes(const dp_op *op)
{
	return op->param_bytes + op->output_bytes + op->temp_bytes;
}

/* Whether v is placed by the split (false for a pinned op and for a group
 * member other than the group's leader). */
static bool is_free(const contig *c, uint32_t v)
{
	if (c->cons.forced[v] >= 0)
		return false;
	int32_t grp = c->g->ops[v].colocate;
	return grp < 0 || c->leader[grp] == v;
}

/* Leaders, group loads, fixed loads, time prefix sums, next free. */
static void build_loads(contig *c)
{
	const dp_graph *g = c->g;
	uint32_t n = g->nops;
	for (uint32_t grp = 0; grp < g->ngroups; grp++) {
		uint32_t lo = g->group_off[grp], hi = g->group_off[grp + 1];
		uint32_t lead = lo < hi ? g->group_ops[lo] : 0;
		for (uint32_t i = lo; i < hi; i++)
			if (g->topo_pos[g->group_ops[i]] < g->topo_pos[lead])
				lead = g->group_ops[i];
		c->leader[grp] = lead;
		c->grp_time[grp] = 0;
		c->grp_mem[grp] = 0;
		for (uint32_t i = lo; i < hi; i++) {
			const dp_op *op = &g->ops[g->group_ops[i]];
			if (g->group_ops[i] == lead)
				continue;
			c->grp_time[grp] += op->time_us;
			c->grp_mem[grp] += op_bytes(op);
		}
	}
	for (int d = 0; d < c->m->k; d++) {
		c->base_time[d] = 0;
		c->base_mem[d] = 0;
	}
	for (uint32_t v = 0; v < n; v++) {
		int32_t d = c->cons.forced[v];
		if (d >= 0) {
			c->base_time[d] += g->ops[v].time_us;
			c->base_mem[d] += op_bytes(&g->ops[v]);
		}
	}
	c->ptime[0] = 0;
	for (uint32_t t = 0; t < n; t++) {
		uint32_t v = g->topo[t];
		double w = 0;
		if (is_free(c, v)) {
			w = g->ops[v].time_us;
			if (g->ops[v].colocate >= 0)
				w += c->grp_time[g->ops[v].colocate];
		}
		c->ptime[t + 1] = c->ptime[t] + w;
	}
	c->next_free[n] = n;
	for (uint32_t t = n; t-- > 0;) {
		c->free_pos[t] = is_free(c, g->topo[t]);
		c->next_free[t] = c->free_pos[t] ? t : c->next_free[t + 1];
	}
}

/* Whether the free ops of positions [a, b) fit into cap with the fixed load
 * base (see the header comment for the estimate). */
static bool segment_fits(contig *c, uint32_t a, uint32_t b, int64_t base,
			 double cap)
{
	const dp_graph *g = c->g;
	if (isinf(cap))
		return true;
	if (++c->token == 0) {
		memset(c->seen, 0, (size_t)g->nops * sizeof *c->seen);
		c->token = 1;
	}
	/* params, group loads and copies; the last consumer inside the
	 * segment of each output (t grows, so the last write wins) */
	double fixed = (double)base;
	for (uint32_t t = a; t < b; t++) {
		uint32_t v = g->topo[t];
		c->last_in[t] = t;
		if (!c->free_pos[t])
			continue;
		fixed += (double)g->ops[v].param_bytes;
		if (g->ops[v].colocate >= 0)
			fixed += (double)c->grp_mem[g->ops[v].colocate];
		for (uint32_t i = g->pred_off[v]; i < g->pred_off[v + 1]; i++) {
			const dp_edge *e = &g->edges[g->pred_edge[i]];
			if (e->control)
				continue;
			uint32_t pu = g->topo_pos[e->from];
			if (pu >= a && c->free_pos[pu]) {
				c->last_in[pu] = t;
			} else if (c->seen[e->from] != c->token) {
				c->seen[e->from] = c->token;
				fixed += (double)e->bytes;
			}
		}
		if (fixed > cap)
			return false;
	}
	memset(c->diff, 0, ((size_t)(b - a) + 1) * sizeof *c->diff);
	for (uint32_t t = a; t < b; t++)
		if (c->free_pos[t]) {
			int64_t out = g->ops[g->topo[t]].output_bytes;
			c->diff[t - a] += out;
			c->diff[c->last_in[t] - a + 1] -= out;
		}
	int64_t live = 0, peak = 0;
	for (uint32_t t = a; t < b; t++) {
		live += c->diff[t - a];
		if (!c->free_pos[t])
			continue;
		int64_t now = live + g->ops[g->topo[t]].temp_bytes;
		if (now > peak)
			peak = now;
	}
	return fixed + (double)peak <= cap;
}

/* What is known about the stage on device i starting at a (for the cap
 * scale in force): [a, ok) fits its cap, [a, bad) does not (bad = NONE:
 * not known yet). */
static memo_slot *memo_get(contig *c, uint32_t a, int i)
{
	uint64_t key = (uint64_t)a * (uint64_t)c->m->k + (uint64_t)i + 1;
	if (2 * (c->memo_len + 1) > c->memo_cap) {
		uint32_t nc = c->memo_cap ? c->memo_cap * 2 : 1024;
		memo_slot *q = calloc(nc, sizeof *q);
		if (!q)
			return NULL;
		for (uint32_t s = 0; s < c->memo_cap; s++) {
			if (!c->memo[s].key)
				continue;
			uint32_t h = (uint32_t)(c->memo[s].key *
							0x9E3779B97F4A7C15ull >>
						32) &
				     (nc - 1);
			while (q[h].key)
				h = (h + 1) & (nc - 1);
			q[h] = c->memo[s];
		}
		free(c->memo);
		c->memo = q;
		c->memo_cap = nc;
	}
	uint32_t h = (uint32_t)(key * 0x9E3779B97F4A7C15ull >> 32) &
		     (c->memo_cap - 1);
	while (c->memo[h].key && c->memo[h].key != key)
		h = (h + 1) & (c->memo_cap - 1);
	if (!c->memo[h].key) {
		c->memo[h] = (memo_slot){key, a, NONE};
		c->memo_len++;
	}
	return &c->memo[h];
}

/* One past the last position of the stage on device i that starts at a,
 * when time allows it to reach te: te itself when [a, te) fits its
 * (scaled) cap, else the furthest end that fits, by bisection. What each
 * check learns is remembered, so the rounds of bisection on T, which move
 * te a little each time, mostly cost one check per stage. Returns NONE
 * when out of memory. */
static uint32_t stage_end(contig *c, uint32_t a, int i, uint32_t te)
{
	const dp_machine *m = c->m;
	if (m->cap[i] == DP_CAP_UNLIMITED || isinf(c->r))
		return te;
	double cap = (double)m->cap[i] * c->r;
	memo_slot *s = memo_get(c, a, i);
	if (!s)
		return NONE;
	if (te <= s->ok)
		return te;
	if (s->bad == NONE || te < s->bad) {
		if (segment_fits(c, a, te, c->base_mem[i], cap)) {
			s->ok = te;
			return te;
		}
		s->bad = te;
	}
	if (s->ok == a && s->bad > a + 1 &&
	    !segment_fits(c, a, a, c->base_mem[i], cap)) {
		s->bad = a + 1; /* the fixed load alone overflows */
		return a;
	}
	while (s->bad - s->ok > 1) {
		uint32_t mid = s->ok + (s->bad - s->ok) / 2;
		if (segment_fits(c, a, mid, c->base_mem[i], cap))
			s->ok = mid;
		else
			s->bad = mid;
	}
	return s->ok;
}

static void set_scale(contig *c, double r)
{
	c->r = r;
	if (c->memo)
		memset(c->memo, 0, c->memo_cap * sizeof *c->memo);
	c->memo_len = 0;
}

/* Greedy split under time bound t (may be INFINITY) at the current cap
 * scale: fills c->end. Returns 1 when every free op found a stage, 0 when
 * not, -1 when out of memory. */
static int split(contig *c, double t)
{
	const dp_machine *m = c->m;
	uint32_t n = c->g->nops, pos = 0;
	for (int i = 0; i < m->k; i++) {
		/* furthest end whose time fits: ptime is non-decreasing */
		double room = t * m->speed[i] - c->base_time[i];
		uint32_t te;
		if (room < 0) {
			te = pos;
		} else if (isinf(room)) {
			te = n;
		} else {
			uint32_t lo = pos, hi = n; /* largest b: fits */
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo + 1) / 2;
				if (c->ptime[mid] - c->ptime[pos] <= room)
					lo = mid;
				else
					hi = mid - 1;
			}
			te = lo;
		}
		pos = stage_end(c, pos, i, te);
		if (pos == NONE)
			return -1;
		c->end[i] = pos;
	}
	return c->next_free[pos] == n;
}

/* Smallest x in [lo, hi] (hi known to pass) for which the split passes, x
 * being the time bound (on_time) or the cap scale. */
static int bisect(contig *c, bool on_time, double lo, double hi,
		  const dp_progress *p, double *out)
{
	/* the time bound to 1e-9; the cap scale only spreads an overflow, so
	 * 1% is plenty (and each of its rounds costs fresh checks) */
	double tol = on_time ? 1e-9 : 1e-2;
	for (int it = 0; it < 64 && hi - lo > tol * hi; it++) {
		if (dp_progress_canceled(p))
			return -2;
		double mid = lo + (hi - lo) / 2;
		int ok;
		if (on_time) {
			ok = split(c, mid);
		} else {
			set_scale(c, mid);
			ok = split(c, INFINITY);
		}
		if (ok < 0)
			return -1;
		if (ok)
			hi = mid;
		else
			lo = mid;
	}
	*out = hi;
	return 0;
}

static void contig_free(contig *c)
{
	dpi_ls_cons_free(&c->cons);
	DPI_FREE_ALL(c->leader, c->grp_time, c->grp_mem, c->base_time,
		     c->base_mem, c->ptime, c->next_free, c->free_pos,
		     c->last_in, c->diff, c->seen, c->memo, c->end);
}

static dp_status contig_alloc(contig *c, dp_err *err)
{
	const dp_graph *g = c->g;
	size_t n = (size_t)g->nops, ng = (size_t)g->ngroups + 1;
	size_t k = (size_t)c->m->k;
	dp_status st = dpi_ls_cons_init(&c->cons, g, err);
	if (st)
		return st;
	const dpi_arr arrs[] = {
		DPI_ARR(c->leader, ng),	      DPI_ARR(c->grp_time, ng),
		DPI_ARR(c->grp_mem, ng),      DPI_ARR(c->base_time, k),
		DPI_ARR(c->base_mem, k),      DPI_ARR(c->ptime, n + 1),
		DPI_ARR(c->next_free, n + 1), DPI_ARR(c->free_pos, n + 1),
		DPI_ARR(c->last_in, n + 1),   DPI_ARR(c->diff, n + 2),
		DPI_ARR0(c->seen, n + 1),     DPI_ARR(c->end, k),
	};
	if (dpi_arrays_alloc(arrs, DPI_NARR(arrs)))
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory for contig on %u ops",
				  g->nops);
	return DP_OK;
}

/* The cap scale: 1 when the caps can be met, else the smallest r that
 * makes a split possible (infinite when no finite scale does, e.g. when
 * every cap is 0). Returns 0, -1 (out of memory) or -2 (canceled). */
static int find_scale(contig *c, const dp_progress *p)
{
	const dp_graph *g = c->g;
	const dp_machine *m = c->m;
	set_scale(c, 1.0);
	int ok = split(c, INFINITY);
	if (ok)
		return ok < 0 ? -1 : 0;
	/* every byte the estimate could count, to bound the scale */
	double total = 0.0, max_cap = 0.0;
	for (uint32_t v = 0; v < g->nops; v++)
		total += (double)op_bytes(&g->ops[v]);
	for (uint32_t e = 0; e < g->nedges; e++)
		total += (double)g->edges[e].bytes;
	for (int d = 0; d < m->k; d++)
		if (m->cap[d] != DP_CAP_UNLIMITED &&
		    (double)m->cap[d] > max_cap)
			max_cap = (double)m->cap[d];
	double hi = max_cap > 0 ? total / max_cap + 2.0 : INFINITY;
	for (int i = 0; i < 64 && !isinf(hi); i++) {
		set_scale(c, hi);
		if ((ok = split(c, INFINITY)) != 0)
			break;
		hi *= 2;
	}
	if (ok < 0)
		return -1;
	if (isinf(hi) || !ok) {
		set_scale(c, INFINITY);
		return 0;
	}
	double r;
	int rc = bisect(c, false, 1.0, hi, p, &r);
	if (rc)
		return rc;
	set_scale(c, r);
	return 0;
}

static dp_status contig_run(const dp_graph *g, const dp_machine *m,
			    const dp_algo_opts *o, const dp_progress *p,
			    int32_t *placement, dp_err *err)
{
	(void)o;
	uint32_t n = g->nops;
	contig c = {.g = g, .m = m};
	dp_status st = contig_alloc(&c, err);
	if (st) {
		contig_free(&c);
		return st;
	}
	build_loads(&c);
	dp_progress_report(p, "contig", 0.0);
	double min_speed = m->speed[0];
	for (int d = 1; d < m->k; d++)
		if (m->speed[d] < min_speed)
			min_speed = m->speed[d];
	int rc = find_scale(&c, p);
	dp_progress_report(p, "contig", 0.5);
	/* at this bound time never binds: the split passes as with none */
	double hi_t = c.ptime[n] / min_speed;
	hi_t = hi_t > 0 ? hi_t * (1 + 1e-9) + 1e-9 : 1e-9;
	double t = hi_t;
	if (!rc)
		rc = bisect(&c, true, 0.0, hi_t, p, &t);
	if (!rc && split(&c, t) < 0)
		rc = -1;
	if (rc) {
		contig_free(&c);
		return rc == -2 ? dpi_canceled(err, "contig")
				: dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
					     "out of memory for contig on %u "
					     "ops",
					     n);
	}
	/* free ops by stage (what no stage took goes to the last), then the
	 * group members with their leader and the pinned ops */
	int stage = 0;
	for (uint32_t i = 0; i < n; i++) {
		while (stage < m->k - 1 && i >= c.end[stage])
			stage++;
		placement[g->topo[i]] = stage;
	}
	for (uint32_t v = 0; v < n; v++) {
		int32_t grp = g->ops[v].colocate;
		if (c.cons.forced[v] >= 0)
			placement[v] = c.cons.forced[v];
		else if (grp >= 0)
			placement[v] = placement[c.leader[grp]];
	}
	contig_free(&c);
	dp_progress_report(p, "contig", 1.0);
	return DP_OK;
}

DPI_ALGO_DEFINE(contig,
		"contiguous split of a topological order into K stages "
		"(pipeline-style), min largest stage under the caps",
		"GPipe / PipeDream-style stage partition", contig_run);
