/* cmd_eval.c - `dnnpart eval GRAPH PLACEMENT`: simulate a placement made
 * elsewhere (a dnnpart placement JSON or a ParDNN .place file) on the
 * machine the options describe, and print the same report as `plan`.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dnnpart/placement.h"

void cmd_eval_help(FILE *out)
{
	fprintf(out,
		"usage: dnnpart eval GRAPH PLACEMENT [-k K] [--mem CAPS] "
		"[--speed S]\n"
		"                    [--link PRESET | --bw BW --lat LAT] "
		"[--contention port|none]\n"
		"                    [--json] [--strict] [--format F]\n"
		"\n"
		"Simulates PLACEMENT (a dnnpart placement .json or a ParDNN "
		".place file with\n"
		"'name device' lines) and prints the makespan, lower bound, "
		"per-device load,\n"
		"memory peak against the cap, communication and the "
		"schedule's critical path.\n"
		"Ops the placement leaves out go to the device of their "
		"heaviest placed\n"
		"neighbour, with a warning that counts them. Without -k, K is "
		"what a placement\n"
		"JSON states (\"devices\"), else the graph file's machine "
		"block, else the\n"
		"number of devices the placement uses.\n"
		"\n");
	cli_help_machine_opts(out);
	fprintf(out,
		"output:\n"
		"  --json             print one JSON object instead of the "
		"table\n"
		"  --strict           exit 1 when a device is over its cap\n"
		"  -h, --help         this text\n");
}

int cmd_eval_run(int argc, char **argv)
{
	cli_opts o;
	cli_opts_init(&o);
	const char *place_path = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--strict")) {
			o.strict = true;
			continue;
		}
		int r = cli_parse_common("eval", argc, argv, &i, &o);
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		if (cli_take_graph_placement("eval", a, &o, &place_path))
			return 2;
	}
	if (cli_require_graph_placement("eval", &o, place_path) ||
	    cli_refuse_planning_opts("eval", &o, true))
		return 2;

	dp_graph *g;
	int rc = cli_load_graph(&o, &g);
	if (rc)
		return rc;
	dp_machine m;
	dp_plan plan;
	if ((rc = cli_eval_placement(&o, g, place_path, &m, &plan, NULL))) {
		dp_graph_free(g);
		return rc;
	}
	if (o.json)
		cli_print_plan_json(stdout, g, &m, &plan, NULL);
	else
		cli_print_plan(stdout, g, &m, &plan);
	if (!o.json && o.objective == DP_OBJ_THROUGHPUT)
		cli_print_max_load(stdout, &plan);
	rc = o.strict && !plan.feasible ? 1 : 0;
	dp_plan_free(&plan);
	dp_machine_free(&m);
	dp_graph_free(g);
	return rc;
}
