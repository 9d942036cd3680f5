/* test_worker_fit.c - the worker's fit job (what the explorer's f runs):
 * one JOB_FIT result with the smallest K and the device's smallest cap, the
 * same answers as dp_fit_run on the calling thread; a plan job supersedes
 * it. */
#include <stdlib.h>
#include <string.h>

#include "dnnpart/fit.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"
#include "worker.h"

#define MIB ((int64_t)1 << 20)

static void test_worker_fit_job_gives_both_answers(void)
{
	dp_graph *g = test_blocks(6);
	dp_machine m;
	REQUIRE(dp_machine_init(&m, 2, NULL) == DP_OK);
	m.cap[0] = m.cap[1] = 25 * MIB;
	dp_err err;
	worker *w = worker_new(&err);
	REQUIRE(w != NULL);
	const dp_algo *algo = dp_algo_find("metf");
	REQUIRE(worker_submit_fit(w, g, &m, algo, NULL, 1, 7, &err) == DP_OK);
	worker_wait_idle(w);
	worker_result *r = worker_take(w);
	REQUIRE(r != NULL);
	CHECK_INT(r->kind, JOB_FIT);
	CHECK_INT(r->gen, 7);
	CHECK_INT(r->fit_dev, 1);
	CHECK_INT(r->status, DP_OK);
	/* the same as the search on this thread */
	dp_fit_opts fk = {.kind = DP_FIT_K};
	dp_fit_opts fc = {.kind = DP_FIT_DEVICE_CAP, .device = 1};
	dp_fit_result k, c;
	REQUIRE(dp_fit_run(g, &m, algo, NULL, &fk, NULL, &k, NULL) == DP_OK);
	REQUIRE(dp_fit_run(g, &m, algo, NULL, &fc, NULL, &c, NULL) == DP_OK);
	CHECK(r->fit_k.found && k.found);
	CHECK_INT(r->fit_k.k, k.k);
	CHECK(r->fit_cap.found && c.found);
	CHECK_INT(r->fit_cap.caps[1], c.caps[1]);
	CHECK_INT(r->fit_cap.nprobes, c.nprobes);
	dp_fit_result_free(&k);
	dp_fit_result_free(&c);
	worker_result_free(r);
	CHECK(worker_take(w) == NULL);

	/* a plan job supersedes a fit: the plan always comes back; the fit
	 * at most once (it may have finished, or been cancelled while it
	 * ran, or dropped before it started) */
	REQUIRE(worker_submit_fit(w, g, &m, algo, NULL, 0, 8, &err) == DP_OK);
	REQUIRE(worker_submit(w, JOB_PLAN, g, &m, algo, NULL, 9, &err) ==
		DP_OK);
	worker_wait_idle(w);
	int plans = 0, fits = 0;
	while ((r = worker_take(w))) {
		if (r->kind == JOB_FIT) {
			fits++;
			CHECK(r->status == DP_OK || r->status == DP_ECANCELED);
		} else {
			plans++;
			CHECK_INT(r->status, DP_OK);
			CHECK_INT(r->gen, 9);
		}
		worker_result_free(r);
	}
	CHECK_INT(plans, 1);
	CHECK(fits <= 1);
	worker_free(w);
	dp_machine_free(&m);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_worker_fit_job_gives_both_answers))
