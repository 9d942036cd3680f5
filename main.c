/* main.c - dnnpart's entry point: batch subcommands, help and version.
 *
 * `dnnpart COMMAND ...` runs a batch subcommand from the table in
 * commands.c; `dnnpart help COMMAND` and `dnnpart COMMAND --help` print its
 * help. Exit codes (docs/cli.md): 0 ok, 1 infeasible plan with --strict,
 * 2 bad usage or bad input, 3 internal error.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli.h"
#include "dnnpart/afile.h"
#include "tui.h"

/* A batch command killed while it writes a file leaves the old file as it
 * was (afile.h) and, through this, no temporary file either. Commands that
 * cancel on Ctrl-C install their own SIGINT handler over this one; the
 * explorer installs its own for all three. */
static void on_fatal_signal(int sig)
{
	dp_afile_remove_pending();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_fatal_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_fatal_signal;
		sigemptyset(&sa.sa_mask);
		/* a signal the shell ignores (SIGINT of a background job)
		 * stays ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
}

/* A batch command that lowers and simulates large graphs again and again
 * (pase: eight times 275k ops and 1.6M edges for gpt2-xl at K=32) got each
 * large array from mmap and gave it back on free, so every run faulted its
 * pages in anew: a fifth of its CPU time was the kernel's. Up to 1 GiB,
 * arrays now come from the heap, and freed memory stays for the next run
 * until 1 GiB is free at its top. The process exits when the command ends. */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 1 << 30);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: dnnpart COMMAND [ARGS...]\n"
		"       dnnpart GRAPH [-k K] [--mem CAPS] [--algo NAME]   "
		"(the explorer)\n"
		"       dnnpart help COMMAND | dnnpart COMMAND --help\n"
		"       dnnpart --version\n"
		"\n"
		"Partitions the computational graph of one DNN training step "
		"across K\n"
		"accelerators and simulates the result (after ParDNN, "
		"Qararyah et al. 2021).\n"
		"\n"
		"commands:\n");
	cli_print_commands(out);
	fprintf(out, "\nExit codes: 0 ok, 1 plan infeasible (with --strict), "
		     "2 bad usage or input,\n3 internal error. See docs/cli.md."
		     "\n");
}

static int help_for(const char *name)
{
	const cli_command *c = cli_find_command(name);
	if (!c) {
		fprintf(stderr,
			"dnnpart: no help for '%s': not a command. Commands:\n",
			name);
		cli_print_commands(stderr);
		return 2;
	}
	c->help(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *a = argv[1];
	if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(a, "help")) {
		if (argc < 3) {
			usage(stdout);
			return 0;
		}
		return help_for(argv[2]);
	}
	if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
		printf("dnnpart %s\n", DNNPART_VERSION);
		return 0;
	}
	catch_fatal_signals();
	const cli_command *c = cli_find_command(a);
	if (c) {
		keep_freed_memory();
		return cli_run_command(c, argc - 1, argv + 1);
	}
	if (a[0] == '-') {
		fprintf(stderr,
			"dnnpart: unknown option '%s'\n"
			"Try 'dnnpart --help'.\n",
			a);
		return 2;
	}
	/* not a command: a graph to open in the explorer (tui/tui_main.c) */
	return tui_main(argc, argv);
}
