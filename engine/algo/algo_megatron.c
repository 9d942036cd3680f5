/* algo_megatron.c - `megatron`: the expert tensor-parallel layout of
 * transformer blocks (Shoeybi et al., "Megatron-LM: training multi-billion
 * parameter language models using model parallelism", 2019), combined
 * with data parallelism, as an spmd strategy on a mesh [D, T] (D x T = K;
 * axis 0 splits the batch, axis 1 the tensors).
 *
 * Blocks are recognised by the sample graphs' dim names (docs/formats.md):
 * every op with a dim `heads` (attention: the QKV MatMul, the scores, the
 * softmax, the output projection, their backward ops, weights and
 * updates) is split T ways by heads, and every op with a dim `f` (the MLP:
 * the first MatMul on its output dim, the activation, the second MatMul on
 * its reduction dim, and theirs) T ways by f; so a block's forward ends
 * with one all-reduce (the partial sums of the output projection or of
 * the second MatMul) and its backward with one (the input gradient of the
 * first MatMul). Every op with the batch dim is also split D ways along
 * it; other ops (layer norms, residual adds, embeddings) are replicated
 * over the tensor axis. Ops it does not recognise stay data parallel, or
 * replicated when D does not divide their batch. Pinned ops stay whole on
 * their pin.
 *
 * A graph without dims `f` and `heads` (a PyTorch export, whose ops name
 * their dims each in their own way) has its column/row pairs found by
 * structure instead (internal/tp_pairs.h).
 *
 * T: o->tp when given (it must divide K); else, among the T that divide K
 * (and that leave a D dividing the batch, when some do), the smallest
 * whose per-device memory estimate (internal/tofu.h) fits the smallest
 * cap, else the one with the smallest estimate. A dim that T does not
 * divide (gpt2-xl's 25 heads) is split unevenly, in blocks of ceil and
 * floor size (internal/spmd.h): the devices with the larger blocks set
 * the step's time. A dim smaller than T is not split.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/strategy.h"
#include "internal/algo_int.h"
#include "internal/megatron.h"
#include "internal/spmd.h"
#include "internal/tofu.h"
#include "internal/tp_pairs.h"

/* Whether sequence parallelism splits op u along its dim i = `s` (the
 * sequence): an op that tensor parallelism leaves whole on the tensor axis
 * (layer norms, residual adds, dropout, the position embedding, and their
 * gradients), not an input, whose output the sequence indexes (or that
 * has several outputs, or is a weight gradient: it sums over s, and the
 * tensor axis then all-reduces it, as Megatron-LM all-reduces the layer
 * norms' gradients). */
static bool seq_split(const dp_graph *g, uint32_t u, const dp_dims *dd, int i)
{
	dp_role r = dp_op_role(g, u);
	if (i < 0 || r == DP_ROLE_INPUT || r == DP_ROLE_PARAM ||
	    r == DP_ROLE_UPDATE)
		return false;
	bool in_out = dd->nout < 0 || r == DP_ROLE_GRAD;
	for (int k = 0; k < dd->nout; k++)
		in_out = in_out || dd->out[k] == (uint8_t)i;
	return in_out;
}

/* Fills s (allocated, mesh [d, t]) with Megatron's layout, the tensor
 * axis on dim[u]; with s->sp, sequence parallelism on the rest. */
static void layout(const dp_graph *g, const int8_t *dim, dp_strategy *s, int d,
		   int t)
{
	for (uint32_t u = 0; u < g->nops; u++) {
		uint8_t *ax = &s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS];
		dp_dims dd;
		int b = dpi_algo_spmd_op_start(g, u, d, s, &dd);
		if (b == -2)
			continue;
		if (b >= 0 && d > 1 && dd.sizes[b] % d == 0)
			ax[b] |= 1;
		if (t > 1 && dim[u] >= 0 && dd.sizes[dim[u]] >= t) {
			ax[dim[u]] |= 2;
			continue;
		}
		int q = dp_op_find_dim(g, u, "s");
		if (s->sp && t > 1 && q != b && seq_split(g, u, &dd, q) &&
		    dd.sizes[q] >= t)
			ax[q] |= 2;
	}
}

bool dpi_megatron_divides(const dp_graph *g, const char *name, int t)
{
	for (uint32_t u = 0; u < g->nops; u++) {
		dp_dims d;
		int i = dp_op_find_dim(g, u, name);
		if (i >= 0 && dp_op_dims(g, u, &d) && d.sizes[i] % t != 0)
			return false;
	}
	return true;
}

dp_status dpi_megatron_layout(const dp_graph *g, dp_strategy *s, int d, int t,
			      dp_err *err)
{
	int8_t *dim = malloc(g->nops ? g->nops : 1);
	if (!dim || dpi_tp_dims(g, dim) < 0) {
		free(dim);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "megatron: out of memory");
	}
	layout(g, dim, s, d, t);
	free(dim);
	return DP_OK;
}

static dp_status make(const dp_graph *g, const int8_t *dim, const dp_machine *m,
		      int t, bool sp, dp_strategy *s, dp_err *err)
{
	dp_strategy_init(s);
	dp_status st = dp_strategy_alloc(s, DP_STRAT_SPMD, g, 0, err);
	if (st)
		return st;
	s->k = m->k;
	s->spmd.naxes = 2;
	s->spmd.mesh[0] = m->k / t;
	s->spmd.mesh[1] = t;
	s->sp = sp && t > 1;
	layout(g, dim, s, m->k / t, t);
	snprintf(s->label, sizeof s->label, "megatron %dx%d%s", m->k / t, t,
		 s->sp ? " sp" : "");
	snprintf(s->algo, sizeof s->algo, "megatron");
	return DP_OK;
}

/* The T to try, in order: o's --tp, else every T dividing K that leaves
 * a D dividing the batch (when some T does), ascending. */
static bool candidate(const dp_graph *g, int k, int tp, int t, bool any_batch)
{
	int64_t batch = dp_graph_batch_size(g);
	if (tp > 0)
		return t == tp;
	return k % t == 0 && !(any_batch && batch > 0 && batch % (k / t) != 0);
}

/* The best layout of dims dim (see the top of the file) into *out. */
static dp_status search(const dp_graph *g, const int8_t *dim, int tmax,
			const dp_machine *m, int tp, bool sp,
			const dp_progress *p, dp_strategy *out, dp_err *err)
{
	int k = m->k;
	int64_t batch = dp_graph_batch_size(g);
	int64_t cap = DP_CAP_UNLIMITED;
	for (int d = 0; d < k; d++)
		cap = m->cap[d] < cap ? m->cap[d] : cap;
	bool any_batch = false;
	for (int t = 1; t <= tmax; t++)
		if (k % t == 0 && (batch <= 0 || batch % (k / t) == 0))
			any_batch = true;
	dp_strategy best;
	dp_strategy_init(&best);
	double best_mem = 0;
	bool have = false;
	dp_status st = DP_OK;
	for (int t = 1; t <= (tp > 0 ? k : tmax); t++) {
		if (!candidate(g, k, tp, t, any_batch))
			continue;
		if ((st = dpi_poll(p, "megatron", "splitting",
					(double)t / k, err)))
			break;
		dp_strategy s;
		if ((st = make(g, dim, m, t, sp, &s, err)))
			break;
		double mem = dpi_tofu_estimate(g, &s);
		if (!have || (best_mem > (double)cap && mem < best_mem)) {
			dp_strategy_free(&best);
			best = s;
			best_mem = mem;
			have = true;
		} else {
			dp_strategy_free(&s);
		}
		if (best_mem <= (double)cap)
			break;
	}
	if (!st && !have) /* nothing splits: data parallelism alone */
		st = make(g, dim, m, 1, false, &best, err);
	if (st) {
		dp_strategy_free(&best);
		return st;
	}
	*out = best;
	return DP_OK;
}

static dp_status megatron_run(const dp_graph *g, const dp_machine *m,
			      const dp_algo_opts *o, const dp_progress *p,
			      dp_strategy *out, dp_err *err)
{
	int k = m->k;
	dp_status st = dpi_poll(p, "megatron", "splitting", 0, err);
	if (!st)
		st = dp_algo_check_pins(g, m, err);
	if (st)
		return st;
	int tp = o ? o->tp : 0;
	if (tp > 0 && k % tp != 0)
		return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				  "megatron: --tp %d must divide the %d "
				  "devices",
				  tp, k);
	int8_t *dim = malloc(g->nops ? g->nops : 1);
	int n = dim ? dpi_tp_dims(g, dim) : -1;
	if (n < 0) {
		free(dim);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "megatron: out of memory");
	}
	/* nothing to split on a tensor axis: data parallelism alone */
	st = search(g, dim, n > 0 ? k : 1, m, tp, o && o->sp, p, out, err);
	free(dim);
	if (st)
		return st;
	return dpi_poll(p, "megatron", "splitting", 1, err);
}

DPI_ALGO_ENTRY(megatron, "megatron",
	       "Megatron-LM's tensor parallelism (attention by heads, the "
	       "MLP by its width) on T devices, data parallel over K/T",
	       "Shoeybi et al., Megatron-LM, arXiv 1909.08053, 2019",
	       .strategize = megatron_run, .takes_tp = true);
