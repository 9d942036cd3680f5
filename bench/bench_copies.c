/* bench_copies.c - placement quality on N independent copies of a real
 * network (issue 15): the lower bound is within reach there (each copy on
 * its own device group), so an algorithm that misses the parallelism
 * between independent branches shows it plainly.
 *
 *   build/bench/bench_copies [--md] [GRAPH ...]
 *
 * For each graph (default: the sample graphs resnet50, inception-v3 and
 * gpt2-small, and the ParDNN authors' ResNet where
 * ../shared/benchmarks/pardnn-resnet holds it: it states no licence, so it
 * is not in the repository, and a default graph that is not there is
 * skipped, saying so) and N in {2, 4}:
 * a graph of N copies (ops renamed cI/NAME, colocation groups and pins
 * copied per copy), planned on K = N and K = 2N devices, link pardnn, port
 * contention, no cap, by every placement algorithm that compare runs, and
 * best. Printed: the makespan of each (ms) and its xLB (makespan / max(graph
 * critical path, work / K)); with --md, markdown rows for
 * docs/benchmarks.md. A standalone tool (make bench builds it): it times
 * nothing but the planning, which it reports for pardnn and best.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnnpart/algo.h"
#include "dnnpart/graph.h"
#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"

#define MAX_ALGOS 16

static const char *const default_graphs[] = {
	"sample_graphs/resnet50.json",
	"sample_graphs/inception-v3.json",
	"sample_graphs/gpt2-small.json",
	"../shared/benchmarks/pardnn-resnet",
};

static int fail(const char *what, const dp_err *err)
{
	char msg[1200];
	fprintf(stderr, "bench_copies: %s: %s\n", what,
		dp_err_format(err, msg, sizeof msg));
	return 1;
}

/* N copies of g into *out (finalized). */
static dp_status copies(const dp_graph *g, int n, dp_graph **out, dp_err *err)
{
	char name[600];
	snprintf(name, sizeof name, "%d x %s", n, g->name ? g->name : "graph");
	dp_graph *c = dp_graph_new(name);
	if (!c)
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0, "out of memory");
	dp_status st = DP_OK;
	for (int i = 0; !st && i < n; i++) {
		uint32_t base = c->nops;
		for (uint32_t u = 0; !st && u < g->nops; u++) {
			const dp_op *op = &g->ops[u];
			uint32_t id;
			snprintf(name, sizeof name, "c%d/%s", i,
				 dp_graph_op_name(g, u));
			if ((st = dp_graph_add_op(c, name, &id, err)))
				break;
			c->ops[id].time_us = op->time_us;
			c->ops[id].output_bytes = op->output_bytes;
			c->ops[id].param_bytes = op->param_bytes;
			c->ops[id].temp_bytes = op->temp_bytes;
			c->ops[id].pin = op->pin;
			if (op->colocate >= 0) {
				snprintf(name, sizeof name, "c%d/group%d", i,
					 op->colocate);
				st = dp_graph_set_colocate(c, id, name, err);
			}
		}
		for (uint32_t e = 0; !st && e < g->nedges; e++) {
			const dp_edge *ed = &g->edges[e];
			st = dp_graph_add_edge(
				c, base + ed->from, base + ed->to,
				ed->control ? 0 : ed->bytes, ed->control, err);
		}
	}
	if (!st)
		st = dp_graph_finalize(c, err);
	if (st)
		dp_graph_free(c);
	else
		*out = c;
	return st;
}

static int run_case(const dp_graph *g, int n, int k, bool md)
{
	dp_err err;
	dp_machine m;
	if (dp_machine_init(&m, k, &err) ||
	    dp_machine_set_link(&m, "pardnn", &err))
		return fail("machine", &err);
	size_t na;
	const dp_algo *const *all = dp_algo_compared(&na);
	const dp_algo *algos[MAX_ALGOS];
	int nalg = 0;
	for (size_t i = 0; i < na && nalg < MAX_ALGOS - 1; i++)
		if (all[i]->run && strcmp(all[i]->name, "msr-dp") != 0)
			algos[nalg++] = all[i];
	algos[nalg++] = dp_algo_find("best");
	double ms[MAX_ALGOS], xlb[MAX_ALGOS], plan_ms[MAX_ALGOS];
	double lb = 0, bestms = 0;
	for (int a = 0; a < nalg; a++) {
		dp_algo_opts o;
		dp_algo_opts_default(&o);
		dp_plan p;
		memset(&p, 0, sizeof p);
		ms[a] = -1;
		if (dp_plan_run(g, &m, algos[a], &o, NULL, &p, &err) == DP_OK) {
			ms[a] = p.sim.makespan / 1000;
			xlb[a] = p.xlb;
			lb = ms[a] / p.xlb;
			plan_ms[a] = p.plan_ms;
			if (bestms <= 0 || ms[a] < bestms)
				bestms = ms[a];
		}
		dp_plan_free(&p);
	}
	if (md) {
		printf("| %s | %d | %.1f |", g->name, k, lb);
		for (int a = 0; a < nalg; a++) {
			if (ms[a] < 0)
				printf(" - |");
			else
				printf(ms[a] <= bestms * (1 + 1e-9)
					       ? " **%.1f** (%.3f) |"
					       : " %.1f (%.3f) |",
				       ms[a], xlb[a]);
		}
		printf("\n");
	} else {
		printf("%s, K=%d (N=%d), LB %.3f ms\n", g->name, k, n, lb);
		for (int a = 0; a < nalg; a++)
			if (ms[a] < 0)
				printf("  %-8s failed\n", algos[a]->name);
			else
				printf("  %-8s %10.3f ms  xLB %.4f  %8.1f ms "
				       "planning\n",
				       algos[a]->name, ms[a], xlb[a],
				       plan_ms[a]);
	}
	dp_machine_free(&m);
	return 0;
}

int main(int argc, char **argv)
{
	bool md = argc > 1 && strcmp(argv[1], "--md") == 0;
	int first = md ? 2 : 1;
	const char *const *paths = (const char *const *)argv + first;
	int np = argc - first;
	if (np == 0) {
		paths = default_graphs;
		np = (int)(sizeof default_graphs / sizeof *default_graphs);
	}
	if (md) {
		size_t na;
		const dp_algo *const *all = dp_algo_compared(&na);
		printf("| graph | K | LB ms |");
		for (size_t i = 0; i < na; i++)
			if (all[i]->run && strcmp(all[i]->name, "msr-dp") != 0)
				printf(" %s |", all[i]->name);
		printf(" best |\n|---|---|---|");
		for (size_t i = 0; i < na; i++)
			if (all[i]->run && strcmp(all[i]->name, "msr-dp") != 0)
				printf("---|");
		printf("---|\n");
	}
	int rc = 0;
	for (int i = 0; i < np; i++) {
		dp_graph *g = NULL, *c = NULL;
		dp_err err;
		if (paths == default_graphs && access(paths[i], R_OK) != 0) {
			printf("(%s not present: skipped)\n", paths[i]);
			continue;
		}
		if (dp_graph_load(paths[i], DP_FMT_AUTO, &g, &err)) {
			rc |= fail(paths[i], &err);
			continue;
		}
		for (int n = 2; n <= 4; n *= 2) {
			if (copies(g, n, &c, &err)) {
				rc |= fail(paths[i], &err);
				break;
			}
			rc |= run_case(c, n, n, md);
			rc |= run_case(c, n, 2 * n, md);
			dp_graph_free(c);
		}
		dp_graph_free(g);
	}
	return rc;
}
