/* bench_pasemodel.c - pase's cost model against the simulator (issue 13):
 * for each graph, K and batch, the search's own choice (the elimination
 * search, as pase runs it before its safeguard) and data parallelism's
 * configurations, each priced by the model (pase_model.c) and lowered and
 * simulated with port contention, split by component.
 *
 *   build/bench/bench_pasemodel [--md] [GRAPH@bB:K ...]
 *
 * Default cases: gpt2-small, bert-large and gpt2-xl at K=4 and 8 (batch 8)
 * and 16 (batch 16), and gpt2-xl at batch 1 on 16 devices (the rows of
 * bench/pase_goals.py without caps). Per choice it prints, in ms:
 *   model     the model's total (dpi_pase_total) and its parts: compute
 *             (node costs: shard times, and an update's weight all-gather
 *             when it is split), reshard (edges out of non-grad ops), grad
 *             (edges out of grad ops: the weight gradients' all-reduce)
 *   sim       the simulated step, port contention (what pase_guard
 *             compares); none: the same without contention; busy: the
 *             busiest device's compute; send: the busiest send port's
 *             summed transfer time; path, xfer, wait: the schedule's
 *             critical path split into compute, transfers and the time
 *             its transfers waited for a port
 *   ratio     model / sim
 * With --md, markdown rows for docs/benchmarks.md. bench/pase_model.sh runs
 * it. A standalone tool (make bench builds it); it times nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"
#include "dnnpart/strategy.h"
#include "internal/pase.h"

static const char *const default_cases[] = {
	"gpt2-small@b8:4", "gpt2-small@b8:8", "gpt2-small@b16:16",
	"bert-large@b8:4", "bert-large@b8:8", "bert-large@b16:16",
	"gpt2-xl@b8:4",	   "gpt2-xl@b8:8",    "gpt2-xl@b16:16",
	"gpt2-xl@b1:16",
};

typedef struct parts {
	double total, compute, reshard, grad;
} parts;

typedef struct simmed {
	double port, none, busy, send;
	/* the schedule's critical path: compute, transfers' own time, their
	 * wait for a port */
	double cp_op, cp_xfer, cp_wait;
} simmed;

static int fail(const char *what, const dp_err *err)
{
	char msg[1200];
	fprintf(stderr, "bench_pasemodel: %s: %s\n", what,
		dp_err_format(err, msg, sizeof msg));
	return 1;
}

static void model_parts(const dpi_pase_model *pm, const uint32_t *ch, parts *p)
{
	const dp_graph *g = pm->g;
	memset(p, 0, sizeof *p);
	for (uint32_t u = 0; u < g->nops; u++)
		p->compute += pm->node[ch[u]];
	for (uint32_t e = 0; e < g->nedges; e++) {
		const dp_edge *ed = &g->edges[e];
		double c = dpi_pase_edge_cost(pm, e, ch[ed->from], ch[ed->to]);
		if (dp_op_role(g, ed->from) == DP_ROLE_GRAD)
			p->grad += c;
		else
			p->reshard += c;
	}
	p->total = dpi_pase_total(pm, ch);
}

/* The critical path of a simulated schedule, by part. */
static void path_parts(const dp_lowered *l, const dp_sim_result *res, simmed *r)
{
	for (uint32_t i = 0; i < res->cp_len; i++) {
		uint32_t v = res->cp_ops[i];
		r->cp_op += res->end[v] - res->start[v];
		if (i == 0 || res->cp_cause[i] != DP_HOP_TRANSFER)
			continue;
		uint32_t u = res->cp_ops[i - 1];
		for (uint32_t x = 0; x < res->nxfers; x++) {
			const dp_transfer *t = &res->xfers[x];
			if (t->op == u && t->dst == l->placement[v]) {
				r->cp_xfer += t->end - t->start;
				r->cp_wait += t->start - res->end[u];
				break;
			}
		}
	}
}

static dp_status sim_parts(const dpi_pase_model *pm, const uint32_t *ch,
			   simmed *r, dp_err *err)
{
	dp_lowered l;
	memset(&l, 0, sizeof l);
	dp_strategy s;
	dp_status st = dpi_pase_fill(pm, ch, &s, err);
	if (!st)
		st = dp_strategy_lower(pm->g, pm->m, &s, NULL, &l, err);
	dp_strategy_free(&s);
	dp_sim *sim = st ? NULL : dp_sim_new(l.g, pm->m, err);
	if (!sim) {
		dp_lowered_free(&l);
		return st ? st : DP_ENOMEM;
	}
	memset(r, 0, sizeof *r);
	for (int c = 0; !st && c < 2; c++) {
		dp_sim_result res;
		memset(&res, 0, sizeof res);
		dp_sim_opts o = {.contention = c ? DP_CONT_NONE : DP_CONT_PORT,
				 .skip_memory = true,
				 .detail = c == 0,
				 .skip_live = true,
				 .skip_curves = true};
		st = dp_sim_run(sim, l.placement, &o, &res, err);
		if (!st && c == 0) {
			r->port = res.makespan;
			path_parts(&l, &res, r);
			for (int d = 0; d < res.k; d++) {
				if (res.dev[d].busy_us > r->busy)
					r->busy = res.dev[d].busy_us;
				if (res.dev[d].comm_out_us > r->send)
					r->send = res.dev[d].comm_out_us;
			}
		} else if (!st) {
			r->none = res.makespan;
		}
		dp_sim_result_free(&res);
	}
	dp_sim_free(sim);
	dp_lowered_free(&l);
	return st;
}

static void row(bool md, const char *name, int k, long long batch,
		const char *which, const parts *p, const simmed *s)
{
	const char *fmt =
		md ? "| %s | %d | %lld | %s | %.0f | %.0f | %.0f | %.0f | "
		     "%.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f |\n"
		   : "%-10s K=%-2d b=%-2lld %-6s model %9.0f (compute %9.0f "
		     "reshard %9.0f grad %9.0f)  sim %9.0f (none %9.0f busy "
		     "%9.0f send %9.0f path %9.0f xfer %9.0f wait %9.0f)  "
		     "ratio %.2f\n";
	printf(fmt, name, k, batch, which, p->total / 1000, p->compute / 1000,
	       p->reshard / 1000, p->grad / 1000, s->port / 1000,
	       s->none / 1000, s->busy / 1000, s->send / 1000, s->cp_op / 1000,
	       s->cp_xfer / 1000, s->cp_wait / 1000, p->total / s->port);
	fflush(stdout);
}

static int run_case(const char *spec, bool md)
{
	char name[256], path[512];
	long long batch = 0;
	int k = 0;
	if (sscanf(spec, "%255[^@]@b%lld:%d", name, &batch, &k) != 3 || k < 1) {
		fprintf(stderr, "bench_pasemodel: %s: expected GRAPH@bB:K\n",
			spec);
		return 2;
	}
	snprintf(path, sizeof path, "sample_graphs/%s.json", name);
	dp_err err;
	dp_graph *g0 = NULL, *g = NULL;
	if (dp_graph_load(path, DP_FMT_AUTO, &g0, &err))
		return fail(path, &err);
	dp_status st = dp_graph_with_batch(g0, batch, &g, &err);
	dp_graph_free(g0);
	if (st)
		return fail(path, &err);
	dp_machine m;
	if (dp_machine_init(&m, k, &err)) {
		dp_graph_free(g);
		return fail("machine", &err);
	}
	dpi_pase_model pm;
	st = dpi_pase_model_build(&pm, g, &m, NULL, &err);
	uint32_t *ch = malloc((g->nops + 1u) * sizeof *ch);
	uint32_t *dp = malloc((g->nops + 1u) * sizeof *dp);
	if (!st && (!ch || !dp))
		st = dp_err_set(&err, DP_ENOMEM, NULL, 0, 0, "out of memory");
	double cost = 0;
	uint32_t fixed = 0;
	bool solved = false;
	if (!st)
		st = dpi_pase_solve_best(&pm, NULL, 0, ch, &cost, &fixed,
					 &solved, &err);
	if (!st && !solved)
		st = dpi_pase_solve_window(&pm, NULL, 0, ch, &cost, &fixed,
					   &err);
	for (uint32_t u = 0; !st && u < g->nops; u++)
		dp[u] = dpi_pase_dp_config(&pm, u);
	for (int c = 0; !st && c < 2; c++) {
		parts p;
		simmed s;
		model_parts(&pm, c ? dp : ch, &p);
		st = sim_parts(&pm, c ? dp : ch, &s, &err);
		if (!st)
			row(md, name, k, batch, c ? "dp" : "search", &p, &s);
	}
	int rc = st ? fail(spec, &err) : 0;
	free(ch);
	free(dp);
	dpi_pase_model_free(&pm);
	dp_machine_free(&m);
	dp_graph_free(g);
	return rc;
}

int main(int argc, char **argv)
{
	bool md = false;
	int first = 1;
	if (argc > 1 && strcmp(argv[1], "--md") == 0) {
		md = true;
		first = 2;
	}
	if (md)
		printf("| graph | K | batch | choice | model ms | compute | "
		       "reshard | grad | simulated ms | no contention | "
		       "busiest device | busiest send port | path: compute | "
		       "path: transfers | path: port waits | model / "
		       "simulated |\n|---|---|---|---|---|---|---|---|---|---"
		       "|---|---|---|---|---|---|\n");
	int rc = 0;
	if (first >= argc) {
		for (size_t i = 0;
		     i < sizeof default_cases / sizeof default_cases[0]; i++)
			rc |= run_case(default_cases[i], md);
	} else {
		for (int i = first; i < argc; i++)
			rc |= run_case(argv[i], md);
	}
	return rc;
}
