/* test_sample_graphs.c - every sample graph loads and plans, with
 * iteration spaces named as docs/formats.md says; the default that
 * `make run` opens exists. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/graph.h"
#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "lib/testlib.h"

#define MAX_SAMPLES 32

/* Six from tools/gen_samples.py, two from the PyTorch bridge
 * (tools/torch_samples.sh: resnet152, vit-b16). */
static void test_samples_eight_architectures_present(void)
{
	char names[MAX_SAMPLES][512];
	int n = test_list_files("sample_graphs", ".json", names, MAX_SAMPLES);
	CHECK_INT(n, 8);
	static const char *want[] = {"bert-large", "gpt2-small",   "gpt2-xl",
				     "inception-v3", "lstm-lm",	   "resnet152",
				     "resnet50",   "vit-b16"};
	for (int i = 0; i < 8 && i < n; i++) {
		char p[512];
		snprintf(p, sizeof p, "sample_graphs/%s.json", want[i]);
		CHECK_STR(names[i], p);
	}
}

static void test_samples_default_names_a_sample(void)
{
	FILE *f = fopen("sample_graphs/DEFAULT", "r");
	REQUIRE(f);
	char line[512] = "";
	CHECK(fgets(line, sizeof line, f) != NULL);
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	CHECK_STR(line, "sample_graphs/gpt2-small.json");
	FILE *g = fopen(line, "r");
	CHECK(g != NULL);
	if (g)
		fclose(g);
}

/* Structure every generated training graph has: a machine hint, weights
 * (Variable ops holding param memory) each colocated with exactly one
 * update op, and forward, backward and update ops. */
static void check_structure(const dp_graph *g, const char *path)
{
	CHECK(g->hint.devices >= 2);
	CHECK_INT(g->hint.memory_bytes, 16LL << 30);
	uint32_t vars = 0, updates = 0, grads = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		const char *t = dp_graph_str(g, g->ops[u].type);
		if (strcmp(t, "Variable") == 0) {
			vars++;
			if (g->ops[u].param_bytes <= 0 ||
			    g->ops[u].colocate < 0)
				test_fail(__FILE__, __LINE__,
					  "%s: variable %s has no memory or "
					  "group",
					  path, dp_graph_op_name(g, u));
		} else if (strcmp(t, "ApplyAdam") == 0 ||
			   strcmp(t, "ApplyMomentum") == 0) {
			updates++;
		} else if (strstr(t, "Grad")) {
			grads++;
		}
	}
	CHECK(vars > 0);
	CHECK_INT(updates, vars); /* every weight is trained */
	CHECK(grads > g->nops / 4);
	/* each group: one Variable and its update */
	CHECK_INT(g->ngroups, vars);
	for (uint32_t c = 0; c < g->ngroups; c++)
		CHECK_INT(g->group_off[c + 1] - g->group_off[c], 2);
}

static void test_samples_load_and_plan_single_and_mtopo(void)
{
	char names[MAX_SAMPLES][512];
	int n = test_list_files("sample_graphs", ".json", names, MAX_SAMPLES);
	REQUIRE(n > 0);
	const dp_algo *single = dp_algo_find("single"),
		      *mtopo = dp_algo_find("mtopo");
	REQUIRE(single && mtopo);
	for (int i = 0; i < n; i++) {
		dp_err err;
		dp_graph *g = NULL;
		if (dp_graph_load(names[i], DP_FMT_AUTO, &g, &err)) {
			FAIL_ERR(NULL, &err);
			continue;
		}
		CHECK(g->nops >= 500);
		check_structure(g, names[i]);
		dp_machine m;
		REQUIRE(dp_machine_init_from_hint(&m, &g->hint, &err) == DP_OK);
		dp_algo_opts o;
		dp_algo_opts_default(&o);
		dp_plan p1, p2;
		memset(&p1, 0, sizeof p1);
		memset(&p2, 0, sizeof p2);
		if (dp_plan_run(g, &m, single, &o, NULL, &p1, &err) ||
		    dp_plan_run(g, &m, mtopo, &o, NULL, &p2, &err)) {
			FAIL_ERR(names[i], &err);
		} else {
			/* one device runs every op back to back */
			CHECK_NEAR(p1.sim.makespan, g->total_time_us,
				   1e-6 * g->total_time_us);
			/* mtopo spreads the ops over the K devices */
			int used = 0;
			for (int d = 0; d < p2.k; d++)
				used += p2.sim.dev[d].ops > 0;
			CHECK(used >= 2);
			CHECK(p2.sim.makespan > 0 &&
			      p2.sim.makespan >= p2.bounds.lb_us - 1e-6);
		}
		dp_plan_free(&p1);
		dp_plan_free(&p2);
		dp_machine_free(&m);
		dp_graph_free(g);
	}
}

/* GPT-2 XL cannot be trained on one 16 GiB device: its weights with Adam
 * state alone are 1,557,611,200 parameters x 12 bytes. */
static void test_samples_gpt2_xl_does_not_fit_one_device(void)
{
	dp_graph *g = test_load_ok("sample_graphs/gpt2-xl.json");
	REQUIRE(g);
	CHECK_INT(g->total_param_bytes, 1557611200LL * 12);
	CHECK(g->total_param_bytes > (16LL << 30));
	dp_graph_free(g);
}

/* Spot checks of exact sizes: ResNet-50's first convolution outputs
 * 64 x 64 x 112 x 112 fp32 values; its kernel is 7 x 7 x 3 x 64 weights
 * with one momentum copy. */
static void test_samples_resnet50_exact_sizes(void)
{
	dp_graph *g = test_load_ok("sample_graphs/resnet50.json");
	REQUIRE(g);
	uint32_t c = dp_graph_find(g, "conv1/Conv2D");
	uint32_t w = dp_graph_find(g, "conv1/weights");
	REQUIRE(c != UINT32_MAX && w != UINT32_MAX);
	CHECK_INT(g->ops[c].output_bytes, 64LL * 64 * 112 * 112 * 4);
	CHECK_INT(g->ops[w].param_bytes, 7 * 7 * 3 * 64 * 4 * 2);
	CHECK_INT(g->ops[w].colocate,
		  g->ops[dp_graph_find(g, "conv1/weights/momentum")].colocate);
	dp_graph_free(g);
}

/* Every sample graph carries iteration spaces (docs/formats.md): batch_dim
 * "b", a dim of every input op; dims on at least 90 % of its compute ops
 * (forward, loss, backward, grad, update; the generator writes them on all)
 * and an out on every forward op; dims on at least 75 % of its data edges
 * (the others leave an op whose output is several tensors, such as an Add's
 * gradient: 84 % on lstm-lm, 88 % and more on the others). */
static void test_samples_carry_dims_and_batch_dim(void)
{
	char names[MAX_SAMPLES][512];
	int n = test_list_files("sample_graphs", ".json", names, MAX_SAMPLES);
	REQUIRE(n > 0);
	for (int i = 0; i < n; i++) {
		dp_err err;
		dp_graph *g = NULL;
		if (dp_graph_load(names[i], DP_FMT_AUTO, &g, &err)) {
			char buf[1600];
			test_fail(__FILE__, __LINE__, "%s",
				  dp_err_format(&err, buf, sizeof buf));
			continue;
		}
		CHECK_STR(dp_graph_batch_dim(g), "b");
		uint32_t compute = 0, with = 0, fwd = 0, fwd_out = 0;
		uint32_t inputs = 0, inputs_b = 0, data = 0, edims = 0;
		for (uint32_t u = 0; u < g->nops; u++) {
			dp_role r = dp_op_role(g, u);
			dp_dims d;
			bool has = dp_op_dims(g, u, &d);
			if (r == DP_ROLE_INPUT) {
				inputs++;
				inputs_b += dp_op_find_dim(g, u, "b") >= 0;
			}
			if (r == DP_ROLE_FORWARD) {
				fwd++;
				fwd_out += has && d.nout >= 0;
			}
			if (r == DP_ROLE_FORWARD || r == DP_ROLE_LOSS ||
			    r == DP_ROLE_BACKWARD || r == DP_ROLE_GRAD ||
			    r == DP_ROLE_UPDATE) {
				compute++;
				with += has;
			}
		}
		for (uint32_t e = 0; e < g->nedges; e++) {
			if (g->edges[e].control)
				continue;
			const uint32_t *off;
			data++;
			edims += dp_edge_dims(g, e, &off) >= 0;
		}
		printf("# %s: dims on %u of %u compute ops, out on %u of %u "
		       "forward ops, dims on %u of %u data edges\n",
		       names[i], with, compute, fwd_out, fwd, edims, data);
		CHECK(compute > 0 && with * 10 >= compute * 9);
		CHECK_INT(fwd_out, fwd);
		CHECK(inputs > 0);
		CHECK_INT(inputs_b, inputs);
		CHECK(data > 0 && edims * 4 >= data * 3);
		dp_graph_free(g);
	}
}

/* The names strategies recognise (docs/formats.md, "Dim names of the
 * sample graphs"): GPT-2's MLP is [b,s,h] x [h,f] -> [b,s,f], then
 * [b,s,f] x [f,h] -> [b,s,h]; attention projects onto qkv, heads, dh. */
static void check_op_dims(const dp_graph *g, const char *op, const char *dims,
			  const char *out, const char *param)
{
	uint32_t u = dp_graph_find(g, op);
	dp_dims d;
	if (u == UINT32_MAX || !dp_op_dims(g, u, &d)) {
		test_fail(__FILE__, __LINE__, "%s: no such op or no dims", op);
		return;
	}
	char got[3][256] = {"", "", ""};
	for (uint32_t i = 0; i < d.n; i++)
		snprintf(got[0] + strlen(got[0]), 256 - strlen(got[0]), "%s%s",
			 i ? "," : "", dp_graph_str(g, d.name_off[i]));
	for (int i = 0; i < d.nout; i++)
		snprintf(got[1] + strlen(got[1]), 256 - strlen(got[1]), "%s%s",
			 i ? "," : "", dp_graph_str(g, d.name_off[d.out[i]]));
	for (int i = 0; i < d.nparam; i++)
		snprintf(got[2] + strlen(got[2]), 256 - strlen(got[2]), "%s%s",
			 i ? "," : "", dp_graph_str(g, d.name_off[d.param[i]]));
	CHECK_STR(got[0], dims);
	CHECK_STR(got[1], out);
	CHECK_STR(got[2], param);
}

static void test_samples_dim_names_follow_the_convention(void)
{
	dp_err err;
	dp_graph *g = NULL;
	REQUIRE(dp_graph_load("sample_graphs/gpt2-small.json", DP_FMT_AUTO, &g,
			      &err) == DP_OK);
	check_op_dims(g, "model/h0/mlp/c_fc/matmul", "b,s,h,f", "b,s,f", "h,f");
	check_op_dims(g, "model/h0/mlp/c_proj/matmul", "b,s,f,h", "b,s,h",
		      "f,h");
	check_op_dims(g, "model/h0/attn/c_attn/matmul", "b,s,h,qkv,heads,dh",
		      "b,s,qkv,heads,dh", "h,qkv,heads,dh");
	check_op_dims(g, "model/h0/attn/qk", "b,heads,s,sk,dh", "b,heads,s,sk",
		      "");
	check_op_dims(g, "model/h0/attn/c_proj/matmul", "b,s,heads,dh,h",
		      "b,s,h", "heads,dh,h");
	check_op_dims(g, "model/h0/mlp/c_fc/matmul/grad_w", "b,s,h,f", "h,f",
		      "");
	check_op_dims(g, "model/h0/mlp/c_fc/w/adam", "h,f", "", "h,f");
	dp_graph_free(g);
	REQUIRE(dp_graph_load("sample_graphs/resnet50.json", DP_FMT_AUTO, &g,
			      &err) == DP_OK);
	check_op_dims(g, "conv1/Conv2D", "b,o,y,x,c,kh,kw,yi,xi", "b,o,y,x",
		      "kh,kw,c,o");
	check_op_dims(g, "conv1/BatchNorm/FusedBatchNorm", "b,c,y,x,g",
		      "b,c,y,x", "g,c");
	dp_graph_free(g);
	REQUIRE(dp_graph_load("sample_graphs/lstm-lm.json", DP_FMT_AUTO, &g,
			      &err) == DP_OK);
	check_op_dims(g, "rnn/multi_rnn_cell/cell_0/step_3/matmul", "b,k,g,h",
		      "b,g,h", "k,g,h");
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_samples_eight_architectures_present),
	  TEST(test_samples_default_names_a_sample),
	  TEST(test_samples_load_and_plan_single_and_mtopo),
	  TEST(test_samples_gpt2_xl_does_not_fit_one_device),
	  TEST(test_samples_resnet50_exact_sizes),
	  TEST(test_samples_carry_dims_and_batch_dim),
	  TEST(test_samples_dim_names_follow_the_convention))
