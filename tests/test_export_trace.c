/* test_export_trace.c - the Chrome / Perfetto trace of a small plan whose
 * schedule is known: a process per device, named threads, one complete
 * event per op with its args, a send and a receive slice and one flow
 * (s/f with one id) per transfer, memory counters that reach each device's
 * peak and carry its cap; kinds by file name (.trace.json, .png, .pdf);
 * a cancelled trace leaves no file; the placement's algorithm names it. */
#include <cJSON.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnnpart/algo.h"
#include "dnnpart/export.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

/* a -> b -> c with a and c on GPU 0 and b on GPU 1: two transfers */
static dp_graph *chain(void)
{
	dp_graph *g = dp_graph_new("chain");
	uint32_t a = test_add_op(g, "a", 10, 1 << 20, "l0");
	uint32_t b = test_add_op(g, "b", 20, 2 << 20, "l1");
	uint32_t c = test_add_op(g, "c", 5, 4096, "l1");
	g->ops[a].param_bytes = 8 << 20;
	dp_graph_add_edge(g, a, b, -1, false, NULL);
	dp_graph_add_edge(g, b, c, -1, false, NULL);
	if (dp_graph_finalize(g, NULL) != DP_OK) {
		dp_graph_free(g);
		return NULL;
	}
	return g;
}

/* Where the tests put the chain's a, b, c. */
static const int32_t chain_pl[] = {0, 1, 0};

/* The chain in *g, placed by chain_pl on m (two devices of 1 GiB),
 * evaluated into plan with port contention; false when any of it fails. */
static bool eval_chain(dp_graph **g, dp_machine *m, dp_plan *plan)
{
	dp_err err;
	memset(plan, 0, sizeof *plan);
	*g = chain();
	if (!*g || dp_machine_init(m, 2, &err) != DP_OK)
		return false;
	if (dp_machine_set_caps(m, "1GiB", &err) != DP_OK)
		return false;
	return dp_plan_evaluate(*g, m, chain_pl, DP_CONT_PORT, plan, &err) ==
	       DP_OK;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void test_trace_of_a_known_plan(void)
{
	dp_graph *g;
	dp_machine m;
	dp_plan plan;
	REQUIRE(eval_chain(&g, &m, &plan));
	REQUIRE(plan.sim.nxfers == 2);
	const char *path = test_tmp_path("chain.trace.json");
	dp_export_kind kind;
	dp_err err;
	REQUIRE(dp_export_kind_from_path(path, &kind, &err) == DP_OK);
	CHECK_INT(kind, DP_EXPORT_TRACE);
	dp_export_report rep;
	REQUIRE(dp_export_write_opts(path, kind, g, &m, &plan, NULL, NULL, &rep,
				     &err) == DP_OK);
	CHECK(!rep.coarsened);
	CHECK_STR(rep.note, "");
	char *text = test_read_file(path, NULL);
	REQUIRE(text);
	cJSON *doc = cJSON_Parse(text);
	free(text);
	REQUIRE(doc);
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(doc, "traceEvents");
	REQUIRE(cJSON_IsArray(ev));
	CHECK_INT((int)rep.entries, cJSON_GetArraySize(ev));
	int procs = 0, threads = 0, ops = 0, sends = 0, recvs = 0, counters = 0;
	int flow_s = 0, flow_f = 0, ids = 0;
	double peak[2] = {0, 0};
	const cJSON *e;
	cJSON_ArrayForEach(e, ev)
	{
		const char *ph = str(e, "ph");
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
		int pid = (int)num(e, "pid");
		CHECK(ph[0] != '\0');
		if (!strcmp(ph, "M") &&
		    !strcmp(str(e, "name"), "process_name")) {
			char want[16];
			snprintf(want, sizeof want, "GPU%d", pid);
			CHECK_STR(str(args, "name"), want);
			procs++;
		} else if (!strcmp(ph, "M") &&
			   !strcmp(str(e, "name"), "thread_name")) {
			threads++;
		} else if (!strcmp(ph, "X")) {
			CHECK(num(e, "dur") >= 0 && num(e, "ts") >= 0);
			CHECK(cJSON_GetObjectItemCaseSensitive(args,
							       "critical"));
			if (!strcmp(str(e, "cat"), "transfer")) {
				const char *dir = str(args, "direction");
				sends += !strncmp(dir, "to GPU", 6);
				recvs += !strncmp(dir, "from GPU", 8);
				CHECK(num(args, "bytes") > 0);
			} else {
				uint32_t u = dp_graph_find(g, str(e, "name"));
				REQUIRE(u != UINT32_MAX);
				CHECK_INT(pid, chain_pl[u]);
				CHECK(num(e, "ts") == plan.sim.start[u]);
				CHECK(num(e, "dur") ==
				      plan.sim.end[u] - plan.sim.start[u]);
				CHECK_STR(str(args, "layer"),
					  u == 0 ? "l0" : "l1");
				CHECK(num(args, "output_bytes") ==
				      (double)g->ops[u].output_bytes);
				ops++;
			}
		} else if (!strcmp(ph, "s")) {
			flow_s++;
			ids += (int)num(e, "id") + 1;
		} else if (!strcmp(ph, "f")) {
			flow_f++;
			CHECK_STR(str(e, "bp"), "e");
			ids -= (int)num(e, "id") + 1;
		} else if (!strcmp(ph, "C")) {
			double used = num(args, "used");
			CHECK(num(args, "cap") == (double)(1ll << 30));
			REQUIRE(pid == 0 || pid == 1);
			peak[pid] = used > peak[pid] ? used : peak[pid];
			counters++;
		}
	}
	CHECK_INT(procs, 2);
	CHECK_INT(threads, 6); /* compute, send, receive on each */
	CHECK_INT(ops, 3);
	CHECK_INT(sends, 2);
	CHECK_INT(recvs, 2);
	CHECK_INT(flow_s, 2);
	CHECK_INT(flow_f, 2);
	CHECK_INT(ids, 0); /* every start's id has its finish */
	CHECK(counters > 0);
	for (int d = 0; d < 2; d++)
		CHECK(peak[d] == (double)plan.sim.dev[d].peak_bytes);
	cJSON_Delete(doc);
	dp_plan_free(&plan);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* A pipeline's op slices say their micro-batch, block and chunk: an
 * interleaved 1F1B of 8 layers on 2 devices (V = 2, M = 4) puts f0..f1 in
 * chunk 0 and f4..f5 in chunk 1 of device 0 (F blocks), their gradients
 * in B blocks; under zb-h1 the weight gradients are W blocks. Every
 * expected value is the strategy's, not the trace's. */
static void test_trace_shows_pipeline_blocks(void)
{
	for (int c = 0; c < 2; c++) {
		dp_graph *g = test_train_chain(8, 100, NULL, 100, 1 << 20, 0);
		dp_machine m;
		REQUIRE(g && dp_machine_init(&m, 2, NULL) == DP_OK);
		dp_algo_opts o;
		dp_algo_opts_default(&o);
		o.microbatches = 4;
		o.virtual_stages = c == 0 ? 2 : 0;
		o.schedule = c == 0 ? DP_SCHED_1F1B : DP_SCHED_ZBH1;
		dp_plan plan;
		dp_err err;
		REQUIRE(dp_plan_run(g, &m, dp_algo_find("1f1b"), &o, NULL,
				    &plan, &err) == DP_OK);
		const char *path = test_tmp_path("pipe.trace.json");
		REQUIRE(dp_export_write_opts(path, DP_EXPORT_TRACE, g, &m,
					     &plan, NULL, NULL, NULL,
					     &err) == DP_OK);
		char *text = test_read_file(path, NULL);
		cJSON *doc = text ? cJSON_Parse(text) : NULL;
		free(text);
		REQUIRE(doc);
		const cJSON *e;
		int f = 0, b = 0, w = 0, once = 0, chunk1 = 0;
		const int32_t *stage = plan.strat->pipe.stage;
		cJSON_ArrayForEach(
			e, cJSON_GetObjectItemCaseSensitive(doc, "traceEvents"))
		{
			const cJSON *args =
				cJSON_GetObjectItemCaseSensitive(e, "args");
			const char *blk = str(args, "block");
			if (strcmp(str(e, "ph"), "X") || !blk[0])
				continue;
			/* "f4@m2": the user's op f4, micro-batch 2 */
			char name[64];
			snprintf(name, sizeof name, "%s", str(e, "name"));
			char *at = strchr(name, '@');
			if (!at) {
				CHECK_STR(blk, "once");
				once++;
				continue;
			}
			CHECK_INT((int)num(args, "micro_batch"), atoi(at + 2));
			*at = '\0';
			uint32_t u = dp_graph_find(g, name);
			if (u == UINT32_MAX) /* sends, sums */
				continue;
			dp_role r = dp_op_role(g, u);
			const char *want = r == DP_ROLE_FORWARD		 ? "F"
					   : r == DP_ROLE_GRAD && c == 1 ? "W"
									 : "B";
			if (r == DP_ROLE_FORWARD || r == DP_ROLE_GRAD ||
			    r == DP_ROLE_BACKWARD)
				CHECK_STR(blk, want);
			f += !strcmp(blk, "F");
			b += !strcmp(blk, "B");
			w += !strcmp(blk, "W");
			if (c == 0) {
				CHECK_INT((int)num(args, "chunk"),
					  stage[u] / 2);
				chunk1 += stage[u] / 2 == 1;
			} else {
				CHECK(!cJSON_GetObjectItemCaseSensitive(
					args, "chunk"));
			}
		}
		CHECK(f >= 8 * 4 && b >= 8 * 4);
		CHECK(c == 0 ? w == 0 : w == 8 * 4);
		CHECK(c == 1 || chunk1 > 0);
		CHECK(once > 0);
		cJSON_Delete(doc);
		dp_plan_free(&plan);
		dp_machine_free(&m);
		dp_graph_free(g);
	}
}

static void test_trace_canceled_writes_nothing(void)
{
	dp_graph *g;
	dp_machine m;
	dp_plan plan;
	REQUIRE(eval_chain(&g, &m, &plan));
	atomic_int cancel;
	atomic_init(&cancel, 1);
	dp_progress p = {NULL, NULL, &cancel};
	const char *path = test_tmp_path("cancel.trace.json");
	dp_err err;
	CHECK_INT(
		dp_export_write(path, DP_EXPORT_TRACE, g, &m, &plan, &p, &err),
		DP_ECANCELED);
	CHECK(access(path, F_OK) != 0);
	dp_plan_free(&plan);
	dp_machine_free(&m);
	dp_graph_free(g);
}

static void test_picture_kinds_by_name(void)
{
	dp_export_kind k;
	dp_err err;
	REQUIRE(dp_export_kind_from_path("a.png", &k, &err) == DP_OK);
	CHECK_INT(k, DP_EXPORT_PNG);
	REQUIRE(dp_export_kind_from_path("a.PDF", &k, &err) == DP_OK);
	CHECK_INT(k, DP_EXPORT_PDF);
	REQUIRE(dp_export_kind_from_path("a.json", &k, &err) == DP_OK);
	CHECK_INT(k, DP_EXPORT_JSON);
	CHECK(dp_export_kind_from_path("a.jpg", &k, &err) != DP_OK);
	CHECK_CONTAINS(err.msg, ".trace.json");
	CHECK_STR(dp_export_kind_name(DP_EXPORT_TRACE), "Perfetto trace");
}

static void test_trace_cleanup(void)
{
	CHECK(test_tmp_cleanup());
}

TEST_MAIN(TEST(test_trace_of_a_known_plan),
	  TEST(test_trace_shows_pipeline_blocks),
	  TEST(test_trace_canceled_writes_nothing),
	  TEST(test_picture_kinds_by_name), TEST(test_trace_cleanup))
