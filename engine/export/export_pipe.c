/* export_pipe.c - a pipeline plan for the frameworks that run pipelines
 * (docs/export.md): the stage split points as a Python file for PyTorch's
 * torch.distributed.pipelining (PiPPy's successor: pipeline() with a
 * split_spec, ScheduleGPipe / Schedule1F1B), and the pp/tp/dp sizes,
 * micro-batch sizes and layers per stage as Megatron-LM arguments.
 *
 * Both read the strategy's stages on the user's graph. A stage starts where
 * its first forward op (in topological order) is; a framework can only
 * split at a module, so the split point is the outermost module (a prefix
 * of an op's layer, "model/h3" of "model/h3/attn", written "model.h3")
 * that begins at that op, or, when the stage starts inside a module, at the
 * first module that begins in the stage (said in the file and the report's
 * note). Megatron counts transformer layers: the blocks of the graph, a
 * layer path up to its first numbered component ("model/h3", "layers/7"). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/afile.h"
#include "dnnpart/strategy.h"
#include "internal/export_impl.h"
#include "internal/pipeline.h"

/* What both exports read of a pipeline plan. */
typedef struct pipe_cut {
	const dp_strategy *s;
	bool pipe; /* a pipeline; else an spmd strategy: one stage of every
		      device, one micro-batch */
	int S, M, dp, tp, group; /* group: devices per stage (dp x tp) */
	uint32_t *fwd;		 /* the forward ops in topological order */
	uint32_t nfwd;
	uint32_t *start;  /* per stage: its split point (an op of fwd; 0 for
			    stage 0) */
	uint32_t *first;  /* per stage: its first op in fwd */
	uint32_t *prefix; /* per stage: length of the split point's module
			     path (a prefix of the op's layer) */
	uint32_t moved;	  /* stages whose split point is not their first op */
} pipe_cut;

static void cut_free(pipe_cut *c)
{
	free(c->fwd);
	free(c->start); /* first and prefix live in its block */
}

static const char *layer_of(const dp_graph *g, uint32_t u)
{
	uint32_t l = g->ops[u].layer;
	return l ? dp_graph_str(g, l) : "";
}

/* Whether layer a lies under the module path p (n bytes): equal, or p
 * followed by a '/' or '.'. */
static bool under(const char *a, const char *p, size_t n)
{
	return strncmp(a, p, n) == 0 &&
	       (a[n] == '\0' || a[n] == '/' || a[n] == '.');
}

/* The index in c->fwd of the first forward op under p (n bytes). */
static uint32_t first_under(const dp_graph *g, const pipe_cut *c, const char *p,
			    size_t n)
{
	for (uint32_t i = 0; i < c->nfwd; i++)
		if (under(layer_of(g, c->fwd[i]), p, n))
			return i;
	return c->nfwd;
}

/* The shortest module path of fwd[i]'s layer that begins at fwd[i] (its
 * length), or 0 when even its whole layer began before it. */
static size_t module_at(const dp_graph *g, const pipe_cut *c, uint32_t i)
{
	const char *l = layer_of(g, c->fwd[i]);
	size_t n = strlen(l);
	for (size_t k = 1; k <= n; k++)
		if ((k == n || l[k] == '/' || l[k] == '.') &&
		    first_under(g, c, l, k) == i)
			return k;
	return 0;
}

/* The data-parallel width of a stage: the mesh axes that split the batch
 * (of an op with dims its batch dim, else its one implicit dim). */
static int dp_width(const dp_graph *g, const dp_strategy *s)
{
	const dp_spmd *sp = &s->spmd;
	unsigned mask = 0;
	const char *bd = dp_graph_batch_dim(g);
	for (uint32_t u = 0; sp->axes && u < g->nops; u++) {
		int i = g->ops[u].dims ? (bd[0] ? dp_op_find_dim(g, u, bd) : -1)
				       : 0;
		if (i >= 0)
			mask |= sp->axes[(size_t)u * DP_MAX_OP_DIMS + i];
	}
	int w = 1;
	for (int a = 0; a < sp->naxes; a++)
		if (mask & (1u << a))
			w *= sp->mesh[a];
	return w;
}

static dp_status cut_make(const char *path, const char *what, const dp_graph *g,
			  const dp_plan *plan, pipe_cut *c, dp_err *err)
{
	memset(c, 0, sizeof *c);
	const dp_strategy *s = plan->strat;
	bool spmd_ok = strcmp(what, "PiPPy") != 0;
	if (!s || (s->kind != DP_STRAT_PIPELINE &&
		   !(spmd_ok && s->kind == DP_STRAT_SPMD)))
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "a %s export needs a pipeline%s, and this "
				  "plan (%s) is %s; plan with gpipe, 1f1b, "
				  "pipedream or hybrid%s",
				  what, spmd_ok ? " or a data / tensor "
						  "parallel strategy" : "",
				  plan->algo,
				  s && s->kind == DP_STRAT_SPMD
					  ? "an spmd strategy"
					  : "a placement",
				  spmd_ok ? " (or dp, zero, megatron)" : "");
	c->s = s;
	c->pipe = s->kind == DP_STRAT_PIPELINE;
	c->S = c->pipe ? s->pipe.nstages : 1;
	c->M = c->pipe ? s->pipe.microbatches : 1;
	c->group = c->pipe ? s->pipe.group_off[1] - s->pipe.group_off[0]
			   : plan->k;
	c->dp = dp_width(g, s);
	c->dp = c->dp < 1 || c->group % c->dp ? 1 : c->dp;
	c->tp = c->group / c->dp;
	uint8_t *kd = dpi_pipe_kinds(g);
	size_t n = (size_t)g->nops + 1;
	c->fwd = malloc(n * sizeof *c->fwd);
	c->start = malloc(3 * (size_t)c->S * sizeof *c->start);
	if (!kd || !c->fwd || !c->start) {
		free(kd);
		cut_free(c);
		return dp_err_set(err, DP_ENOMEM, path, 0, 0,
				  "out of memory in the %s export", what);
	}
	c->first = c->start + c->S;
	c->prefix = c->first + c->S;
	for (uint32_t k = 0; k < g->nops; k++)
		if ((dpi_pipe_kind)kd[g->topo[k]] == DPI_PIPE_FWD)
			c->fwd[c->nfwd++] = g->topo[k];
	free(kd);
	return DP_OK;
}

/* The split point of every stage (c->start, c->prefix, c->moved): where a
 * framework that splits at modules can cut. DP_EINPUT when a stage starts
 * at an op without a layer or begins no module. */
static dp_status cut_split_points(const char *path, const char *what,
				  const dp_graph *g, pipe_cut *c, dp_err *err)
{
	for (int st = 0; st < c->S; st++) {
		uint32_t first = c->nfwd, i = 0;
		size_t len = 0;
		for (; i < c->nfwd; i++) {
			if (c->s->pipe.stage[c->fwd[i]] != st)
				continue;
			first = first < c->nfwd ? first : i;
			if ((len = module_at(g, c, i)) > 0)
				break;
		}
		if (st > 0 &&
		    (first == c->nfwd || !layer_of(g, c->fwd[first])[0])) {
			dp_status r = dp_err_set(
				err, DP_EINPUT, path, 0, 0,
				"the graph has no layer names to split at: "
				"stage %d starts at %s, which has no layer "
				"(a %s export names modules, e.g. model/h3)",
				st,
				first == c->nfwd
					? "no forward op"
					: dp_graph_op_name(g, c->fwd[first]),
				what);
			return r;
		}
		if (st > 0 && i == c->nfwd) {
			dp_status r = dp_err_set(
				err, DP_EINPUT, path, 0, 0,
				"stage %d begins no module: it starts inside "
				"layer %s (at op %s) and no layer begins in "
				"it, so a %s export cannot split there",
				st, layer_of(g, c->fwd[first]),
				dp_graph_op_name(g, c->fwd[first]), what);
			return r;
		}
		c->start[st] = st ? i : 0;
		c->first[st] = first;
		c->prefix[st] = st ? (uint32_t)len : 0;
		c->moved += st > 0 && i != first;
	}
	return DP_OK;
}

/* The module path of stage st's split point, '/' written '.' (PyTorch's
 * module names), into buf. */
static const char *split_name(const dp_graph *g, const pipe_cut *c, int st,
			      char *buf, size_t size)
{
	const char *l = layer_of(g, c->fwd[c->start[st]]);
	size_t n = c->prefix[st] < size - 1 ? c->prefix[st] : size - 1;
	for (size_t i = 0; i < n; i++)
		buf[i] = l[i] == '/' ? '.' : l[i];
	buf[n] = '\0';
	return buf;
}

/* The devices of stage st, "GPU0" or "GPU0-3". */
static const char *stage_devices(const pipe_cut *c, int st, char *buf,
				 size_t size)
{
	const dp_pipeline *pp = &c->s->pipe;
	int a = c->pipe ? pp->group[pp->group_off[st]] : 0;
	int b = c->pipe ? pp->group[pp->group_off[st + 1] - 1] : c->group - 1;
	if (a == b)
		snprintf(buf, size, "GPU%d", a);
	else
		snprintf(buf, size, "GPU%d-%d", a, b);
	return buf;
}

static void header(FILE *f, const char *what, const dp_graph *g,
		   const dp_plan *plan, const pipe_cut *c)
{
	fprintf(f, "# %s for the %s dnnpart planned\n", what,
		c->pipe ? "pipeline" : "plan");
	fprintf(f, "#   graph %s", g->name ? g->name : "graph");
	if (g->source && g->source[0])
		fprintf(f, " (%s)", g->source);
	if (!c->pipe) {
		fprintf(f,
			"\n#   plan %s by %s on %d devices: dp %d x tp %d"
			"%s%.0d\n",
			plan->strategy, c->s->algo[0] ? c->s->algo : plan->algo,
			plan->k, c->dp, c->tp,
			c->s->zero_stage ? ", ZeRO stage " : "",
			c->s->zero_stage);
		return;
	}
	fprintf(f,
		"\n#   plan %s by %s on %d devices: %d stage%s of %d "
		"device%s (dp %d x tp %d), %d micro-batch%s, schedule %s\n",
		plan->strategy, c->s->algo[0] ? c->s->algo : plan->algo,
		plan->k, c->S, c->S == 1 ? "" : "s", c->group,
		c->group == 1 ? "" : "s", c->dp, c->tp, c->M,
		c->M == 1 ? "" : "es", dp_schedule_name(c->s->pipe.schedule));
}

/* ---- torch.distributed.pipelining ---- */

static void write_pippy(FILE *f, const dp_graph *g, const dp_plan *plan,
			const pipe_cut *c)
{
	char name[512], dev[32];
	bool gpipe = c->s->pipe.schedule == DP_SCHED_GPIPE;
	int V = c->s->pipe.virtual_stages > 1 ? c->s->pipe.virtual_stages : 1;
	const char *cls = V > 1	  ? "ScheduleInterleaved1F1B"
			  : gpipe ? "ScheduleGPipe"
				  : "Schedule1F1B";
	header(f, "torch.distributed.pipelining split (PyTorch 2.4 or later)",
	       g, plan, c);
	fprintf(f, "#   usage: docs/export.md (torchrun with one rank per "
		   "stage; build() gives\n#   this rank's schedule)\n");
	if (c->pipe && c->s->pipe.schedule == DP_SCHED_ZBH1)
		fprintf(f, "#   zb-h1: torch's zero-bubble schedules "
			   "(ScheduleInterleavedZeroBubble,\n#   "
			   "ScheduleZBVZeroBubble) take several stages per "
			   "rank; one stage per rank\n#   runs Schedule1F1B, "
			   "with 1F1B's step, not the plan's\n");
	if (c->dp > 1 || c->tp > 1)
		fprintf(f,
			"#   each stage runs on %d devices (dp %d x tp %d): "
			"run %d such pipelines\n#   over a DeviceMesh and "
			"reduce the gradients over its dp dimension\n",
			c->group, c->dp, c->tp, c->group);
	fprintf(f, "#   stage 0 (%s) starts at the model's input\n",
		stage_devices(c, 0, dev, sizeof dev));
	for (int st = 1; st < c->S; st++) {
		uint32_t u = c->fwd[c->start[st]], v = c->fwd[c->first[st]];
		fprintf(f, "#   stage %d (%s) starts at %s (op %s)", st,
			stage_devices(c, st, dev, sizeof dev),
			split_name(g, c, st, name, sizeof name),
			dp_graph_op_name(g, u));
		if (u != v)
			fprintf(f,
				"\n#     the plan: at op %s, inside %s (a "
				"split "
				"is where modules begin)",
				dp_graph_op_name(g, v), layer_of(g, v));
		fprintf(f, "\n");
	}
	fprintf(f,
		"import torch.distributed as dist\n"
		"from torch.distributed.pipelining import SplitPoint, "
		"pipeline\n"
		"from torch.distributed.pipelining import %s\n\n",
		cls);
	fprintf(f, "N_STAGES = %d\nN_MICROBATCHES = %d\nSPLIT_SPEC = {\n", c->S,
		c->M);
	for (int st = 1; st < c->S; st++)
		fprintf(f, "    \"%s\": SplitPoint.BEGINNING,\n",
			split_name(g, c, st, name, sizeof name));
	fprintf(f, "}\n\n\n");
	fprintf(f,
		"def build(module, example_microbatch, loss_fn, device, "
		"group=None):\n"
		"    \"\"\"This rank's stage of module, split as planned, and "
		"the %s\n"
		"    schedule that runs it (stage index = rank in "
		"group).\"\"\"\n"
		"    pipe = pipeline(module, mb_args=(example_microbatch,),\n"
		"                    split_spec=SPLIT_SPEC)\n"
		"    assert pipe.num_stages == N_STAGES, pipe.num_stages\n"
		"    rank = dist.get_rank(group)\n",
		dp_schedule_name(c->s->pipe.schedule));
	if (V > 1) /* chunk v P + rank on this rank, Megatron's order */
		fprintf(f,
			"    stages = [pipe.build_stage(rank + v * %d, device, "
			"group)\n              for v in range(%d)]\n"
			"    return %s(stages, n_microbatches=N_MICROBATCHES, "
			"loss_fn=loss_fn)\n",
			c->S / V, V, cls);
	else
		fprintf(f,
			"    stage = pipe.build_stage(rank, device, group)\n"
			"    return %s(stage, n_microbatches=N_MICROBATCHES, "
			"loss_fn=loss_fn)\n",
			cls);
}

/* ---- Megatron-LM ---- */

/* The length of u's block: its layer path up to the end of its first
 * component that ends in a digit ("model/h3" of "model/h3/attn"), 0 when
 * it has none. */
size_t dpi_export_block_len(const dp_graph *g, uint32_t u)
{
	const char *l = layer_of(g, u);
	for (size_t k = 0;; k++)
		if ((l[k] == '\0' || l[k] == '/' || l[k] == '.') && k > 0 &&
		    l[k - 1] >= '0' && l[k - 1] <= '9')
			return k;
		else if (l[k] == '\0')
			return 0;
}

/* Per stage, the blocks that begin in it (counts[st]); the total. */
static uint32_t count_blocks(const dp_graph *g, const pipe_cut *c,
			     uint32_t *counts)
{
	uint32_t total = 0;
	const char *last = NULL;
	size_t last_n = 0;
	for (uint32_t i = 0; i < c->nfwd; i++) {
		uint32_t u = c->fwd[i];
		size_t n = dpi_export_block_len(g, u);
		const char *l = layer_of(g, u);
		if (!n || (last && n == last_n && strncmp(l, last, n) == 0))
			continue;
		/* a new block where the previous one's ops end; a block seen
		 * before (not contiguous) counts where it began */
		if (first_under(g, c, l, n) != i)
			continue;
		last = l;
		last_n = n;
		counts[c->pipe ? c->s->pipe.stage[u] : 0]++;
		total++;
	}
	return total;
}

static void write_layout(FILE *f, const uint32_t *counts, int S)
{
	for (int st = 0; st < S; st++) {
		fprintf(f, "%s%s", st ? "|" : "", st ? "" : "E");
		if (counts[st] > 1)
			fprintf(f, "%st*%u", st ? "" : ",", counts[st]);
		else if (counts[st] == 1)
			fprintf(f, "%st", st ? "" : ",");
		if (st == S - 1)
			fprintf(f, "%sL", counts[st] ? "," : "");
	}
}

/* An op whose `heads` dim tp does not divide (the plan splits it
 * unevenly, which Megatron-LM refuses), or UINT32_MAX. */
static uint32_t uneven_heads(const dp_graph *g, int tp, int64_t *heads)
{
	for (uint32_t u = 0; tp > 1 && u < g->nops; u++) {
		dp_dims d;
		int i = dp_op_find_dim(g, u, "heads");
		if (i >= 0 && dp_op_dims(g, u, &d) && d.sizes[i] % tp != 0) {
			*heads = d.sizes[i];
			return u;
		}
	}
	return UINT32_MAX;
}

static dp_status write_megatron(FILE *f, const char *path, const dp_graph *g,
				const dp_plan *plan, const pipe_cut *c,
				dp_err *err)
{
	int64_t heads = 0;
	uint32_t hu = uneven_heads(g, c->tp, &heads);
	if (hu != UINT32_MAX)
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "Megatron-LM needs the attention heads to "
				  "divide by the tensor-parallel size, and "
				  "this plan's tp %d does not divide op "
				  "'%s''s %lld heads (it splits them "
				  "unevenly); plan with a --tp that divides "
				  "%lld",
				  c->tp, dp_graph_op_name(g, hu),
				  (long long)heads, (long long)heads);
	uint32_t *counts = calloc((size_t)c->S, sizeof *counts);
	if (!counts)
		return dp_err_set(err, DP_ENOMEM, path, 0, 0,
				  "out of memory in the Megatron export");
	uint32_t layers = count_blocks(g, c, counts);
	if (!layers) {
		free(counts);
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "the graph has no numbered layers to count "
				  "Megatron's layers by (a layer such as "
				  "model/h3 or layers/7 on the forward ops)");
	}
	if (!c->pipe && c->s->zero_stage == 3) {
		free(counts);
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "Megatron-LM has no ZeRO stage 3 (its "
				  "distributed optimizer shards the optimizer "
				  "state and gradients: stages 1 and 2); "
				  "export this plan as a DeepSpeed config "
				  "(.deepspeed.json)");
	}
	header(f, "Megatron-LM arguments", g, plan, c);
	if (c->pipe && c->s->pipe.schedule == DP_SCHED_GPIPE)
		fprintf(f, "#   Megatron runs its pipelines in 1F1B: the same "
			   "bubble as this GPipe plan, less memory\n");
	if (c->pipe && c->s->pipe.schedule == DP_SCHED_ZBH1)
		fprintf(f, "#   zb-h1 is not in Megatron-LM: it runs 1F1B "
			   "(the zero-bubble schedules are\n#   in the "
			   "authors' fork of Megatron-LM, sail-sg/"
			   "zero-bubble-pipeline-parallelism)\n");
	char dev[32];
	uint32_t from = 0;
	for (int st = 0; st < c->S; st++) {
		fprintf(f, "#   stage %d (%s): ", st,
			stage_devices(c, st, dev, sizeof dev));
		if (counts[st] > 1)
			fprintf(f, "layers %u-%u\n", from,
				from + counts[st] - 1);
		else if (counts[st])
			fprintf(f, "layer %u\n", from);
		else
			fprintf(f, "no layer\n");
		from += counts[st];
	}
	int64_t batch = dp_graph_batch_size(g);
	int64_t mbs = batch > 0 ? batch / ((int64_t)c->M * c->dp) : 1;
	if (batch <= 0)
		fprintf(f, "#   the graph states no batch size (batch_dim): "
			   "one sample per micro-batch\n");
	int V = c->pipe && c->s->pipe.virtual_stages > 1
			? c->s->pipe.virtual_stages
			: 1;
	int P = c->S / V; /* Megatron's pipeline size: the device groups */
	int world = P * c->group;
	fprintf(f,
		"#   data parallel = world size / (pp x tp) = %d / (%d "
		"x %d) = %d\n",
		world, P, c->tp, c->dp);
	if (world < plan->k)
		fprintf(f,
			"#   the plan leaves %d of the %d devices idle: "
			"run on %d\n",
			plan->k - world, plan->k, world);
	bool even = true, middle = true;
	for (int st = 1; st < c->S; st++)
		even = even && counts[st] == counts[0];
	if (V > 1 && !even) {
		free(counts);
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "an interleaved pipeline's chunks hold "
				  "different numbers of layers; Megatron-LM's "
				  "--num-layers-per-virtual-pipeline-stage "
				  "needs equal chunks");
	}
	for (int st = 2; st + 1 < c->S; st++)
		middle = middle && counts[st] == counts[1];
	if (!even) {
		fprintf(f, "#   the stages as Megatron-Core's layout: ");
		write_layout(f, counts, c->S);
		fprintf(f, "\n");
	}
	/* the uneven first/last stages came with Megatron-Core 0.10, the
	 * layout later (2025, experimental) */
	fprintf(f, "#   for Megatron-LM with %s\n",
		even || middle ? "Megatron-Core 0.10 or later"
			       : "a Megatron-Core that has "
				 "--pipeline-model-parallel-layout (2025; "
				 "experimental)");
	fprintf(f,
		"MEGATRON_PARALLEL_ARGS=(\n"
		"  --pipeline-model-parallel-size %d\n"
		"  --tensor-model-parallel-size %d\n"
		"  --num-layers %u\n"
		"  --micro-batch-size %lld\n"
		"  --global-batch-size %lld\n",
		P, c->tp, layers, (long long)(mbs > 0 ? mbs : 1),
		(long long)(batch > 0 ? batch : (int64_t)c->M * c->dp));
	if (V > 1)
		fprintf(f, "  --num-layers-per-virtual-pipeline-stage %u\n",
			counts[0]);
	if (c->s->sp && c->tp > 1)
		fprintf(f, "  --sequence-parallel\n");
	if (!even && middle)
		fprintf(f,
			"  --decoder-first-pipeline-num-layers %u\n"
			"  --decoder-last-pipeline-num-layers %u\n",
			counts[0], counts[c->S - 1]);
	else if (!even) {
		fprintf(f, "  --pipeline-model-parallel-layout \"");
		write_layout(f, counts, c->S);
		fprintf(f, "\"\n");
	}
	dpi_export_megatron_levers(f, g, c->pipe ? 0 : c->s->zero_stage);
	fprintf(f, ")\n");
	free(counts);
	return DP_OK;
}

/* ---- a plan's shape, for the DeepSpeed config ---- */

dp_status dpi_export_plan_shape(const char *path, const dp_graph *g,
				const dp_plan *plan, dpi_plan_shape *sh,
				dp_err *err)
{
	pipe_cut c;
	dp_status st = cut_make(path, "DeepSpeed", g, plan, &c, err);
	if (st)
		return st;
	uint32_t *counts = calloc((size_t)c.S, sizeof *counts);
	*sh = (dpi_plan_shape){c.pipe,
			       c.S,
			       c.M,
			       c.dp,
			       c.tp,
			       c.pipe ? 0 : c.s->zero_stage,
			       counts ? count_blocks(g, &c, counts) : 0};
	free(counts);
	cut_free(&c);
	return DP_OK;
}

/* ---- both ---- */

dp_status dpi_export_pipe_write(const char *path, dp_export_kind kind,
				const dp_graph *g, const dp_plan *plan,
				dp_export_report *rep, dp_err *err)
{
	const char *what = kind == DP_EXPORT_PIPPY ? "PiPPy" : "Megatron";
	const dp_strategy *ps = plan->strat;
	if (ps && ps->kind == DP_STRAT_PIPELINE &&
	    dp_schedule_is_async(ps->pipe.schedule))
		return dp_err_set(
			err, DP_EINPUT, path, 0, 0,
			"%s has no asynchronous schedule: the plan's schedule "
			"%s keeps several weight versions and never flushes "
			"(PipeDream%s), while %s flushes the pipeline every "
			"step; re-plan with --schedule 1f1b (or zb-h1) to "
			"export it",
			kind == DP_EXPORT_PIPPY ? "torch.distributed.pipelining"
						: "Megatron-LM",
			dp_schedule_name(ps->pipe.schedule),
			ps->pipe.schedule == DP_SCHED_2BW ? "-2BW" : "",
			kind == DP_EXPORT_PIPPY ? "every one of its schedules"
						: "its 1F1B schedule");
	pipe_cut c;
	dp_status st = cut_make(path, what, g, plan, &c, err);
	if (st)
		return st;
	if (kind == DP_EXPORT_PIPPY &&
	    (st = cut_split_points(path, what, g, &c, err))) {
		cut_free(&c);
		return st;
	}
	dp_afile af;
	if (!(st = dp_afile_open(&af, path, err))) {
		if (kind == DP_EXPORT_PIPPY)
			write_pippy(af.f, g, plan, &c);
		else
			st = write_megatron(af.f, path, g, plan, &c, err);
		/* nothing half-written: an error removes the temporary */
		st = st ? (dp_afile_abort(&af), st) : dp_afile_commit(&af, err);
	}
	if (!st) {
		rep->entries = (uint32_t)c.S;
		if (c.moved)
			snprintf(rep->note, sizeof rep->note,
				 "%s: %u stage%s of the plan start%s inside a "
				 "module; split at the next module that begins",
				 path, c.moved, c.moved == 1 ? "" : "s",
				 c.moved == 1 ? "s" : "");
	}
	cut_free(&c);
	return st;
}
