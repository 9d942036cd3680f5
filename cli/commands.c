/* commands.c - the table of batch subcommands (see cli.h).
 *
 * One line per command in CLI_COMMANDS below: X(name, synopsis, summary).
 * It declares cmd_NAME_run() and cmd_NAME_help() (defined in
 * cli/cmd_NAME.c) and adds the command to the table that main() dispatches
 * on and `dnnpart --help` lists, so the two cannot drift apart. The order is
 * the order of `dnnpart --help`.
 */
#include <string.h>

#include "cli.h"

#define CLI_COMMANDS(X)                                                        \
	X(info, "GRAPH [--json]",                                              \
	  "ops, edges, work, critical path and memory of a graph")             \
	X(plan, "GRAPH [-k K] [--mem CAPS] [--algo NAME] [-o FILE]",           \
	  "partition a graph with an algorithm and show the result")           \
	X(eval, "GRAPH PLACEMENT [-k K] [--mem CAPS]",                         \
	  "simulate a placement made elsewhere")                               \
	X(compare, "GRAPH [-k K] [--mem CAPS] [--algos A,B,...] [--json]",     \
	  "every algorithm side by side on one graph and machine")             \
	X(fit, "GRAPH [-k K] [--mem CAPS] [--cap | --device D] [--json]",      \
	  "the smallest K or cap with which the algorithm's plan fits")        \
	X(gen, "--ops N [--seed S] [-k K --mem CAP] -o FILE.json",             \
	  "write a synthetic training graph of N ops")                         \
	X(export, "GRAPH PLACEMENT [--svg F] [--dot F] [--csv F] [-o F]",      \
	  "write a placement as DOT/SVG, CSV or framework device maps")        \
	X(show, "GRAPH [--view NAME] [--width W] [--height H]",                \
	  "print one screen of the explorer as plain text")

#define CLI_DECLARE(name, args, summary)                                       \
	int cmd_##name##_run(int argc, char **argv);                           \
	void cmd_##name##_help(FILE *out);
CLI_COMMANDS(CLI_DECLARE)

#define CLI_ENTRY(name, args, summary)                                         \
	{#name, args, summary, cmd_##name##_run, cmd_##name##_help},
const cli_command cli_commands[] = {CLI_COMMANDS(CLI_ENTRY)};

const int cli_ncommands = (int)(sizeof cli_commands / sizeof cli_commands[0]);

const cli_command *cli_find_command(const char *name)
{
	for (int i = 0; i < cli_ncommands; i++)
		if (strcmp(cli_commands[i].name, name) == 0)
			return &cli_commands[i];
	return NULL;
}

int cli_run_command(const cli_command *c, int argc, char **argv)
{
	if (cli_wants_help(argc, argv)) {
		c->help(stdout);
		return 0;
	}
	return c->run(argc, argv);
}

void cli_print_commands(FILE *out)
{
	for (int i = 0; i < cli_ncommands; i++)
		fprintf(out, "  %-8s %s\n", cli_commands[i].name,
			cli_commands[i].summary);
}
