/* test_jobs.c - the jobs layer without a terminal (jobs/worker.c,
 * jobs/filejob.c): what the explorer and the benchmark driver rely on.
 * The rerun worker's plan and compare jobs give what the engine gives
 * alone, its results come back in order and wake its pipe, a newer job
 * supersedes an older one; a file job opens a graph and exports a plan in
 * the background. */
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "filejob.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"
#include "worker.h"

/* The default options under contention c. */
static const dp_algo_opts *opts(dp_contention c)
{
	static dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.contention = c;
	return &o;
}

/* True when fd is readable within ms milliseconds. */
static bool readable(int fd, int ms)
{
	struct pollfd p = {fd, POLLIN, 0};
	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* Checks that a result's plan is what dp_plan_run gives for algo alone. */
static void check_same_as_alone(const dp_graph *g, const dp_machine *m,
				const dp_algo *algo, const dp_plan *got)
{
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.contention = DP_CONT_NONE;
	dp_plan alone;
	dp_err err;
	REQUIRE(dp_plan_run(g, m, algo, &o, NULL, &alone, &err) == DP_OK);
	CHECK_STR(got->algo, algo->name);
	CHECK_INT(got->contention, DP_CONT_NONE);
	/* a strategy's plan places its lowered graph */
	REQUIRE(got->placement && got->nops == dp_plan_graph(got, g)->nops);
	REQUIRE(alone.nops == got->nops);
	CHECK(memcmp(got->placement, alone.placement,
		     got->nops * sizeof *alone.placement) == 0);
	CHECK_NEAR(got->sim.makespan, alone.sim.makespan, 0);
	dp_plan_free(&alone);
}

/* What a worker test runs on: a worker, the test graph of n ops
 * (test_algo_graph), a machine of k devices and the algorithm it plans
 * with (NULL for a compare job). */
typedef struct jobs_fx {
	worker *w;
	dp_graph *g;
	dp_machine m;
	const dp_algo *algo;
} jobs_fx;

/* Makes f with the algorithm named algo (NULL: none); false (recorded as a
 * failure) when a part cannot be made. The caller frees it with teardown. */
static bool setup(jobs_fx *f, uint32_t n, int k, const char *algo)
{
	dp_err err;
	f->algo = algo ? dp_algo_find(algo) : NULL;
	if (algo && !f->algo) {
		test_fail(__FILE__, __LINE__, "no algorithm %s", algo);
		return false;
	}
	f->g = test_algo_graph(n, 11, "jobs");
	if (!f->g || dp_machine_init(&f->m, k, &err) != DP_OK) {
		test_fail(__FILE__, __LINE__, "no graph or machine");
		dp_graph_free(f->g);
		return false;
	}
	f->w = worker_new(&err);
	if (!f->w) {
		test_fail(__FILE__, __LINE__, "worker_new: %s", err.msg);
		test_free(f->g, &f->m, NULL);
	}
	return f->w != NULL;
}

static void teardown(jobs_fx *f)
{
	worker_free(f->w);
	test_free(f->g, &f->m, NULL);
}

static void test_worker_plan_job_is_the_algorithm_alone(void)
{
	jobs_fx f;
	dp_err err;
	REQUIRE(setup(&f, 80, 3, "heft"));
	const dp_algo *heft = f.algo;
	CHECK_INT(worker_submit(f.w, JOB_PLAN, f.g, &f.m, heft,
				opts(DP_CONT_NONE), 7, &err),
		  DP_OK);
	/* the job copied the machine: changing ours does not reach it */
	f.m.cap[0] = 1;
	worker_wait_idle(f.w);
	CHECK(readable(worker_fd(f.w), 1000));
	worker_result *r = worker_take(f.w);
	REQUIRE(r);
	CHECK_INT(r->kind, JOB_PLAN);
	CHECK(r->g == f.g);
	CHECK_INT(r->gen, 7);
	CHECK_INT(r->row, -1);
	CHECK_INT(r->status, DP_OK);
	f.m.cap[0] = DP_CAP_UNLIMITED;
	check_same_as_alone(f.g, &f.m, heft, &r->plan);
	worker_result_free(r);
	/* taken: nothing more, and the pipe is drained */
	CHECK(worker_take(f.w) == NULL);
	CHECK(!readable(worker_fd(f.w), 0));
	worker_status ws;
	worker_get_status(f.w, &ws);
	CHECK(!ws.busy);
	CHECK(!ws.plan_queued && !ws.compare_queued);
	teardown(&f);
}

static void test_worker_compare_job_gives_every_row_in_order(void)
{
	jobs_fx f;
	dp_err err;
	REQUIRE(setup(&f, 60, 3, NULL));
	CHECK_INT(worker_submit(f.w, JOB_COMPARE, f.g, &f.m, NULL,
				opts(DP_CONT_NONE), 3, &err),
		  DP_OK);
	worker_wait_idle(f.w);
	size_t rows = 0, ncompared;
	const dp_algo *const *every = dp_algo_compared(&ncompared);
	worker_result *r;
	while ((r = worker_take(f.w))) {
		CHECK_INT(r->kind, JOB_COMPARE);
		CHECK_INT(r->gen, 3);
		CHECK_INT(r->row, rows);
		/* a strategy may not apply to this graph (DP_EINPUT, as when
		 * run alone); every placement algorithm plans it */
		const dp_algo *a =
			(size_t)r->row < ncompared ? every[r->row] : NULL;
		if (a && a->strategize && r->status == DP_EINPUT) {
			dp_plan alone;
			CHECK_INT(dp_plan_run(f.g, &f.m, a, opts(DP_CONT_NONE),
					      NULL, &alone, &err),
				  DP_EINPUT);
		} else {
			CHECK_INT(r->status, DP_OK);
		}
		if (r->status == DP_OK && r->row >= 0 &&
		    (size_t)r->row < ncompared)
			check_same_as_alone(f.g, &f.m, every[r->row], &r->plan);
		rows++;
		worker_result_free(r);
	}
	/* every algorithm but those run only on request (ilp) */
	CHECK_INT(rows, ncompared);
	teardown(&f);
}

static void test_worker_newer_plan_supersedes_and_cancel_stops(void)
{
	jobs_fx f;
	dp_err err;
	REQUIRE(setup(&f, 3000, 4, "pardnn"));
	const dp_algo *pardnn = f.algo;
	/* three plans in a row: the last one always comes back, done; the
	 * others come back cancelled, done (too quick to stop) or not at all */
	for (unsigned gen = 1; gen <= 3; gen++)
		CHECK_INT(worker_submit(f.w, JOB_PLAN, f.g, &f.m, pardnn,
					opts(DP_CONT_PORT), gen, &err),
			  DP_OK);
	worker_wait_idle(f.w);
	unsigned last = 0;
	int n = 0;
	worker_result *r;
	while ((r = worker_take(f.w))) {
		CHECK(r->gen > last);
		last = r->gen;
		CHECK(r->status == DP_OK || r->status == DP_ECANCELED);
		n++;
		worker_result_free(r);
	}
	CHECK(n >= 1 && n <= 3);
	CHECK_INT(last, 3);
	/* a compare job cancelled at once: the worker goes idle without
	 * running every row (the first, pardnn on 3000 ops, polls the flag) */
	CHECK_INT(worker_submit(f.w, JOB_COMPARE, f.g, &f.m, NULL,
				opts(DP_CONT_PORT), 4, &err),
		  DP_OK);
	worker_cancel(f.w, false);
	worker_wait_idle(f.w);
	size_t rows = 0;
	while ((r = worker_take(f.w))) {
		CHECK_INT(r->row, rows);
		rows++;
		worker_result_free(r);
	}
	CHECK(rows < dp_algo_count());
	teardown(&f);
}

/* Waits up to 30 s for the file job's result. */
static filejob_result *file_result(filejob *fj)
{
	for (int i = 0; i < 300; i++) {
		if (readable(filejob_fd(fj), 100)) {
			filejob_result *r = filejob_take(fj);
			if (r)
				return r;
		}
	}
	return NULL;
}

static void test_filejob_opens_and_exports_in_the_background(void)
{
	filejob *fj = filejob_new(NULL);
	REQUIRE(fj);
	dp_err err;
	filejob_status fs;
	filejob_get_status(fj, &fs);
	CHECK(!fs.busy);
	REQUIRE(filejob_open(fj, "tests/cli/data/diamond.json", &err) == DP_OK);
	/* one job at a time */
	CHECK_INT(filejob_open(fj, "tests/cli/data/diamond.json", &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "is still running");
	filejob_result *r = file_result(fj);
	REQUIRE(r);
	CHECK_INT(r->kind, FILEJOB_OPEN);
	CHECK_INT(r->status, DP_OK);
	REQUIRE(r->g);
	CHECK_INT(r->g->nops, 7);
	dp_graph *g = r->g;
	r->g = NULL; /* ours now */
	filejob_result_free(r);

	dp_machine m;
	REQUIRE(dp_machine_init(&m, 2, &err) == DP_OK);
	dp_plan plan;
	REQUIRE(dp_plan_run(g, &m, dp_algo_find("mtopo"), NULL, NULL, &plan,
			    &err) == DP_OK);
	const char *path = test_tmp_path("plan.csv");
	REQUIRE(path);
	char saved[512];
	snprintf(saved, sizeof saved, "%s", path);
	REQUIRE(filejob_export(fj, saved, DP_EXPORT_CSV, g, &m, &plan, NULL,
			       &err) == DP_OK);
	/* the job has its own copies: the plan may go at once */
	dp_plan_free(&plan);
	r = file_result(fj);
	REQUIRE(r);
	CHECK_INT(r->kind, FILEJOB_EXPORT);
	CHECK_INT(r->status, DP_OK);
	CHECK_STR(r->algo, "mtopo");
	CHECK_INT(r->rep.entries, 7);
	filejob_result_free(r);
	char *text = test_read_file(saved, NULL);
	CHECK(text != NULL);
	free(text);
	/* a file that is not there: the error comes back as a value */
	REQUIRE(filejob_open(fj, "tests/cli/data/no-such-graph.json", &err) ==
		DP_OK);
	r = file_result(fj);
	REQUIRE(r);
	CHECK(r->status != DP_OK);
	CHECK(r->g == NULL);
	CHECK_CONTAINS(r->msg, "no-such-graph.json");
	filejob_result_free(r);
	filejob_free(fj);
	test_free(g, &m, NULL);
	CHECK(test_tmp_cleanup());
}

TEST_MAIN(TEST(test_worker_plan_job_is_the_algorithm_alone),
	  TEST(test_worker_compare_job_gives_every_row_in_order),
	  TEST(test_worker_newer_plan_supersedes_and_cancel_stops),
	  TEST(test_filejob_opens_and_exports_in_the_background))
