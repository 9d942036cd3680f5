/* test_strategy_file.c - strategy files (strategy.h, docs/formats.md):
 * round trips of every kind, the tiny dp file, numbers of parts resolved
 * to mesh axes, and each bad case with its exact message and position. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/load.h"
#include "dnnpart/strategy.h"
#include "internal/strategy_file.h"
#include "lib/testlib.h"

extern const dp_algo dpi_algo_dp;

/* x -> fc (with w) -> loss; fc -> grad -> update of w. */
static const char *const train =
	"{\"name\":\"train\",\"batch_dim\":\"b\",\"ops\":[\n"
	"{\"name\":\"x\",\"role\":\"input\",\"time_us\":1,\"dims\":{\"b\":8,"
	"\"k\":4},\"out\":[\"b\",\"k\"],\"output_bytes\":128},\n"
	"{\"name\":\"w\",\"role\":\"param\",\"time_us\":1,\"dims\":{\"k\":4,"
	"\"n\":8},\"out\":[\"k\",\"n\"],\"param\":[\"k\",\"n\"],"
	"\"output_bytes\":128,\"param_bytes\":384},\n"
	"{\"name\":\"fc\",\"role\":\"forward\",\"time_us\":16,\"dims\":{"
	"\"b\":8,\"k\":4,\"n\":8},\"out\":[\"b\",\"n\"],\"output_bytes\":256},"
	"\n"
	"{\"name\":\"loss\",\"role\":\"loss\",\"time_us\":2,\"dims\":{\"b\":8,"
	"\"n\":8},\"out\":[\"b\"],\"output_bytes\":32},\n"
	"{\"name\":\"grad\",\"role\":\"backward\",\"time_us\":16,\"dims\":{"
	"\"b\":8,\"k\":4,\"n\":8},\"out\":[\"k\",\"n\"],\"output_bytes\":128},"
	"\n"
	"{\"name\":\"update\",\"role\":\"update\",\"time_us\":4,\"dims\":{"
	"\"k\":4,\"n\":8},\"param\":[\"k\",\"n\"],\"param_bytes\":256},\n"
	"{\"name\":\"tail\",\"role\":\"forward\",\"time_us\":1}\n"
	"],\"edges\":[\n"
	"{\"from\":\"x\",\"to\":\"fc\",\"dims\":[\"b\",\"k\"]},\n"
	"{\"from\":\"w\",\"to\":\"fc\",\"dims\":[\"k\",\"n\"]},\n"
	"{\"from\":\"fc\",\"to\":\"loss\",\"dims\":[\"b\",\"n\"]},\n"
	"{\"from\":\"fc\",\"to\":\"tail\"},\n"
	"{\"from\":\"x\",\"to\":\"grad\",\"dims\":[\"b\",\"k\"]},\n"
	"{\"from\":\"fc\",\"to\":\"grad\",\"dims\":[\"b\",\"n\"]},\n"
	"{\"from\":\"grad\",\"to\":\"update\",\"dims\":[\"k\",\"n\"]},\n"
	"{\"from\":\"w\",\"to\":\"update\",\"control\":true}\n"
	"]}\n";

static dp_graph *graph(void)
{
	return test_json_text(train);
}

/* Writes text to a fresh file called name; returns its path. */
static const char *put(const char *name, const char *text)
{
	const char *p = test_tmp_path(name);
	FILE *f = p ? fopen(p, "w") : NULL;
	if (!f)
		return "/nonexistent";
	fputs(text, f);
	fclose(f);
	return p;
}

/* Reads path for g on k devices: "" on success, else "LINE:COL: msg"
 * (the file name checked separately). */
static const char *read_msg(const char *path, const dp_graph *g, int k,
			    dp_strategy *s)
{
	static char buf[1200];
	dp_machine m;
	dp_err err;
	dp_err_clear(&err);
	if (dp_machine_init(&m, k, &err))
		return "machine";
	dp_strategy t;
	dp_strategy_init(&t);
	dp_status st = dp_strategy_read(path, g, &m, s ? s : &t, &err);
	dp_machine_free(&m);
	if (!s)
		dp_strategy_free(&t);
	if (!st)
		return "";
	if (strcmp(err.file, path) != 0)
		test_fail(__FILE__, __LINE__, "error names '%s', not '%s'",
			  err.file, path);
	snprintf(buf, sizeof buf, "%d:%d: %s", err.line, err.col, err.msg);
	return buf;
}

static const char *bad(const char *body, int k)
{
	static char text[4096];
	snprintf(text, sizeof text,
		 "{\"format\":\"dnnpart-strategy\",\"version\":1,\n%s}\n",
		 body);
	dp_graph *g = graph();
	if (!g)
		return "no graph";
	const char *m = read_msg(put("bad.json", text), g, k, NULL);
	dp_graph_free(g);
	return m;
}

static void same_spmd(const dp_graph *g, const dp_spmd *a, const dp_spmd *b)
{
	CHECK_INT(a->naxes, b->naxes);
	for (int i = 0; i < a->naxes; i++)
		CHECK_INT(a->mesh[i], b->mesh[i]);
	CHECK(memcmp(a->axes, b->axes, (size_t)g->nops * DP_MAX_OP_DIMS) == 0);
	for (uint32_t u = 0; u < g->nops; u++)
		CHECK_INT(a->device[u], b->device[u]);
}

static void test_spmd_round_trip(void)
{
	dp_graph *g = graph();
	REQUIRE(g);
	dp_strategy s, r;
	dp_err err;
	REQUIRE(dp_strategy_alloc(&s, DP_STRAT_SPMD, g, 0, &err) == DP_OK);
	s.k = 8;
	s.spmd.naxes = 2;
	s.spmd.mesh[0] = 2;
	s.spmd.mesh[1] = 4;
	snprintf(s.label, sizeof s.label, "megatron 2x4");
	snprintf(s.algo, sizeof s.algo, "hand");
	uint32_t fc = dp_graph_find(g, "fc");
	s.spmd.axes[fc * DP_MAX_OP_DIMS + 0] = 1; /* b on axis 0 */
	s.spmd.axes[fc * DP_MAX_OP_DIMS + 2] = 2; /* n on axis 1 */
	s.spmd.axes[dp_graph_find(g, "tail") * DP_MAX_OP_DIMS] = 3;
	s.spmd.device[dp_graph_find(g, "loss")] = 5;
	s.bucket = 12345;
	s.zero_stage = 3;
	const char *p = test_tmp_path("rt.json");
	REQUIRE(dp_strategy_write(p, g, &s, false, &err) == DP_OK);
	CHECK(dp_strategy_is_file(p));
	CHECK_STR(read_msg(p, g, 8, &r), "");
	CHECK_INT(r.kind, DP_STRAT_SPMD);
	CHECK_INT(r.k, 8);
	CHECK_STR(r.label, "megatron 2x4");
	CHECK_STR(r.algo, "hand");
	same_spmd(g, &s.spmd, &r.spmd);
	CHECK_INT(r.bucket, 12345);
	CHECK_INT(r.zero_stage, 3);
	dp_strategy_free(&r);
	/* never over a file unless told */
	CHECK(dp_strategy_write(p, g, &s, false, &err) == DP_EINPUT);
	CHECK_STR(err.msg, "the file exists; it is replaced only when you say "
			   "so");
	CHECK(dp_strategy_write(p, g, &s, true, &err) == DP_OK);
	dp_strategy_free(&s);
	dp_graph_free(g);
}

static void test_placement_round_trip(void)
{
	dp_graph *g = graph();
	REQUIRE(g);
	dp_strategy s, r;
	dp_err err;
	REQUIRE(dp_strategy_alloc(&s, DP_STRAT_PLACEMENT, g, 0, &err) == DP_OK);
	s.k = 3;
	for (uint32_t u = 0; u < g->nops; u++)
		s.placement[u] = (int32_t)(u % 3);
	const char *p = test_tmp_path("pl.json");
	REQUIRE(dp_strategy_write(p, g, &s, false, &err) == DP_OK);
	CHECK_STR(read_msg(p, g, 3, &r), "");
	CHECK_INT(r.kind, DP_STRAT_PLACEMENT);
	CHECK_INT(r.k, 3);
	CHECK_STR(r.label, "placement");
	for (uint32_t u = 0; u < g->nops; u++)
		CHECK_INT(r.placement[u], s.placement[u]);
	dp_strategy_free(&r);
	dp_strategy_free(&s);
	dp_graph_free(g);
}

/* Pipelines are parsed without dp_strategy_check (their check lives with
 * their lowering). */
static void test_pipeline_round_trip(void)
{
	dp_graph *g = graph();
	REQUIRE(g);
	dp_strategy s, r;
	dp_err err;
	REQUIRE(dp_strategy_alloc(&s, DP_STRAT_PIPELINE, g, 2, &err) == DP_OK);
	s.pipe.microbatches = 16;
	s.pipe.schedule = DP_SCHED_1F1B;
	snprintf(s.label, sizeof s.label, "1f1b S=2 M=16");
	s.spmd.naxes = 1;
	s.spmd.mesh[0] = 2;
	int32_t grp[4] = {3, 2, 0, 1};
	int32_t *q = realloc(s.pipe.group, sizeof grp);
	REQUIRE(q);
	memcpy(q, grp, sizeof grp);
	s.pipe.group = q;
	s.pipe.group_off[1] = 2;
	s.pipe.group_off[2] = 4;
	s.k = 4;
	for (uint32_t u = 0; u < g->nops; u++)
		s.pipe.stage[u] = u >= 3;
	s.spmd.axes[dp_graph_find(g, "fc") * DP_MAX_OP_DIMS] = 1;
	const char *p = test_tmp_path("pp.json");
	REQUIRE(dp_strategy_write(p, g, &s, false, &err) == DP_OK);
	size_t len;
	char *text = test_read_file(p, &len);
	REQUIRE(text);
	dp_status st = dpi_strategy_parse(p, text, len, g, &r, &err);
	free(text);
	if (st)
		test_fail(__FILE__, __LINE__, "%d:%d: %s", err.line, err.col,
			  err.msg);
	REQUIRE(st == DP_OK);
	CHECK_INT(r.kind, DP_STRAT_PIPELINE);
	CHECK_INT(r.k, 4);
	CHECK_INT(r.pipe.nstages, 2);
	CHECK_INT(r.pipe.microbatches, 16);
	CHECK_INT(r.pipe.schedule, DP_SCHED_1F1B);
	CHECK_STR(r.label, "1f1b S=2 M=16");
	for (int i = 0; i < 4; i++)
		CHECK_INT(r.pipe.group[i], grp[i]);
	CHECK_INT(r.pipe.group_off[2], 4);
	for (uint32_t u = 0; u < g->nops; u++)
		CHECK_INT(r.pipe.stage[u], s.pipe.stage[u]);
	same_spmd(g, &s.spmd, &r.spmd);
	dp_strategy_free(&r);
	dp_strategy_free(&s);
	dp_graph_free(g);
}

/* every schedule by name, the asynchronous ones too, read and written */
static void test_pipeline_schedules_by_name(void)
{
	dp_graph *g = graph();
	REQUIRE(g);
	for (int sch = DP_SCHED_GPIPE; sch <= DP_SCHED_LAST; sch++) {
		char text[256];
		snprintf(text, sizeof text,
			 "{\"format\":\"dnnpart-strategy\",\"kind\":"
			 "\"pipeline\",\"stages\":2,\"microbatches\":2,"
			 "\"schedule\":\"%s\",\"stage\":{\"x\":0,\"fc\":1,"
			 "\"loss\":1}}",
			 dp_schedule_name((dp_schedule)sch));
		dp_strategy r, w;
		dp_err err;
		REQUIRE(dpi_strategy_parse("p.json", text, strlen(text), g, &r,
					   &err) == DP_OK);
		CHECK_INT(r.pipe.schedule, sch);
		const char *p = test_tmp_path("sched.json");
		REQUIRE(dp_strategy_write(p, g, &r, true, &err) == DP_OK);
		size_t len;
		char *t = test_read_file(p, &len);
		REQUIRE(t);
		REQUIRE(dpi_strategy_parse(p, t, len, g, &w, &err) == DP_OK);
		free(t);
		CHECK_INT(w.pipe.schedule, sch);
		dp_strategy_free(&w);
		dp_strategy_free(&r);
	}
	dp_graph_free(g);
}

static void test_pipeline_default_stage_follows_forward(void)
{
	dp_graph *g = graph();
	REQUIRE(g);
	const char *text = "{\"format\":\"dnnpart-strategy\",\"kind\":"
			   "\"pipeline\",\"stages\":2,\"microbatches\":4,"
			   "\"stage\":{\"x\":0,\"fc\":1,\"loss\":1}}";
	dp_strategy r;
	dp_err err;
	REQUIRE(dpi_strategy_parse("p.json", text, strlen(text), g, &r, &err) ==
		DP_OK);
	/* grad follows its forward predecessors (x on 0, fc on 1): 1;
	 * update follows grad; w, a source, its first consumer fc */
	CHECK_INT(r.pipe.stage[dp_graph_find(g, "grad")], 1);
	CHECK_INT(r.pipe.stage[dp_graph_find(g, "update")], 1);
	CHECK_INT(r.pipe.stage[dp_graph_find(g, "w")], 1);
	CHECK_INT(r.pipe.stage[dp_graph_find(g, "tail")], 1);
	CHECK_INT(r.pipe.schedule, DP_SCHED_GPIPE);
	CHECK_INT(r.k, 2);
	CHECK_STR(r.label, "gpipe S=2 M=4");
	dp_strategy_free(&r);
	dp_graph_free(g);
}

static void test_tiny_dp_file_equals_dp(void)
{
	dp_graph *g = graph();
	REQUIRE(g);
	const char *p = put("dp.json", "{\"format\":\"dnnpart-strategy\","
				       "\"version\":1,\"kind\":\"spmd\","
				       "\"mesh\":[4],\"default\":{\"split\":"
				       "{\"b\":4}}}");
	dp_strategy r, d;
	CHECK_STR(read_msg(p, g, 4, &r), "");
	CHECK_STR(r.label, "spmd 4");
	/* a file without them: DDP's 25 MiB buckets, no ZeRO stage */
	CHECK_INT(r.bucket, 25 << 20);
	CHECK_INT(r.zero_stage, 0);
	dp_machine m;
	dp_err err;
	REQUIRE(dp_machine_init(&m, 4, &err) == DP_OK);
	dp_strategy_init(&d);
	REQUIRE(dpi_algo_dp.strategize(g, &m, NULL, NULL, &d, &err) == DP_OK);
	same_spmd(g, &d.spmd, &r.spmd);
	dp_machine_free(&m);
	dp_strategy_free(&d);
	dp_strategy_free(&r);
	dp_graph_free(g);
}

static void test_parts_resolve_to_mesh_axes(void)
{
	dp_graph *g = graph();
	REQUIRE(g);
	const char *p =
		put("parts.json",
		    "{\"format\":\"dnnpart-strategy\",\"kind\":\"spmd\","
		    "\"mesh\":[2,4],\"ops\":{\"fc\":{\"split\":{\"b\":2,"
		    "\"n\":4}},\"x\":{\"split\":{\"b\":4}},\"grad\":{\"split\":"
		    "{\"b\":8}},\"loss\":{\"split\":{\"b\":[1,0]}},\"tail\":"
		    "{\"split\":{\"b\":1}}}}");
	dp_strategy r;
	CHECK_STR(read_msg(p, g, 8, &r), "");
	const uint8_t *ax = r.spmd.axes;
	CHECK_INT(ax[dp_graph_find(g, "fc") * DP_MAX_OP_DIMS + 0], 1);
	CHECK_INT(ax[dp_graph_find(g, "fc") * DP_MAX_OP_DIMS + 2], 2);
	CHECK_INT(ax[dp_graph_find(g, "x") * DP_MAX_OP_DIMS + 0], 2);
	CHECK_INT(ax[dp_graph_find(g, "grad") * DP_MAX_OP_DIMS + 0], 3);
	CHECK_INT(ax[dp_graph_find(g, "loss") * DP_MAX_OP_DIMS + 0], 3);
	CHECK_INT(ax[dp_graph_find(g, "tail") * DP_MAX_OP_DIMS + 0], 0);
	CHECK_INT(r.spmd.device[dp_graph_find(g, "w")], -1);
	dp_strategy_free(&r);
	dp_graph_free(g);
}

static void test_bad_files_say_where_and_what(void)
{
	dp_err err0;
	const char *spmd = "\"kind\":\"spmd\",\"mesh\":";
	char body[1024];
	snprintf(body, sizeof body,
		 "%s[9],\n\"ops\":{\"fc\":{\"split\":{\"n\":9}}}", spmd);
	CHECK_STR(bad(body, 9), "3:27: ops.fc.split.n: 9 parts are more than "
				"n=8; every part needs at least one index");
	snprintf(body, sizeof body, "%s[2],\n\"ops\":{\"nope\":{}}", spmd);
	CHECK_STR(bad(body, 2), "3:8: ops: unknown op 'nope': the graph "
				"'train' has no op of that name");
	snprintf(body, sizeof body,
		 "%s[2],\n\"ops\":{\"fc\":{\"split\":{\"m\":2}}}", spmd);
	CHECK_STR(bad(body, 2), "3:23: ops.fc.split.m: 'm' is not a dim of op "
				"'fc' (its dims: b, k, n)");
	snprintf(body, sizeof body,
		 "%s[2,4],\"devices\":4,\n\"ops\":{\"fc\":{}}", spmd);
	CHECK_STR(bad(body, 8),
		  "2:22: mesh: [2,4] has 8 devices, but "
		  "\"devices\" says 4; the mesh's product must be "
		  "the number of devices");
	snprintf(body, sizeof body, "%s[8]", spmd);
	CHECK_STR(bad(body, 4), "0:0: the strategy uses 8 devices, but the "
				"machine has 4; set -k 8 or more");
	snprintf(body, sizeof body,
		 "%s[2,4],\n\"ops\":{\"fc\":{\"split\":{\"n\":3}}}", spmd);
	CHECK_STR(bad(body, 8),
		  "3:27: ops.fc.split.n: 3 parts are no unused axis of the "
		  "mesh [2,4] and no run of consecutive unused axes; give the "
		  "axes as a list (such as [0]) or a mesh whose axes match the "
		  "parts (such as [2,4])");
	snprintf(body, sizeof body,
		 "%s[2,4],\n\"default\":{\"split\":{\"n\":8,\"b\":8}}", spmd);
	CHECK_STR(bad(body, 8), "3:31: default.split.b (op 'fc'): 8 parts "
				"are no unused axis of the mesh [2,4] and no "
				"run of consecutive unused axes; give the axes "
				"as a list (such as [0]) or a mesh whose axes "
				"match the parts (such as [2,4])");
	snprintf(body, sizeof body,
		 "%s[2,4],\n\"default\":{\"split\":{\"n\":[0],\"b\":[1,0]}}",
		 spmd);
	CHECK_STR(bad(body, 8), "3:36: default.split.b (op 'fc'): mesh axis 0 "
				"already splits another dim of this op");
	snprintf(body, sizeof body,
		 "%s[2],\n\"ops\":{\"fc\":{\"split\":{"
		 "\"b\":[0]},\"device\":1}}",
		 spmd);
	CHECK_STR(bad(body, 2), "0:0: op 'fc' is both split and placed on "
				"device 1; give one or the other");
	CHECK_STR(
		bad("\"kind\":\"pipeline\",\"stages\":2,\"microbatches\":0", 2),
		"2:45: microbatches: expected an integer from 1 to 4096, got "
		"0");
	CHECK_STR(bad("\"kind\":\"pipeline\",\"stages\":2,\"schedule\":"
		      "\"zb\"",
		      2),
		  "2:41: schedule: expected \"gpipe\", \"1f1b\", \"zb-h1\", "
		  "\"stash\" or \"2bw\", got \"zb\"");
	CHECK_STR(bad("\"kind\":\"pipeline\",\"stages\":2,\"spmd\":{\"mesh\":"
		      "[2]},\"groups\":[[0,1],[1,2]]",
		      4),
		  "2:67: groups[1][0]: device 1 is already in groups[0]");
	CHECK_STR(bad("\"kind\":\"spmd\",\"mesh\":[2],\"stage\":{}", 2),
		  "2:34: stage: not part of a spmd strategy (see "
		  "docs/formats.md)");
	/* buckets and ZeRO stages: a bad value names its key */
	static const char *const zb[][2] = {
		{"\"kind\":\"spmd\",\"mesh\":[2],\"zero_stage\":4",
		 "2:39: zero_stage: expected an integer from 1 to 3, got 4"},
		{"\"kind\":\"spmd\",\"mesh\":[2],\"bucket\":-1",
		 "2:35: bucket: expected an integer from 0 to "
		 "9223372036854775807, got -1"},
		{"\"kind\":\"placement\",\"bucket\":0",
		 "2:29: bucket: not part of a placement strategy (see "
		 "docs/formats.md)"},
	};
	for (size_t i = 0; i < sizeof zb / sizeof zb[0]; i++)
		CHECK_STR(bad(zb[i][0], 2), zb[i][1]);
	CHECK_STR(bad("\"kind\":\"spmd\",\"meshes\":[2]", 2),
		  "2:15: unknown key 'meshes': expected one of format, "
		  "version, graph, kind, devices, label, algorithm, placement, "
		  "mesh, ops, default, stages, microbatches, schedule, "
		  "virtual_stages, stage, "
		  "default_stage, groups, spmd, sequence_parallel, bucket, "
		  "zero_stage, levers");
	CHECK_STR(bad("\"kind\":\"spmd\"", 2),
		  "1:1: missing \"mesh\": the device mesh, such as [8] or "
		  "[2,4]");
	CHECK_STR(bad("\"kind\":\"placement\",\"placement\":{\"x\":0}", 2),
		  "2:32: placement: op 'w' has no device (a placement strategy "
		  "lists every op)");
	CHECK_STR(
		bad("\"kind\":\"tensor\"", 2),
		"2:8: kind: expected \"placement\", \"spmd\" or \"pipeline\", "
		"got \"tensor\"");
	const char *p = put("nf.json", "{\"kind\":\"spmd\",\"mesh\":[2]}");
	dp_graph *g = graph();
	REQUIRE(g);
	CHECK_STR(read_msg(p, g, 2, NULL),
		  "1:1: missing \"format\": \"dnnpart-strategy\"");
	CHECK(!dp_strategy_is_file(p));
	/* without a machine: every check but the number of devices */
	dp_strategy t;
	dp_err_clear(&err0);
	CHECK(dp_strategy_read(put("big.json", "{\"format\":\"dnnpart-"
					       "strategy\",\"kind\":\"spmd\","
					       "\"mesh\":[64]}"),
			       g, NULL, &t, &err0) == DP_OK);
	CHECK_INT(t.k, 64);
	dp_strategy_free(&t);
	CHECK(dp_strategy_read(put("bad3.json",
				   "{\"format\":\"dnnpart-strategy\",\"kind\":"
				   "\"spmd\",\"mesh\":[2],\"ops\":{\"w\":{"
				   "\"device\":1,\"split\":{\"k\":2}}}}"),
			       g, NULL, &t, &err0) == DP_EINPUT);
	CHECK_STR(err0.msg, "op 'w' is both split and placed on device 1; "
			    "give one or the other");
	dp_graph_free(g);
	/* the graph loader tells a strategy from a graph */
	p = put("st.json", "{\"format\":\"dnnpart-strategy\",\"kind\":\"spmd\","
			   "\"mesh\":[2]}");
	dp_err err;
	dp_format fmt;
	CHECK(dp_load_detect(p, &fmt, &err) == DP_EINPUT);
	CHECK_STR(err.msg, "this is a dnnpart strategy file, not a graph (give "
			   "it as the second argument of eval)");
}

static void test_cleanup(void)
{
	CHECK(test_tmp_cleanup());
}

TEST_MAIN(TEST(test_spmd_round_trip), TEST(test_placement_round_trip),
	  TEST(test_pipeline_round_trip),
	  TEST(test_pipeline_schedules_by_name),
	  TEST(test_pipeline_default_stage_follows_forward),
	  TEST(test_tiny_dp_file_equals_dp),
	  TEST(test_parts_resolve_to_mesh_axes),
	  TEST(test_bad_files_say_where_and_what), TEST(test_cleanup))
