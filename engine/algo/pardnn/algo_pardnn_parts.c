/* algo_pardnn_parts.c - pardnn's seed for graphs made of independent parts
 * (ours, not in the paper; docs/algorithms.md, "Other seeds").
 *
 * When the graph falls apart into two or more weakly connected components
 * (colocation groups join their members) that each hold at least 1/(2K) of
 * the work, as N copies of a network or independent towers do, each such
 * part gets a group of devices of its own and stays whole there: with no
 * more parts than devices, every part gets one device and the rest go one
 * at a time to the part with the most work per device; with more parts than
 * devices, parts go whole to devices, largest first, each to the device that
 * ends least loaded (LPT). A part with two or more devices is placed there
 * by pardnn itself, run on the part alone (a graph of its ops) and a machine
 * of its devices; the small parts then go whole to the least loaded
 * devices. Splitting one copy over its devices is then the problem pardnn
 * solves for one network; over the whole graph, the paper's primaries and
 * the list schedulers mix the copies, and every device waits on transfers
 * from the others.
 *
 * Not made with pins (a part's pins would name devices outside its group)
 * or with the graph's own transfer times (link "file"), and not when fewer
 * than two parts are large: then the maker fails, which only means no seed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/arrays.h"
#include "internal/pardnn.h"
#include "internal/sort_key.h"

#define PD_PARTS_MAX_DEVICES 1024

typedef struct parts {
	uint32_t n, np;	 /* ops, parts */
	uint32_t *part;	 /* n: part of each op */
	uint32_t *queue; /* n: BFS scratch */
	uint32_t *ops;	 /* n: the ops by part, in op order within one */
	uint32_t *off;	 /* np + 1: where each part's ops start in ops */
	uint32_t *local; /* n: an op's index within its part */
	double *work;	 /* np: time_us of each part */
	uint32_t *order; /* np: parts by work, largest first */
	int32_t *first;	 /* np: first device (in devorder) of a large part */
	int32_t *ndev;	 /* np: its number of devices, 0 = a small part */
	double *load;	 /* k: work per device so far */
} parts;

static void parts_free(parts *s)
{
	DPI_FREE_ALL(s->part, s->queue, s->ops, s->off, s->local, s->work,
		     s->order, s->first, s->ndev, s->load);
}

/* Visits x from the BFS: labels it with part p and queues it. */
static void visit(parts *s, uint32_t x, uint32_t p, uint32_t *tail)
{
	if (s->part[x] != PD_NONE)
		return;
	s->part[x] = p;
	s->queue[(*tail)++] = x;
}

/* Weakly connected components over edges and colocation groups. */
static void label_parts(const dp_graph *g, parts *s)
{
	for (uint32_t u = 0; u < s->n; u++)
		s->part[u] = PD_NONE;
	s->np = 0;
	for (uint32_t r = 0; r < s->n; r++) {
		if (s->part[r] != PD_NONE)
			continue;
		uint32_t head = 0, tail = 0, p = s->np++;
		visit(s, r, p, &tail);
		while (head < tail) {
			uint32_t u = s->queue[head++];
			for (uint32_t i = g->succ_off[u];
			     i < g->succ_off[u + 1]; i++)
				visit(s, g->edges[g->succ_edge[i]].to, p,
				      &tail);
			for (uint32_t i = g->pred_off[u];
			     i < g->pred_off[u + 1]; i++)
				visit(s, g->edges[g->pred_edge[i]].from, p,
				      &tail);
			int32_t grp = g->ops[u].colocate;
			for (uint32_t i = grp >= 0 ? g->group_off[grp] : 0;
			     grp >= 0 && i < g->group_off[grp + 1]; i++)
				visit(s, g->group_ops[i], p, &tail);
		}
	}
}

/* The parts by work, largest first (ties: the part of the smaller op),
 * and each part's ops in op order. */
static int sort_parts(parts *s)
{
	dpi_sort_key *key = malloc(((size_t)s->np + 1) * sizeof *key);
	if (!key)
		return -1;
	for (uint32_t p = 0; p < s->np; p++)
		key[p] = (dpi_sort_key){s->work[p], p, p};
	qsort(key, s->np, sizeof *key, dpi_sort_key_desc);
	for (uint32_t i = 0; i < s->np; i++)
		s->order[i] = key[i].op;
	free(key);
	for (uint32_t u = 0; u < s->n; u++)
		s->off[s->part[u] + 1]++;
	for (uint32_t p = 0; p < s->np; p++)
		s->off[p + 1] += s->off[p];
	for (uint32_t u = 0; u < s->n; u++) {
		uint32_t p = s->part[u];
		s->local[u] = s->off[p]++; /* the start of p + its index */
		s->ops[s->local[u]] = u;
	}
	for (uint32_t p = s->np; p > 0; p--) /* back to the starts */
		s->off[p] = s->off[p - 1];
	s->off[0] = 0;
	for (uint32_t u = 0; u < s->n; u++)
		s->local[u] -= s->off[s->part[u]];
	return 0;
}

/* The least loaded device (load over speed after adding w). */
static int32_t least_loaded(const pd_ctx *c, const parts *s, double w)
{
	int32_t best = c->devorder[0];
	for (int i = 1; i < c->k; i++) {
		int32_t d = c->devorder[i];
		if ((s->load[d] + w) / c->m->speed[d] <
		    (s->load[best] + w) / c->m->speed[best])
			best = d;
	}
	return best;
}

/* Part p alone as a graph (ops in op order) and its devices' machine;
 * pardnn places it, and its devices are written back into pl. */
static dp_status place_part(pd_ctx *c, parts *s, uint32_t p, int32_t *pl,
			    dp_err *e)
{
	const dp_graph *g = c->g;
	int nd = s->ndev[p];
	const uint32_t *ops = s->ops + s->off[p];
	uint32_t len = s->off[p + 1] - s->off[p];
	dp_graph *sg = dp_graph_new("part");
	dp_machine sm;
	memset(&sm, 0, sizeof sm);
	int32_t *sub = malloc(((size_t)len + 1) * sizeof *sub);
	dp_status st = sg && sub ? dp_machine_init(&sm, nd, e)
				 : dp_err_set(e, DP_ENOMEM, NULL, 0, 0,
					      "out of memory in pardnn");
	char label[32];
	for (uint32_t i = 0; !st && i < len; i++) {
		const dp_op *op = &g->ops[ops[i]];
		uint32_t id;
		if ((st = dp_graph_add_op(sg, dp_graph_op_name(g, ops[i]), &id,
					  e)))
			break;
		sg->ops[id].time_us = op->time_us;
		sg->ops[id].output_bytes = op->output_bytes;
		sg->ops[id].param_bytes = op->param_bytes;
		sg->ops[id].temp_bytes = op->temp_bytes;
		if (op->colocate >= 0) {
			snprintf(label, sizeof label, "g%d", op->colocate);
			st = dp_graph_set_colocate(sg, id, label, e);
		}
	}
	for (uint32_t i = 0; !st && i < len; i++) {
		uint32_t u = ops[i];
		for (uint32_t j = g->succ_off[u]; !st && j < g->succ_off[u + 1];
		     j++) {
			const dp_edge *ed = &g->edges[g->succ_edge[j]];
			st = dp_graph_add_edge(sg, i, s->local[ed->to],
					       ed->control ? 0 : ed->bytes,
					       ed->control, e);
		}
	}
	if (!st)
		st = dp_graph_finalize(sg, e);
	if (!st) {
		sm.bw = c->m->bw;
		sm.lat = c->m->lat;
		for (int i = 0; i < nd; i++) {
			int32_t d = c->devorder[s->first[p] + i];
			sm.speed[i] = c->m->speed[d];
			sm.cap[i] = c->m->cap[d];
		}
		sm.reserve_bytes = c->m->reserve_bytes;
		sm.reserve_frac = c->m->reserve_frac;
		dp_progress quiet = {NULL, NULL, c->p ? c->p->cancel : NULL};
		st = dpi_pardnn_place(sg, &sm, c->o, &quiet, PD_SEED_ALL, sub,
				      e);
	}
	for (uint32_t i = 0; !st && i < len; i++)
		pl[ops[i]] = c->devorder[s->first[p] + sub[i]];
	free(sub);
	dp_machine_free(&sm);
	dp_graph_free(sg);
	return st;
}

/* Devices for the large parts (the first nbig of s->order; nbig <= k). */
static void share_devices(pd_ctx *c, parts *s, uint32_t nbig)
{
	for (uint32_t i = 0; i < nbig; i++)
		s->ndev[s->order[i]] = 1;
	for (int left = c->k - (int)nbig; left > 0; left--) {
		uint32_t best = s->order[0];
		for (uint32_t i = 1; i < nbig; i++) {
			uint32_t p = s->order[i];
			if (s->work[p] / s->ndev[p] >
			    s->work[best] / s->ndev[best])
				best = p;
		}
		s->ndev[best]++;
	}
	int32_t next = 0;
	for (uint32_t i = 0; i < nbig; i++) {
		uint32_t p = s->order[i];
		s->first[p] = next;
		for (int j = 0; j < s->ndev[p]; j++)
			s->load[c->devorder[next + j]] =
				s->work[p] / s->ndev[p];
		next += s->ndev[p];
	}
}

dp_status dpi_pd_seed_parts(pd_ctx *c, int32_t *pl, dp_err *e)
{
	const dp_graph *g = c->g;
	for (uint32_t u = 0; u < c->n; u++)
		if (c->fix[u] >= 0)
			return dp_err_set(e, DP_EINPUT, NULL, 0, 0, "pins");
	if (c->m->link_file || c->k > PD_PARTS_MAX_DEVICES)
		return dp_err_set(e, DP_EINPUT, NULL, 0, 0, "link file");
	parts s = {0};
	s.n = c->n;
	s.part = malloc(((size_t)s.n + 1) * sizeof *s.part);
	s.queue = malloc(((size_t)s.n + 1) * sizeof *s.queue);
	s.ops = malloc(((size_t)s.n + 1) * sizeof *s.ops);
	s.local = malloc(((size_t)s.n + 1) * sizeof *s.local);
	s.load = calloc((size_t)c->k, sizeof *s.load);
	dp_status st = DP_OK;
	if (!s.part || !s.queue || !s.ops || !s.local || !s.load)
		goto oom;
	label_parts(g, &s);
	s.work = calloc(s.np, sizeof *s.work);
	s.order = malloc(s.np * sizeof *s.order);
	s.first = calloc(s.np, sizeof *s.first);
	s.ndev = calloc(s.np, sizeof *s.ndev);
	s.off = calloc((size_t)s.np + 1, sizeof *s.off);
	if (!s.work || !s.order || !s.first || !s.ndev || !s.off)
		goto oom;
	double total = 0;
	for (uint32_t u = 0; u < s.n; u++) {
		s.work[s.part[u]] += g->ops[u].time_us;
		total += g->ops[u].time_us;
	}
	if (sort_parts(&s))
		goto oom;
	uint32_t nbig = 0;
	while (nbig < s.np && s.work[s.order[nbig]] >= total / (2.0 * c->k))
		nbig++;
	if (nbig < 2) {
		st = dp_err_set(e, DP_EINPUT, NULL, 0, 0, "one part");
		goto out;
	}
	uint32_t whole = 0; /* parts from here on go whole to one device */
	if (nbig <= (uint32_t)c->k) {
		share_devices(c, &s, nbig);
		whole = nbig;
	}
	for (uint32_t i = 0; i < s.np; i++) {
		uint32_t p = s.order[i];
		if (i < whole && s.ndev[p] >= 2) {
			if ((st = place_part(c, &s, p, pl, e)))
				goto out;
			continue;
		}
		int32_t d = i < whole ? c->devorder[s.first[p]]
				      : least_loaded(c, &s, s.work[p]);
		if (i >= whole)
			s.load[d] += s.work[p];
		for (uint32_t j = s.off[p]; j < s.off[p + 1]; j++)
			pl[s.ops[j]] = d;
	}
	goto out;
oom:
	st = dp_err_set(e, DP_ENOMEM, NULL, 0, 0, "out of memory in pardnn");
out:
	parts_free(&s);
	return st;
}
