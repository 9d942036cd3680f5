/* bench.h - the benchmark driver's shared pieces (bench/, not the engine).
 *
 * build/bench/dnnpart-bench runs four sections and prints their tables:
 *   scale        load and planning time, peak RSS against graph size
 *                (bench_scale.c; every measurement in its own process);
 *   quality      makespan, xLB, speedup and feasibility of every algorithm
 *                on every real and sample graph (bench_quality.c);
 *   interactive  cap change -> new plan on screen, through the explorer's
 *                worker and views (bench_interactive.c);
 *   strategies   a strategy algorithm, its lowering and the simulation of
 *                the lowered graph, peak RSS (bench_strategies.c).
 * Each section also writes bench/results/[quick-]SECTION.json (and .tsv
 * files for the plots) through include/dnnpart/afile.h.
 *
 * This is a front end: it prints and it may exit. Timing lives here only,
 * never in tests (docs/benchmarks.md).
 */
#ifndef DNNPART_BENCH_H
#define DNNPART_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "dnnpart/afile.h"
#include "dnnpart/algo.h"
#include "dnnpart/gen.h"
#include "dnnpart/graph.h"
#include "dnnpart/plan.h"

typedef struct bench_cfg {
	bool quick;		 /* the minute-long run (make bench-quick) */
	const char *results_dir; /* bench/results */
	const char *graphs_dir;	 /* generated inputs (build/bench/graphs) */
	const char *data_dir;	 /* real inputs: tests/data (msr-fiddle/,
				  * pipedream/) */
	const char *shared_dir;	 /* holds the optional pardnn-resnet/:
				  * ../shared/benchmarks */
	const char *samples_dir; /* sample_graphs */
	const char *self;	 /* this binary, for the scale children */
	double tight;		 /* tight caps: tight x one-device peak / K */
	double limit_s;		 /* skip/kill a planning run past this */
	bool placement; /* quality: the placement algorithms and best only */
} bench_cfg;

/* ---- bench_util.c ---- */

/* What the quality and reference sections keep of one plan. */
typedef struct bench_plan_row {
	bool ok; /* the algorithm (or the placement file) gave a plan */
	double makespan, xlb, speedup, plan_ms;
	bool feasible;
} bench_plan_row;
/* Fills r from plan p, with ok set. */
void bench_plan_row_fill(bench_plan_row *r, const dp_plan *p);

/* Monotonic clock in seconds. */
double bench_now(void);
/* Median of n values (n >= 1); v is sorted in place. */
double bench_median(double *v, int n);
/* Growth exponent between (n1, t1) and (n2, t2): log(t2/t1)/log(n2/n1);
 * NAN when a time is not positive. */
double bench_growth(double n1, double t1, double n2, double t2);
/* Geometric mean of n positive values (NAN when n == 0). */
double bench_geomean(const double *v, int n);

/* A child process: its exit status, wall time, peak RSS and stdout. */
typedef struct bench_child {
	int exit_code;	/* exit status, or 128 + signal */
	bool timed_out; /* killed after the time limit */
	double wall_s;
	long maxrss_kb; /* peak resident set of the child (wait4) */
	char out[8192]; /* its stdout (cut at the buffer's end) */
} bench_child;

/* Starts argv[0] with posix_spawn (a vfork: the child's peak RSS is its
 * own, not a copy of this process's), collects its stdout, and waits for it
 * at most timeout_s seconds (then kills it). Returns 0, or -1 when it could
 * not be started (message on stderr). */
int bench_spawn(char *const argv[], double timeout_s, bench_child *c);

/* Describes this machine and run for the result files: mode, date (UTC),
 * git commit, CPU model, nproc, memory, load average at the start. */
cJSON *bench_env_json(const bench_cfg *cfg, const char *section);
/* Prints the same in one line to stdout. */
void bench_print_env(const bench_cfg *cfg);

/* Path of result file NAME ([quick-]NAME under results_dir) in buf. */
const char *bench_result_path(const bench_cfg *cfg, const char *name, char *buf,
			      size_t size);
/* Writes root (consumed) as bench/results/[quick-]NAME, atomically;
 * indented when pretty, else one line per top-level entry of a compact
 * print (large results). Returns 0 or -1 (message on stderr). */
int bench_write_json(const bench_cfg *cfg, const char *name, cJSON *root,
		     bool pretty);
/* Opens result file NAME for writing through afile. 0 or -1. */
int bench_open_result(const bench_cfg *cfg, const char *name, dp_afile *af);
/* Commits it; 0 or -1 (message on stderr). */
int bench_commit_result(dp_afile *af);

/* Adds a number to a JSON object, or null when v is not finite. */
void bench_json_num(cJSON *o, const char *key, double v);
/* The same, rounded to a multiple of unit (results need no more). */
void bench_json_round(cJSON *o, const char *key, double v, double unit);
/* "cap_bytes": the cap of a case, or null when it has none (cap <= 0). */
void bench_json_cap(cJSON *o, int64_t cap);

/* The generated training graph of n ops (dnnpart/gen.h, seed 1), the one
 * every section times; NULL after printing why. */
dp_graph *bench_gen_graph(uint32_t n);
/* The options of that graph: the defaults, n ops, seed 1. */
void bench_gen_opts(dp_gen_opts *o, uint32_t n);
/* The graph of o generated and written to path; 0, or -1 after printing
 * why. */
int bench_gen_write(const dp_gen_opts *o, const char *path);

/* One-device peak memory of g (all ops on device 0, no cap): the base of
 * the "tight" caps. -1 on failure (message on stderr). */
int64_t bench_one_device_peak(const dp_graph *g);

/* ---- sections ---- */
int bench_scale(const bench_cfg *cfg);
int bench_quality(const bench_cfg *cfg);
int bench_interactive(const bench_cfg *cfg);
/* strategy algorithms: strategize, lower, simulate (bench_strategies.c) */
int bench_strategies(const bench_cfg *cfg);

/* The ParDNN reference placements beside our pardnn (part of quality);
 * adds "reference" to root. */
int bench_reference(const bench_cfg *cfg, cJSON *root);

/* The scale section's child modes (argv after "--child"). */
int bench_scale_child(int argc, char **argv);
/* The strategies section's child ("--child strategy ..."). */
int bench_strategy_child(int argc, char **argv);

#endif
