/* cli_eval.c - a placement file priced on a graph, for eval and export
 * (see cli_eval_placement in cli.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dnnpart/placement.h"
#include "dnnpart/strategy.h"

/* Reads path's placement for g into pl and warns about what it left out. */
static int read_placement(const char *path, const dp_graph *g, int32_t *pl,
			  dp_placement_info *info)
{
	dp_err err;
	dp_err_clear(&err);
	memset(info, 0, sizeof *info);
	if (dp_placement_read(path, g, pl, info, &err))
		return cli_error(&err);
	if (info->omitted)
		fprintf(stderr,
			"dnnpart: warning: %s leaves out %u of the %u ops; "
			"each was put on the device of its heaviest placed "
			"neighbour\n",
			path, info->omitted, g->nops);
	if (info->cpu_pinned)
		fprintf(stderr,
			"dnnpart: warning: %s puts %u op%s on the CPU (device "
			"-1); placed like left-out ops\n",
			path, info->cpu_pinned,
			info->cpu_pinned == 1 ? "" : "s");
	return 0;
}

/* Every op's device must be one of m's. */
static int check_devices(const char *path, const dp_graph *g,
			 const dp_machine *m, const int32_t *pl)
{
	for (uint32_t u = 0; u < g->nops; u++)
		if (pl[u] >= m->k) {
			fprintf(stderr,
				"dnnpart: %s: op '%s' is placed on device %d, "
				"but the machine has %d device%s (set -k to at "
				"least %d)\n",
				path, dp_graph_op_name(g, u), pl[u], m->k,
				m->k == 1 ? "" : "s", pl[u] + 1);
			return 2;
		}
	return 0;
}

/* A strategy file priced on g: lowered and simulated; made_by (NULL, or
 * sizeof plan->algo bytes) gets the algorithm that made it. */
static int eval_strategy(cli_opts *o, const dp_graph *g, const char *path,
			 dp_machine *m, dp_plan *plan, char *made_by)
{
	if (made_by)
		made_by[0] = '\0';
	dp_err err;
	dp_err_clear(&err);
	dp_strategy s;
	dp_strategy_init(&s);
	if (dp_strategy_read(path, g, NULL, &s, &err))
		return cli_error(&err);
	/* --schedule re-prices a pipeline in the other order; its label
	 * ("gpipe S=4 M=8") names the new one */
	if (o->schedule >= 0 && s.kind != DP_STRAT_PIPELINE) {
		fprintf(stderr,
			"dnnpart: --schedule: %s is a%s %s strategy, not a "
			"pipeline\n",
			path, s.kind == DP_STRAT_PLACEMENT ? "" : "n",
			dp_strategy_kind_name(s.kind));
		dp_strategy_free(&s);
		return 2;
	}
	if (o->schedule >= 0 && s.pipe.virtual_stages > 1 &&
	    dp_schedule_is_async((dp_schedule)o->schedule)) {
		fprintf(stderr,
			"dnnpart: --schedule %s: %s is an interleaved pipeline "
			"(%d virtual stages), and an asynchronous schedule has "
			"no interleaved form\n",
			dp_schedule_name((dp_schedule)o->schedule), path,
			s.pipe.virtual_stages);
		dp_strategy_free(&s);
		return 2;
	}
	if (o->schedule >= 0) {
		const char *rest = strchr(s.label, ' ');
		char label[sizeof s.label];
		s.pipe.schedule = (dp_schedule)o->schedule;
		size_t n = strlen(s.label);
		if (!strncmp(s.label, "hybrid ", 7)) {
			/* hybrid's label ends in " gpipe" for a GPipe order */
			if (n > 6 && !strcmp(s.label + n - 6, " gpipe"))
				s.label[n -= 6] = '\0';
			if (s.pipe.schedule == DP_SCHED_GPIPE &&
			    n + 7 <= sizeof s.label)
				memcpy(s.label + n, " gpipe", 7);
		} else {
			snprintf(label, sizeof label, "%s%s",
				 dp_schedule_name(s.pipe.schedule),
				 rest ? rest : "");
			memcpy(s.label, label, sizeof label);
		}
	}
	/* K: -k, else what the strategy uses (a strategy file always says),
	 * before the graph's machine block, as for a placement file that
	 * states its devices */
	if (!o->k && s.k > 0)
		o->k = s.k > DP_MAX_DEVICES ? DP_MAX_DEVICES : s.k;
	int rc = cli_make_machine(o, g, m);
	if (!rc) {
		if (dp_plan_evaluate_strategy(g, m, &s, o->contention, NULL,
					      plan, &err))
			rc = cli_error(&err);
		if (rc)
			dp_machine_free(m);
	}
	if (!rc && made_by)
		snprintf(made_by, sizeof plan->algo, "%s", s.algo);
	dp_strategy_free(&s);
	return rc;
}

int cli_eval_placement(cli_opts *o, const dp_graph *g, const char *path,
		       dp_machine *m, dp_plan *plan, char *made_by)
{
	if (dp_strategy_is_file(path))
		return eval_strategy(o, g, path, m, plan, made_by);
	int32_t *pl = malloc(((size_t)g->nops + 1) * sizeof *pl);
	if (!pl) {
		fprintf(stderr,
			"dnnpart: out of memory for a placement of %u ops\n",
			g->nops);
		return 2;
	}
	dp_placement_info info;
	int rc = read_placement(path, g, pl, &info);
	/* said once it has read as one (out of memory, a strategy file is
	 * not recognised as one, and the reader says so) */
	if (!rc && o->schedule >= 0) {
		fprintf(stderr,
			"dnnpart: --schedule: %s is a placement, not a "
			"pipeline strategy\n",
			path);
		rc = 2;
	}
	/* K: -k, else the K a placement file states (the plan was made for
	 * it: `plan -k 4 -o p.json` then `export GRAPH p.json` draws that
	 * plan, whatever the graph's machine block says), else the graph's
	 * machine block, else what the placement uses */
	if (!rc && !o->k && info.devices_stated)
		o->k = info.devices;
	else if (!rc && !o->k && g->hint.devices <= 0 && info.devices > 1)
		o->k = info.devices > DP_MAX_DEVICES ? DP_MAX_DEVICES
						     : info.devices;
	if (!rc && !(rc = cli_make_machine(o, g, m))) {
		dp_err err;
		dp_err_clear(&err);
		rc = check_devices(path, g, m, pl);
		if (!rc &&
		    dp_plan_evaluate(g, m, pl, o->contention, plan, &err))
			rc = cli_error(&err);
		if (rc)
			dp_machine_free(m);
	}
	free(pl);
	if (made_by)
		snprintf(made_by, sizeof plan->algo, "%s",
			 rc ? "" : info.algorithm);
	return rc;
}
