/* cli_args.c - a command's GRAPH and PLACEMENT arguments, its option loop
 * and --help, and the one time format of the batch commands (see cli.h;
 * the options themselves are parsed in cli_common.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "dnnpart/units.h"

char *cli_fmt_us(double us, char *buf, size_t size)
{
	/* sums of many op times carry float noise (1375689.5849999979):
	 * nanoseconds are as exact as any input is */
	double r = isfinite(us) && fabs(us) < 1e15 ? round(us * 1000.0) / 1000.0
						   : us;
	return dp_units_fmt_num(r, buf, size);
}

bool cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

int cli_parse_common_or_graph(const char *cmd, int argc, char **argv, int *i,
			      cli_opts *o)
{
	int r = cli_parse_common(cmd, argc, argv, i, o);
	if (r < 0)
		return 2;
	if (r > 0)
		return 0;
	return cli_take_graph_arg(cmd, argv[*i], o);
}

int cli_parse_graph_cmd(const char *cmd, int argc, char **argv, cli_opts *o,
			cli_own_opts own, void *ctx)
{
	for (int i = 1; i < argc; i++) {
		int r = own(cmd, argc, argv, &i, o, ctx);
		if (r < 0 ||
		    (!r && cli_parse_common_or_graph(cmd, argc, argv, &i, o)))
			return 2;
	}
	return cli_require_graph(cmd, o);
}

int cli_take_graph_arg(const char *cmd, const char *a, cli_opts *o)
{
	if (a[0] == '-' && a[1])
		return cli_usage_error(cmd, "unknown option '%s'", a);
	if (o->graph_path)
		return cli_usage_error(cmd,
				       "one graph at a time: got '%s' after "
				       "'%s'",
				       a, o->graph_path);
	o->graph_path = a;
	return 0;
}

int cli_require_graph(const char *cmd, const cli_opts *o)
{
	if (o->graph_path)
		return 0;
	return cli_usage_error(cmd, "missing GRAPH (a graph file or ParDNN "
				    "folder)");
}

int cli_take_graph_placement(const char *cmd, const char *a, cli_opts *o,
			     const char **place)
{
	if (a[0] == '-' && a[1])
		return cli_usage_error(cmd, "unknown option '%s'", a);
	if (!o->graph_path)
		o->graph_path = a;
	else if (!*place)
		*place = a;
	else
		return cli_usage_error(cmd,
				       "unexpected argument '%s' (expected "
				       "GRAPH PLACEMENT)",
				       a);
	return 0;
}

int cli_require_graph_placement(const char *cmd, const cli_opts *o,
				const char *place)
{
	if (!o->graph_path || !place)
		return cli_usage_error(cmd,
				       "missing %s (expected GRAPH PLACEMENT)",
				       o->graph_path ? "PLACEMENT" : "GRAPH");
	return 0;
}
