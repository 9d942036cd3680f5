/* algo_contig.c - contiguous split of one topological order into K stages.
 *
 * The partition GPipe (Huang et al., NeurIPS 2019) and PipeDream (Narayanan
 * et al., SOSP 2019) use for pipelines: cut the op sequence g->topo into K
 * consecutive stages, stage i on device i, minimising the largest stage
 * time sum(time_us) / speed(i) subject to each stage's memory fitting its
 * device's cap. Evaluated here as a one-batch schedule by the simulator.
 *
 * Stage memory estimate, for a stage that runs its ops in the order: the
 * params of its ops, plus one copy of every tensor it receives from an
 * earlier stage (these arrive early in a one-batch schedule and are counted
 * for the whole stage), plus the largest amount of its own outputs live at
 * once (each from its producer until its last consumer in the order, or the
 * end of the stage when that consumer lies in a later stage) with the temp
 * of the op running then. Tensors the earlier stages keep for later stages
 * stay on those stages' devices and are not counted here. The simulator's
 * schedule may differ, and its peak is the real number. (Summing every
 * output of a stage would count tensors that are long gone, and a
 * single-device liveness curve would count tensors that live on other
 * devices: both reject splits that fit.)
 *
 * Method: binary search on the answer. For a bound T, filling each stage
 * greedily with as many ops as fit under T and the cap decides whether K
 * stages suffice; greedy is optimal because a stage's time and memory can
 * only drop when it loses ops (for the copies this holds as long as no
 * edge carries more bytes than its producer's output). Each test is
 * O(n + e), and about 30 rounds of bisection give the answer to a relative
 * 1e-9: O((n + e) log(1/eps)) in all.
 * When the caps cannot be met at any T, the caps are scaled up by the
 * smallest factor r that makes a split possible, so that the overflow is
 * spread in proportion to the caps, and T is minimised under those.
 *
 * Pins and colocation are applied after the split: a colocation group joins
 * the stage of its earliest member in the topological order, and a pinned
 * op (with its whole group) goes to its pin, so stages may then be no
 * longer strictly contiguous.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"

typedef struct contig {
	const dp_graph *g;
	const dp_machine *m;
	uint32_t *die_off;   /* n+2: producers whose last consumer is at
				position q-1 are die[die_off[q] ..) */
	uint32_t *die;       /* positions of those producers */
	uint32_t *seen;      /* per op: token of the stage that counted a copy
				of its output */
	uint32_t token;
	int32_t *stage;      /* per position in topo */
} contig;

/* Buckets every producer by the position right after its last data
 * consumer in the order (itself when it has none). */
static void build_die(contig *c)
{
	const dp_graph *g = c->g;
	uint32_t n = g->nops;
	memset(c->die_off, 0, ((size_t)n + 2) * sizeof *c->die_off);
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t t = 0; t < n; t++) {
			uint32_t u = g->topo[t], last = t;
			for (uint32_t i = g->succ_off[u]; i < g->succ_off[u + 1];
			     i++) {
				const dp_edge *e = &g->edges[g->succ_edge[i]];
				if (!e->control && g->topo_pos[e->to] > last)
					last = g->topo_pos[e->to];
			}
			if (pass == 0)
				c->die_off[last + 2]++;
			else
				c->die[c->die_off[last + 1]++] = t;
		}
		if (pass == 0)
			for (uint32_t q = 1; q <= n + 1; q++)
				c->die_off[q] += c->die_off[q - 1];
	}
	/* pass 1 advanced each start to the next one's: shift back */
	for (uint32_t q = n + 1; q > 0; q--)
		c->die_off[q] = c->die_off[q - 1];
	c->die_off[0] = 0;
}

/* Bytes of the copies the stage starting at first needs for the op at pos
 * that it does not hold yet; marks them as held. */
static int64_t copies_in(contig *c, uint32_t first, uint32_t pos)
{
	const dp_graph *g = c->g;
	uint32_t v = g->topo[pos];
	int64_t bytes = 0;
	for (uint32_t i = g->pred_off[v]; i < g->pred_off[v + 1]; i++) {
		const dp_edge *e = &g->edges[g->pred_edge[i]];
		if (e->control || g->topo_pos[e->from] >= first ||
		    c->seen[e->from] == c->token)
			continue;
		c->seen[e->from] = c->token;
		bytes += e->bytes;
	}
	return bytes;
}

/* Greedy split under time bound t and caps scaled by r (t, r may be
 * INFINITY). Returns true when all ops fit into the K stages; with record
 * set, stores the stage of every position (the rest go to the last). */
static bool split(contig *c, double t, double r, bool record)
{
	const dp_graph *g = c->g;
	const dp_machine *m = c->m;
	uint32_t pos = 0, n = g->nops;
	for (int i = 0; i < m->k; i++) {
		double w = 0.0, cap = (double)m->cap[i] * r;
		int64_t fixed = 0, live = 0, peak = 0;
		uint32_t first = pos;
		if (m->cap[i] == DP_CAP_UNLIMITED || isinf(r))
			cap = INFINITY;
		double limit = t * m->speed[i];
		if (++c->token == 0) {
			memset(c->seen, 0, (size_t)n * sizeof *c->seen);
			c->token = 1;
		}
		while (pos < n) {
			const dp_op *op = &g->ops[g->topo[pos]];
			/* outputs of this stage whose last consumer ran */
			for (uint32_t j = c->die_off[pos]; j < c->die_off[pos + 1];
			     j++)
				if (c->die[j] >= first)
					live -= g->ops[g->topo[c->die[j]]]
							.output_bytes;
			double w2 = w + op->time_us;
			/* a rejected op ends the stage, so marking its
			 * producers as held does no harm */
			int64_t f2 = fixed + op->param_bytes +
				     copies_in(c, first, pos);
			int64_t now = live + op->output_bytes + op->temp_bytes;
			int64_t p2 = now > peak ? now : peak;
			if (w2 > limit || (double)f2 + (double)p2 > cap)
				break;
			w = w2;
			fixed = f2;
			peak = p2;
			live += op->output_bytes;
			if (record)
				c->stage[pos] = i;
			pos++;
		}
	}
	if (record)
		for (uint32_t q = pos; q < n; q++)
			c->stage[q] = m->k - 1;
	return pos == n;
}

/* Smallest x in [lo, hi] (hi known to satisfy ok) by bisection. */
static double bisect(contig *c, bool on_time, double lo, double hi,
		     double other, const dp_progress *p, bool *canceled)
{
	for (int it = 0; it < 64 && hi - lo > 1e-9 * hi; it++) {
		if (progress_canceled(p)) {
			*canceled = true;
			return hi;
		}
		double mid = lo + (hi - lo) / 2;
		bool ok = on_time ? split(c, mid, other, false)
				  : split(c, other, mid, false);
		if (ok)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

static void contig_free(contig *c)
{
	free(c->die_off);
	free(c->die);
	free(c->seen);
	free(c->stage);
}

/* Pins and groups after the split (see the header comment). */
static void apply_constraints(const dp_graph *g, int32_t *placement)
{
	for (uint32_t grp = 0; grp < g->ngroups; grp++) {
		uint32_t lo = g->group_off[grp], hi = g->group_off[grp + 1];
		if (lo == hi)
			continue;
		uint32_t first = g->group_ops[lo];
		int32_t pin = -1;
		for (uint32_t i = lo; i < hi; i++) {
			uint32_t u = g->group_ops[i];
			if (g->topo_pos[u] < g->topo_pos[first])
				first = u;
			if (pin < 0)
				pin = g->ops[u].pin;
		}
		int32_t dev = pin >= 0 ? pin : placement[first];
		for (uint32_t i = lo; i < hi; i++)
			placement[g->group_ops[i]] = dev;
	}
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].pin >= 0)
			placement[u] = g->ops[u].pin;
}

static dp_status contig_run(const dp_graph *g, const dp_machine *m,
			    const dp_algo_opts *o, const dp_progress *p,
			    int32_t *placement, dp_err *err)
{
	(void)o;
	dp_status st = algo_check_pins(g, m, err);
	if (st)
		return st;
	uint32_t n = g->nops;
	contig c = {.g = g, .m = m};
	c.die_off = malloc(((size_t)n + 2) * sizeof *c.die_off);
	c.die = malloc(((size_t)n + 1) * sizeof *c.die);
	c.seen = calloc((size_t)n + 1, sizeof *c.seen);
	c.stage = malloc(((size_t)n + 1) * sizeof *c.stage);
	if (!c.die_off || !c.die || !c.seen || !c.stage) {
		contig_free(&c);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory for contig on %u ops", n);
	}
	build_die(&c);
	/* every byte the estimate could count, to bound the cap scale */
	double total_mem = 0.0, max_cap = 0.0, min_speed = m->speed[0];
	for (uint32_t i = 0; i < n; i++)
		total_mem += (double)g->ops[i].param_bytes +
			     (double)g->ops[i].output_bytes +
			     (double)g->ops[i].temp_bytes;
	for (uint32_t e = 0; e < g->nedges; e++)
		total_mem += (double)g->edges[e].bytes;
	for (int d = 0; d < m->k; d++) {
		if (m->cap[d] != DP_CAP_UNLIMITED && (double)m->cap[d] > max_cap)
			max_cap = (double)m->cap[d];
		if (m->cap[d] == DP_CAP_UNLIMITED)
			max_cap = INFINITY;
		if (m->speed[d] < min_speed)
			min_speed = m->speed[d];
	}
	progress_report(p, "contig", 0.0);

	/* the cap scale: 1 when the caps can be met, else the smallest r that
	 * makes a split possible (infinite when every cap is 0) */
	bool canceled = false;
	double r = 1.0;
	if (!split(&c, INFINITY, 1.0, false)) {
		if (max_cap > 0) {
			/* at this scale the largest cap alone holds every op */
			double hi = total_mem / max_cap + 2.0;
			for (int i = 0; i < 64 && !split(&c, INFINITY, hi, false);
			     i++)
				hi *= 2;
			r = bisect(&c, false, 1.0, hi, INFINITY, p, &canceled);
		} else {
			r = INFINITY;
		}
	}
	progress_report(p, "contig", 0.3);
	double hi_t = g->total_time_us / min_speed;
	hi_t = hi_t > 0 ? hi_t * (1 + 1e-9) + 1e-9 : 1e-9;
	if (!canceled && !split(&c, hi_t, r, false))
		hi_t = INFINITY; /* cannot happen: hi_t holds everything */
	double t = isinf(hi_t) ? hi_t
			       : bisect(&c, true, 0.0, hi_t, r, p, &canceled);
	if (canceled) {
		contig_free(&c);
		return dp_err_set(err, DP_ECANCELED, NULL, 0, 0, "canceled");
	}
	split(&c, t, r, true);
	for (uint32_t i = 0; i < n; i++)
		placement[g->topo[i]] = c.stage[i];
	apply_constraints(g, placement);
	contig_free(&c);
	progress_report(p, "contig", 1.0);
	return DP_OK;
}

const dp_algo algo_contig = {
	.name = "contig",
	.summary = "contiguous split of a topological order into K stages "
		   "(pipeline-style), min largest stage under the caps",
	.source = "GPipe / PipeDream-style stage partition",
	.run = contig_run,
};
