/* fixtures.h - models built by hand and results compared field by field,
 * shared by the tests (tests/lib; testlib.h has the harness and the random
 * DAG).
 *
 * A machine with its cap and speed arrays inside, a chain of ops, the
 * check that a placement is the one expected, and the comparisons of two
 * simulator results that the determinism and skip tests make.
 */
#ifndef DNNPART_TEST_FIXTURES_H
#define DNNPART_TEST_FIXTURES_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/algo.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "dnnpart/sim.h"
#include "dnnpart/strategy.h"

#define TEST_MAX_K 8

/* A machine whose arrays live in the struct, so a test needs no
 * dp_machine_init(); it must not be copied once made (m points into it). */
typedef struct test_machine {
	dp_machine m;
	int64_t cap[TEST_MAX_K];
	double speed[TEST_MAX_K];
} test_machine;

/* k devices (at most TEST_MAX_K), every cap DP_CAP_UNLIMITED and every
 * speed 1, bw bytes per µs and lat µs. */
void test_machine_init(test_machine *tm, int k, double bw, double lat);

/* dp_machine_init(m, k) with the caps and speeds specs given (NULL: the
 * defaults), as --mem and --speed take them; false, recorded as a failure
 * naming the spec, when one is refused (m is then freed). */
bool test_machine_make(dp_machine *m, int k, const char *caps,
		       const char *speeds);

/* A random machine of k devices from the stream *rng (test_rand):
 * bandwidth 1 to 1000.5 bytes/us, latency 0 to 25 us, each cap unlimited or
 * up to 20,000 bytes, each speed 1 or 0.5 to 2. */
void test_random_machine(test_machine *tm, int k, uint64_t *rng);

/* Frees what a test built, last made first: plan and m when not NULL,
 * then g. */
void test_free(dp_graph *g, dp_machine *m, dp_plan *plan);

/* TEST_GROUP(g, label, op, ...): puts the ops in colocation group label
 * (a refused op is a failure). */
#define TEST_GROUP(g, label, ...)                                              \
	test_group(__FILE__, __LINE__, g, label,                               \
		   (const uint32_t[]){__VA_ARGS__},                            \
		   (int)(sizeof((const uint32_t[]){__VA_ARGS__}) /             \
			 sizeof(uint32_t)))
void test_group(const char *file, int line, dp_graph *g, const char *label,
		const uint32_t *ops, int n);

/* op0 -> op1 -> ... -> op(n-1) in a new graph called name, each op taking
 * t µs with out output bytes; not finalized, so tests can set more. */
dp_graph *test_chain(const char *name, int n, double t, int64_t out);

/* The chain of docs/simulator.md and tests/sim/chain.case, finalized:
 * a (10 µs, output 1000, params 100) -> b (20 µs, output 500) -> c (5 µs,
 * params 50); and, when tm is not NULL, its machine: 2 devices, 100
 * bytes/µs, 2 µs. */
dp_graph *test_abc_chain(test_machine *tm);

/* n independent ops op0.. of 1 µs, each holding 10 MiB of params and
 * 1 MiB of output (live while it runs): a device holds (cap - 1 MiB) /
 * 10 MiB of them (the fit tests). Finalized; aborts when it cannot build. */
dp_graph *test_blocks(int n);
/* A random DAG of n ops on which the algorithms place differently: up to
 * three inputs from the 12 ops before, params on one op in 3, colocation
 * groups, pins on devices 0..2 (so k >= 3), seeded by seed; finalized, NULL
 * on failure. */
dp_graph *test_algo_graph(uint32_t n, uint64_t seed, const char *name);

/* A finalized chain of n ops (n a multiple of 4) with skip connections
 * (op i - 5 -> op i for every third i), op i in layer
 * "stage{i/(n/4)}/block{i/100}/unit{i/10}", for the picture exports; NULL
 * when it cannot be built. */
dp_graph *test_layered_chain(uint32_t n);

/* A finalized training chain of n <= 16 layers "layers/<i>": input x ->
 * f<i> (role forward, tf µs, out bytes, params bytes of weights, param op
 * p<i>) -> loss; backward: f<i>/grad_w (role grad, tw µs; reads the
 * layer's input and the gradient that arrives) -> update p<i>/adam, then
 * f<i>/grad (role backward, tb[i] µs, tb NULL: tf, out bytes); tw < 0: no
 * weight gradients nor updates. NULL when it cannot be built. */
dp_graph *test_train_chain(int n, double tf, const double *tb, double tw,
			   int64_t out, int64_t params);

/* dp_plan_run of best's placement search alone (placements_only), with o
 * (NULL: the defaults): what best's own tests check, best of everything
 * aside. */
dp_status test_best_placements(const dp_graph *g, const dp_machine *m,
			       const dp_algo_opts *o, dp_plan *plan,
			       dp_err *err);

/* Evaluates placement pl of g on a fresh k-device machine m (the caller
 * frees m and plan) with port contention; false, after printing why to
 * stderr, when it cannot (a recorded failure when g is NULL, so that a
 * builder's result needs no check of its own). */
bool test_evaluate(const dp_graph *g, int k, const int32_t *pl, dp_machine *m,
		   dp_plan *plan);

/* Writes the export of kind of plan (g on m) to path: true, or false
 * recorded as a failure with the error. test_export_text also reads the
 * file back (the caller frees; NULL on failure). */
bool test_export(const char *path, int kind, const dp_graph *g,
		 const dp_machine *m, const dp_plan *plan);
char *test_export_text(const char *path, int kind, const dp_graph *g,
		       const dp_machine *m, const dp_plan *plan);

/* CHECK_EXPORT_KEEPS_OLD(kind, name, g, m, plan, p): with p's cancel flag
 * raised (before or during the run), the export of kind to the temporary
 * file name returns DP_ECANCELED and leaves what the file held ("old\n")
 * and no temporary file beside it; and an export to a folder that does not
 * exist fails with an error naming the file. */
#define CHECK_EXPORT_KEEPS_OLD(...)                                            \
	test_check_export_keeps_old(__FILE__, __LINE__, __VA_ARGS__)
void test_check_export_keeps_old(const char *file, int line, int kind,
				 const char *name, const dp_graph *g,
				 const dp_machine *m, const dp_plan *plan,
				 const dp_progress *p);
/* Writes the DOT export of plan (g on m) to path and reads it back with
 * cgraph; NULL, recorded as a failure, when either fails. The caller
 * agclose()s it. */
struct Agraph_s;
struct Agraph_s *test_dot_of(const char *path, const dp_graph *g,
			     const dp_machine *m, const dp_plan *plan);

/* Every op on a device of m, pins kept, each colocation group on one
 * device. Returns false (after recording failures) when not. */
bool test_placement_valid(const dp_graph *g, const dp_machine *m,
			  const int32_t *pl);
/* CHECK_PLACEMENT(got, want, n): records a failure "opI on device D, want
 * W" for each of the n ops where got and want differ. Variadic so that want
 * may be a compound literal, (const int32_t[]){0, 1}. */
#define CHECK_PLACEMENT(got, ...)                                              \
	test_check_placement(__FILE__, __LINE__, got, __VA_ARGS__)
void test_check_placement(const char *file, int line, const int32_t *got,
			  const int32_t *want, int n);

/* CHECK_TOTALS(g, nops, nedges, time_us, eps, param_bytes, ngroups): the
 * totals of a loaded graph (total time within eps), each mismatch a
 * failure that names the field. */
#define CHECK_TOTALS(g, ...)                                                   \
	test_check_totals(__FILE__, __LINE__, g, __VA_ARGS__)
void test_check_totals(const char *file, int line, const dp_graph *g,
		       uint32_t nops, uint32_t nedges, double time_us,
		       double eps, int64_t param_bytes, uint32_t ngroups);

/* The error a bad input must give: its line and column (-1: any) and its
 * message, or the start or a part of it. */
typedef struct test_bad_input {
	const char *file; /* the input, under the test's folder */
	int line, col;
	const char *msg;
} test_bad_input;
/* CHECK_INPUT_ERROR(st, err, path, want, prefix): a failed load or read
 * returned st and filled err: DP_EINPUT at path, want->line, want->col
 * (unless -1), with a message that starts with want->msg (prefix) or
 * contains it. One failure that shows what came and what was wanted. */
#define CHECK_INPUT_ERROR(...)                                                 \
	test_check_input_error(__FILE__, __LINE__, __VA_ARGS__)
void test_check_input_error(const char *file, int line, dp_status st,
			    const dp_err *err, const char *path,
			    const test_bad_input *want, bool prefix);

/* CHECK_LOAD_FAILS(g, err, path, want): a load that returned g and filled
 * err failed: g is NULL (freed when not) and err is the DP_EINPUT error
 * want describes, its message containing want->msg. */
#define CHECK_LOAD_FAILS(...)                                                  \
	test_check_load_fails(__FILE__, __LINE__, __VA_ARGS__)
void test_check_load_fails(const char *file, int line, dp_graph *g,
			   const dp_err *err, const char *path,
			   const test_bad_input *want);

/* CHECK_BAD_FILES(dir, cases, n): each of the n files dir/cases[i].file
 * fails to load (dp_graph_load, format detected) with the DP_EINPUT error
 * it describes, the message starting with cases[i].msg. */
#define CHECK_BAD_FILES(...)                                                   \
	test_check_bad_files(__FILE__, __LINE__, __VA_ARGS__)
void test_check_bad_files(const char *file, int line, const char *dir,
			  const test_bad_input *cases, size_t n);

/* The cases of a table file: lines "FILE LINE COL MESSAGE" ('#' starts a
 * comment), as test_bad_input; *n is set to how many. The strings point
 * into *text; the caller frees the array and *text. NULL, recorded as a
 * failure, when the file cannot be read or a line is malformed. */
test_bad_input *test_read_bad_inputs(const char *path, size_t *n, char **text);

/* CHECK_BAD_CASES(dir, table, n): CHECK_BAD_FILES on the n cases of the
 * table file (test_read_bad_inputs); fewer or more is a failure too. */
#define CHECK_BAD_CASES(...)                                                   \
	test_check_bad_cases(__FILE__, __LINE__, __VA_ARGS__)
void test_check_bad_cases(const char *file, int line, const char *dir,
			  const char *table, size_t n);

/* CHECK_HINT(g, devices, memory_bytes, bw, lat): the machine block a graph
 * file gave (bandwidth in bytes per us within 1e-9, latency in us). */
#define CHECK_HINT(g, ...) test_check_hint(__FILE__, __LINE__, g, __VA_ARGS__)
void test_check_hint(const char *file, int line, const dp_graph *g, int devices,
		     int64_t memory_bytes, double bw, double lat);

/* CHECK_STRATEGY_CANCELED(a, g, m): with a raised cancel flag the
 * strategy algorithm a returns DP_ECANCELED on g and m, saying "NAME:
 * canceled". */
#define CHECK_STRATEGY_CANCELED(...)                                           \
	test_check_strategy_canceled(__FILE__, __LINE__, __VA_ARGS__)
void test_check_strategy_canceled(const char *file, int line, const dp_algo *a,
				  const dp_graph *g, const dp_machine *m);

/* The bytes of the lowered graph's data edges whose ends are on two
 * devices: what a lowered strategy moves. */
int64_t test_cross_bytes(const dp_lowered *l);

/* Two simulator results agree, bit for bit, on: the schedule (times,
 * transfers, per-device load and traffic, cut); the memory peaks and
 * feasibility; the critical path; the live tensors at the peaks; the
 * memory curves. */
bool test_sim_same_schedule(const dp_sim_result *a, const dp_sim_result *b);
bool test_sim_same_peaks(const dp_sim_result *a, const dp_sim_result *b);
bool test_sim_same_path(const dp_sim_result *a, const dp_sim_result *b);
bool test_sim_same_live(const dp_sim_result *a, const dp_sim_result *b);
bool test_sim_same_curves(const dp_sim_result *a, const dp_sim_result *b);

/* Lowers strategy s of g for m and simulates it with contention c: the
 * makespan, and in *fits whether every device kept its cap; -1 (a
 * recorded failure) when it cannot be lowered or simulated. */
double test_simulate_strategy(const dp_graph *g, const dp_machine *m,
			      const dp_strategy *s, dp_contention c,
			      bool *fits);

/* An spmd strategy of mesh [p] for g (k = p), nothing split; false when
 * it cannot be allocated. The caller frees it (dp_strategy_free). */
bool test_spmd_strategy(const dp_graph *g, int p, dp_strategy *s);
/* The graph at path (test_load_ok) and in *s an spmd strategy of mesh [p]
 * for it (test_spmd_strategy); NULL, a recorded failure, with nothing to
 * free when either fails. */
dp_graph *test_spmd_load(const char *path, int p, dp_strategy *s);
/* Splits dim of op over the mesh axes of mask (bit i: axis i; 0 unsplits);
 * a missing op or dim is a recorded failure. */
void test_spmd_split(const dp_graph *g, dp_strategy *s, const char *op,
		     const char *dim, uint8_t mask);
/* Lowers s of g for a fresh k-device machine into l (the caller frees
 * it); false, a recorded failure with the error, when it cannot. */
bool test_lower(const dp_graph *g, const dp_strategy *s, int k, dp_lowered *l);
/* CHECK_COMM_EACH(l, k, bytes): simulated on a fresh k-device machine,
 * every device of the lowered l sends bytes and receives bytes (the
 * collectives of an even split); each mismatch a failure naming the
 * device. */
#define CHECK_COMM_EACH(...)                                                   \
	test_check_comm_each(__FILE__, __LINE__, __VA_ARGS__)
void test_check_comm_each(const char *file, int line, const dp_lowered *l,
			  int k, int64_t bytes);
/* Simulates l on a fresh k-device machine into r (the caller frees it);
 * false, a recorded failure, when it cannot. */
bool test_simulate_lowered(const dp_lowered *l, int k, dp_sim_result *r);
#endif
