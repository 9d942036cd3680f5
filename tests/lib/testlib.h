/* testlib.h - a small unit-test harness.
 *
 * A test file defines test functions and a table:
 *
 *   static void test_chain_two_devices(void) { CHECK_NEAR(m, 42.0, 1e-9); }
 *   TEST_MAIN(TEST(test_chain_two_devices), TEST(test_other))
 *
 * Each test prints "ok - NAME" or "not ok - NAME: file:line: what failed"
 * (TAP-like); tests/run.sh counts those lines across every suite. A CHECK
 * records a failure and continues; REQUIRE returns from the test.
 */
#ifndef DNNPART_TESTLIB_H
#define DNNPART_TESTLIB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dnnpart/graph.h"

struct test_case {
	const char *name;
	void (*fn)(void);
};

int test_main(const struct test_case *cases, int n, int argc, char **argv);
void test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool test_failed(void);
/* FAIL_ERR(what, err): records a failure "WHAT: <err formatted with
 * dp_err_format>" at the caller's line; what may be NULL (the error only). */
#define FAIL_ERR(what, err) test_fail_err(__FILE__, __LINE__, what, err)
struct dp_err;
void test_fail_err(const char *file, int line, const char *what,
		   const struct dp_err *err);
/* Marks the running test skipped: it prints "skip - NAME: why" (counted as
 * skipped, never as passed) unless it also recorded a failure. */
void test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The folder of the real inputs copied into the repository, relative to its
 * root: "tests/data" (msr-fiddle/ and pipedream/, each with its LICENSE.txt
 * and a SOURCE.md saying where it came from). */
const char *test_data_dir(void);
/* The ParDNN authors' ResNet folder, which states no licence and so is not
 * in the repository: $DNNPART_SHARED/pardnn-resnet (default
 * ../shared/benchmarks/pardnn-resnet). When it is not there: NULL, and the
 * running test is marked skipped (test_skip). */
const char *test_pardnn_resnet(void);
/* Reads a whole file with the engine's dp_load_read_file; NULL when it cannot
 * (the caller frees). len may be NULL. */
char *test_read_file(const char *path, size_t *len);
/* Loads a graph with dp_graph_load; on failure records a test failure with
 * the formatted error and returns NULL. */
dp_graph *test_load_ok(const char *path);
/* g finalized (dp_graph_finalize), or NULL after freeing it when it cannot
 * be: the last line of a test's graph builder. */
dp_graph *test_finalized(dp_graph *g);
/* The end of a load in a test: g finalized when st is DP_OK and g
 * finalizes, else NULL (g freed) with err filled. */
dp_graph *test_loaded(dp_status st, dp_graph *g, dp_err *err);
/* A loader of text, dp_load_json, dp_load_fiddle, dp_load_pipedream, ... */
typedef dp_status (*test_text_loader)(const char *path, const char *text,
				      size_t len, dp_graph **out, dp_err *err);
/* Loads text, or the file at path when text is NULL, with load (path names
 * it in messages), and finalizes: NULL with err filled on failure. */
dp_graph *test_load_with(test_text_loader load, const char *path,
			 const char *text, dp_err *err);
/* The edit cases of the file at path (lines "replace FROM", "with TO",
 * "error MSG"; '#' starts a comment): each copy of base with its first FROM
 * replaced by TO must fail to load with load as the file named name (its
 * source, for finalize's messages) with DP_EINPUT and the error MSG as
 * dp_err_format writes it. Returns how many cases ran; an unreadable file,
 * a case missing a line or a FROM not in base is a failure. */
int test_check_edits(const char *path, const char *base, test_text_loader load,
		     const char *name);
/* Loads the file rel under test_data_dir() with load (test_load_with);
 * NULL, recorded as a failure with the error, when it cannot be. */
dp_graph *test_load_data(test_text_loader load, const char *rel);
/* A native JSON graph given as text, loaded as the file "t.json" (its
 * source, for messages) and finalized; NULL, recorded as a test failure
 * with the error, when it cannot be. */
dp_graph *test_json_text(const char *text);
/* The iteration space of op as compact text, "b=8,s=16,k=4 out=b,s,k
 * param=- elem=4" ("none" without dims; "-": no out or param), and an
 * edge's dims, "b,s" ("[]": none given as a list; "none": no dims). A static
 * buffer, valid until the next call. */
const char *test_dims_text(const dp_graph *g, uint32_t op);
const char *test_edge_dims_text(const dp_graph *g, uint32_t e);
/* splitmix64 step on *state: a seeded, portable random stream. */
uint64_t test_rand(uint64_t *state);
/* A number in 0..n-1 from test_rand. */
uint32_t test_randn(uint64_t *state, uint32_t n);
/* A finalized random DAG of n ops named NAME: ops are created in a shuffled
 * order so that op numbers and topological order differ; each op takes up
 * to four inputs from earlier positions (some control, some with explicit
 * bytes, some duplicated); times include zeros and fractions; some ops have
 * params and temps. NULL on failure. */
dp_graph *test_random_dag(uint64_t *state, uint32_t n, const char *name);

/* A path named name in this test program's own fresh folder under /tmp
 * (made on first use; NULL when it cannot be). The result is a static
 * buffer, valid until the next call. */
const char *test_tmp_path(const char *name);
/* Writes text to path (created or truncated); false when it cannot. */
bool test_write_file(const char *path, const char *text);
/* The folder itself (made on first use), or NULL. */
const char *test_tmp_dir(void);
/* Removes the folder and all in it (kept when KEEP is set in the
 * environment); true when it is gone or was never made. The next
 * test_tmp_path() or test_tmp_dir() makes a fresh one. */
bool test_tmp_cleanup(void);
/* Entries of that folder whose name starts with prefix ("" counts all;
 * temporary files of afile are ".NAME.tmpXXXXXX"); -1 when unreadable. */
int test_count_files(const char *prefix);
/* The files of folder dir whose names end in suffix, as "dir/NAME",
 * sorted, at most max of them; returns how many (0 when dir cannot be
 * read). */
int test_list_files(const char *dir, const char *suffix, char names[][512],
		    int max);
/* Reads a DOT file with cgraph's agread(); NULL when it cannot. The caller
 * agclose()s it. */
struct Agraph_s;
struct Agraph_s *test_read_dot(const char *path);
/* Switches LC_NUMERIC to a locale whose decimal point is a comma: de_DE if
 * the system has it, else compiled into the test's folder with localedef
 * (LOCPATH). False when neither works (LC_NUMERIC unchanged); the caller
 * goes back with setlocale(LC_NUMERIC, "C"). */
bool test_comma_locale(void);
/* Adds op name with time t (us), output bytes out and a layer (NULL: none)
 * to a graph being built; returns its id. A name the graph refuses is a
 * test failure. */
uint32_t test_add_op(dp_graph *g, const char *name, double t, int64_t out,
		     const char *layer);

/* test_add_op (no layer) with a role (DP_ROLE_NONE: none set). */
uint32_t test_add_role_op(dp_graph *g, const char *name, double t, int64_t out,
			  dp_role role);
/* A data edge a -> b of a's output bytes; refused, a test failure. */
void test_add_edge(dp_graph *g, uint32_t a, uint32_t b);
/* The backward op "NAME/grad" of forward op f named NAME: t us, out bytes,
 * reading from (the next backward op, or the loss) and f. */
uint32_t test_add_grad(dp_graph *g, uint32_t f, uint32_t from, double t,
		       int64_t out);
/* test_add_edge for each pair e[i][0] -> e[i][1], i < n. */
void test_add_edges(dp_graph *g, const uint32_t (*e)[2], size_t n);

/* A graph named name, not finalized, from a compact text: the ops,
 * "NAME[:TIME]" separated by blanks (TIME in us, 0 when not given; no
 * output bytes), numbered 0, 1, ... in that order; then after ';' the edges,
 * "FROM>TO" a data edge of bytes (-1: the producer's output) and "FROM~TO"
 * a control edge. test_graph_text("g", "a:5 b c; a>b a~c", -1). A word the
 * graph refuses is a test failure. */
dp_graph *test_graph_text(const char *name, const char *text, int64_t bytes);

/* test_add_op with a printf-style name: test_add_opf(g, 10, 4096, "o%d", i)
 * adds op "o7" for i = 7. */
uint32_t test_add_opf(dp_graph *g, double t, int64_t out, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The shape of a random DAG for test_random_dag_with(): op i takes 1 to
 * max_inputs inputs from the window ops before it (0: from any earlier
 * op). A field "every N" means one op or edge in N on average (0: never). */
typedef struct test_dag_opts {
	uint32_t n;
	uint32_t window, max_inputs;
	double time_min, time_max; /* µs, uniform; whole numbers */
	uint32_t zero_time_every;  /* ops that take 0 µs */
	int64_t out_min, out_max;  /* output bytes, uniform */
	uint32_t param_every;	   /* ops holding params up to param_max */
	int64_t param_max;
	uint32_t temp_every; /* ops with a temp up to temp_max */
	int64_t temp_max;
	uint32_t control_every; /* control edges */
	uint32_t bytes_every;	/* edges with their own bytes, to bytes_max */
	int64_t bytes_max;
	uint32_t parallel_every; /* edges given twice */
	uint32_t group_every; /* ops in one of n / 50 + 1 colocation groups */
	uint32_t pin_every;   /* ops pinned to a device below pin_k */
	int pin_k;
} test_dag_opts;
/* The shape of n ops as words, "window=3 inputs=2 time=5..80 out=1K..4M
 * params=3:1M" (KEY=A, KEY=A..B for a range, KEY=EVERY:MAX; numbers may
 * end in K, M or G, times 2^10, 2^20, 2^30): window, inputs (max_inputs),
 * time (min..max), zero_time, out (min..max), params (every:max), temps
 * (every:max), control, bytes (every:max), parallel, groups, pins
 * (every:k). What is not named is 0; a word it cannot read is a test
 * failure. */
test_dag_opts test_dag_spec(uint32_t n, const char *spec);
/* The mixed shape of the invariant tests: n ops, 1..3 inputs from the 40
 * before, 0..199 us (one op in 8 none), outputs under 1 MiB, params, temps,
 * control, explicit-bytes and parallel edges; with constraints, one op in 20
 * in a colocation group and one in 30 pinned to device 0 or 1. */
test_dag_opts test_dag_mixed(uint32_t n, bool constraints);
/* The one random DAG of the tests with a shape: seeded by seed (test_rand),
 * ops named op0, op1, ... in topological order, finalized; pins never land
 * in a colocation group. NULL on failure. */
dp_graph *test_random_dag_with(uint64_t seed, const test_dag_opts *o,
			       const char *name);

#define TEST(fn)                                                               \
	{                                                                      \
#fn, fn                                                        \
	}
#define TEST_MAIN(...)                                                         \
	int main(int argc, char **argv)                                        \
	{                                                                      \
		static const struct test_case cases_[] = {__VA_ARGS__};        \
		return test_main(cases_,                                       \
				 (int)(sizeof cases_ / sizeof cases_[0]),      \
				 argc, argv);                                  \
	}

#define CHECK(c)                                                               \
	do {                                                                   \
		if (!(c))                                                      \
			test_fail(__FILE__, __LINE__, "CHECK(%s)", #c);        \
	} while (0)
#define REQUIRE(c)                                                             \
	do {                                                                   \
		if (!(c)) {                                                    \
			test_fail(__FILE__, __LINE__, "REQUIRE(%s)", #c);      \
			return;                                                \
		}                                                              \
	} while (0)
#define CHECK_INT(a, b)                                                        \
	do {                                                                   \
		long long a_ = (long long)(a), b_ = (long long)(b);            \
		if (a_ != b_)                                                  \
			test_fail(__FILE__, __LINE__,                          \
				  "%s == %lld, want %s == %lld", #a, a_, #b,   \
				  b_);                                         \
	} while (0)
#define CHECK_NEAR(a, b, eps)                                                  \
	do {                                                                   \
		double a_ = (double)(a), b_ = (double)(b);                     \
		if (!(a_ - b_ <= (eps) && b_ - a_ <= (eps)))                   \
			test_fail(__FILE__, __LINE__,                          \
				  "%s == %.9g, want %.9g (+-%g)", #a, a_, b_,  \
				  (double)(eps));                              \
	} while (0)
#define CHECK_STR(a, b)                                                        \
	do {                                                                   \
		const char *a_ = (a), *b_ = (b);                               \
		if (!a_ || !b_ || strcmp(a_, b_) != 0)                         \
			test_fail(__FILE__, __LINE__,                          \
				  "%s == \"%s\", want \"%s\"", #a,             \
				  a_ ? a_ : "(null)", b_ ? b_ : "(null)");     \
	} while (0)
/* CHECK_PARSE_NAMES(cases, T, parse, name): for each {text, want} of
 * cases (const char *[][2]), parse(text, &v, &err) with v of type T
 * returns DP_OK and name(v) is want. */
#define CHECK_PARSE_NAMES(cases, T, parse, name)                               \
	do {                                                                   \
		for (size_t i_ = 0; i_ < sizeof(cases) / sizeof((cases)[0]);   \
		     i_++) {                                                   \
			T v_ = (T)-1;                                          \
			dp_err e_;                                             \
			CHECK_INT(parse((cases)[i_][0], &v_, &e_), DP_OK);     \
			CHECK_STR(name(v_), (cases)[i_][1]);                   \
		}                                                              \
	} while (0)
/* CHECK_PARSE_REFUSES(T, parse, text, want): parse refuses text as a T:
 * DP_EINPUT with exactly the message want. */
#define CHECK_PARSE_REFUSES(T, parse, text, want)                              \
	do {                                                                   \
		T v_;                                                          \
		dp_err e_;                                                     \
		CHECK_INPUT_MSG(parse(text, &v_, &e_), &e_, want);             \
	} while (0)
/* CHECK_INPUT_MSG(call, err, want): call returns DP_EINPUT and fills err
 * with exactly the message want. */
#define CHECK_INPUT_MSG(call, err, want)                                       \
	do {                                                                   \
		CHECK_INT(call, DP_EINPUT);                                    \
		CHECK_STR((err)->msg, want);                                   \
	} while (0)
/* CHECK_FILE(path, text): the file at path holds exactly text. */
#define CHECK_FILE(path, text) test_check_file(__FILE__, __LINE__, path, text)
void test_check_file(const char *file, int line, const char *path,
		     const char *want);
#define CHECK_CONTAINS(hay, needle)                                            \
	do {                                                                   \
		const char *h_ = (hay), *n_ = (needle);                        \
		if (!h_ || !strstr(h_, n_))                                    \
			test_fail(__FILE__, __LINE__,                          \
				  "%s == \"%s\" does not contain \"%s\"",      \
				  #hay, h_ ? h_ : "(null)", n_);               \
	} while (0)

#endif
