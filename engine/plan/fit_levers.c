/* fit_levers.c - fit's lever search (fit.h, dp_fit_search_run): at each K
 * the K search of fit.c probes, combinations of a strategy and a lever set,
 * bounded as fit.h says. A new lever value is one more row of lever_table
 * (and of the parser in levers.c); a new strategy one more row of
 * strat_table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/fit.h"
#include "dnnpart/levers.h"
#include "internal/fit_int.h"
#include "internal/nomem.h"

/* Lever dimensions: precision, recomputation, fused attention, fused
 * element-wise chains, offload. */
#define NDIMS 5

/* A lever value as a set names it, its dimension and its rank there
 * (memory saved: a higher rank keeps no more than a lower one; rank 0,
 * the default, has no row). searched: in the default search. */
typedef struct lever_value {
	const char *name;
	int dim, rank;
	bool searched;
} lever_value;

static const lever_value lever_table[] = {
	{"bf16", 0, 1, true},
	{"fp16", 0, 1, false},
	{"selective", 1, 1, true},
	{"full", 1, 2, true},
	{"attention", 2, 1, true},
	/* searched when --levers lists them (docs/memory.md) */
	{"elementwise", 3, 1, false},
	{"offload-optimizer", 4, 1, false},
	{"offload-params", 4, 2, false},
};
#define NVALUES (sizeof lever_table / sizeof lever_table[0])

/* The strategies practitioners fit with (zero stage 0: the algorithm's
 * own options). */
static const struct {
	const char *algo;
	int zero_stage;
} strat_table[] = {
	{"dp", 0},	 {"zero", 1}, {"zero", 2},   {"zero", 3},
	{"megatron", 0}, {"1f1b", 0}, {"hybrid", 0},
};
#define NSTRATS (sizeof strat_table / sizeof strat_table[0])
#define MAX_STRATS 16
#define MAX_SETS 64

typedef struct lset {
	char name[48];
	dp_levers lv;
	int rank[NDIMS];
	bool ranked; /* every lever of it is in lever_table */
	dp_graph *g; /* transformed (NULL: the user's graph) */
} lset;

typedef struct strat {
	const dp_algo *algo;
	int zero_stage;
} strat;

typedef struct search_ctx {
	const dp_graph *g;
	const dp_algo_opts *ao;
	lset sets[MAX_SETS];
	size_t nsets;
	strat strats[MAX_STRATS];
	size_t nstrats;
	dp_fit_search *s;
	size_t cap;
} search_ctx;

static const lever_value *find_value(const char *tok, size_t n)
{
	for (size_t i = 0; i < NVALUES; i++)
		if (strlen(lever_table[i].name) == n &&
		    !strncmp(lever_table[i].name, tok, n))
			return &lever_table[i];
	return NULL;
}

/* The ranks of set name (levers joined by '+'). */
static void rank_set(lset *l)
{
	memset(l->rank, 0, sizeof l->rank);
	l->ranked = true;
	for (const char *p = l->name; *p;) {
		size_t n = strcspn(p, "+");
		const lever_value *v = find_value(p, n);
		if (v)
			l->rank[v->dim] = v->rank;
		else if (!(n == 4 && !strncmp(p, "none", 4)))
			l->ranked = false;
		p += n + (p[n] == '+');
	}
}

/* Whether set a saves at least as much memory as b in every lever. */
static bool saves_as_much(const lset *a, const lset *b)
{
	if (!a->ranked || !b->ranked)
		return a == b;
	for (int d = 0; d < NDIMS; d++)
		if (a->rank[d] < b->rank[d])
			return false;
	return true;
}

static bool searched(const lever_value *v, bool fp16)
{
	if (v->dim == 0 && v->rank == 1)
		return fp16 ? !strcmp(v->name, "fp16")
			    : !strcmp(v->name, "bf16");
	return v->searched;
}

/* Every combination of the searched values, one per dimension or none,
 * as comma-separated set names into buf. */
static void default_sets(bool fp16, char *buf, size_t size)
{
	const lever_value *dim[NDIMS][NVALUES + 1];
	size_t nd[NDIMS], idx[NDIMS] = {0}, len = 0;
	for (int d = 0; d < NDIMS; d++) {
		nd[d] = 1;
		dim[d][0] = NULL; /* the default */
		for (size_t i = 0; i < NVALUES; i++)
			if (lever_table[i].dim == d &&
			    searched(&lever_table[i], fp16))
				dim[d][nd[d]++] = &lever_table[i];
	}
	buf[0] = '\0';
	for (;;) {
		char name[48] = "";
		for (int d = 0; d < NDIMS; d++)
			if (dim[d][idx[d]])
				snprintf(name + strlen(name),
					 sizeof name - strlen(name), "%s%s",
					 name[0] ? "+" : "",
					 dim[d][idx[d]]->name);
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					len ? "," : "",
					name[0] ? name : "none");
		int d = NDIMS - 1;
		while (d >= 0 && ++idx[d] == nd[d])
			idx[d--] = 0;
		if (d < 0 || len >= size)
			return;
	}
}

/* The sets of so into c: parsed, ranked, each graph transformed; sets
 * the graph refuses are counted in s. */
static dp_status make_sets(search_ctx *c, const dp_fit_search_opts *so,
			   dp_err *err)
{
	char buf[2048];
	if (so->levers)
		snprintf(buf, sizeof buf, "%s", so->levers);
	else
		default_sets(so->fp16, buf, sizeof buf);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		if (c->nsets == MAX_SETS)
			return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
					  "more than %d lever sets to search",
					  MAX_SETS);
		lset *l = &c->sets[c->nsets];
		memset(l, 0, sizeof *l);
		dp_status st = dp_levers_parse_set(t, &l->lv, err);
		if (st)
			return st;
		if (l->lv.recompute == DP_RECOMP_AUTO)
			return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
					  "lever set '%.40s': fit searches "
					  "none, selective and full "
					  "recomputation; auto chooses its "
					  "layers for one plan (plan "
					  "--recompute auto at the K fit "
					  "finds)",
					  t);
		l->lv.gemm_ratio = so->gemm_ratio;
		dp_levers_set_name(&l->lv, l->name, sizeof l->name);
		rank_set(l);
		if (!dp_levers_active(&l->lv)) {
			c->nsets++;
			continue;
		}
		dp_err e;
		dp_err_clear(&e);
		st = dp_levers_apply(c->g, &l->lv, &l->g, &e);
		if (st == DP_EINPUT) {
			if (!c->s->nrefused++)
				snprintf(c->s->refused, sizeof c->s->refused,
					 "%s: %.150s", l->name, e.msg);
			continue;
		}
		if (st) {
			*err = e;
			return st;
		}
		c->nsets++;
	}
	c->s->nsets = c->nsets;
	if (!c->nsets)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "no lever set to search applies to graph "
				  "'%s' (%s)",
				  c->g->name, c->s->refused);
	return DP_OK;
}

static void make_strats(search_ctx *c, const dp_fit_search_opts *so)
{
	if (!so->algo) {
		for (size_t i = 0; i < NSTRATS; i++) {
			const dp_algo *a = dp_algo_find(strat_table[i].algo);
			if (a)
				c->strats[c->nstrats++] = (strat){
					a, strat_table[i].zero_stage};
		}
		return;
	}
	bool zero = !strcmp(so->algo->name, "zero") && !c->ao->zero_stage;
	for (int z = 1; zero && z <= 3; z++)
		c->strats[c->nstrats++] = (strat){so->algo, z};
	if (!zero)
		c->strats[c->nstrats++] = (strat){so->algo, c->ao->zero_stage};
}

static const dp_graph *set_graph(const search_ctx *c, const lset *l)
{
	return l->g ? l->g : c->g;
}

static double bound(const search_ctx *c, const lset *l, const dp_machine *m)
{
	double sp = 0;
	for (int d = 0; d < m->k; d++)
		sp += m->speed[d];
	return set_graph(c, l)->total_time_us / (sp > 0 ? sp : 1);
}

/* The candidate of strategy i and set j at m's K, appended unrun. */
static dp_status add_cand(search_ctx *c, const dp_machine *m, size_t i,
			  size_t j, dp_fit_cand **out, dp_err *err)
{
	dp_fit_search *s = c->s;
	if (s->ncands == c->cap) {
		size_t n = c->cap ? 2 * c->cap : 64;
		dp_fit_cand *a = realloc(s->cands, n * sizeof *a);
		if (!a)
			return dpi_nomem(err, "searching the levers");
		s->cands = a;
		c->cap = n;
	}
	dp_fit_cand *x = &s->cands[s->ncands++];
	memset(x, 0, sizeof *x);
	x->k = m->k;
	snprintf(x->levers, sizeof x->levers, "%s", c->sets[j].name);
	x->algo = c->strats[i].algo;
	x->zero_stage = c->strats[i].zero_stage;
	x->bound = bound(c, &c->sets[j], m);
	x->skip = DP_FIT_SKIP_BOUND;
	*out = x;
	return DP_OK;
}

/* Runs candidate x (strategy i, set j) on m. A strategy that refuses the
 * graph or K (DP_EINPUT) is a candidate with a note, not an error. */
static dp_status run_cand(search_ctx *c, const dp_machine *m,
			  const dp_progress *p, size_t i, size_t j,
			  dp_fit_cand *x, dp_err *err)
{
	dp_algo_opts ao = *c->ao;
	ao.zero_stage = c->strats[i].zero_stage;
	dp_err e;
	dp_err_clear(&e);
	dp_status st = dpi_fit_rerun(set_graph(c, &c->sets[j]), m,
				     c->strats[i].algo, &ao, p, &x->run, &e);
	c->s->runs++;
	if (st == DP_EINPUT) {
		x->skip = DP_FIT_SKIP_REFUSED;
		snprintf(x->note, sizeof x->note, "%.119s", e.msg);
		return DP_OK;
	}
	if (st) {
		*err = e;
		return st;
	}
	x->skip = DP_FIT_RAN;
	snprintf(x->run.levers, sizeof x->run.levers, "%s", x->levers);
	return DP_OK;
}

/* The candidate of strategy i and set j among those of K from index
 * first, or NULL. */
static dp_fit_cand *find_cand(search_ctx *c, size_t first, size_t i,
			      size_t j)
{
	for (size_t n = first; n < c->s->ncands; n++) {
		dp_fit_cand *x = &c->s->cands[n];
		if (x->algo == c->strats[i].algo &&
		    x->zero_stage == c->strats[i].zero_stage &&
		    !strcmp(x->levers, c->sets[j].name))
			return x;
	}
	return NULL;
}

static bool ran(const dp_fit_cand *x, bool feasible)
{
	return x && x->skip == DP_FIT_RAN && x->run.feasible == feasible;
}

/* Whether a set of strategy i saving at least as much as set j did not
 * fit at this K. */
static bool heavier_failed(search_ctx *c, size_t first, size_t i, size_t j)
{
	for (size_t l = 0; l < c->nsets; l++)
		if (saves_as_much(&c->sets[l], &c->sets[j]) &&
		    ran(find_cand(c, first, i, l), false))
			return true;
	return false;
}

/* Whether no other set saves more than set j (heavy) or less (!heavy)
 * in some lever and at least as much (as little) in the others. */
static bool extreme(const search_ctx *c, size_t j, bool heavy)
{
	for (size_t l = 0; l < c->nsets; l++) {
		const lset *a = &c->sets[heavy ? l : j],
			   *b = &c->sets[heavy ? j : l];
		if (l != j && saves_as_much(a, b) && !saves_as_much(b, a))
			return false;
	}
	return true;
}

/* Whether the runs of strategy i at this K keep the table's order: no
 * set fits where one saving at least as much did not. */
static bool order_holds(search_ctx *c, size_t first, size_t i)
{
	for (size_t a = 0; a < c->nsets; a++)
		for (size_t b = 0; b < c->nsets; b++)
			if (a != b && saves_as_much(&c->sets[b], &c->sets[a]) &&
			    ran(find_cand(c, first, i, a), true) &&
			    ran(find_cand(c, first, i, b), false))
				return false;
	return true;
}

/* The set named set j's name less lever tok, or -1 when not searched. */
static int set_without(const search_ctx *c, size_t j, const char *tok,
		       size_t n)
{
	char name[48] = "";
	for (const char *p = c->sets[j].name; *p;) {
		size_t m = strcspn(p, "+");
		if (!(m == n && !strncmp(p, tok, n)))
			snprintf(name + strlen(name), sizeof name - strlen(name),
				 "%s%.*s", name[0] ? "+" : "", (int)m, p);
		p += m + (p[m] == '+');
	}
	for (size_t l = 0; l < c->nsets; l++)
		if (!strcmp(c->sets[l].name, name[0] ? name : "none"))
			return (int)l;
	return -1;
}

static size_t set_index(const search_ctx *c, const char *name)
{
	size_t j = 0;
	while (j < c->nsets && strcmp(c->sets[j].name, name))
		j++;
	return j;
}

static size_t strat_index(const search_ctx *c, const dp_fit_cand *x)
{
	size_t i = 0;
	while (i < c->nstrats && (c->strats[i].algo != x->algo ||
				  c->strats[i].zero_stage != x->zero_stage))
		i++;
	return i;
}

/* made_fit of candidate x (index xi) from the runs of its strategy with
 * one lever less; with check, the missing ones are run first. */
static dp_status made_fit(search_ctx *c, const dp_machine *m,
			  const dp_progress *p, size_t first, size_t xi,
			  bool check, dp_err *err)
{
	size_t i = strat_index(c, &c->s->cands[xi]);
	size_t j = set_index(c, c->s->cands[xi].levers);
	char names[48];
	snprintf(names, sizeof names, "%s", c->s->cands[xi].levers);
	char out[48] = "";
	for (const char *t = names; *t;) {
		size_t n = strcspn(t, "+");
		int l = set_without(c, j, t, n);
		dp_fit_cand *y = l >= 0 ? find_cand(c, first, i, (size_t)l)
					: NULL;
		dp_status st = DP_OK;
		if (l >= 0 && check && (!y || y->skip != DP_FIT_RAN) &&
		    !(st = y ? DP_OK : add_cand(c, m, i, (size_t)l, &y, err)))
			st = run_cand(c, m, p, i, (size_t)l, y, err);
		if (st)
			return st;
		if (ran(y, false))
			snprintf(out + strlen(out), sizeof out - strlen(out),
				 "%s%.*s", out[0] ? "+" : "", (int)n, t);
		t += n + (t[n] == '+');
	}
	snprintf(c->s->cands[xi].made_fit, sizeof out, "%s", out);
	return DP_OK;
}

static int cmp_bound(const void *a, const void *b)
{
	const dp_fit_cand *x = *(dp_fit_cand *const *)a,
			  *y = *(dp_fit_cand *const *)b;
	return x->bound < y->bound ? -1 : x->bound > y->bound;
}

/* The probe of K = m->k: every candidate, bounded (fit.h). */
static dp_status probe_k(void *ctx, const dp_machine *m, const dp_progress *p,
			 dp_fit_probe *pr, dp_err *err)
{
	search_ctx *c = ctx;
	size_t first = c->s->ncands, i, j;
	dp_status st = DP_OK;
	dp_fit_cand *x;
	bool alive[MAX_STRATS] = {false};
	for (i = 0; i < c->nstrats; i++)
		for (j = 0; j < c->nsets; j++) {
			if ((st = add_cand(c, m, i, j, &x, err)))
				return st;
			if ((extreme(c, j, true) || extreme(c, j, false)) &&
			    (st = run_cand(c, m, p, i, j, x, err)))
				return st;
			alive[i] |= ran(x, true);
		}
	bool trust[MAX_STRATS];
	for (i = 0; i < c->nstrats; i++)
		trust[i] = order_holds(c, first, i);
	/* the rest by estimate (stable: strategy, then set order) */
	size_t n = c->s->ncands - first;
	dp_fit_cand **order = malloc(n * sizeof *order);
	if (!order)
		return dpi_nomem(err, "searching the levers");
	for (size_t a = 0; a < n; a++)
		order[a] = &c->s->cands[first + a];
	for (size_t a = 1; a < n; a++)
		for (size_t b = a; b > 0 && cmp_bound(&order[b - 1], &order[b]) > 0;
		     b--) {
			dp_fit_cand *t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	double best = -1;
	for (size_t a = 0; a < n; a++)
		if (ran(order[a], true) &&
		    (best < 0 || order[a]->run.makespan < best))
			best = order[a]->run.makespan;
	for (size_t a = 0; !st && a < n; a++) {
		x = order[a];
		i = strat_index(c, x);
		j = set_index(c, x->levers);
		if (x->skip != DP_FIT_SKIP_BOUND ||
		    (best >= 0 && x->bound >= best))
			continue;
		if (!alive[i] || (trust[i] && heavier_failed(c, first, i, j))) {
			x->skip = DP_FIT_SKIP_HEAVIER;
			continue;
		}
		if (!(st = run_cand(c, m, p, i, j, x, err)) && ran(x, true) &&
		    (best < 0 || x->run.makespan < best))
			best = x->run.makespan;
	}
	free(order);
	if (st)
		return st;
	/* the fastest fit, else the run least over */
	size_t bi = SIZE_MAX;
	for (size_t a = first; a < c->s->ncands; a++) {
		const dp_fit_cand *y = &c->s->cands[a];
		if (y->skip != DP_FIT_RAN)
			continue;
		const dp_fit_cand *b = bi == SIZE_MAX ? NULL : &c->s->cands[bi];
		if (!b || (y->run.feasible && !b->run.feasible) ||
		    (y->run.feasible == b->run.feasible &&
		     (y->run.feasible ? y->run.makespan < b->run.makespan
				      : y->run.over < b->run.over)))
			bi = a;
	}
	if (bi == SIZE_MAX) { /* every strategy refused this K */
		memset(pr, 0, sizeof *pr);
		pr->k = m->k;
		pr->worst = -1;
		return DP_OK;
	}
	size_t last = c->s->ncands;
	for (size_t a = first; !st && a < last; a++)
		if (ran(&c->s->cands[a], true))
			st = made_fit(c, m, p, first, a,
				      a == bi && strcmp(c->s->cands[a].levers,
							"none"),
				      err);
	if (st)
		return st;
	*pr = c->s->cands[bi].run;
	/* fit.c keeps the last probe that fits: the answer */
	if (pr->feasible)
		c->s->best = (int)bi;
	return DP_OK;
}

dp_status dp_fit_search_run(const dp_graph *g, const dp_machine *m,
			    const dp_algo_opts *ao,
			    const dp_fit_search_opts *so, const dp_progress *p,
			    dp_fit_search *s, dp_err *err)
{
	dp_err scratch;
	dp_algo_opts def;
	dp_algo_opts_default(&def);
	err = err ? err : &scratch;
	ao = ao ? ao : &def;
	search_ctx *c = calloc(1, sizeof *c);
	if (!c)
		return dpi_nomem(err, "searching the levers");
	memset(s, 0, sizeof *s);
	s->best = -1;
	c->g = g;
	c->ao = ao;
	c->s = s;
	dp_status st = make_sets(c, so, err);
	make_strats(c, so);
	dp_fit_opts fo = {.kind = DP_FIT_K, .max_k = so->max_k};
	const dp_algo *kalgo = so->algo ? so->algo : c->strats[0].algo;
	bool none_only = c->nsets == 1 && !c->sets[0].g;
	if (!st && !(none_only && so->stop_without_levers && !so->levers))
		st = dpi_fit_search(g, m, kalgo, ao, &fo, p, probe_k, c, &s->r,
				    err);
	for (size_t j = 0; j < c->nsets; j++)
		dp_graph_free(c->sets[j].g);
	free(c);
	if (st || !s->r.found)
		s->best = -1;
	if (st)
		dp_fit_search_free(s);
	return st;
}

void dp_fit_search_free(dp_fit_search *s)
{
	if (!s)
		return;
	dp_fit_result_free(&s->r);
	free(s->cands);
	memset(s, 0, sizeof *s);
	s->best = -1;
}

char *dp_fit_cand_strategy(const dp_fit_cand *c, char *buf, size_t size)
{
	if (c->zero_stage && !strcmp(c->algo->name, "zero"))
		snprintf(buf, size, "zero-%d", c->zero_stage);
	else
		snprintf(buf, size, "%s", c->algo->name);
	return buf;
}
