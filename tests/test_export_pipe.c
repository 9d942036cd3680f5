/* test_export_pipe.c - the framework exports of a pipeline plan
 * (export_pipe.c) on hand-made strategies: the Megatron file reads the
 * data- and tensor-parallel widths of a stage from its spmd mesh (the axes
 * that split the batch are data parallel, the others tensor parallel), the
 * micro-batch size from the batch, M and dp; the PiPPy split names modules
 * with PyTorch's dots; what is no pipeline is refused with no file. (The
 * files as a whole are pinned by the goldens in tests/cli.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/export.h"
#include "dnnpart/plan.h"
#include "dnnpart/strategy.h"
#include "lib/testlib.h"

/* Two blocks "layers.0", "layers.1" of a matmul each over a batch b of 8,
 * forward and backward. */
static const char *const two_blocks =
	"{\"format\":\"dnnpart-graph\",\"version\":1,\"name\":\"two\","
	"\"batch_dim\":\"b\",\"ops\":["
	"{\"name\":\"x\",\"role\":\"input\",\"layer\":\"input\","
	"\"dims\":{\"b\":8,\"k\":16},\"out\":[\"b\",\"k\"]},"
	"{\"name\":\"layers.0.fc\",\"time_us\":10,\"role\":\"forward\","
	"\"layer\":\"layers.0\",\"dims\":{\"b\":8,\"k\":16,\"n\":16},"
	"\"out\":[\"b\",\"n\"]},"
	"{\"name\":\"layers.1.fc\",\"time_us\":10,\"role\":\"forward\","
	"\"layer\":\"layers.1\",\"dims\":{\"b\":8,\"k\":16,\"n\":16},"
	"\"out\":[\"b\",\"n\"]},"
	"{\"name\":\"layers.1.fc/grad\",\"time_us\":20,\"role\":\"backward\","
	"\"layer\":\"layers.1\",\"dims\":{\"b\":8,\"k\":16,\"n\":16},"
	"\"out\":[\"b\",\"k\"]},"
	"{\"name\":\"layers.0.fc/grad\",\"time_us\":20,\"role\":\"backward\","
	"\"layer\":\"layers.0\",\"dims\":{\"b\":8,\"k\":16,\"n\":16},"
	"\"out\":[\"b\",\"k\"]}],"
	"\"edges\":[{\"from\":\"x\",\"to\":\"layers.0.fc\"},"
	"{\"from\":\"layers.0.fc\",\"to\":\"layers.1.fc\"},"
	"{\"from\":\"layers.1.fc\",\"to\":\"layers.1.fc/grad\"},"
	"{\"from\":\"layers.1.fc/grad\",\"to\":\"layers.0.fc/grad\"}]}";

/* A pipeline of the blocks on 2 stages of 4 devices, a [2,2] mesh in each:
 * axis 0 splits the batch (dp 2), axis 1 the dim tdim (tp 2); M = 2. */
static bool make_3d(const dp_graph *g, dp_strategy *s, const char *tdim)
{
	dp_err err;
	dp_strategy_init(s);
	if (dp_strategy_alloc(s, DP_STRAT_PIPELINE, g, 2, &err) != DP_OK)
		return false;
	int32_t *grp = realloc(s->pipe.group, 8 * sizeof *grp);
	if (!grp)
		return false;
	s->pipe.group = grp;
	for (int i = 0; i < 8; i++)
		grp[i] = i;
	s->pipe.group_off[1] = 4;
	s->pipe.group_off[2] = 8;
	s->pipe.microbatches = 2;
	s->pipe.schedule = DP_SCHED_1F1B;
	s->k = 8;
	s->spmd.naxes = 2;
	s->spmd.mesh[0] = 2;
	s->spmd.mesh[1] = 2;
	for (uint32_t u = 0; u < g->nops; u++) {
		const char *n = dp_graph_op_name(g, u);
		s->pipe.stage[u] = strstr(n, "layers.1") ? 1 : 0;
		int b = dp_op_find_dim(g, u, "b"),
		    d = dp_op_find_dim(g, u, tdim);
		if (b >= 0)
			s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS + b] = 1;
		if (d >= 0)
			s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS + d] = 2;
	}
	snprintf(s->label, sizeof s->label, "1f1b S=2 M=2");
	snprintf(s->algo, sizeof s->algo, "hand");
	return true;
}

/* A plan of g on 8 devices that carries s (owned by the caller). */
static bool plan_with(const dp_graph *g, dp_machine *m, dp_strategy *s,
		      dp_plan *p)
{
	dp_err err;
	int32_t pl[8] = {0};
	if (dp_machine_init(m, 8, &err) != DP_OK ||
	    dp_plan_evaluate(g, m, pl, DP_CONT_PORT, p, &err) != DP_OK)
		return false;
	if (s) {
		p->kind = DP_STRAT_PIPELINE;
		p->strat = s;
		snprintf(p->strategy, sizeof p->strategy, "%s", s->label);
	}
	return true;
}

static void plan_done(dp_machine *m, dp_plan *p)
{
	p->strat = NULL; /* the test's */
	p->kind = DP_STRAT_PLACEMENT;
	dp_plan_free(p);
	dp_machine_free(m);
}

/* The graph of text, make_3d's pipeline over tdim and a plan that carries
 * it; false when any fails (what was made is freed by pipe3d_done). */
typedef struct pipe3d {
	dp_graph *g;
	dp_strategy s;
	dp_machine m;
	dp_plan p;
} pipe3d;

static bool pipe3d_make(pipe3d *x, const char *text, const char *tdim)
{
	memset(x, 0, sizeof *x);
	dp_strategy_init(&x->s);
	x->g = test_json_text(text);
	return x->g && make_3d(x->g, &x->s, tdim) &&
	       plan_with(x->g, &x->m, &x->s, &x->p);
}

static void pipe3d_done(pipe3d *x)
{
	plan_done(&x->m, &x->p);
	dp_strategy_free(&x->s);
	dp_graph_free(x->g);
}

/* Checks that no file is at path. */
static void no_file(const char *path)
{
	FILE *f = fopen(path, "r");
	CHECK(f == NULL);
	if (f)
		fclose(f);
}

static void test_megatron_reads_dp_and_tp_of_the_stages(void)
{
	pipe3d x;
	REQUIRE(pipe3d_make(&x, two_blocks, "n"));
	REQUIRE(x.g->nops == 5);
	const char *path = test_tmp_path("3d.megatron.sh");
	remove(path);
	dp_err err;
	CHECK(dp_export_write(path, DP_EXPORT_MEGATRON, x.g, &x.m, &x.p, NULL,
			      &err) == DP_OK);
	char *t = test_read_file(path, NULL);
	REQUIRE(t);
	CHECK_CONTAINS(t, "2 stages of 4 devices (dp 2 x tp 2), 2 "
			  "micro-batches, schedule 1f1b");
	CHECK_CONTAINS(t, "  --pipeline-model-parallel-size 2\n");
	CHECK_CONTAINS(t, "  --tensor-model-parallel-size 2\n");
	CHECK_CONTAINS(t, "= 8 / (2 x 2) = 2\n");
	CHECK_CONTAINS(t, "  --num-layers 2\n");
	/* batch 8 in 2 micro-batches on 2 replicas */
	CHECK_CONTAINS(t, "  --micro-batch-size 2\n");
	CHECK_CONTAINS(t, "  --global-batch-size 8\n");
	CHECK(strstr(t, "first-pipeline") == NULL); /* one layer each */
	free(t);
	/* PiPPy: the split at the module, dots kept */
	path = test_tmp_path("3d.pippy.py");
	remove(path);
	CHECK(dp_export_write(path, DP_EXPORT_PIPPY, x.g, &x.m, &x.p, NULL,
			      &err) == DP_OK);
	t = test_read_file(path, NULL);
	REQUIRE(t);
	CHECK_CONTAINS(t, "    \"layers.1\": SplitPoint.BEGINNING,\n");
	CHECK_CONTAINS(t, "Schedule1F1B(stage, n_microbatches=N_MICROBATCHES");
	CHECK_CONTAINS(t, "run 4 such pipelines");
	free(t);
	pipe3d_done(&x);
}

static void test_a_placement_is_no_pipeline(void)
{
	dp_graph *g = test_json_text(two_blocks);
	REQUIRE(g);
	dp_machine m;
	dp_plan p;
	REQUIRE(plan_with(g, &m, NULL, &p));
	static const dp_export_kind kinds[] = {DP_EXPORT_PIPPY,
					       DP_EXPORT_MEGATRON};
	for (int i = 0; i < 2; i++) {
		const char *path =
			test_tmp_path(i ? "p.megatron.sh" : "p.pippy.py");
		remove(path);
		dp_err err;
		dp_err_clear(&err);
		CHECK(dp_export_write(path, kinds[i], g, &m, &p, NULL, &err) ==
		      DP_EINPUT);
		CHECK_CONTAINS(err.msg, "export needs a pipeline");
		no_file(path);
	}
	plan_done(&m, &p);
	dp_graph_free(g);
}

/* text with every from replaced by to (at most twice as long as from). */
static char *replace_all(const char *text, const char *from, const char *to)
{
	size_t nf = strlen(from), nt = strlen(to);
	char *out = malloc(strlen(text) * 2 + 1), *o = out;
	while (out && *text) {
		if (!strncmp(text, from, nf)) {
			memcpy(o, to, nt);
			o += nt;
			text += nf;
		} else {
			*o++ = *text++;
		}
	}
	if (out)
		*o = '\0';
	return out;
}

/* A tp that does not divide the attention heads (a split Megatron-LM
 * refuses) is refused by name, with no file. */
static void test_megatron_refuses_uneven_heads(void)
{
	char *a = replace_all(two_blocks, "\"n\":16", "\"heads\":9");
	char *text = a ? replace_all(a, "\"n\"]", "\"heads\"]") : NULL;
	free(a);
	REQUIRE(text);
	pipe3d x;
	bool made = pipe3d_make(&x, text, "heads");
	free(text);
	REQUIRE(made);
	const char *path = test_tmp_path("heads.megatron.sh");
	remove(path);
	dp_err err;
	dp_err_clear(&err);
	CHECK(dp_export_write(path, DP_EXPORT_MEGATRON, x.g, &x.m, &x.p, NULL,
			      &err) == DP_EINPUT);
	CHECK_CONTAINS(err.msg, "tp 2 does not divide op 'layers.0.fc''s 9 "
				"heads");
	no_file(path);
	pipe3d_done(&x);
}

static void test_kinds_by_extension(void)
{
	dp_export_kind k;
	dp_err err;
	CHECK(dp_export_kind_from_path("a.pippy.py", &k, &err) == DP_OK &&
	      k == DP_EXPORT_PIPPY);
	CHECK(dp_export_kind_from_path("a.MEGATRON.SH", &k, &err) == DP_OK &&
	      k == DP_EXPORT_MEGATRON);
	CHECK(dp_export_kind_from_path("a.py", &k, &err) == DP_EINPUT);
	CHECK_CONTAINS(err.msg, ".pippy.py");
}

TEST_MAIN(TEST(test_megatron_reads_dp_and_tp_of_the_stages),
	  TEST(test_a_placement_is_no_pipeline), TEST(test_kinds_by_extension),
	  TEST(test_megatron_refuses_uneven_heads))
