/* state.c - the explorer's state and its caches (see state.h). */
#include "state.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/units.h"

static const char *const sort_names[SORT_COUNT] = {
	"start", "name", "type", "device", "duration", "output", "params",
};

const char *ops_sort_name(ops_sort s)
{
	return (unsigned)s < SORT_COUNT ? sort_names[s] : "?";
}

static void reset_selection(vstate *st)
{
	st->view = VIEW_DEVICES;
	st->back = VIEW_DEVICES;
	st->dev = 0;
	st->op = UINT32_MAX;
	for (int v = 0; v < VIEW_ALL; v++)
		st->time[v] = (time_win){1, 0};
	st->mem_scroll = 0;
	st->cp_cursor = st->cp_scroll = 0;
	st->op_scroll = 0;
	st->help_scroll = 0;
	st->ops_cursor = st->ops_scroll = 0;
	st->ops_n = 0;
	st->ops_dirty = true;
	st->prepared_for = NULL;
	st->diffed_prev = st->diffed_plan = NULL;
	st->diff_cursor = st->diff_scroll = 0;
	st->cmp_cursor = 0;
}

static void free_plan(dp_plan **p)
{
	if (*p) {
		dp_plan_free(*p);
		free(*p);
		*p = NULL;
	}
}

static void free_compare(vstate *st)
{
	for (int i = 0; i < st->ncmp; i++)
		if (st->cmp[i].has_plan) {
			dp_plan_free(&st->cmp[i].plan);
			st->cmp[i].has_plan = false;
		}
}

static void free_op_arrays(vstate *st)
{
	free(st->ops_idx);
	free(st->on_cp);
	free(st->agg_start);
	free(st->agg_end);
	free(st->agg_dev);
	free(st->agg_n);
	free(st->agg_first);
	free(st->agg_cp);
	free(st->cpg_first);
	free(st->pins);
	free(st->prev_dev);
	free(st->moved);
	st->pins = st->prev_dev = NULL;
	st->moved = NULL;
	st->moved_n = 0;
	st->ops_idx = NULL;
	st->on_cp = NULL;
	st->agg_start = st->agg_end = NULL;
	st->agg_dev = NULL;
	st->agg_n = st->agg_first = NULL;
	st->agg_cp = NULL;
	st->cpg_first = NULL;
	st->on_cp_n = st->cpg_n = 0;
}

/* Per-op arrays sized for the current graph (the plan's arrays are sized
 * by state_prepare). */
static dp_status alloc_op_arrays(vstate *st, dp_err *err)
{
	size_t n = st->g->nops ? st->g->nops : 1;
	vstate t = *st;
	t.ops_idx = malloc(n * sizeof *t.ops_idx);
	t.on_cp = calloc(n, 1);
	t.agg_start = calloc(n, sizeof *t.agg_start);
	t.agg_end = calloc(n, sizeof *t.agg_end);
	t.agg_dev = calloc(n, sizeof *t.agg_dev);
	t.agg_n = calloc(n, sizeof *t.agg_n);
	t.agg_first = calloc(n, sizeof *t.agg_first);
	t.agg_cp = calloc(n, 1);
	t.cpg_first = calloc(1, sizeof *t.cpg_first);
	t.pins = malloc(n * sizeof *t.pins);
	t.prev_dev = malloc(n * sizeof *t.prev_dev);
	t.moved = malloc(n * sizeof *t.moved);
	t.on_cp_n = st->g->nops;
	t.cpg_n = 0;
	t.moved_n = 0;
	if (!t.ops_idx || !t.on_cp || !t.agg_start || !t.agg_end ||
	    !t.agg_dev || !t.agg_n || !t.agg_first || !t.agg_cp ||
	    !t.cpg_first || !t.pins || !t.prev_dev || !t.moved) {
		free_op_arrays(&t);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory for the views of %u ops",
				  st->g->nops);
	}
	free_op_arrays(st);
	*st = t;
	/* the pins start as the graph's own */
	st->npins = 0;
	for (uint32_t u = 0; u < st->g->nops; u++) {
		st->pins[u] = st->g->ops[u].pin;
		st->npins += st->pins[u] >= 0;
	}
	st->pins_dirty = false;
	st->diffed_prev = st->diffed_plan = NULL;
	return DP_OK;
}

dp_status state_init(vstate *st, dp_graph *g, const dp_machine *m,
		     const dp_algo *algo, dp_contention c, dp_err *err)
{
	memset(st, 0, sizeof *st);
	st->g = g;
	dp_status s = alloc_op_arrays(st, err);
	if (s == DP_OK)
		s = dp_machine_copy(&st->m, m, err);
	size_t ncompared;
	dp_algo_compared(&ncompared);
	int n = (int)ncompared;
	if (s == DP_OK) {
		st->cmp = calloc((size_t)(n ? n : 1), sizeof *st->cmp);
		if (!st->cmp)
			s = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				       "out of memory");
	}
	if (s != DP_OK) {
		if (st->m.cap)
			dp_machine_free(&st->m);
		free_op_arrays(st);
		free(st->cmp);
		memset(st, 0, sizeof *st);
		return s;
	}
	st->ncmp = n;
	st->algo = algo ? algo : dp_algo_default();
	st->contention = c;
	st->schedule = -1;
	st->bucket = -1;
	st->gen = 1;
	st->sort = SORT_START;
	reset_selection(st);
	state_compare_reset(st);
	return DP_OK;
}

void state_free(vstate *st)
{
	free_plan(&st->plan);
	free_plan(&st->prev);
	free_compare(st);
	free(st->cmp);
	free_op_arrays(st);
	state_fit_search_free(st);
	dp_machine_free(&st->m);
	dp_graph_free(st->g);
	dp_graph_free(st->base);
	dp_graph_free(st->plain);
	memset(st, 0, sizeof *st);
}

dp_status state_replace_graph(vstate *st, dp_graph *g, dp_err *err)
{
	dp_graph *old = st->g;
	st->g = g;
	dp_status s = alloc_op_arrays(st, err);
	if (s != DP_OK) {
		st->g = old;
		return s;
	}
	free_plan(&st->plan);
	free_plan(&st->prev);
	st->plan_error[0] = '\0';
	reset_selection(st);
	state_settings_changed(st);
	return DP_OK;
}

dp_status state_set_graph(vstate *st, dp_graph *g, dp_err *err)
{
	dp_graph *old = st->g;
	dp_status s = state_replace_graph(st, g, err);
	if (s != DP_OK)
		return s;
	dp_graph_free(old);
	state_fit_search_free(st); /* the table was for the old graph */
	/* a new graph is at its own batch size, without levers */
	dp_graph_free(st->base);
	dp_graph_free(st->plain);
	st->base = st->plain = NULL;
	st->batch = 0;
	st->filter[0] = st->search[0] = '\0';
	return DP_OK;
}

void state_rebatch(vstate *st, dp_graph *g)
{
	if (!st->base)
		st->base = st->g;
	else
		dp_graph_free(st->g);
	st->g = g;
	/* the pins stay (the base has them too: state_apply_pins) */
	for (uint32_t u = 0; u < g->nops && u < st->base->nops; u++)
		g->ops[u].pin = st->pins[u];
	/* back at the loaded batch size: the base is the graph again */
	if (dp_graph_batch_size(g) == dp_graph_batch_size(st->base)) {
		dp_graph_free(g);
		st->g = st->base;
		st->base = NULL;
		st->batch = 0;
	}
	state_settings_changed(st);
	st->ops_dirty = true;
}

void state_set_plan(vstate *st, dp_plan *plan, unsigned gen)
{
	dp_plan *p = malloc(sizeof *p);
	if (!p) {
		/* keep the old plan; the caller's is released */
		dp_plan_free(plan);
		memset(plan, 0, sizeof *plan);
		state_status(st, true, "out of memory keeping the new plan");
		return;
	}
	*p = *plan;
	memset(plan, 0, sizeof *plan);
	/* what pins did to a strategy (a pipeline's empty stages) is news
	 * the first time a plan says it */
	const char *note = p->strat ? p->strat->note : "";
	const char *was = st->plan && st->plan->strat ? st->plan->strat->note
						      : "";
	if (note[0] && strcmp(note, was) != 0)
		state_status(st, false, "%s: %s", p->algo, note);
	/* the plan on screen becomes the one the Diff view compares with */
	free_plan(&st->prev);
	st->prev = st->plan;
	st->plan = p;
	st->plan_gen = gen;
	st->plan_error[0] = '\0';
	st->ops_dirty = true;
	st->prepared_for = NULL;
	st->diffed_plan = st->diffed_prev = NULL;
	int n = state_ndev(st);
	if (st->dev >= n)
		st->dev = n - 1;
}

void state_apply_pins(vstate *st)
{
	if (!st->pins_dirty)
		return;
	for (uint32_t u = 0; u < st->g->nops; u++)
		st->g->ops[u].pin = st->pins[u];
	dp_graph *other[2] = {st->base, st->plain};
	for (int i = 0; i < 2; i++)
		for (uint32_t u = 0; other[i] && u < other[i]->nops &&
				     u < st->g->nops;
		     u++)
			other[i]->ops[u].pin = st->pins[u];
	st->pins_dirty = false;
}

void state_settings_changed(vstate *st)
{
	st->gen++;
	state_compare_reset(st);
}

void state_algo_opts(const vstate *st, dp_algo_opts *o)
{
	dp_algo_opts_default(o);
	o->contention = st->contention;
	o->microbatches = st->microbatches;
	o->schedule = st->schedule;
	o->zero_stage = st->zero_stage;
	if (st->bucket >= 0)
		o->bucket = st->bucket;
}

const dp_graph *state_plan_graph(const vstate *st)
{
	return dp_plan_graph(st->plan, st->g);
}

bool state_plan_stale(const vstate *st)
{
	return st->plan && st->plan_gen != st->gen;
}

void state_status(vstate *st, bool error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(st->status, sizeof st->status, fmt, ap);
	va_end(ap);
	st->status_error = error;
}

void state_compare_reset(vstate *st)
{
	free_compare(st);
	size_t ncompared;
	const dp_algo *const *every = dp_algo_compared(&ncompared);
	for (int i = 0; i < st->ncmp; i++) {
		memset(&st->cmp[i], 0, sizeof st->cmp[i]);
		st->cmp[i].algo = every[i];
		st->cmp[i].status = CMP_WAITING;
	}
	st->cmp_gen = st->gen;
	st->cmp_valid = false;
}

void state_algo_changed(vstate *st)
{
	bool current = st->cmp_gen == st->gen;
	st->gen++;
	if (current)
		st->cmp_gen = st->gen;
}

void state_compare_done(vstate *st, int i, dp_plan *plan)
{
	if (i < 0 || i >= st->ncmp) {
		dp_plan_free(plan);
		return;
	}
	cmp_row *r = &st->cmp[i];
	if (r->has_plan)
		dp_plan_free(&r->plan);
	r->status = CMP_DONE;
	r->makespan = plan->sim.makespan;
	r->xlb = plan->xlb;
	r->speedup = plan->speedup;
	r->plan_ms = plan->plan_ms;
	r->feasible = plan->feasible;
	r->cut_bytes = plan->sim.cut_bytes;
	r->worst = dp_plan_worst_device(plan);
	r->over_bytes = 0;
	if (r->worst >= 0 && r->worst < plan->sim.k)
		r->over_bytes = plan->sim.dev[r->worst].peak_bytes -
				plan->sim.dev[r->worst].cap_bytes;
	r->plan = *plan;
	r->has_plan = true;
	r->err[0] = '\0';
	memset(plan, 0, sizeof *plan);
}

void state_compare_failed(vstate *st, int i, const char *msg)
{
	if (i < 0 || i >= st->ncmp)
		return;
	cmp_row *r = &st->cmp[i];
	if (r->has_plan)
		dp_plan_free(&r->plan);
	r->has_plan = false;
	r->status = CMP_FAILED;
	snprintf(r->err, sizeof r->err, "%s", msg);
}

bool state_compare_adopt(vstate *st, int i)
{
	if (i < 0 || i >= st->ncmp)
		return false;
	cmp_row *r = &st->cmp[i];
	st->algo = r->algo;
	bool current = st->cmp_gen == st->gen;
	state_algo_changed(st);
	if (!current || !r->has_plan)
		return false;
	dp_plan p = r->plan;
	r->has_plan = false;
	memset(&r->plan, 0, sizeof r->plan);
	state_set_plan(st, &p, st->gen);
	return true;
}

int state_ndev(const vstate *st)
{
	int n = st->m.k;
	if (st->plan && st->plan->k > n)
		n = st->plan->k;
	return n < 1 ? 1 : n;
}

/* ---- the Ops index ---- */

/* Case-insensitive substring test. */
static bool contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	if (n == 0)
		return true;
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i] &&
		       tolower((unsigned char)hay[i]) ==
			       tolower((unsigned char)needle[i]))
			i++;
		if (i == n)
			return true;
	}
	return false;
}

bool state_op_matches(const vstate *st, uint32_t u, const char *text)
{
	const dp_op *op = &st->g->ops[u];
	return contains_ci(dp_graph_op_name(st->g, u), text) ||
	       contains_ci(dp_graph_str(st->g, op->type), text) ||
	       contains_ci(dp_graph_str(st->g, op->layer), text);
}

static int cmp_num(double a, double b)
{
	return a < b ? -1 : a > b ? 1 : 0;
}

/* Compares two ops under the state's sort; ties by op id, so the order is
 * total and the table deterministic. */
static int op_cmp(const vstate *st, uint32_t a, uint32_t b)
{
	const dp_graph *g = st->g;
	const dp_plan *p = st->plan;
	int c = 0;
	switch (st->sort) {
	case SORT_START:
		c = p ? cmp_num(st->agg_start[a], st->agg_start[b]) : 0;
		break;
	case SORT_NAME:
		c = strcmp(dp_graph_op_name(g, a), dp_graph_op_name(g, b));
		break;
	case SORT_TYPE:
		c = strcmp(dp_graph_str(g, g->ops[a].type),
			   dp_graph_str(g, g->ops[b].type));
		break;
	case SORT_DEVICE:
		/* an op on several devices (-1) sorts after every device */
		c = p ? cmp_num((double)(uint32_t)st->agg_dev[a],
				(double)(uint32_t)st->agg_dev[b])
		      : 0;
		if (c == 0 && p)
			c = cmp_num(st->agg_start[a], st->agg_start[b]);
		break;
	case SORT_DURATION:
		c = p ? cmp_num(st->agg_end[a] - st->agg_start[a],
				st->agg_end[b] - st->agg_start[b])
		      : cmp_num(g->ops[a].time_us, g->ops[b].time_us);
		break;
	case SORT_OUTPUT:
		c = cmp_num((double)g->ops[a].output_bytes,
			    (double)g->ops[b].output_bytes);
		break;
	case SORT_PARAMS:
		c = cmp_num((double)g->ops[a].param_bytes,
			    (double)g->ops[b].param_bytes);
		break;
	case SORT_COUNT:
		break;
	}
	if (st->sort_desc)
		c = -c;
	if (c == 0)
		c = a < b ? -1 : a > b ? 1 : 0;
	return c;
}

/* Bottom-up merge sort (qsort has no context argument in C11). */
static dp_status sort_ops(const vstate *st, uint32_t *v, uint32_t n)
{
	if (n < 2)
		return DP_OK;
	uint32_t *tmp = malloc((size_t)n * sizeof *tmp);
	if (!tmp)
		return DP_ENOMEM;
	uint32_t *src = v, *dst = tmp;
	for (uint64_t w = 1; w < n; w *= 2) {
		for (uint64_t lo = 0; lo < n; lo += 2 * w) {
			uint64_t mid = lo + w < n ? lo + w : n;
			uint64_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			uint64_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = op_cmp(st, src[i], src[j]) <= 0
						   ? src[i++]
						   : src[j++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		uint32_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, (size_t)n * sizeof *v);
	free(tmp);
	return DP_OK;
}

/* The plan's per-op flags and its ops grouped by the user's op. */
static dp_status prepare_plan(vstate *st, const dp_plan *p)
{
	const dp_graph *pg = state_plan_graph(st);
	uint32_t n = st->g->nops;
	if (st->on_cp_n != pg->nops) {
		uint8_t *cp = malloc(pg->nops ? pg->nops : 1);
		if (!cp)
			return DP_ENOMEM;
		free(st->on_cp);
		st->on_cp = cp;
		st->on_cp_n = pg->nops;
	}
	uint32_t ncp = p ? p->sim.cp_len : 0;
	uint32_t *cpg = realloc(st->cpg_first, ((size_t)ncp + 1) * sizeof *cpg);
	if (!cpg)
		return DP_ENOMEM;
	st->cpg_first = cpg;
	memset(st->on_cp, 0, pg->nops ? pg->nops : 1);
	memset(st->agg_cp, 0, n ? n : 1);
	for (uint32_t u = 0; u < n; u++) {
		st->agg_n[u] = 0;
		st->agg_dev[u] = -1;
		st->agg_start[u] = st->agg_end[u] = 0;
		st->agg_first[u] = u;
	}
	st->cpg_n = 0;
	if (!p || p->nops != pg->nops)
		return DP_OK;
	for (uint32_t i = 0; i < p->sim.cp_len; i++) {
		uint32_t v = p->sim.cp_ops[i];
		st->on_cp[v] = 1;
		st->agg_cp[dp_plan_source(p, v)] = 1;
		if (!i || dp_plan_source(p, v) !=
				  dp_plan_source(p, p->sim.cp_ops[i - 1]))
			st->cpg_first[st->cpg_n++] = i;
	}
	st->cpg_first[st->cpg_n] = p->sim.cp_len;
	for (uint32_t v = 0; v < pg->nops; v++) {
		uint32_t u = dp_plan_source(p, v);
		double s = p->sim.start[v], e = p->sim.end[v];
		if (!st->agg_n[u]++) {
			st->agg_start[u] = s;
			st->agg_end[u] = e;
			st->agg_dev[u] = p->placement[v];
			st->agg_first[u] = v;
			continue;
		}
		if (s < st->agg_start[u])
			st->agg_start[u] = s;
		if (e > st->agg_end[u])
			st->agg_end[u] = e;
		if (st->agg_dev[u] != p->placement[v])
			st->agg_dev[u] = -1;
	}
	return DP_OK;
}

/* One moved op of the Diff view, for sorting. */
typedef struct moved_op {
	int32_t from, to;
	uint32_t u;
} moved_op;

/* A device as a sort key: "several" (-1) after every device. */
static uint32_t dev_key(int32_t d)
{
	return (uint32_t)d;
}

static int moved_cmp(const void *a, const void *b)
{
	const moved_op *x = a, *y = b;
	if (x->from != y->from)
		return dev_key(x->from) < dev_key(y->from) ? -1 : 1;
	if (x->to != y->to)
		return dev_key(x->to) < dev_key(y->to) ? -1 : 1;
	return x->u < y->u ? -1 : x->u > y->u;
}

/* The previous plan's device of each user op and the ops whose device
 * changed (after prepare_plan: agg_dev is the current plan's). */
static dp_status prepare_diff(vstate *st)
{
	const dp_plan *p = st->plan, *q = st->prev;
	uint32_t n = st->g->nops;
	st->moved_n = 0;
	for (uint32_t u = 0; u < n; u++)
		st->prev_dev[u] = -2; /* not seen yet */
	if (q)
		for (uint32_t v = 0; v < q->nops; v++) {
			uint32_t u = dp_plan_source(q, v);
			if (u >= n)
				continue;
			int32_t d = q->placement[v];
			st->prev_dev[u] = st->prev_dev[u] == -2	 ? d
					  : st->prev_dev[u] == d ? d
								 : -1;
		}
	uint32_t m = 0;
	for (uint32_t u = 0; u < n; u++) {
		if (st->prev_dev[u] == -2)
			st->prev_dev[u] = -1;
		if (p && st->agg_n[u] && st->prev_dev[u] != st->agg_dev[u])
			m++;
	}
	if (!q) {
		for (uint32_t u = 0; u < n; u++)
			st->prev_dev[u] = -1;
		return DP_OK;
	}
	if (!m || !p)
		return DP_OK;
	moved_op *v = malloc((size_t)m * sizeof *v);
	if (!v)
		return DP_ENOMEM;
	uint32_t cap = m;
	m = 0;
	for (uint32_t u = 0; u < n && m < cap; u++)
		if (st->agg_n[u] && st->prev_dev[u] != st->agg_dev[u])
			v[m++] = (moved_op){st->prev_dev[u], st->agg_dev[u], u};
	qsort(v, m, sizeof *v, moved_cmp);
	for (uint32_t i = 0; i < m; i++)
		st->moved[i] = v[i].u;
	st->moved_n = m;
	free(v);
	return DP_OK;
}

dp_status state_prepare(vstate *st)
{
	const dp_plan *p = st->plan;
	if (st->prepared_for != p) {
		dp_status s = prepare_plan(st, p);
		if (s)
			return s;
		st->prepared_for = p;
		st->ops_dirty = true;
	}
	if (st->diffed_plan != p || st->diffed_prev != st->prev) {
		dp_status s = prepare_diff(st);
		if (s)
			return s;
		st->diffed_plan = p;
		st->diffed_prev = st->prev;
		if (st->diff_cursor >= (int)st->moved_n)
			st->diff_cursor = st->diff_scroll = 0;
	}
	if (!st->ops_dirty)
		return DP_OK;
	uint32_t sel = st->ops_cursor < st->ops_n ? st->ops_idx[st->ops_cursor]
						  : UINT32_MAX;
	uint32_t n = 0;
	for (uint32_t u = 0; u < st->g->nops; u++)
		if (!st->filter[0] || state_op_matches(st, u, st->filter))
			st->ops_idx[n++] = u;
	st->ops_n = n;
	dp_status s = sort_ops(st, st->ops_idx, n);
	st->ops_dirty = false;
	/* keep the cursor on the same op when it is still listed */
	st->ops_cursor = 0;
	for (uint32_t i = 0; sel != UINT32_MAX && i < n; i++)
		if (st->ops_idx[i] == sel) {
			st->ops_cursor = i;
			break;
		}
	if (st->ops_scroll > st->ops_cursor)
		st->ops_scroll = st->ops_cursor;
	return s;
}
