/* sim_setup.c - building a simulator: machine and size checks, packed
 * successor lists, upward ranks and the priority order (docs/simulator.md,
 * "Scheduling"); plus the bounds and the names of the simulator's enums.
 * The event loop is in sim.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/arrays.h"
#include "internal/nomem.h"
#include "internal/sim_int.h"
#include "internal/sort_key.h"

void dp_sim_free(dp_sim *s)
{
	if (!s)
		return;
	DPI_FREE_ALL(s->rank, s->prio, s->by_prio, s->ptime, s->indeg,
		     s->succ_to, s->succ_bytes, s->out_bytes, s->node,
		     s->prev_on_dev, s->xoff, s->xnum, s->outfree, s->ready,
		     s->ev, s->rbase, s->rlen, s->running, s->last,
		     s->send_free, s->recv_free, s->xend, s->xbytes,
		     s->xcost_edge, s->xcost, s->xidx, s->touched,
		     s->dirty_flag, s->dirty, s->level, s->last_t, s->dcount,
		     s->copyfree, s->mev, s->mtmp, s->hist, s);
}

static dp_status check_machine(const dp_machine *m, dp_err *err)
{
	if (m->k < 1 || m->k > DP_MAX_DEVICES)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "the machine has %d devices; expected 1..%d",
				  m->k, DP_MAX_DEVICES);
	if (!m->cap || !m->speed)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "the machine has no cap or speed array");
	for (int d = 0; d < m->k; d++)
		if (!(m->speed[d] > 0) || !isfinite(m->speed[d]))
			return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
					  "device %d has speed %g; expected a "
					  "finite number > 0",
					  d, m->speed[d]);
	if (!(m->bw > 0) || !isfinite(m->bw))
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "link bandwidth is %g bytes/us; expected a "
				  "finite number > 0",
				  m->bw);
	if (!(m->lat >= 0) || !isfinite(m->lat))
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "link latency is %g us; expected a finite "
				  "number >= 0",
				  m->lat);
	return DP_OK;
}

/* The memory sweep packs a device number and a byte count into one word and
 * adds sizes in int64: refuse graphs whose sizes could overflow either. */
static dp_status check_sizes(const dp_sim *s, dp_err *err)
{
	const dp_graph *g = s->g;
	double total = 0;
	for (uint32_t u = 0; u < s->n; u++) {
		const dp_op *op = &g->ops[u];
		int64_t big = s->out_bytes[u];
		const char *what = "output";
		if (op->temp_bytes > big) {
			big = op->temp_bytes;
			what = "temp";
		}
		if (op->param_bytes > big) {
			big = op->param_bytes;
			what = "param";
		}
		if (big >= SIM_MAX_TENSOR)
			return dp_err_set(
				err, DP_EINPUT, g->source, 0, 0,
				"op '%s' has %s of %lld bytes; the "
				"simulator handles tensors below 2^53 "
				"bytes (8 PiB)",
				dp_graph_op_name(g, u), what, (long long)big);
		total += (double)op->param_bytes + (double)op->temp_bytes +
			 (double)s->k * (double)s->out_bytes[u];
	}
	if (total > 4e18)
		return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				  "the graph's tensors add up to %.3g bytes; "
				  "the simulator adds sizes up to 4e18 bytes",
				  total);
	return DP_OK;
}

/* Link "file": each data edge's transfer time is the graph's own
 * (dp_edge_xfer_us), else lat + bytes/bw; CSR order like succ_to. */
static dp_status setup_file_link(dp_sim *s, dp_err *err)
{
	const dp_graph *g = s->g;
	size_t ne = g->nedges ? g->nedges : 1;
	s->xcost_edge = malloc(ne * sizeof *s->xcost_edge);
	s->xcost = malloc((size_t)s->k * sizeof *s->xcost);
	if (!s->xcost_edge || !s->xcost)
		return dpi_nomem(err, "allocating %s for the simulator", "transfer times");
	for (uint32_t j = 0; j < g->nedges; j++) {
		uint32_t e = g->succ_edge[j];
		double x = dp_edge_xfer_us(g, e);
		if (g->edges[e].control)
			x = 0;
		else if (isnan(x))
			x = s->lat + (double)g->edges[e].bytes / s->bw;
		s->xcost_edge[j] = x;
	}
	return DP_OK;
}

/* Upward rank (docs/simulator.md, after HEFT, Topcuoglu et al. 2002):
 * rank(u) = time_us(u) / mean_speed + max over successors v of
 * (cbar(u,v) + rank(v)), cbar = (K-1)/K * (lat + bytes/bw) with uniform
 * links (lat alone for control edges). Then each op gets its position in
 * the priority order, so ready heaps compare plain integers. */
static dp_status compute_priorities(dp_sim *s, dp_err *err)
{
	const dp_graph *g = s->g;
	const dp_machine *m = s->m;
	double sum_speed = 0;
	for (int d = 0; d < s->k; d++)
		sum_speed += m->speed[d];
	double mean_speed = sum_speed / s->k;
	double f = (double)(s->k - 1) / (double)s->k;
	for (uint32_t i = s->n; i-- > 0;) {
		uint32_t u = g->topo[i];
		double best = 0;
		for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
			uint32_t v = s->succ_to[j] & ~SIM_CTRL;
			double c = 0;
			if (s->k > 1)
				c = (s->succ_to[j] & SIM_CTRL) ? f * s->lat
				    : s->xcost_edge
					    ? f * s->xcost_edge[j]
					    : f * (s->lat +
						   (double)s->succ_bytes[j] /
							   s->bw);
			if (c + s->rank[v] > best)
				best = c + s->rank[v];
		}
		s->rank[u] = g->ops[u].time_us / mean_speed + best;
	}
	dpi_sort_key *keys = malloc((size_t)(s->n ? s->n : 1) * sizeof *keys);
	if (!keys)
		return dpi_nomem(err, "allocating %s for the simulator", "priorities");
	for (uint32_t u = 0; u < s->n; u++)
		keys[u] = (dpi_sort_key){s->rank[u], g->topo_pos[u], u};
	/* higher rank first; equal ranks: smaller topological index first */
	qsort(keys, s->n, sizeof *keys, dpi_sort_key_desc);
	for (uint32_t p = 0; p < s->n; p++) {
		s->by_prio[p] = keys[p].op;
		s->prio[keys[p].op] = p;
		s->ptime[p] = g->ops[keys[p].op].time_us;
	}
	free(keys);
	return DP_OK;
}

dp_sim *dp_sim_new(const dp_graph *g, const dp_machine *m, dp_err *err)
{
	if (!g || !g->finalized) {
		dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
			   "the simulator needs a finalized graph");
		return NULL;
	}
	if (!m || check_machine(m, err) != DP_OK) {
		if (!m)
			dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				   "the simulator needs a machine");
		return NULL;
	}
	dp_sim *s = calloc(1, sizeof *s);
	if (!s) {
		dpi_nomem(err, "allocating %s for the simulator", "its state");
		return NULL;
	}
	s->g = g;
	s->m = m;
	s->k = m->k;
	s->n = g->nops;
	s->lat = m->lat;
	s->bw = m->bw;
	size_t n = s->n ? s->n : 1, ne = g->nedges ? g->nedges : 1;
	size_t k = (size_t)s->k;
	s->rank = malloc(n * sizeof *s->rank);
	s->prio = malloc(n * sizeof *s->prio);
	s->by_prio = malloc(n * sizeof *s->by_prio);
	s->ptime = malloc(n * sizeof *s->ptime);
	s->indeg = malloc(n * sizeof *s->indeg);
	s->succ_to = malloc(ne * sizeof *s->succ_to);
	s->succ_bytes = malloc(ne * sizeof *s->succ_bytes);
	s->out_bytes = malloc(n * sizeof *s->out_bytes);
	s->node = malloc(n * sizeof *s->node);
	s->prev_on_dev = malloc(n * sizeof *s->prev_on_dev);
	s->xoff = malloc(n * sizeof *s->xoff);
	s->xnum = malloc(n * sizeof *s->xnum);
	s->outfree = malloc(n * sizeof *s->outfree);
	s->ready = malloc(n * sizeof *s->ready);
	s->ev = malloc((n + k) * sizeof *s->ev);
	s->rbase = malloc(k * sizeof *s->rbase);
	s->rlen = malloc(k * sizeof *s->rlen);
	s->running = malloc(k * sizeof *s->running);
	s->last = malloc(k * sizeof *s->last);
	s->send_free = malloc(k * sizeof *s->send_free);
	s->recv_free = malloc(k * sizeof *s->recv_free);
	s->xend = malloc(k * sizeof *s->xend);
	s->xbytes = malloc(k * sizeof *s->xbytes);
	s->xidx = malloc(k * sizeof *s->xidx);
	s->touched = malloc(k * sizeof *s->touched);
	s->dirty_flag = calloc(k, sizeof *s->dirty_flag);
	s->dirty = malloc(k * sizeof *s->dirty);
	s->level = malloc(k * sizeof *s->level);
	s->last_t = malloc(k * sizeof *s->last_t);
	s->dcount = malloc((k + 1) * sizeof *s->dcount);
	s->hist = malloc(6 * 2048 * sizeof *s->hist);
	if (!s->rank || !s->prio || !s->by_prio || !s->ptime || !s->indeg ||
	    !s->succ_to || !s->succ_bytes || !s->out_bytes || !s->node ||
	    !s->prev_on_dev || !s->xoff || !s->xnum || !s->outfree ||
	    !s->ready || !s->ev || !s->rbase || !s->rlen || !s->running ||
	    !s->last || !s->send_free || !s->recv_free || !s->xend ||
	    !s->xbytes || !s->xidx || !s->touched || !s->dirty_flag ||
	    !s->dirty || !s->level || !s->last_t || !s->dcount || !s->hist) {
		dpi_nomem(err, "allocating %s for the simulator", "per-op buffers");
		dp_sim_free(s);
		return NULL;
	}
	/* compact successor lists: one sequential walk per ending op */
	for (uint32_t u = 0; u < s->n; u++) {
		int64_t ob = g->ops[u].output_bytes;
		for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
			const dp_edge *e = &g->edges[g->succ_edge[j]];
			s->succ_to[j] = e->to | (e->control ? SIM_CTRL : 0);
			s->succ_bytes[j] = e->control ? 0 : e->bytes;
			if (!e->control && e->bytes > ob)
				ob = e->bytes;
		}
		s->out_bytes[u] = ob;
		s->indeg[u] = g->pred_off[u + 1] - g->pred_off[u];
	}
	for (int d = 0; d < s->k; d++)
		s->xbytes[d] = -1;
	if (m->link_file && setup_file_link(s, err) != DP_OK) {
		dp_sim_free(s);
		return NULL;
	}
	if (check_sizes(s, err) != DP_OK ||
	    compute_priorities(s, err) != DP_OK) {
		dp_sim_free(s);
		return NULL;
	}
	return s;
}

const double *dp_sim_ranks(const dp_sim *s)
{
	return s->rank;
}

/* ---- bounds and names ---- */

dp_status dp_sim_bounds_checked(const dp_graph *g, const dp_machine *m,
				dp_bounds *b, dp_err *err)
{
	double sum = 0, max = 0;
	for (int d = 0; d < m->k; d++) {
		sum += m->speed[d];
		if (m->speed[d] > max)
			max = m->speed[d];
	}
	memset(b, 0, sizeof *b);
	uint32_t len = 0;
	double cp = dp_graph_critical_path(g, max, NULL, &len);
	dp_status st = DP_OK;
	if (cp < 0) {
		cp = 0;
		st = dpi_nomem(err, "allocating %s for the simulator", "the graph critical path");
	}
	b->graph_cp_us = cp;
	b->work_bound_us = sum > 0 ? g->total_time_us / sum : 0;
	b->lb_us = b->graph_cp_us > b->work_bound_us ? b->graph_cp_us
						     : b->work_bound_us;
	b->one_device_us = m->k > 0 ? g->total_time_us / m->speed[0] : 0;
	return st;
}

void dp_sim_bounds(const dp_graph *g, const dp_machine *m, dp_bounds *b)
{
	dp_sim_bounds_checked(g, m, b, NULL);
}

const char *dp_sim_contention_name(dp_contention c)
{
	return c == DP_CONT_NONE ? "none" : "port";
}

dp_status dp_sim_contention_parse(const char *s, dp_contention *c, dp_err *err)
{
	if (s && strcmp(s, "port") == 0) {
		*c = DP_CONT_PORT;
		return DP_OK;
	}
	if (s && strcmp(s, "none") == 0) {
		*c = DP_CONT_NONE;
		return DP_OK;
	}
	return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
			  "unknown contention model '%s'; expected 'port' "
			  "(one send and one receive at a time per device) or "
			  "'none' (transfers never wait)",
			  s ? s : "");
}

/* The names of the critical path's causes and of the kinds of memory, in
 * the order of their enums' values (sim.h). */
static const char *const hop_names[] = {"start", "data", "transfer", "device"};
static const char *const mem_names[] = {"param", "output", "copy", "temp"};

const char *dp_sim_hop_cause_name(dp_hop_cause c)
{
	return DPI_NAME_OF(hop_names, c, "?");
}

const char *dp_sim_mem_kind_name(dp_mem_kind k)
{
	return DPI_NAME_OF(mem_names, k, "?");
}
