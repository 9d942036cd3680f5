/* cli.h - the batch command line: subcommand table and shared options.
 *
 * main() (main.c) looks the first argument up in the command table
 * (cli/commands.c) and calls its run function; `dnnpart GRAPH` without a
 * subcommand opens the TUI. Each subcommand lives in cli/cmd_NAME.c and
 * parses its own arguments with the shared helpers below, so that -k, --mem,
 * --link, --bw, --lat, --contention, --json, --format mean the same
 * everywhere. Commands print results to stdout and errors to stderr as
 * "dnnpart: file:line:col: message" and return the exit code (docs/cli.md,
 * "Conventions": 0 ok, 1 infeasible with --strict, 2 bad usage or input,
 * 3 internal).
 */
#ifndef DNNPART_CLI_H
#define DNNPART_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "dnnpart/algo.h"
#include "dnnpart/err.h"
#include "dnnpart/explain.h"
#include "dnnpart/graph.h"
#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "dnnpart/sim.h"

/* The version `dnnpart --version` prints. */
#define DNNPART_VERSION "0.1.0"

typedef struct cli_command {
	const char *name;
	const char *args;    /* synopsis after the name, for usage lines */
	const char *summary; /* one line for `dnnpart --help` */
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
	void (*help)(FILE *out);	   /* full --help text */
} cli_command;

extern const cli_command cli_commands[];
extern const int cli_ncommands;
const cli_command *cli_find_command(const char *name);
/* Runs command c on argv (argv[0] is its name): its --help text when --help
 * or -h is anywhere on the line (cli_wants_help), else c->run. */
int cli_run_command(const cli_command *c, int argc, char **argv);

/* Options shared by the subcommands that take a graph and a machine. */
typedef struct cli_opts {
	const char *graph_path;
	dp_format format;
	int k;		     /* 0 = not given */
	const char *mem;     /* --mem spec, NULL = not given */
	const char *speeds;  /* --speed spec */
	const char *reserve; /* --reserve spec (1GiB, 5%) */
	const char *link;    /* --link preset */
	const char *bw;	     /* --bw */
	const char *lat;     /* --lat */
	const char *kernel;  /* --kernel-overhead */
	dp_contention contention;
	dp_objective objective; /* --objective step|throughput */
	const dp_algo *algo;	/* --algo (NULL: the default) */
	const char *algos;	/* --algos (compare) */
	bool json;
	bool strict;
	bool no_polish;
	int microbatches;    /* --microbatches (0: the algorithm's choice) */
	int tp;		     /* --tp (0: the algorithm's choice) */
	int virtual_stages;  /* --virtual-stages (0: none) */
	int zero_stage;	     /* --zero-stage 1..3 (0: zero's own, 2) */
	long long bucket;    /* --bucket in bytes (-1: the default, 25 MiB) */
	bool sp;	     /* --sp: sequence parallelism (megatron, hybrid) */
	int schedule;	     /* --schedule: a dp_schedule, -1: the algorithm's
			     own */
	long long batch;     /* --batch: the graph at this batch size (0: as
			     loaded) */
	/* the levers (cli_levers.c): --precision, --recompute, --fuse, --gpu
	 * as given, checked when parsed; NULL = the default */
	const char *precision, *recompute, *fuse, *gpu;
	const char *offload, *host_mem; /* --offload, --host-mem */
	const char *levers; /* compare --levers: lever sets, checked */
	double time_limit_s; /* --time-limit (ilp), 0 = the default */
	double budget_s;     /* --budget (best), 0 = none */
	bool check_k;	     /* compare --check-k */
	bool explain;	     /* plan --explain */
	/* plan, fit --algos: what best of everything may use */
	const dp_algo *cands[64];
	size_t ncands;
	bool force;	     /* --force: outputs may replace existing files */
	const char *out;     /* -o placement file */
	const char *dot, *svg, *png, *pdf, *trace, *csv, *device_map,
		*tf_map; /* plan exports */
} cli_opts;

void cli_opts_init(cli_opts *o);

/* Tries to consume one shared option at argv[*i] (advancing *i past its
 * value). Returns 1 when consumed, 0 when the option is not a shared one,
 * -1 on a usage error (already printed to stderr with the command name). */
int cli_parse_common(const char *cmd, int argc, char **argv, int *i,
		     cli_opts *o);

/* Parses a whole number from lo to hi given to option opt; returns 0, or 2
 * after printing a usage error that names the option and the range. */
int cli_parse_int(const char *cmd, const char *opt, const char *s, long lo,
		  long hi, long *v);

/* Prints the help lines of the shared graph/machine options (-k, --mem,
 * --speed, --link, --bw, --lat, --contention, --format), for the --help
 * texts of the commands that accept them. */
void cli_help_machine_opts(FILE *out);
/* Prints the commands with their synopsis and summary (dnnpart --help). */
void cli_print_commands(FILE *out);

/* True when --help or -h is among argv[1..argc): the command prints its
 * help whatever else is on the line. */
bool cli_wants_help(int argc, char **argv);
/* The last branch of a command's option loop: a shared option at argv[*i]
 * (cli_parse_common), else the command's GRAPH (cli_take_graph_arg).
 * Returns 0, or 2 after printing a usage error. */
int cli_parse_common_or_graph(const char *cmd, int argc, char **argv, int *i,
			      cli_opts *o);
/* A command's own options at argv[*i] (ctx: its own settings): 1 when one
 * is taken (*i past its value), 0 when argv[*i] is not one of them, -1
 * after a usage error. */
typedef int (*cli_own_opts)(const char *cmd, int argc, char **argv, int *i,
			    cli_opts *o, void *ctx);
/* The option loop of a command on one GRAPH: each argument is one of the
 * command's own options (own), a shared one or the GRAPH, which must be
 * given. Returns 0, or 2 after printing a usage error. */
int cli_parse_graph_cmd(const char *cmd, int argc, char **argv, cli_opts *o,
			cli_own_opts own, void *ctx);
/* Takes a non-option argument a as the command's GRAPH: an unknown option
 * or a second graph is a usage error. Returns 0, or 2 after printing. */
int cli_take_graph_arg(const char *cmd, const char *a, cli_opts *o);
/* Returns 0 when o->graph_path is set, else prints "missing GRAPH" and
 * returns 2. */
int cli_require_graph(const char *cmd, const cli_opts *o);

/* The two operands of eval and export, GRAPH then PLACEMENT: takes a
 * non-option argument a as the next one (into o->graph_path, then *place).
 * An unknown option or a third operand is a usage error. Returns 0, or 2
 * after printing. */
int cli_take_graph_placement(const char *cmd, const char *a, cli_opts *o,
			     const char **place);
/* Returns 0 when both operands were given, else prints which is missing
 * and returns 2. */
int cli_require_graph_placement(const char *cmd, const cli_opts *o,
				const char *place);

/* --time-limit S (ilp's solver limit) or --budget S (best's budget) at
 * argv[*i]: seconds, a plain number or a time with its unit, e.g. 30, 2.5,
 * 500ms, 1min: 1 when it was one of them (stored in o->time_limit_s or
 * o->budget_s), 0 when not, -1 after a usage error. */
int cli_parse_time_limit(const char *cmd, int argc, char **argv, int *i,
			 cli_opts *o);

/* --strict, --no-polish or --time-limit S (cli_parse_time_limit) at
 * argv[*i], the options of the commands that plan (plan, compare): 1 when
 * it was one (stored in o), 0 when not, -1 after a usage error. */
int cli_parse_plan_flags(const char *cmd, int argc, char **argv, int *i,
			 cli_opts *o);

/* eval and export price a saved plan: the options that only choose how an
 * algorithm plans (--tp, -M; --objective throughput too where the command
 * has no use for it, !objective) are refused rather than ignored. Returns
 * 0, or 2 after a usage error that says which commands take the option. */
int cli_refuse_planning_opts(const char *cmd, const cli_opts *o,
			     bool objective);
/* Whether algorithm a takes --tp (megatron and hybrid; the others ignore
 * it). */
bool cli_algo_takes_tp(const dp_algo *a);
/* --tp T for the n algorithms of algos on machine m: when one of them takes
 * it, T must divide K. Returns 0, or 2 after printing which T do. Also
 * --schedule stash or 2bw: not with --virtual-stages > 1, and with one
 * algorithm only a pipeline one (gpipe, 1f1b, pipedream, hybrid); else 2
 * after printing why. */
int cli_check_tp(const cli_opts *o, const dp_machine *m,
		 const dp_algo *const *algos, size_t n);
/* The asynchronous part of that: --schedule stash or 2bw with
 * --virtual-stages > 1, or with one algorithm that is no pipeline one.
 * 0, or 2 after printing why (cli_schedule.c). */
int cli_check_async(const cli_opts *o, const dp_algo *const *algos, size_t n);

/* The algorithm options the command line asked for: the defaults with
 * --contention, --no-polish, --time-limit and --budget applied. */
void cli_algo_opts(const cli_opts *o, dp_algo_opts *ao);

/* Loads o->graph_path (printing the error on failure). */
int cli_load_graph(const cli_opts *o, dp_graph **g);
/* --batch: replaces *g by the graph at that batch size (dp_graph_with_batch);
 * on failure prints the error, frees *g (NULL) and returns the exit code.
 * cli_load_graph() does it; front ends that load on their own call it. */
int cli_apply_batch(const cli_opts *o, dp_graph **g);
/* What cli_load_graph() says after dp_graph_load() returned st with g (or
 * err): the error (returning its exit code), or the loader's warnings
 * (returning 0). For front ends that load on a thread of their own. */
int cli_graph_loaded(const cli_opts *o, dp_status st, const dp_graph *g,
		     const dp_err *err);
/* Builds the machine: graph hint, then -k, --mem, --speed, --link/--bw/--lat.
 * Returns 0 or an exit code after printing the error. */
int cli_make_machine(const cli_opts *o, const dp_graph *g, dp_machine *m);
/* Both: the graph, then its machine. Returns 0 with *g and *m to free, or
 * the exit code after printing the error (nothing to free then). */
int cli_load_graph_machine(const cli_opts *o, dp_graph **g, dp_machine *m);

/* Prints "dnnpart: <formatted error>" to stderr; returns the exit code. */
int cli_error(const dp_err *err);
/* Formats microseconds for people: rounded to the nanosecond, shortest
 * digits, '.' decimal point ("1375689.585"); --json keeps every digit. */
char *cli_fmt_us(double us, char *buf, size_t size);
/* Prints "dnnpart CMD: message\nTry 'dnnpart CMD --help'." and returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* An option with a value at argv[*i], "NAME VALUE" or "NAME=VALUE" (and
 * "-xVALUE" for a one-letter name): 1 with *val set (and *i past the
 * value), 0 when argv[*i] is another option, -1 after a usage error (the
 * value is missing). */
int cli_opt_value(const char *cmd, int argc, char **argv, int *i,
		  const char *name, const char **val);

/* The algorithm called name, or NULL after a usage error of cmd that names
 * the option and the algorithms there are:
 * "dnnpart CMD: OPT: unknown algorithm 'x' (known: pardnn, ...)". */
const dp_algo *cli_find_algo(const char *cmd, const char *opt,
			     const char *name);
/* --algo NAME or --algo=NAME at argv[*i], for every command and the
 * explorer: 1 with *algo set (and *i past the value), 0 when argv[*i] is
 * not --algo, -1 after a usage error (missing value, unknown name). */
int cli_parse_algo(const char *cmd, int argc, char **argv, int *i,
		   const dp_algo **algo);

/* A comma list of algorithm names given to option opt ("--algos"), into
 * out (room for cap; dp_algo_count() is enough): 0 with *n set, or 2 after
 * a usage error naming the option (dp_algo_parse_list's message). */
/* plan, fit: --algos LIST, what best of everything may use (o->cands); 1
 * when argv[*i] was it, 0 when not, -1 after a usage error. */
int cli_parse_candidates(const char *cmd, int argc, char **argv, int *i,
			 cli_opts *o);
/* --algos with an --algo other than best: the usage error (2), else 0. */
int cli_candidates_clash(const char *cmd, const cli_opts *o);
int cli_algo_list(const char *cmd, const char *opt, const char *spec,
		  const dp_algo **out, size_t cap, size_t *n);

/* Prices the placement file path on g (eval, export): reads it (warning
 * about ops it leaves out or puts on the CPU), takes K from -k, else the
 * graph's machine block, else the placement, builds *m and evaluates *plan.
 * Returns 0 with both to free, or the exit code after printing why.
 * made_by (NULL, or sizeof plan->algo bytes) gets the file's "algorithm",
 * "" when it names none, for the titles of exports. */
int cli_eval_placement(cli_opts *o, const dp_graph *g, const char *path,
		       dp_machine *m, dp_plan *plan, char *made_by);

/* The human table and the --json object for a plan (eval, plan). */
void cli_print_plan(FILE *out, const dp_graph *g, const dp_machine *m,
		    const dp_plan *plan);
/* x: the explanation to add as "explain" (plan --explain), or NULL. */
void cli_print_plan_json(FILE *out, const dp_graph *g, const dp_machine *m,
			 const dp_plan *plan, const dp_explain *x);
/* `plan --explain` (cli_explain.c): why the plan takes what it takes, as
 * text after the report, and as the "explain" member of --json. */
void cli_print_explain(FILE *out, const dp_graph *g, const dp_plan *plan,
		       const dp_explain *x);
void cli_json_explain(dp_json *w, const dp_graph *g, const dp_plan *plan,
		      const dp_explain *x);
/* The report's line `max load` (--objective throughput: plan, eval). */
void cli_print_max_load(FILE *out, const dp_plan *plan);
/* Starts a --json report on out (through the engine's one JSON writer,
 * dnnpart/json.h): its object, the graph's name and source, the file it
 * came from as given (NULL: null). */
void cli_json_begin(dp_json *w, FILE *out, const dp_graph *g,
		    const char *source);
/* Starts the --json report of a plan or a comparison: cli_json_begin,
 * then ops, edges, k, the link and the levers. */
void cli_json_head(dp_json *w, FILE *out, const dp_graph *g,
		   const dp_machine *m);
/* A memory cap in bytes as JSON, null when unlimited; the array of k caps
 * (compare's machine, fit's answer). */
void cli_json_cap(dp_json *w, const char *key, int64_t cap);
void cli_json_caps(dp_json *w, const char *key, const int64_t *caps, int k);

/* What a command may write over (cli/cli_outputs.c): the files it reads
 * (NULL when fewer), never replaced, and whether --force lets it replace
 * other existing files. */
#define CLI_MAX_INPUTS 2
typedef struct cli_out_rule {
	const char *inputs[CLI_MAX_INPUTS];
	bool force;
} cli_out_rule;

/* 0 when path may be written under rule; else prints why and returns 2:
 * "dnnpart: PATH exists; pass --force to replace it", or that it is an
 * input, never replaced even with --force. */
int cli_check_output(const char *path, const cli_out_rule *rule);
/* cli_check_output() for n paths (NULL entries skipped), and two of them
 * naming one file is refused too. Commands call it before any work, and
 * each write calls cli_check_output() again just before it starts. */
int cli_check_outputs(const char *const *outs, size_t n,
		      const cli_out_rule *rule);

/* One of plan's export options (--dot, --svg, --png, --pdf, --trace,
 * --csv, --device-map, --tf-map) at argv[*i]: 1 when it was one, 0 when
 * not, -1 after a usage error. */
int cli_parse_export_opt(const char *cmd, int argc, char **argv, int *i,
			 cli_opts *o);
/* Writes the exports those options request (cli/cli_exports.c). Returns 0
 * or an exit code after printing the error. */
int cli_write_exports(const cli_opts *o, const dp_graph *g, const dp_machine *m,
		      const dp_plan *plan);

/* The levers (cli_levers.c). cli_check_lever checks option name's value
 * v (0, or 2 after a usage error); cli_levers reads them from o (2 after
 * printing why: bf16 on a GPU without it); cli_apply_levers replaces *g
 * by the transformed graph (freed and NULL on error: exit code returned);
 * cli_apply_gpu sets m's levers and, with --gpu, its caps, speeds and
 * link from the preset (before --mem, --speed, --link apply). */
int cli_check_lever(const char *cmd, const char *name, const char *v);
/* Checks a comma list of lever sets (dp_levers_parse_set): 0, or 2 after a
 * usage error naming the set. */
int cli_check_lever_sets(const char *cmd, const char *list);
int cli_levers(const cli_opts *o, dp_levers *lv);
int cli_apply_levers(const cli_opts *o, dp_graph **g);
/* The same, keeping the graph before the levers in *plain (left alone
 * when no lever applies). */
int cli_apply_levers_keep(const cli_opts *o, dp_graph **g, dp_graph **plain);
/* Whether --recompute is auto without its layers: then the graph is
 * loaded without levers and cli_apply_auto, once the machine is made,
 * chooses the layers (with --algo's algorithm, else pardnn) and applies
 * every lever, setting m's levers to the choice. */
bool cli_wants_auto(const cli_opts *o);
int cli_apply_auto(const cli_opts *o, dp_graph **g, dp_machine *m);
int cli_apply_gpu(const cli_opts *o, dp_machine *m);
void cli_help_levers(FILE *out);
/* fit's lever search (cmd_fit_levers.c): dp_fit_search_run with the
 * lever sets of o->levers (NULL: the table's), algo (NULL: the strategy
 * table) and fo's max_k; prints the probes, the candidates, the answer, -o
 * its plan. *plain is set, with nothing printed, when the graph takes no
 * lever (fit then runs its plain search). Returns the exit code. */
struct dp_fit_opts;
struct dp_fit_probe;
/* A pipeline answer's gradient accumulation, in words (cmd_fit.c). */
void cli_fit_print_accumulation(FILE *out, const struct dp_fit_probe *p);
int cli_fit_levers(const cli_opts *o, const dp_algo *algo,
		   const struct dp_fit_opts *fo, bool *plain);
/* The plan of algo at K devices with the lever set levers ("none") and
 * ZeRO stage zero_stage (0: o's), rerun and written to o->out (a strategy
 * or placement file). Returns the exit code. */
int cli_fit_write_plan(const cli_opts *o, const dp_algo *algo, int k,
		       int zero_stage, const char *levers);

#endif
