/* algo_msrdp.c - msr-dp: max-load minimisation by dynamic programming over
 * ideals (Tarnawski, Phanishayee, Devanur, Mahajan, Ranjan, "Efficient
 * Algorithms for Device Placement of DNN Graph Operators", NeurIPS 2020,
 * section 4, "contiguous splits"; their code is msr-fiddle/dnn-partitioning,
 * throughput-dp).
 *
 * The objective is the throughput one of dnnpart/throughput.h: the largest
 * device load (compute, plus each cut output sent once and received once
 * per device). Each device gets a contiguous set of units
 * (internal/msrdp.h): the difference of two nested ideals I \ J of the unit
 * DAG, with its backward ops in a training graph. Devices take the pieces
 * in order, device 0 the first:
 *
 *   DP[k][I] = min over ideals J subset of I of
 *              max(DP[k-1][J], load of I \ J on device k-1),
 *
 * J = I leaving device k-1 empty; a piece must fit its device's cap (the
 * sum of its ops' param, output and temp bytes: the paper's memory
 * constraint) and hold exactly the units pinned to its device. The answer
 * is DP[K][all units].
 *
 * Speed: the ideals are sorted by time, so for I the candidates J are
 * scanned from the largest down and the scan stops once the compute time
 * of I \ J alone reaches the best value found (loads only grow with it);
 * a J whose DP[k-1] is not below that value is skipped before any subset
 * test or communication sum; the communication of a piece is summed over
 * the frontier units of I and J only. First the prefixes of the unit order
 * (at most MSR_CHAIN_BLOCKS + 1 of them, consecutive units merged into
 * blocks of equal time when there are more) give an upper bound UB and a
 * plan; then, when the DAG has at most MSR_MAX_IDEALS ideals, the DP over
 * all of them, which keeps only states below UB (those with more work
 * before or after them than the devices can do under UB are skipped).
 * Wider graphs keep the chain's plan (docs/algorithms.md says so), and so
 * does a DP that would take more than MSR_DP_WORK steps (a wide DAG of a
 * few dozen ops has tens of thousands of ideals: a 40-op random DAG at
 * K = 4 took 30 s before this bound).
 *
 * When no split fits the caps (or the pins, or a unit holds ops pinned to
 * two devices), the DP is run without them, and the result is reported
 * infeasible by the simulator (pins are then forced afterwards).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/msrdp.h"

#define MSR_CHAIN_BLOCKS 1024u
#define MSR_MAX_IDEALS 200000u
#define MSR_DP_CELLS 40000000.0 /* (K + 1) x ideals of the DP tables */
/* The most steps (candidate J tried, frontier unit, op or edge looked at
 * while summing a piece's communication) the DP over every ideal may take:
 * about 2-4 s on the project's 2-core machine. Counted, not timed, so the
 * result does not depend on the machine's load. */
#define MSR_DP_WORK 400000000u
#define NONE UINT32_MAX

typedef struct msr_dp {
	const dp_graph *g;
	const dp_machine *m;
	const msr_units *u;
	bool caps, pins;
	uint32_t *stamp, token; /* per unit, for piece_comm */
	uint64_t work, budget; /* candidate J tried, and the most allowed */
	double *val;		/* (K + 1) x ni */
	uint32_t *back;		/* (K + 1) x ni: the J of the best value */
} msr_dp;

static bool in_piece(const msr_ideals *id, uint32_t i, uint32_t j, uint32_t a)
{
	return dpi_msr_has(id, i, a) && !dpi_msr_has(id, j, a);
}

/* Communication of the piece I \ J (throughput.h): every op with a data
 * edge across it pays its transfer once. Only frontier units can hold one. */
static double piece_comm(msr_dp *d, const msr_ideals *id, uint32_t i,
			 uint32_t j)
{
	const msr_units *u = d->u;
	const dp_graph *g = d->g;
	if (id->comm)
		return id->comm[(size_t)j * id->ni + i];
	if (++d->token == 0) {
		memset(d->stamp, 0, (size_t)u->nu * sizeof *d->stamp);
		d->token = 1;
	}
	double c = 0.0;
	uint32_t lists[2] = {i, j};
	for (int l = 0; l < 2; l++) {
		uint32_t x = lists[l];
		for (uint32_t f = id->fr_off[x]; f < id->fr_off[x + 1]; f++) {
			uint32_t a = id->fr[f];
			d->work++;
			if (d->stamp[a] == d->token)
				continue;
			d->stamp[a] = d->token;
			bool in = in_piece(id, i, j, a);
			for (uint32_t o = u->uop_off[a]; o < u->uop_off[a + 1];
			     o++) {
				uint32_t v = u->uop[o];
				d->work++;
				for (uint32_t s = g->succ_off[v];
				     s < g->succ_off[v + 1]; s++) {
					d->work++;
					const dp_edge *e =
						&g->edges[g->succ_edge[s]];
					if (e->control)
						continue;
					if (in_piece(id, i, j,
						     u->unit[e->to]) != in) {
						c += u->xfer[v];
						break;
					}
				}
			}
		}
	}
	return c;
}

static bool subset(const msr_ideals *id, uint32_t j, uint32_t i)
{
	if (id->pos)
		return id->pos[j] <= id->pos[i];
	const uint64_t *bj = id->bits + (uint64_t)j * id->w;
	const uint64_t *bi = id->bits + (uint64_t)i * id->w;
	for (uint32_t w = 0; w < id->w; w++)
		if (bj[w] & ~bi[w])
			return false;
	return true;
}

/* The piece I \ J holds exactly the units pinned to dev. */
static bool pins_ok(const msr_dp *d, const msr_ideals *id, uint32_t i,
		    uint32_t j, int dev)
{
	const msr_units *u = d->u;
	for (uint32_t q = 0; q < u->npinned; q++) {
		uint32_t a = u->pinned[q];
		if (in_piece(id, i, j, a) != (u->upin[a] == dev))
			return false;
	}
	return true;
}

static bool pinned_to(const msr_dp *d, int dev)
{
	for (uint32_t q = 0; q < d->u->npinned; q++)
		if (d->u->upin[d->u->pinned[q]] == dev)
			return true;
	return false;
}

/* One state: DP[k][i] below bound (else INFINITY). */
static void dp_state(msr_dp *d, const msr_ideals *id, int k, uint32_t i,
		     double bound)
{
	const dp_machine *m = d->m;
	uint32_t ni = id->ni;
	int dev = k - 1;
	double sp = m->speed[dev];
	double cap = d->caps && m->cap[dev] != DP_CAP_UNLIMITED
			     ? (double)m->cap[dev]
			     : INFINITY;
	const double *prev = d->val + (size_t)(k - 1) * ni;
	double best = bound;
	uint32_t bj = NONE;
	bool here = d->pins && pinned_to(d, dev);
	if (!here && prev[i] < best) {
		best = prev[i];
		bj = i;
	}
	for (uint32_t j = i; j-- > 0;) {
		if (++d->work > d->budget)
			break; /* dp_run sees it and gives the DP up */
		if (k == 1 && j > 0)
			j = 0; /* only the empty ideal has a DP[0] */
		double td = (id->time[i] - id->time[j]) / sp;
		if (td >= best)
			break;
		double vj = prev[j];
		if (vj >= best || id->mem[i] - id->mem[j] > cap ||
		    !subset(id, j, i) ||
		    (d->pins && !pins_ok(d, id, i, j, dev)))
			continue;
		double load = td + piece_comm(d, id, i, j);
		double c = load > vj ? load : vj;
		if (c < best) {
			best = c;
			bj = j;
		}
	}
	d->val[(size_t)k * ni + i] = bj == NONE ? INFINITY : best;
	d->back[(size_t)k * ni + i] = bj;
}

/* Fills DP[K][full] below ub (INFINITY when nothing is); 0, -2 when
 * canceled, -3 when it would try more than d->budget candidates. */
static int dp_run(msr_dp *d, const msr_ideals *id, double ub,
		  const dp_progress *p, double from, double to)
{
	const dp_machine *m = d->m;
	int K = m->k;
	uint32_t ni = id->ni;
	for (uint32_t i = 0; i < ni; i++)
		d->val[i] = i ? INFINITY : 0.0;
	double total = id->time[ni - 1], before = 0.0, after = 0.0;
	for (int dev = 0; dev < K; dev++)
		after += m->speed[dev];
	for (int k = 1; k <= K; k++) {
		before += m->speed[k - 1];
		after -= m->speed[k - 1];
		for (uint32_t i = 0; i < ni; i++) {
			if ((i & 255) == 0 && dp_progress_canceled(p))
				return -2;
			size_t c = (size_t)k * ni + i;
			d->val[c] = INFINITY;
			d->back[c] = NONE;
			if (k == K && i != ni - 1)
				continue;
			/* more work before I, or after it, than the devices
			 * can do under ub */
			if (id->time[i] > ub * before * (1 + 1e-9) ||
			    total - id->time[i] > ub * after * (1 + 1e-9))
				continue;
			dp_state(d, id, k, i, ub);
			if (d->work > d->budget)
				return -3;
		}
		dp_progress_report(p, "msr-dp",
				   from + (to - from) * k / (double)K);
	}
	return 0;
}

/* Units of each device from the DP's backlinks: dev_of_unit. */
static void backtrack(const msr_dp *d, const msr_ideals *id,
		      int32_t *dev_of_unit)
{
	uint32_t ni = id->ni, i = ni - 1;
	for (int k = d->m->k; k >= 1; k--) {
		uint32_t j = d->back[(size_t)k * ni + i];
		if (j == NONE)
			break;
		for (uint32_t a = 0; a < d->u->nu; a++)
			if (in_piece(id, i, j, a))
				dev_of_unit[a] = k - 1;
		i = j;
	}
}

/* The DP over id below ub: *got is the value (INFINITY: none below ub);
 * dev_of_unit is set when one is. */
static dp_status solve(msr_dp *d, const msr_ideals *id, double ub,
		       const dp_progress *p, double from, double to,
		       double *got, int32_t *dev_of_unit, dp_err *err)
{
	size_t cells = ((size_t)d->m->k + 1) * id->ni;
	d->val = malloc(cells * sizeof *d->val);
	d->back = malloc(cells * sizeof *d->back);
	if (!d->val || !d->back) {
		free(d->val);
		free(d->back);
		d->val = NULL;
		d->back = NULL;
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory for msr-dp's table");
	}
	d->work = 0;
	int r = dp_run(d, id, ub, p, from, to);
	double v = r ? INFINITY : d->val[(size_t)d->m->k * id->ni + id->ni - 1];
	if (r == -2) {
		free(d->val);
		free(d->back);
		d->val = NULL;
		d->back = NULL;
		return dpi_canceled(err, "msr-dp");
	}
	if (!isinf(v))
		backtrack(d, id, dev_of_unit);
	*got = v;
	free(d->val);
	free(d->back);
	d->val = NULL;
	d->back = NULL;
	return DP_OK;
}

static dp_status msrdp_run(const dp_graph *g, const dp_machine *m,
			   const dp_algo_opts *o, const dp_progress *p,
			   int32_t *placement, dp_err *err)
{
	(void)o;
	if (g->nops == 0)
		return DP_OK;
	msr_units u;
	dp_status st = dpi_msr_units_build(g, m, &u, err);
	if (st)
		return st;
	msr_dp d = {.g = g,
		    .m = m,
		    .u = &u,
		    .caps = true,
		    .pins = !u.pin_conflict,
		    .budget = MSR_DP_WORK};
	int32_t *dev_of_unit = calloc((size_t)u.nu + 1, sizeof *dev_of_unit);
	d.stamp = calloc((size_t)u.nu + 1, sizeof *d.stamp);
	msr_ideals chain, all;
	memset(&chain, 0, sizeof chain);
	memset(&all, 0, sizeof all);
	if (!dev_of_unit || !d.stamp) {
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"out of memory for msr-dp");
		goto done;
	}
	double cells = MSR_DP_CELLS / ((double)m->k + 1);
	uint32_t max =
		cells < MSR_MAX_IDEALS ? (uint32_t)cells : MSR_MAX_IDEALS;
	bool complete = false;
	if ((st = dpi_poll(p, "msr-dp", "chain", 0.0, err)) ||
	    (st = dpi_msr_ideals_chain(g, &u, MSR_CHAIN_BLOCKS, &chain, err)) ||
	    (st = dpi_msr_ideals_all(&u, max, p, &all, &complete, err)))
		goto done;
	/* the chain's plan bounds the DP over every ideal; when nothing fits
	 * the pins, then the caps, both are run again without them */
	for (;;) {
		double ub = INFINITY, v = INFINITY;
		/* the prefix plan is always made (at most 1,025 ideals); only
		 * the DP over every ideal has a work bound */
		d.budget = UINT64_MAX;
		if ((st = solve(&d, &chain, INFINITY, p, 0.3, 0.5, &ub,
				dev_of_unit, err)))
			goto done;
		d.budget = MSR_DP_WORK;
		if (complete && (st = solve(&d, &all, ub, p, 0.5, 1.0, &v,
					    dev_of_unit, err)))
			goto done;
		if (!isinf(ub) || !isinf(v) || (!d.pins && !d.caps))
			break;
		if (d.pins)
			d.pins = false;
		else
			d.caps = false;
	}
	for (uint32_t v = 0; v < g->nops; v++)
		placement[v] = dev_of_unit[u.unit[v]];
	if (!d.pins)
		dp_algo_apply_constraints(g, placement);
	dp_progress_report(p, "msr-dp", 1.0);
done:
	dpi_msr_ideals_free(&chain);
	dpi_msr_ideals_free(&all);
	dpi_msr_units_free(&u);
	free(dev_of_unit);
	free(d.stamp);
	return st;
}

/* DPI_ALGO_ENTRY, not DPI_ALGO_DEFINE: the name has a '-', after the
 * paper's authors' group (msr-fiddle), which a C identifier cannot. */
DPI_ALGO_ENTRY(msr_dp, "msr-dp",
	       "max-load (throughput) DP over ideals: contiguous pieces of "
	       "the DAG, one per device, under the caps",
	       "Tarnawski et al., NeurIPS 2020 (msr-fiddle)", .run = msrdp_run);
