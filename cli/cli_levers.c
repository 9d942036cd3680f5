/* cli_levers.c - the levers on the command line (--precision, --recompute,
 * --fuse, --gpu; docs/memory.md): checked with the other shared options,
 * applied to the graph as it is loaded and to the machine as it is made,
 * so every command and the explorer plan the same transformed step. */
#include <string.h>

#include "cli.h"
#include "dnnpart/levers.h"
#include "dnnpart/units.h"
#include "dnnpart/recompute.h"

int cli_check_lever(const char *cmd, const char *name, const char *v)
{
	dp_err err;
	dp_err_clear(&err);
	dp_precision p;
	dp_levers lv;
	memset(&lv, 0, sizeof lv);
	unsigned f;
	dp_status st = DP_OK;
	if (!strcmp(name, "--precision"))
		st = dp_precision_parse(v, &p, &err);
	else if (!strcmp(name, "--recompute"))
		st = dp_levers_parse_recompute(v, &lv, &err);
	else if (!strcmp(name, "--fuse"))
		st = dp_fuse_parse(v, &f, &err);
	else if (!strcmp(name, "--offload"))
		st = dp_offload_parse(v, &lv.offload, &err);
	else if (!strcmp(name, "--host-mem")) {
		int64_t b = 0;
		if (dp_units_parse_size(v, &b, &err) || b <= 0)
			return cli_usage_error(cmd,
					       "--host-mem: expected a size "
					       "above 0 (512GiB), got '%s'",
					       v);
	}
	else if (!dp_gpu_find(v))
		return cli_usage_error(cmd, "--gpu: unknown GPU '%s' (known: %s)",
				       v, dp_gpu_names());
	return st ? cli_usage_error(cmd, "%s: %s", name, err.msg) : 0;
}

int cli_check_lever_sets(const char *cmd, const char *list)
{
	char buf[1024];
	if (!list[0] || strlen(list) >= sizeof buf)
		return cli_usage_error(cmd, "--levers: expected lever sets "
					    "separated by commas (none,bf16,"
					    "bf16+full)");
	snprintf(buf, sizeof buf, "%s", list);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		dp_levers lv;
		dp_err err;
		if (dp_levers_parse_set(t, &lv, &err))
			return cli_usage_error(cmd, "--levers: %s", err.msg);
	}
	return 0;
}

int cli_levers(const cli_opts *o, dp_levers *lv)
{
	dp_err err;
	memset(lv, 0, sizeof *lv);
	/* checked when parsed (cli_check_lever) */
	if (o->precision)
		dp_precision_parse(o->precision, &lv->precision, &err);
	if (o->recompute)
		dp_levers_parse_recompute(o->recompute, lv, &err);
	if (o->fuse)
		dp_fuse_parse(o->fuse, &lv->fuse, &err);
	if (o->offload)
		dp_offload_parse(o->offload, &lv->offload, &err);
	if (o->host_mem)
		dp_units_parse_size(o->host_mem, &lv->host_mem, &err);
	const dp_gpu_preset *gpu = dp_gpu_find(o->gpu);
	if (!gpu)
		return 0;
	/* the GPU's 2-byte ratio even in fp32: the explorer's F and fit
	 * switch precision in the session (bf16 where it has it, else fp16) */
	lv->no_bf16 = gpu->bf16_tflops <= 0;
	lv->gemm_ratio = (lv->no_bf16 ? gpu->fp16_tflops : gpu->bf16_tflops) /
			 gpu->fp32_tflops;
	if (lv->precision == DP_PREC_FP32)
		return 0;
	double half = lv->precision == DP_PREC_BF16 ? gpu->bf16_tflops
						    : gpu->fp16_tflops;
	if (half <= 0) {
		fprintf(stderr,
			"dnnpart: --precision %s: the %s has no %s tensor "
			"cores (%s); use fp16\n",
			dp_precision_name(lv->precision), gpu->name,
			dp_precision_name(lv->precision), gpu->desc);
		return 2;
	}
	lv->gemm_ratio = half / gpu->fp32_tflops;
	return 0;
}

bool cli_wants_auto(const cli_opts *o)
{
	dp_levers lv;
	dp_err err;
	memset(&lv, 0, sizeof lv);
	return o->recompute &&
	       !dp_levers_parse_recompute(o->recompute, &lv, &err) &&
	       lv.recompute == DP_RECOMP_AUTO && !lv.rc_chosen;
}

/* Replaces *g by t after dp_levers_apply or dp_recompute_auto said st;
 * with keep, *keep takes the old *g instead of its being freed. */
static int replace_graph(dp_status st, const dp_err *err, dp_graph **g,
			 dp_graph *t, dp_graph **keep)
{
	if (keep && !st)
		*keep = *g;
	else
		dp_graph_free(*g);
	*g = st ? NULL : t;
	if (!st)
		return 0;
	char buf[2048];
	fprintf(stderr, "dnnpart: %s\n", dp_err_format(err, buf, sizeof buf));
	return dp_status_exit_code(err->code);
}

int cli_apply_levers(const cli_opts *o, dp_graph **g)
{
	return cli_apply_levers_keep(o, g, NULL);
}

int cli_apply_levers_keep(const cli_opts *o, dp_graph **g, dp_graph **plain)
{
	dp_levers lv;
	int rc = cli_levers(o, &lv);
	if (rc) { /* as on the other error paths: the caller's graph goes */
		dp_graph_free(*g);
		*g = NULL;
		return rc;
	}
	/* auto's layers are chosen with the machine (cli_apply_auto); without
	 * one, the other levers */
	if (lv.recompute == DP_RECOMP_AUTO && !lv.rc_chosen)
		lv.recompute = DP_RECOMP_NONE;
	if (!dp_levers_active(&lv))
		return 0;
	dp_err err;
	dp_err_clear(&err);
	dp_graph *t = NULL;
	dp_status st = dp_levers_apply(*g, &lv, &t, &err);
	return replace_graph(st, &err, g, t, plain);
}

int cli_apply_auto(const cli_opts *o, dp_graph **g, dp_machine *m)
{
	dp_levers lv;
	int rc = cli_levers(o, &lv);
	if (rc) {
		dp_graph_free(*g);
		*g = NULL;
		return rc;
	}
	const dp_algo *algo = o->algo ? o->algo : dp_algo_find("pardnn");
	dp_algo_opts ao;
	cli_algo_opts(o, &ao);
	dp_err err;
	dp_err_clear(&err);
	dp_graph *t = NULL;
	dp_rc_auto rep;
	dp_status st = dp_recompute_auto(*g, &lv, m, algo, &ao, NULL,
					 &m->levers, &t, &rep, &err);
	return replace_graph(st, &err, g, t, NULL);
}

int cli_apply_gpu(const cli_opts *o, dp_machine *m)
{
	const dp_gpu_preset *gpu = dp_gpu_find(o->gpu);
	int rc = cli_levers(o, &m->levers);
	if (rc || !gpu)
		return rc;
	/* the reference device of the graphs' times is a V100 in fp32 */
	double speed = gpu->fp32_tflops / 15.7;
	for (int d = 0; d < m->k; d++) {
		m->cap[d] = gpu->mem_bytes;
		m->speed[d] = speed;
	}
	m->bw = gpu->link_bw;
	m->lat = gpu->link_lat;
	snprintf(m->link_name, sizeof m->link_name, "%s-nvlink", gpu->name);
	return 0;
}

void cli_help_levers(FILE *out)
{
	fprintf(out,
		"levers (docs/memory.md):\n"
		"  --precision P      fp32 (default), bf16 or fp16: mixed "
		"precision (2-byte\n"
		"                     activations and gradients, fp32 master "
		"weights and\n"
		"                     Adam moments: 16 B per parameter)\n"
		"  --recompute R      none (default), selective (re-run the "
		"attention cores),\n"
		"                     full (keep each layer's input, re-run "
		"the layer) or\n"
		"                     auto (the layers that make the plan fit "
		"the caps with\n"
		"                     the least added time; auto:LAYERS gives "
		"them again)\n"
		"  --fuse F           none (default), attention "
		"(FlashAttention: no scores\n"
		"                     stored), elementwise (fused element-wise "
		"chains keep\n"
		"                     their inputs, not their intermediates) or "
		"both,\n"
		"                     attention,elementwise\n"
		"  --offload O        none (default), optimizer (ZeRO-Offload: "
		"master weights,\n"
		"                     Adam's moments and the update on the "
		"host) or params\n"
		"                     (the working weights too, fetched before "
		"use)\n"
		"  --host-mem SIZE    host memory --offload may fill (default "
		"1TiB)\n"
		"  --gpu G            %s: memory, speed, link and 2-byte "
		"rate from the\n"
		"                     data sheet (--mem, --speed, --link, --bw, "
		"--lat override)\n",
		dp_gpu_names());
}
