/* algo_dp.c - the built-in spmd strategies `dp` (data parallelism) and
 * `zero` (ZeRO stages 1-3: data parallelism with the optimizer step and
 * its state split across the devices). docs/algorithms.md describes both.
 *
 * dp: a mesh [K]; every op whose dims have the graph's batch dim is split
 * along it K ways; a whole op (no dims) with a batch role (input, forward,
 * backward, loss) is split evenly; everything else (weights, updates, ops
 * without the batch) is replicated, so each device updates its own copy of
 * the weights from gradients that the lowering reduce-scatters and
 * all-gathers (2(K-1)/K x the weights per device, ring all-reduce's bytes).
 * Pinned ops stay whole on their pin.
 *
 * zero: the same, and every update op with param dims is split K ways on
 * the first of them that K divides: each device updates (and keeps the
 * optimizer state of) 1/K of the weights; the gradient then needs only a
 * reduce-scatter, and the lowering adds an all-gather of the updated
 * weights (u/ag#dD), so the bytes moved equal dp's. That is ZeRO stage 2
 * (the default); stage 1 prices the same transfers but keeps every
 * gradient whole until the update; stage 3 (FSDP's full shard) splits the
 * param ops too, on the first param dim that K divides, and the lowering
 * gathers each layer's weights before its forward and again before its
 * backward (docs/spmd.md, "ZeRO stages").
 */
#include <stdio.h>
#include <string.h>

#include "dnnpart/strategy.h"
#include "internal/algo_int.h"
#include "internal/spmd.h"

dp_status dp_strategy_check_data_parallel(const dp_graph *g, const char *name,
					  dp_err *err)
{
	if (dp_graph_batch_dim(g)[0])
		return DP_OK;
	for (uint32_t u = 0; u < g->nops; u++) {
		dp_dims d;
		if (dp_op_dims(g, u, &d) || dp_op_role(g, u) == DP_ROLE_NONE)
			return dp_err_set(
				err, DP_EINPUT, g->source, 0, 0,
				"%s: graph '%s' has no batch_dim; %s needs "
				"dims (or, for a graph without any, a role on "
				"every op): see docs/formats.md",
				name, g->name, name);
	}
	/* whole ops: the weight gradients' all-reduce is priced only where
	 * the graph says which ops make them */
	bool weights = false, grads = false;
	for (uint32_t u = 0; u < g->nops; u++) {
		dp_role r = dp_op_role(g, u);
		weights |= g->ops[u].param_bytes > 0;
		grads |= r == DP_ROLE_GRAD || r == DP_ROLE_UPDATE;
	}
	if (weights && !grads)
		return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				  "%s: graph '%s' holds weights (param_bytes) "
				  "but no op has the role grad or update, so "
				  "nothing says where their gradients are "
				  "made: %s cannot price the gradient "
				  "all-reduce it needs",
				  name, g->name, name);
	return DP_OK;
}

static dp_status strategize(const dp_graph *g, const dp_machine *m,
			    const dp_progress *p, dp_strategy *out, int stage,
			    dp_err *err)
{
	bool zero = stage > 0;
	const char *name = zero ? "zero" : "dp";
	int k = m->k;
	dp_status st = dpi_poll(p, name, "splitting", 0, err);
	if (!st)
		st = dp_strategy_check_data_parallel(g, name, err);
	if (!st)
		st = dp_algo_check_pins(g, m, err);
	if (st)
		return st;
	dp_strategy s;
	if ((st = dp_strategy_alloc(&s, DP_STRAT_SPMD, g, 0, err)))
		return st;
	s.k = k;
	s.spmd.naxes = 1;
	s.spmd.mesh[0] = k;
	const char *bd = dp_graph_batch_dim(g);
	for (uint32_t u = 0; !st && u < g->nops; u++) {
		if ((u & 4095) == 0 &&
		    (st = dpi_poll(p, name, "splitting",
					(double)u / g->nops, err)))
			break;
		uint8_t *ax = &s.spmd.axes[(size_t)u * DP_MAX_OP_DIMS];
		dp_dims d;
		int b = dpi_algo_spmd_op_start(g, u, k, &s, &d);
		if (b == -2)
			continue;
		if (b >= 0 && d.sizes[b] % k != 0) {
			st = dp_err_set(err, DP_EINPUT, g->source, 0, 0,
					"%s: op '%s' has the batch dim '%s' of "
					"size %lld, which %d devices do not "
					"divide; choose a number of devices "
					"that divides the batch",
					name, dp_graph_op_name(g, u), bd,
					(long long)d.sizes[b], k);
			break;
		}
		if (b >= 0 && k > 1) {
			ax[b] = 1;
			continue;
		}
		dp_role r = dp_op_role(g, u);
		if (!zero || k == 1 ||
		    (r != DP_ROLE_UPDATE && (stage < 3 || r != DP_ROLE_PARAM)))
			continue;
		for (int i = 0; i < d.nparam; i++)
			if (d.sizes[d.param[i]] % k == 0) {
				ax[d.param[i]] = 1;
				break;
			}
	}
	if (st) {
		dp_strategy_free(&s);
		return st;
	}
	s.zero_stage = stage;
	if (zero && stage != 2)
		snprintf(s.label, sizeof s.label, "zero-%d %d", stage, k);
	else
		snprintf(s.label, sizeof s.label, "%s %d", name, k);
	snprintf(s.algo, sizeof s.algo, "%s", name);
	*out = s;
	return DP_OK;
}

static dp_status dp_run(const dp_graph *g, const dp_machine *m,
			const dp_algo_opts *o, const dp_progress *p,
			dp_strategy *out, dp_err *err)
{
	(void)o;
	return strategize(g, m, p, out, 0, err);
}

static dp_status zero_run(const dp_graph *g, const dp_machine *m,
			  const dp_algo_opts *o, const dp_progress *p,
			  dp_strategy *out, dp_err *err)
{
	return strategize(g, m, p, out,
			  o && o->zero_stage ? o->zero_stage : 2,
			  err);
}

const dp_algo dpi_algo_dp = {
	.name = "dp",
	.summary = "data parallelism: every op split along the batch on all "
		   "K devices, weights replicated, gradients all-reduced",
	.source = "data parallelism as in Megatron-LM and PyTorch DDP "
		  "(docs/algorithms.md)",
	.run = NULL,
	.strategize = dp_run,
};

const dp_algo dpi_algo_zero = {
	.name = "zero",
	.summary = "dp with the optimizer step and its state split K ways "
		   "(ZeRO stage 1, 2 by default, 3 = FSDP: --zero-stage)",
	.source = "Rajbhandari et al., ZeRO, SC 2020 (stages 1 to 3); "
		  "DeepSpeed, PyTorch FSDP",
	.run = NULL,
	.strategize = zero_run,
};
