/* fixtures.c - see fixtures.h. */
#include "fixtures.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/export.h"
#include "dnnpart/load.h"
#include "testlib.h"

void test_machine_init(test_machine *tm, int k, double bw, double lat)
{
	memset(tm, 0, sizeof *tm);
	tm->m.k = k;
	tm->m.cap = tm->cap;
	tm->m.speed = tm->speed;
	tm->m.bw = bw;
	tm->m.lat = lat;
	for (int d = 0; d < TEST_MAX_K; d++) {
		tm->cap[d] = DP_CAP_UNLIMITED;
		tm->speed[d] = 1.0;
	}
}

bool test_machine_make(dp_machine *m, int k, const char *caps,
		       const char *speeds)
{
	dp_err err;
	if (dp_machine_init(m, k, &err) != DP_OK) {
		FAIL_ERR("machine", &err);
		return false;
	}
	if ((caps && dp_machine_set_caps(m, caps, &err) != DP_OK) ||
	    (speeds && dp_machine_set_speeds(m, speeds, &err) != DP_OK)) {
		FAIL_ERR(caps ? caps : speeds, &err);
		dp_machine_free(m);
		return false;
	}
	return true;
}

void test_random_machine(test_machine *tm, int k, uint64_t *rng)
{
	static const double bws[] = {1, 10, 100, 1000.5};
	static const double lats[] = {0, 0, 1, 2.5, 25};
	static const double speeds[] = {1, 1, 0.5, 2, 1.5};
	double bw = bws[test_randn(rng, 4)];
	test_machine_init(tm, k, bw, lats[test_randn(rng, 5)]);
	for (int d = 0; d < TEST_MAX_K; d++) {
		tm->cap[d] = test_randn(rng, 2)
				     ? DP_CAP_UNLIMITED
				     : (int64_t)test_randn(rng, 20000);
		tm->speed[d] =
			test_randn(rng, 2) ? 1.0 : speeds[test_randn(rng, 5)];
	}
}

void test_free(dp_graph *g, dp_machine *m, dp_plan *plan)
{
	if (plan)
		dp_plan_free(plan);
	if (m)
		dp_machine_free(m);
	dp_graph_free(g);
}

void test_group(const char *file, int line, dp_graph *g, const char *label,
		const uint32_t *ops, int n)
{
	for (int i = 0; i < n; i++)
		if (dp_graph_set_colocate(g, ops[i], label, NULL) != DP_OK)
			test_fail(file, line, "op %u refused in group '%s'",
				  ops[i], label);
}

dp_graph *test_chain(const char *name, int n, double t, int64_t out)
{
	dp_graph *g = dp_graph_new(name);
	char nm[32];
	for (int i = 0; i < n; i++) {
		snprintf(nm, sizeof nm, "op%d", i);
		uint32_t id = test_add_op(g, nm, t, out, NULL);
		if (i)
			dp_graph_add_edge(g, id - 1, id, -1, false, NULL);
	}
	return g;
}

dp_graph *test_abc_chain(test_machine *tm)
{
	if (tm)
		test_machine_init(tm, 2, 100, 2);
	dp_graph *g = test_graph_text("chain", "a:10 b:20 c:5; a>b b>c", -1);
	g->ops[0].output_bytes = 1000;
	g->ops[0].param_bytes = 100;
	g->ops[1].output_bytes = 500;
	g->ops[2].param_bytes = 50;
	return test_finalized(g);
}

dp_graph *test_blocks(int n)
{
	dp_graph *g = dp_graph_new("blocks");
	if (!g)
		abort();
	for (int i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof name, "op%d", i);
		uint32_t u = test_add_op(g, name, 1, 1 << 20, NULL);
		g->ops[u].param_bytes = (int64_t)10 << 20;
	}
	if (dp_graph_finalize(g, NULL) != DP_OK)
		abort();
	return g;
}

dp_graph *test_algo_graph(uint32_t n, uint64_t seed, const char *name)
{
	test_dag_opts d = test_dag_spec(
		n, "window=12 inputs=3 time=1..99 out=1000..100000 "
		   "params=3:200000 groups=10 pins=15:3");
	return test_random_dag_with(seed, &d, name);
}

dp_graph *test_layered_chain(uint32_t n)
{
	dp_graph *g = dp_graph_new("layered");
	char name[32], layer[64];
	for (uint32_t i = 0; i < n; i++) {
		snprintf(name, sizeof name, "op%u", i);
		snprintf(layer, sizeof layer, "stage%u/block%u/unit%u",
			 i / (n / 4), i / 100, i / 10);
		uint32_t id = test_add_op(g, name, 1 + (i * 7) % 13,
					  1024 * (1 + i % 5), layer);
		if (i)
			dp_graph_add_edge(g, id - 1, id, -1, false, NULL);
		if (i >= 5 && i % 3 == 0)
			dp_graph_add_edge(g, id - 5, id, -1, false, NULL);
	}
	return test_finalized(g);
}

dp_graph *test_train_chain(int n, double tf, const double *tb, double tw,
			   int64_t out, int64_t params)
{
	dp_graph *g = dp_graph_new("chain");
	uint32_t in = test_add_role_op(g, "x", 0, out, DP_ROLE_INPUT);
	uint32_t f[16], p[16];
	char name[32];
	n = n < 16 ? n : 16;
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "p%d", i);
		p[i] = test_add_role_op(g, name, 0, 0, DP_ROLE_PARAM);
		snprintf(name, sizeof name, "f%d", i);
		f[i] = test_add_role_op(g, name, tf, out, DP_ROLE_FORWARD);
		g->ops[f[i]].param_bytes = params;
		snprintf(name, sizeof name, "layers/%d", i);
		dp_graph_set_layer(g, f[i], name, NULL);
		test_add_edge(g, p[i], f[i]);
		test_add_edge(g, i ? f[i - 1] : in, f[i]);
	}
	uint32_t b = test_add_role_op(g, "loss", 0, out, DP_ROLE_LOSS);
	test_add_edge(g, f[n - 1], b);
	for (int i = n - 1; i >= 0; i--) {
		if (tw >= 0) {
			snprintf(name, sizeof name, "f%d/grad_w", i);
			uint32_t w =
				test_add_role_op(g, name, tw, 0, DP_ROLE_GRAD);
			test_add_edge(g, b, w);
			test_add_edge(g, i ? f[i - 1] : in, w);
			snprintf(name, sizeof name, "p%d/adam", i);
			uint32_t u =
				test_add_role_op(g, name, 0, 0, DP_ROLE_UPDATE);
			test_add_edge(g, w, u);
			test_add_edge(g, p[i], u);
		}
		b = test_add_grad(g, f[i], b, tb ? tb[i] : tf, out);
	}
	return test_finalized(g);
}

bool test_evaluate(const dp_graph *g, int k, const int32_t *pl, dp_machine *m,
		   dp_plan *plan)
{
	dp_err err;
	memset(plan, 0, sizeof *plan);
	if (!g) {
		test_fail(__FILE__, __LINE__, "no graph to evaluate");
		return false;
	}
	if (dp_machine_init(m, k, &err) != DP_OK ||
	    dp_plan_evaluate(g, m, pl, DP_CONT_PORT, plan, &err) != DP_OK) {
		fprintf(stderr, "test_evaluate: %s\n", err.msg);
		return false;
	}
	return true;
}

bool test_export(const char *path, int kind, const dp_graph *g,
		 const dp_machine *m, const dp_plan *plan)
{
	dp_err err;
	if (dp_export_write(path, (dp_export_kind)kind, g, m, plan, NULL,
			    &err) == DP_OK)
		return true;
	FAIL_ERR(path, &err);
	return false;
}

void test_check_export_keeps_old(const char *file, int line, int kind,
				 const char *name, const dp_graph *g,
				 const dp_machine *m, const dp_plan *plan,
				 const dp_progress *p)
{
	char tmp[256], bad[256];
	const char *path = test_tmp_path(name);
	if (!path || !test_write_file(path, "old\n")) {
		test_fail(file, line, "cannot write %s", name);
		return;
	}
	dp_err err;
	dp_status st = dp_export_write(path, (dp_export_kind)kind, g, m, plan,
				       p, &err);
	if (st != DP_ECANCELED)
		test_fail(file, line, "export to %s: status %d, want %d", name,
			  (int)st, (int)DP_ECANCELED);
	test_check_file(file, line, path, "old\n");
	snprintf(tmp, sizeof tmp, ".%s", name);
	if (test_count_files(tmp) != 0)
		test_fail(file, line, "a temporary file %s* is left", tmp);
	snprintf(bad, sizeof bad, "/nonexistent-dir/%s", name);
	st = dp_export_write(bad, (dp_export_kind)kind, g, m, plan, NULL, &err);
	if (st == DP_OK || !strstr(err.file, bad))
		test_fail(file, line,
			  "export to %s: status %d, error file '%s'", bad,
			  (int)st, st == DP_OK ? "" : err.file);
}

char *test_export_text(const char *path, int kind, const dp_graph *g,
		       const dp_machine *m, const dp_plan *plan)
{
	if (!test_export(path, kind, g, m, plan))
		return NULL;
	char *text = test_read_file(path, NULL);
	if (!text)
		test_fail(__FILE__, __LINE__, "%s: cannot read it back", path);
	return text;
}

struct Agraph_s *test_dot_of(const char *path, const dp_graph *g,
			     const dp_machine *m, const dp_plan *plan)
{
	if (!test_export(path, DP_EXPORT_DOT, g, m, plan))
		return NULL;
	struct Agraph_s *G = test_read_dot(path);
	if (!G)
		test_fail(__FILE__, __LINE__, "%s: cgraph cannot read it",
			  path);
	return G;
}

void test_check_placement(const char *file, int line, const int32_t *got,
			  const int32_t *want, int n)
{
	for (int i = 0; i < n; i++)
		if (got[i] != want[i])
			test_fail(file, line, "op%d on device %d, want %d", i,
				  got[i], want[i]);
}

void test_check_totals(const char *file, int line, const dp_graph *g,
		       uint32_t nops, uint32_t nedges, double time_us,
		       double eps, int64_t param_bytes, uint32_t ngroups)
{
	if (g->nops != nops || g->nedges != nedges)
		test_fail(file, line, "%u ops and %u edges, want %u and %u",
			  g->nops, g->nedges, nops, nedges);
	if (!(g->total_time_us - time_us <= eps &&
	      time_us - g->total_time_us <= eps))
		test_fail(file, line, "total time %.9g us, want %.9g (+-%g)",
			  g->total_time_us, time_us, eps);
	if (g->total_param_bytes != param_bytes)
		test_fail(file, line, "total params %lld bytes, want %lld",
			  (long long)g->total_param_bytes,
			  (long long)param_bytes);
	if (g->ngroups != ngroups)
		test_fail(file, line, "%u colocation groups, want %u",
			  g->ngroups, ngroups);
}

void test_check_input_error(const char *file, int line, dp_status st,
			    const dp_err *err, const char *path,
			    const test_bad_input *want, bool prefix)
{
	bool msg_ok =
		prefix ? strncmp(err->msg, want->msg, strlen(want->msg)) == 0
		       : strstr(err->msg, want->msg) != NULL;
	if (st != DP_EINPUT || err->code != DP_EINPUT ||
	    strcmp(err->file, path) != 0 || err->line != want->line ||
	    (want->col >= 0 && err->col != want->col) || !msg_ok)
		test_fail(file, line,
			  "status %d: got %s:%d:%d: %s; want %s:%d:%d: %s%s",
			  (int)st, err->file, err->line, err->col, err->msg,
			  path, want->line, want->col, prefix ? "" : "...",
			  want->msg);
}

void test_check_load_fails(const char *file, int line, dp_graph *g,
			   const dp_err *err, const char *path,
			   const test_bad_input *want)
{
	if (g) {
		test_fail(file, line, "%s loaded; want an error", path);
		dp_graph_free(g);
		return;
	}
	test_check_input_error(file, line, err->code, err, path, want, false);
}

void test_check_bad_files(const char *file, int line, const char *dir,
			  const test_bad_input *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char path[512];
		snprintf(path, sizeof path, "%s%s", dir, cases[i].file);
		dp_graph *g = NULL;
		dp_err err;
		dp_err_clear(&err);
		dp_status st = dp_graph_load(path, DP_FMT_AUTO, &g, &err);
		if (g) {
			test_fail(file, line, "%s loaded; want an error", path);
			dp_graph_free(g);
			continue;
		}
		test_check_input_error(file, line, st, &err, path, &cases[i],
				       true);
	}
}

test_bad_input *test_read_bad_inputs(const char *path, size_t *n, char **text)
{
	*n = 0;
	*text = test_read_file(path, NULL);
	size_t cap = 1;
	for (const char *c = *text; c && *c; c++)
		cap += *c == '\n';
	test_bad_input *cases = *text ? calloc(cap, sizeof *cases) : NULL;
	if (!cases) {
		test_fail(path, 0, "cannot read it");
		free(*text);
		*text = NULL;
		return NULL;
	}
	int line = 0;
	for (char *l = *text, *next; l && *l; l = next) {
		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		line++;
		if (l[0] == '#' || !l[0])
			continue;
		test_bad_input *c = &cases[*n];
		char *sp = strchr(l, ' ');
		int used = 0;
		if (!sp ||
		    sscanf(sp, " %d %d %n", &c->line, &c->col, &used) < 2 ||
		    !used) {
			test_fail(path, line, "expected FILE LINE COL MESSAGE");
			free(cases);
			free(*text);
			*text = NULL;
			return NULL;
		}
		*sp = '\0';
		c->file = l;
		c->msg = sp + used;
		(*n)++;
	}
	return cases;
}

void test_check_bad_cases(const char *file, int line, const char *dir,
			  const char *table, size_t n)
{
	size_t got;
	char *text;
	test_bad_input *cases = test_read_bad_inputs(table, &got, &text);
	if (!cases)
		return;
	if (got != n)
		test_fail(file, line, "%s: %zu cases, want %zu", table, got, n);
	test_check_bad_files(file, line, dir, cases, got);
	free(cases);
	free(text);
}

void test_check_hint(const char *file, int line, const dp_graph *g, int devices,
		     int64_t memory_bytes, double bw, double lat)
{
	const dp_machine_hint *h = &g->hint;
	double dbw = h->bw_bytes_per_us - bw;
	if (h->devices != devices || h->memory_bytes != memory_bytes ||
	    dbw > 1e-9 || dbw < -1e-9 || h->lat_us != lat)
		test_fail(file, line,
			  "machine %d x %lld bytes, %.9g bytes/us, %.9g us; "
			  "want %d x %lld, %.9g, %.9g",
			  h->devices, (long long)h->memory_bytes,
			  h->bw_bytes_per_us, h->lat_us, devices,
			  (long long)memory_bytes, bw, lat);
}

void test_check_strategy_canceled(const char *file, int line, const dp_algo *a,
				  const dp_graph *g, const dp_machine *m)
{
	atomic_int cancel = 1;
	dp_progress p = {.cancel = &cancel};
	dp_strategy s;
	dp_strategy_init(&s);
	dp_err err;
	dp_err_clear(&err);
	dp_status st = a->strategize(g, m, NULL, &p, &s, &err);
	char want[128];
	snprintf(want, sizeof want, "%s: canceled", a->name);
	if (st != DP_ECANCELED || strcmp(err.msg, want) != 0)
		test_fail(file, line,
			  "%s with a raised cancel flag: status %d, \"%s\"; "
			  "want %d, \"%s\"",
			  a->name, (int)st, err.msg, (int)DP_ECANCELED, want);
	dp_strategy_free(&s);
}

int64_t test_cross_bytes(const dp_lowered *l)
{
	int64_t sum = 0;
	for (uint32_t e = 0; e < l->g->nedges; e++) {
		const dp_edge *ed = &l->g->edges[e];
		if (!ed->control &&
		    l->placement[ed->from] != l->placement[ed->to])
			sum += ed->bytes;
	}
	return sum;
}

static bool same_device_stats(const dp_device_stats *x,
			      const dp_device_stats *y)
{
	return x->ops == y->ops && x->busy_us == y->busy_us &&
	       x->comm_in_bytes == y->comm_in_bytes &&
	       x->comm_out_bytes == y->comm_out_bytes &&
	       x->comm_in_us == y->comm_in_us &&
	       x->comm_out_us == y->comm_out_us && x->xfers_in == y->xfers_in &&
	       x->xfers_out == y->xfers_out &&
	       x->param_bytes == y->param_bytes && x->cap_bytes == y->cap_bytes;
}

bool test_sim_same_schedule(const dp_sim_result *a, const dp_sim_result *b)
{
	if (a->nops != b->nops || a->k != b->k || a->nxfers != b->nxfers ||
	    a->makespan != b->makespan || a->cut_bytes != b->cut_bytes ||
	    a->cut_edges != b->cut_edges)
		return false;
	for (uint32_t u = 0; u < a->nops; u++)
		if (a->start[u] != b->start[u] || a->end[u] != b->end[u] ||
		    a->avail[u] != b->avail[u])
			return false;
	for (uint32_t i = 0; i < a->nxfers; i++) {
		const dp_transfer *x = &a->xfers[i], *y = &b->xfers[i];
		if (x->op != y->op || x->src != y->src || x->dst != y->dst ||
		    x->bytes != y->bytes || x->start != y->start ||
		    x->end != y->end)
			return false;
	}
	for (int d = 0; d < a->k; d++)
		if (!same_device_stats(&a->dev[d], &b->dev[d]))
			return false;
	return true;
}

bool test_sim_same_peaks(const dp_sim_result *a, const dp_sim_result *b)
{
	if (a->feasible != b->feasible || a->has_memory != b->has_memory)
		return false;
	for (int d = 0; d < a->k; d++)
		if (a->dev[d].peak_bytes != b->dev[d].peak_bytes ||
		    a->dev[d].peak_time != b->dev[d].peak_time)
			return false;
	return true;
}

bool test_sim_same_path(const dp_sim_result *a, const dp_sim_result *b)
{
	if (a->cp_len != b->cp_len)
		return false;
	for (uint32_t i = 0; i < a->cp_len; i++)
		if (a->cp_ops[i] != b->cp_ops[i] ||
		    a->cp_cause[i] != b->cp_cause[i])
			return false;
	return true;
}

/* The k + 1 offsets of a per-device list agree. */
static bool same_offsets(const uint32_t *x, const uint32_t *y, int k)
{
	return memcmp(x, y, ((size_t)k + 1) * sizeof *x) == 0;
}

bool test_sim_same_live(const dp_sim_result *a, const dp_sim_result *b)
{
	if (!same_offsets(a->live_off, b->live_off, a->k))
		return false;
	for (uint32_t i = 0; i < a->live_off[a->k]; i++) {
		const dp_live_tensor *x = &a->live[i], *y = &b->live[i];
		if (x->op != y->op || x->kind != y->kind ||
		    x->bytes != y->bytes || x->alloc != y->alloc ||
		    x->free != y->free)
			return false;
	}
	return true;
}

bool test_sim_same_curves(const dp_sim_result *a, const dp_sim_result *b)
{
	if (!same_offsets(a->curve_off, b->curve_off, a->k))
		return false;
	for (uint32_t i = 0; i < a->curve_off[a->k]; i++)
		if (a->curve[i].t != b->curve[i].t ||
		    a->curve[i].bytes != b->curve[i].bytes)
			return false;
	return true;
}

bool test_placement_valid(const dp_graph *g, const dp_machine *m,
			  const int32_t *pl)
{
	bool ok = true;
	for (uint32_t u = 0; u < g->nops; u++) {
		if (pl[u] < 0 || pl[u] >= m->k) {
			test_fail(__FILE__, __LINE__, "op %u on device %d", u,
				  pl[u]);
			return false;
		}
		if (g->ops[u].pin >= 0 && pl[u] != g->ops[u].pin) {
			test_fail(__FILE__, __LINE__,
				  "op %u pinned to %d placed on %d", u,
				  g->ops[u].pin, pl[u]);
			ok = false;
		}
	}
	for (uint32_t c = 0; c < g->ngroups; c++)
		for (uint32_t i = g->group_off[c] + 1; i < g->group_off[c + 1];
		     i++)
			if (pl[g->group_ops[i]] != pl[g->group_ops[i - 1]]) {
				test_fail(__FILE__, __LINE__,
					  "colocation group %u split", c);
				return false;
			}
	return ok;
}

double test_simulate_strategy(const dp_graph *g, const dp_machine *m,
			      const dp_strategy *s, dp_contention c, bool *fits)
{
	dp_err err;
	dp_lowered l;
	memset(&l, 0, sizeof l);
	if (dp_strategy_lower(g, m, s, NULL, &l, &err)) {
		test_fail(__FILE__, __LINE__, "lower: %s", err.msg);
		return -1;
	}
	dp_sim *sim = dp_sim_new(l.g, m, &err);
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	dp_sim_opts so;
	memset(&so, 0, sizeof so);
	so.contention = c;
	double t = -1;
	if (sim && !dp_sim_run(sim, l.placement, &so, &r, &err)) {
		t = r.makespan;
		*fits = r.feasible;
	}
	dp_sim_result_free(&r);
	dp_sim_free(sim);
	dp_lowered_free(&l);
	return t;
}

bool test_spmd_strategy(const dp_graph *g, int p, dp_strategy *s)
{
	dp_err err;
	dp_strategy_init(s);
	if (dp_strategy_alloc(s, DP_STRAT_SPMD, g, 0, &err))
		return false;
	s->k = p;
	s->spmd.naxes = 1;
	s->spmd.mesh[0] = p;
	return true;
}

dp_graph *test_spmd_load(const char *path, int p, dp_strategy *s)
{
	dp_graph *g = test_load_ok(path);
	if (g && !test_spmd_strategy(g, p, s)) {
		test_fail(__FILE__, __LINE__, "no spmd strategy of %s", path);
		dp_graph_free(g);
		g = NULL;
	}
	return g;
}

void test_spmd_split(const dp_graph *g, dp_strategy *s, const char *op,
		     const char *dim, uint8_t mask)
{
	uint32_t u = dp_graph_find(g, op);
	int i = dp_op_find_dim(g, u, dim);
	if (u == UINT32_MAX || i < 0) {
		test_fail(__FILE__, __LINE__, "no %s.%s", op, dim);
		return;
	}
	s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS + (uint32_t)i] = mask;
}

bool test_simulate_lowered(const dp_lowered *l, int k, dp_sim_result *r)
{
	dp_machine m;
	dp_err err;
	memset(r, 0, sizeof *r);
	if (dp_machine_init(&m, k, &err))
		return false;
	dp_sim *sim = dp_sim_new(l->g, &m, &err);
	bool ok = sim && dp_sim_run(sim, l->placement, NULL, r, &err) == DP_OK;
	if (!ok)
		test_fail(__FILE__, __LINE__, "sim: %s", err.msg);
	dp_sim_free(sim);
	dp_machine_free(&m);
	return ok;
}

bool test_lower(const dp_graph *g, const dp_strategy *s, int k, dp_lowered *l)
{
	dp_machine m;
	dp_err err;
	dp_err_clear(&err);
	if (dp_machine_init(&m, k, &err))
		return false;
	m.kernel_us = 0; /* the lowering's shares as they are (the kernel
			    overhead: test_kernel_overhead.c) */
	dp_status st = dp_strategy_lower(g, &m, s, NULL, l, &err);
	dp_machine_free(&m);
	if (st)
		test_fail(__FILE__, __LINE__, "lower: %s", err.msg);
	return st == DP_OK;
}

void test_check_comm_each(const char *file, int line, const dp_lowered *l,
			  int k, int64_t bytes)
{
	dp_sim_result r;
	if (!test_simulate_lowered(l, k, &r))
		return;
	for (int d = 0; d < k; d++)
		if (r.dev[d].comm_out_bytes != bytes ||
		    r.dev[d].comm_in_bytes != bytes)
			test_fail(
				file, line,
				"device %d sends %lld and receives %lld bytes, "
				"want %lld each",
				d, (long long)r.dev[d].comm_out_bytes,
				(long long)r.dev[d].comm_in_bytes,
				(long long)bytes);
	dp_sim_result_free(&r);
}

dp_status test_best_placements(const dp_graph *g, const dp_machine *m,
			       const dp_algo_opts *o, dp_plan *plan,
			       dp_err *err)
{
	dp_algo_opts mine;
	if (o)
		mine = *o;
	else
		dp_algo_opts_default(&mine);
	mine.placements_only = true;
	return dp_plan_run(g, m, dp_algo_find("best"), &mine, NULL, plan, err);
}
