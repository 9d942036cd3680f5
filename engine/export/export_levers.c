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

dp_status dpi_export_deepspeed_write(const char *path, const dp_graph *g,
				     const dp_plan *plan,
				     dp_export_report *rep, dp_err *err)
{
	dpi_plan_shape sh;
	dp_status st = dpi_export_plan_shape(path, g, plan, &sh, err);
	if (st)
		return st;
	if (sh.tp > 1)
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "this plan splits ops over %d devices "
				  "(tensor parallelism), which DeepSpeed runs "
				  "through Megatron-DeepSpeed: export it as "
				  "Megatron-LM arguments (.megatron.sh)",
				  sh.tp);
	if (sh.pipe && sh.S > 1 && sh.zero_stage > 1)
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "DeepSpeed's pipeline engine takes ZeRO "
				  "stage 0 or 1, not %d",
				  sh.zero_stage);
	dp_levers lv = levers_of(g);
	int64_t batch = dp_graph_batch_size(g);
	int64_t per = (int64_t)sh.M * sh.dp; /* micro-batches per step */
	int64_t mbs = batch > 0 && batch >= per ? batch / per : 1;
	dp_afile af;
	if ((st = dp_afile_open(&af, path, err)))
		return st;
	dp_json w;
	dp_json_init(&w, af.f);
	dp_json_begin_object(&w, NULL);
	/* DeepSpeed checks train_batch_size = micro-batch x accumulation
	 * x data parallel size */
	dp_json_int(&w, "train_batch_size", mbs * per);
	dp_json_int(&w, "train_micro_batch_size_per_gpu", mbs);
	dp_json_int(&w, "gradient_accumulation_steps", sh.M);
	dp_json_begin_object(&w, "zero_optimization");
	dp_json_int(&w, "stage", sh.zero_stage);
	dp_json_end_object(&w);
	dp_json_begin_object(&w, "bf16");
	dp_json_bool(&w, "enabled", lv.precision == DP_PREC_BF16);
	dp_json_end_object(&w);
	dp_json_begin_object(&w, "fp16");
	dp_json_bool(&w, "enabled", lv.precision == DP_PREC_FP16);
	dp_json_end_object(&w);
	if (lv.recompute != DP_RECOMP_NONE) {
		dp_json_begin_object(&w, "activation_checkpointing");
		dp_json_bool(&w, "partition_activations", false);
		dp_json_bool(&w, "cpu_checkpointing", false);
		dp_json_bool(&w, "contiguous_memory_optimization", false);
		dp_json_int(&w, "number_checkpoints", sh.layers);
		dp_json_bool(&w, "synchronize_checkpoint_boundary", false);
		dp_json_bool(&w, "profile", false);
		dp_json_end_object(&w);
	}
	dp_json_end_object(&w);
	fputc('\n', af.f);
	st = dp_afile_commit(&af, err);
	if (st)
		return st;
	rep->entries = (uint32_t)sh.S;
	int n = snprintf(rep->note, sizeof rep->note,
			 "%s: data parallel %d, %d micro-batch%s of %lld "
			 "per step",
			 path, sh.dp, sh.M, sh.M == 1 ? "" : "es",
			 (long long)mbs);
	if (batch > 0 && mbs * per != batch && n > 0)
		n += snprintf(rep->note + n, sizeof rep->note - (size_t)n,
			      " (the graph's batch %lld does not split "
			      "evenly: %lld per step)",
			      (long long)batch, (long long)(mbs * per));
	if (lv.recompute != DP_RECOMP_NONE && n > 0)
		n += snprintf(rep->note + n, sizeof rep->note - (size_t)n,
			      "; the model's code wraps %s in "
			      "deepspeed.checkpointing.checkpoint",
			      lv.recompute == DP_RECOMP_FULL
				      ? "each layer"
				      : "each attention core");
	if ((lv.fuse & DP_FUSE_ATTENTION) && n > 0)
		snprintf(rep->note + n, sizeof rep->note - (size_t)n,
			 "; fused attention is the model's kernel "
			 "(FlashAttention), not a DeepSpeed setting");
	return DP_OK;
}
