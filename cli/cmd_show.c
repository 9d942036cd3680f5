/* cmd_show.c - `dnnpart show GRAPH --view NAME`: one screen of the explorer
 * as plain text, for reports, scripts and tests. It plans the graph the way
 * the explorer would (same state, same views, same layout) and prints the
 * grid without escape codes.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "grid.h"
#include "screen.h"
#include "state.h"
#include "view.h"
#include "worker.h"

/* The views, wrapped under --view's column: "devices (default), ...". */
static void help_views(FILE *out)
{
	int col = fprintf(out, "  --view NAME        ");
	for (int v = 0; v < VIEW_ALL; v++) {
		const char *key = view_table[v]->key;
		int w = (int)strlen(key) + (v == 0 ? 10 : 0) + 1;
		if (v > 0 && col + w + 1 > 78)
			col = fprintf(out, "\n                     ");
		else if (v > 0)
			col += fprintf(out, " ");
		col += fprintf(out, "%s%s%s", key, v == 0 ? " (default)" : "",
			       v + 1 < VIEW_ALL ? "," : "\n");
	}
}

void cmd_show_help(FILE *out)
{
	fprintf(out,
		"usage: dnnpart show GRAPH [--view NAME] [--width W] "
		"[--height H] [--ascii]\n"
		"                    [-k K] [--mem CAPS] [--algo NAME] "
		"[--device D] [--op NAME]\n"
		"\n"
		"Plans GRAPH and prints one screen of the explorer as plain "
		"text (UTF-8, or\n"
		"ASCII with --ascii), exactly as `dnnpart GRAPH` would show "
		"it.\n"
		"\n");
	help_views(out);
	fprintf(out,
		"  --width W          columns (default 100, at least %d for "
		"the "
		"full screen)\n"
		"  --height H         rows (default 30, at least %d)\n"
		"  --ascii            ASCII stand-ins for block and box "
		"characters\n"
		"  --algo NAME        algorithm: %s\n"
		"  --device D         the selected device (default 0)\n"
		"  --op NAME          the op of the op view (default: the last "
		"op of the\n"
		"                     critical path)\n",
		80, 24, dp_algo_names());
	cli_help_machine_opts(out);
}

/* Runs every algorithm into the Compare table. */
static void compare_done(void *ud, size_t i, dp_run_result *r)
{
	vstate *st = ud;
	if (r->status == DP_OK) {
		state_compare_done(st, (int)i, &r->plan); /* takes the plan */
		memset(&r->plan, 0, sizeof r->plan);
	} else {
		state_compare_failed(st, (int)i, r->msg);
	}
}

static void compare_all(vstate *st)
{
	st->cmp_valid = true;
	const dp_algo **algos =
		malloc((size_t)(st->ncmp ? st->ncmp : 1) * sizeof *algos);
	if (!algos) {
		for (int i = 0; i < st->ncmp; i++)
			state_compare_failed(st, i, "out of memory");
		return;
	}
	for (int i = 0; i < st->ncmp; i++)
		algos[i] = st->cmp[i].algo;
	dp_algo_opts ao;
	dp_algo_opts_default(&ao);
	ao.contention = st->contention;
	dp_run_hooks hooks = {NULL, compare_done, st};
	dp_plan_run_all(st->g, &st->m, algos, (size_t)st->ncmp, &ao, NULL,
			&hooks);
	free(algos);
}

/* Fit's answer for the Fit view, as the explorer's f computes it (on the
 * worker there, here in this thread). */
static void fit_now(vstate *st)
{
	worker_result *r = calloc(1, sizeof *r);
	if (!r) {
		state_status(st, true, "fit search failed: out of memory");
		return;
	}
	dp_algo_opts ao;
	state_algo_opts(st, &ao);
	dp_machine m;
	int dev;
	const dp_graph *g = state_fit_input(st, &m, &dev);
	worker_fit_compute(g, &m, st->algo, &ao, dev, NULL, r);
	if (r->status == DP_OK && r->fit_levers)
		state_fit_search_done(st, st->gen, &r->search);
	else if (r->status == DP_OK)
		state_fit_done(st, st->gen, dev, &r->fit_k, &r->fit_cap);
	else
		state_status(st, true, "fit search failed: %s", r->msg);
	worker_result_free(r);
}

static int show(const cli_opts *o, const dp_algo *algo, int view, long w,
		long h, long dev, const char *opname, bool ascii)
{
	dp_graph *g;
	dp_machine m;
	int rc;
	if ((rc = cli_load_graph_machine(o, &g, &m)))
		return rc;
	if ((rc = cli_check_tp(o, &m, &algo, 1))) {
		dp_machine_free(&m);
		dp_graph_free(g);
		return rc;
	}
	uint32_t op = UINT32_MAX;
	if (opname) {
		op = dp_graph_find(g, opname);
		if (op == UINT32_MAX) {
			fprintf(stderr,
				"dnnpart show: --op: no op named '%s' in "
				"%s\n",
				opname, o->graph_path);
			dp_machine_free(&m);
			dp_graph_free(g);
			return 2;
		}
	}
	vstate st;
	dp_err err;
	dp_err_clear(&err);
	if (state_init(&st, g, &m, algo, o->contention, &err) != DP_OK) {
		dp_machine_free(&m);
		dp_graph_free(g);
		return cli_error(&err);
	}
	dp_machine_free(&m);
	st.microbatches = o->microbatches;
	st.schedule = o->schedule;
	dp_algo_opts ao;
	cli_algo_opts(o, &ao);
	dp_plan p;
	memset(&p, 0, sizeof p);
	if (dp_plan_run(st.g, &st.m, algo, &ao, NULL, &p, &err) != DP_OK) {
		rc = cli_error(&err);
		state_free(&st);
		return rc;
	}
	state_set_plan(&st, &p, st.gen);
	if (!st.plan) { /* state_set_plan could not keep it */
		fprintf(stderr, "dnnpart show: out of memory\n");
		state_free(&st);
		return 2;
	}
	if (dev >= state_ndev(&st)) {
		fprintf(stderr,
			"dnnpart show: --device: %ld is not a device (0..%d)\n",
			dev, state_ndev(&st) - 1);
		state_free(&st);
		return 2;
	}
	st.dev = (int)dev;
	st.view = (view_id)view;
	st.op = op;
	if (op == UINT32_MAX && st.plan->sim.cp_len)
		st.op = st.plan->sim.cp_ops[st.plan->sim.cp_len - 1];
	/* Compare's table, and Why's changes from it */
	if (view == VIEW_COMPARE || view == VIEW_WHY)
		compare_all(&st);
	if (view == VIEW_FIT) /* the search f starts in the explorer */
		fit_now(&st);
	vgrid grid;
	if (grid_init(&grid, (int)w, (int)h) != 0 ||
	    state_prepare(&st) != DP_OK) {
		fprintf(stderr, "dnnpart show: out of memory\n");
		state_free(&st);
		grid_free(&grid);
		return 2;
	}
	screen_draw(&st, &grid);
	char *text = grid_to_text(&grid, ascii);
	rc = 0;
	if (!text || fputs(text, stdout) == EOF || fflush(stdout) != 0) {
		fprintf(stderr, "dnnpart show: cannot write the output\n");
		rc = 2;
	}
	free(text);
	grid_free(&grid);
	state_free(&st);
	return rc;
}

int cmd_show_run(int argc, char **argv)
{
	cli_opts o;
	cli_opts_init(&o);
	const dp_algo *algo = dp_algo_default();
	int view = VIEW_DEVICES;
	long w = 100, h = 30, dev = 0;
	const char *opname = NULL;
	bool ascii = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int r = cli_parse_common("show", argc, argv, &i, &o);
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		if (!strcmp(a, "--ascii")) {
			ascii = true;
			continue;
		}
		if ((r = cli_parse_algo("show", argc, argv, &i, &algo))) {
			if (r < 0)
				return 2;
			continue;
		}
		/* the other options with a value */
		const char *v;
		if ((r = cli_opt_value("show", argc, argv, &i, "--view", &v))) {
			char keys[200];
			if (r < 0)
				return 2;
			view = view_parse(v);
			if (view < 0)
				return cli_usage_error(
					"show",
					"--view: unknown view '%s' (expected "
					"%s)",
					v, view_keys_text(keys, sizeof keys));
		} else if ((r = cli_opt_value("show", argc, argv, &i, "--width",
					      &v))) {
			if (r < 0 ||
			    cli_parse_int("show", "--width", v, 1, 1000, &w))
				return 2;
		} else if ((r = cli_opt_value("show", argc, argv, &i,
					      "--height", &v))) {
			if (r < 0 ||
			    cli_parse_int("show", "--height", v, 1, 1000, &h))
				return 2;
		} else if ((r = cli_opt_value("show", argc, argv, &i,
					      "--device", &v))) {
			if (r < 0 || cli_parse_int("show", "--device", v, 0,
						   DP_MAX_DEVICES - 1, &dev))
				return 2;
		} else if ((r = cli_opt_value("show", argc, argv, &i, "--op",
					      &v))) {
			if (r < 0)
				return 2;
			opname = v;
		} else if (cli_take_graph_arg("show", a, &o)) {
			return 2;
		}
	}
	if (cli_require_graph("show", &o))
		return 2;
	return show(&o, algo, view, w, h, dev, opname, ascii);
}
