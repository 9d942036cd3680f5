/* export_levers.c - the levers a plan was made with (levers.h: the
 * "levers" of its graph) as the frameworks that run it spell them
 * (docs/export.md): Megatron-LM's arguments, and a DeepSpeed config (JSON)
 * with the batch sizes, the ZeRO stage, the precision and activation
 * checkpointing. */
#include <stdio.h>
#include <string.h>

#include "dnnpart/levers.h"
#include "internal/export_impl.h"

/* The levers of g; none when it was made without. */
static dp_levers levers_of(const dp_graph *g)
{
	dp_levers lv;
	dp_err err;
	const char *set = dp_graph_levers(g);
	if (!set[0] || dp_levers_parse_set(set, &lv, &err))
		memset(&lv, 0, sizeof lv);
	return lv;
}

void dpi_export_megatron_levers(FILE *f, const dp_graph *g, int zero_stage)
{
	dp_levers lv = levers_of(g);
	if (lv.precision == DP_PREC_BF16)
		fprintf(f, "  --bf16\n");
	else if (lv.precision == DP_PREC_FP16)
		fprintf(f, "  --fp16\n");
	/* full: every layer's input kept, the layer re-run (one layer per
	 * checkpoint, uniformly); selective: the attention cores re-run */
	if (lv.recompute == DP_RECOMP_FULL)
		fprintf(f, "  --recompute-granularity full\n"
			   "  --recompute-method uniform\n"
			   "  --recompute-num-layers 1\n");
	else if (lv.recompute == DP_RECOMP_SELECTIVE)
		fprintf(f, "  --recompute-granularity selective\n");
	if (lv.fuse & DP_FUSE_ATTENTION)
		fprintf(f, "  --use-flash-attn\n");
	/* Megatron's distributed optimizer shards the optimizer state and
	 * reduce-scatters the gradients: ZeRO stages 1 and 2 */
	if (zero_stage == 1 || zero_stage == 2)
		fprintf(f, "  --use-distributed-optimizer\n");
}

/* The shape of plan for a DeepSpeed config (torch false) or a PyTorch
 * wrapping (torch true): DP_EINPUT for what the framework does not run. */
static dp_status framework_shape(const char *path, const dp_graph *g,
				 const dp_plan *plan, bool torch,
				 dpi_plan_shape *sh, dp_err *err)
{
	dp_status st = dpi_export_plan_shape(path, g, plan, sh, err);
	if (st)
		return st;
	if (torch && (sh->pipe || sh->tp > 1))
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "a PyTorch wrapping export takes a dp or "
				  "zero plan, and this one is %s: export it "
				  "with --pippy (pipelines) or --megatron",
				  sh->pipe ? "a pipeline" : "tensor parallel");
	if (sh->tp > 1)
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "this plan splits ops over %d devices "
				  "(tensor parallelism), which DeepSpeed runs "
				  "through Megatron-DeepSpeed: export it as "
				  "Megatron-LM arguments (.megatron.sh)",
				  sh->tp);
	if (sh->pipe && sh->S > 1 && sh->zero_stage > 1)
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "DeepSpeed's pipeline engine takes ZeRO "
				  "stage 0 or 1, not %d",
				  sh->zero_stage);
	return DP_OK;
}

/* Micro-batch size of a DeepSpeed config: the graph's batch over the
 * micro-batches of a step (one sample when it states none). */
static int64_t ds_micro(const dp_graph *g, const dpi_plan_shape *sh)
{
	int64_t batch = dp_graph_batch_size(g);
	int64_t per = (int64_t)sh->M * sh->dp;
	return batch > 0 && batch >= per ? batch / per : 1;
}

static void write_deepspeed(FILE *f, const dp_graph *g,
			    const dpi_plan_shape *sh, const dp_levers *lv)
{
	int64_t mbs = ds_micro(g, sh);
	dp_json w;
	dp_json_init(&w, f);
	dp_json_begin_object(&w, NULL);
	/* DeepSpeed checks train_batch_size = micro-batch x accumulation
	 * x data parallel size */
	dp_json_int(&w, "train_batch_size", mbs * sh->M * sh->dp);
	dp_json_int(&w, "train_micro_batch_size_per_gpu", mbs);
	dp_json_int(&w, "gradient_accumulation_steps", sh->M);
	dp_json_begin_object(&w, "zero_optimization");
	dp_json_int(&w, "stage", sh->zero_stage);
	/* ZeRO-Offload: the optimizer state and its update on the CPU;
	 * ZeRO-Infinity's parameter offload (stage 3) also the weights */
	if (lv->offload >= DP_OFFLOAD_OPTIMIZER) {
		dp_json_begin_object(&w, "offload_optimizer");
		dp_json_str(&w, "device", "cpu");
		dp_json_bool(&w, "pin_memory", true);
		dp_json_end_object(&w);
	}
	if (lv->offload == DP_OFFLOAD_PARAMS) {
		dp_json_begin_object(&w, "offload_param");
		dp_json_str(&w, "device", "cpu");
		dp_json_bool(&w, "pin_memory", true);
		dp_json_end_object(&w);
	}
	dp_json_end_object(&w);
	dp_json_begin_object(&w, "bf16");
	dp_json_bool(&w, "enabled", lv->precision == DP_PREC_BF16);
	dp_json_end_object(&w);
	dp_json_begin_object(&w, "fp16");
	dp_json_bool(&w, "enabled", lv->precision == DP_PREC_FP16);
	dp_json_end_object(&w);
	if (lv->recompute != DP_RECOMP_NONE) {
		dp_json_begin_object(&w, "activation_checkpointing");
		dp_json_bool(&w, "partition_activations", false);
		dp_json_bool(&w, "cpu_checkpointing", false);
		dp_json_bool(&w, "contiguous_memory_optimization", false);
		dp_json_int(&w, "number_checkpoints", sh->layers);
		dp_json_bool(&w, "synchronize_checkpoint_boundary", false);
		dp_json_bool(&w, "profile", false);
		dp_json_end_object(&w);
	}
	dp_json_end_object(&w);
	fputc('\n', f);
}

/* The note of a DeepSpeed config: its sizes, and what the model's code
 * does for the levers. */
static void deepspeed_note(dp_export_report *rep, const char *path,
			   const dp_graph *g, const dpi_plan_shape *sh,
			   const dp_levers *lv)
{
	int64_t mbs = ds_micro(g, sh), batch = dp_graph_batch_size(g);
	int64_t step = mbs * sh->M * sh->dp;
	int n = snprintf(rep->note, sizeof rep->note,
			 "%s: data parallel %d, %d micro-batch%s of %lld "
			 "per step",
			 path, sh->dp, sh->M, sh->M == 1 ? "" : "es",
			 (long long)mbs);
	if (batch > 0 && step != batch && n > 0)
		n += snprintf(rep->note + n, sizeof rep->note - (size_t)n,
			      " (the graph's batch %lld does not split "
			      "evenly: %lld per step)",
			      (long long)batch, (long long)step);
	if (lv->recompute != DP_RECOMP_NONE && n > 0)
		n += snprintf(rep->note + n, sizeof rep->note - (size_t)n,
			      "; the model's code wraps %s in "
			      "deepspeed.checkpointing.checkpoint",
			      lv->recompute == DP_RECOMP_FULL
				      ? "each layer"
				      : "each attention core");
	if ((lv->fuse & DP_FUSE_ATTENTION) && n > 0)
		snprintf(rep->note + n, sizeof rep->note - (size_t)n,
			 "; fused attention is the model's kernel "
			 "(FlashAttention), not a DeepSpeed setting");
}

/* ---- PyTorch: DDP / ZeRO / FSDP with checkpointing ---- */

/* Writes the Python list of g's blocks as module names ("model.h3"), in
 * the order they first appear; returns how many. */
static uint32_t write_blocks(FILE *f, const dp_graph *g)
{
	uint32_t n = 0;
	const char *last = NULL;
	size_t last_n = 0;
	fprintf(f, "LAYERS = [");
	for (uint32_t k = 0; k < g->nops; k++) {
		uint32_t u = g->topo[k];
		size_t len = dpi_export_block_len(g, u);
		const char *l = dp_graph_str(g, g->ops[u].layer);
		if (!len || dp_op_role(g, u) != DP_ROLE_FORWARD ||
		    (last && len == last_n && !strncmp(l, last, len)))
			continue;
		bool seen = false; /* a block seen before, not contiguous */
		for (uint32_t j = 0; j < k && !seen; j++) {
			uint32_t v = g->topo[j];
			seen = dp_op_role(g, v) == DP_ROLE_FORWARD &&
			       dpi_export_block_len(g, v) == len &&
			       !strncmp(dp_graph_str(g, g->ops[v].layer), l,
					len);
		}
		last = l;
		last_n = len;
		if (seen)
			continue;
		fprintf(f, "%s\"", n % 4 ? ", " : n ? ",\n    " : "\n    ");
		n++;
		for (size_t i = 0; i < len; i++)
			fputc(l[i] == '/' ? '.' : l[i], f);
		fputc('"', f);
	}
	fprintf(f, "%s]\n", n ? ",\n" : "");
	return n;
}

static const char *torch_dtype(dp_precision p)
{
	return p == DP_PREC_BF16 ? "torch.bfloat16" : "torch.float16";
}

static void write_torchwrap(FILE *f, const dp_graph *g, const dp_plan *plan,
			    const dpi_plan_shape *sh, const dp_levers *lv)
{
	int z = sh->zero_stage;
	bool fsdp = z >= 2, half = lv->precision != DP_PREC_FP32;
	bool full = lv->recompute == DP_RECOMP_FULL;
	char set[48];
	fprintf(f,
		"# PyTorch wrapping for the plan dnnpart planned\n"
		"#   graph %s\n#   plan %s on %d devices: data parallel %d, "
		"ZeRO stage %d, levers %s\n",
		g->name ? g->name : "graph", plan->strategy, plan->k, sh->dp,
		z, dp_levers_set_name(lv, set, sizeof set));
	fprintf(f, "#   %s\n",
		z == 3	 ? "ZeRO-3: FSDP FULL_SHARD, one unit per layer"
		: z == 2 ? "ZeRO-2: FSDP SHARD_GRAD_OP, one unit per layer"
		: z == 1 ? "ZeRO-1: DDP with ZeroRedundancyOptimizer "
			   "(make_optimizer)"
			 : "data parallel: DDP");
	if (lv->recompute == DP_RECOMP_SELECTIVE)
		fprintf(f, "#   selective recomputation: wrap each attention "
			   "core in torch.utils.checkpoint in the model's "
			   "code\n");
	if (lv->fuse & DP_FUSE_ATTENTION)
		fprintf(f, "#   fused attention: the model calls "
			   "torch.nn.functional.scaled_dot_product_attention "
			   "(FlashAttention)\n");
	if (half && !fsdp)
		fprintf(f, "#   mixed precision: run the step under "
			   "torch.autocast(\"cuda\", dtype=%s)\n",
			torch_dtype(lv->precision));
	fprintf(f, "%simport torch\n", fsdp ? "import functools\n\n" : "");
	if (full)
		fprintf(f, "from torch.distributed.algorithms._checkpoint."
			   "checkpoint_wrapper import (\n"
			   "    apply_activation_checkpointing, "
			   "checkpoint_wrapper)\n");
	if (fsdp)
		fprintf(f, "from torch.distributed.fsdp import (\n"
			   "    FullyShardedDataParallel as FSDP, "
			   "MixedPrecision, ShardingStrategy)\n"
			   "from torch.distributed.fsdp.wrap import "
			   "lambda_auto_wrap_policy\n");
	else
		fprintf(f, "from torch.nn.parallel import "
			   "DistributedDataParallel as DDP\n");
	if (z == 1)
		fprintf(f, "from torch.distributed.optim import "
			   "ZeroRedundancyOptimizer\n");
	fprintf(f, "\n");
	write_blocks(f, g);
	fprintf(f, "\n\ndef wrap(model, device):\n"
		   "    \"\"\"model, wrapped as planned, on this rank's "
		   "device.\"\"\"\n");
	if (full || fsdp)
		fprintf(f, "    layers = {model.get_submodule(n) for n in "
			   "LAYERS}\n");
	/* checkpointing wraps the layers inside DDP, and inside FSDP's units
	 * once they are made (the layers stay their inner modules) */
	const char *ac = "    apply_activation_checkpointing(\n"
			 "        model, checkpoint_wrapper_fn="
			 "checkpoint_wrapper,\n"
			 "        check_fn=lambda m: m in layers)\n";
	if (full && !fsdp)
		fputs(ac, f);
	if (!fsdp) {
		fprintf(f, "    return DDP(model.to(device), "
			   "device_ids=[device])\n");
	} else {
		fprintf(f, "    policy = functools.partial(lambda_auto_wrap_"
			   "policy,\n"
			   "                               lambda_fn=lambda m: "
			   "m in layers)\n"
			   "    model = FSDP(model, device_id=device, "
			   "auto_wrap_policy=policy,\n"
			   "                 sharding_strategy=ShardingStrategy."
			   "%s",
			z == 3 ? "FULL_SHARD" : "SHARD_GRAD_OP");
		if (half)
			fprintf(f, ",\n                 mixed_precision="
				   "MixedPrecision(param_dtype=%s))",
				torch_dtype(lv->precision));
		else
			fprintf(f, ")");
		fprintf(f, "\n%s    return model\n", full ? ac : "");
	}
	if (z == 1)
		fprintf(f, "\n\ndef make_optimizer(params, **adam):\n"
			   "    \"\"\"Adam with its state split over the "
			   "ranks (ZeRO stage 1).\"\"\"\n"
			   "    return ZeroRedundancyOptimizer(params, "
			   "optimizer_class=torch.optim.Adam,\n"
			   "                                   **adam)\n");
}

/* A DeepSpeed config (torch false) or a PyTorch wrapping of plan. */
static dp_status framework_write(const char *path, const dp_graph *g,
				 const dp_plan *plan, bool torch,
				 dp_export_report *rep, dp_err *err)
{
	dpi_plan_shape sh;
	dp_status st = framework_shape(path, g, plan, torch, &sh, err);
	if (st)
		return st;
	dp_levers lv = levers_of(g);
	/* DeepSpeed offloads the optimizer only under ZeRO (stages 1-3),
	 * and the parameters only under stage 3 */
	if (!torch && lv.offload == DP_OFFLOAD_OPTIMIZER && sh.zero_stage < 1)
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "DeepSpeed offloads the optimizer "
				  "(offload_optimizer) only under ZeRO stages "
				  "1-3, and this plan is stage 0: plan it "
				  "with zero");
	if (!torch && lv.offload == DP_OFFLOAD_PARAMS && sh.zero_stage != 3)
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "DeepSpeed offloads the parameters "
				  "(offload_param) only under ZeRO stage 3, "
				  "and this plan is stage %d: plan it with "
				  "zero --zero-stage 3",
				  sh.zero_stage);
	dp_afile af;
	if ((st = dp_afile_open(&af, path, err)))
		return st;
	if (torch)
		write_torchwrap(af.f, g, plan, &sh, &lv);
	else
		write_deepspeed(af.f, g, &sh, &lv);
	if ((st = dp_afile_commit(&af, err)))
		return st;
	rep->entries = torch ? sh.layers : (uint32_t)sh.S;
	if (!torch)
		deepspeed_note(rep, path, g, &sh, &lv);
	return DP_OK;
}

dp_status dpi_export_deepspeed_write(const char *path, const dp_graph *g,
				     const dp_plan *plan,
				     dp_export_report *rep, dp_err *err)
{
	return framework_write(path, g, plan, false, rep, err);
}

dp_status dpi_export_torchwrap_write(const char *path, const dp_graph *g,
				     const dp_plan *plan,
				     dp_export_report *rep, dp_err *err)
{
	return framework_write(path, g, plan, true, rep, err);
}
