/* pipe_estimate.c - an analytic step time and peak memory of a pipeline
 * strategy (internal/pipeline.h, dpi_pipe_estimate), for the stage
 * searches (algo_hybrid.c) to rank candidates before the simulator
 * prices the best few. A model, not the simulator: docs/algorithms.md
 * #hybrid says what it leaves out.
 *
 * Per stage s, per micro-batch: t_s = the time of its micro-batched ops,
 * each op's time divided by the parts its split makes (and by M when its
 * time scales with the batch) and priced with the kernel overhead as the
 * lowering prices it (dpi_kernel_time), + its communication: an edge into a later
 * or earlier stage moves its bytes (/ M, / the batch parts) between two
 * devices; an edge whose producer holds partial sums of a dim split
 * inside the stage (tensor parallelism) is a ring all-reduce over the T
 * parts, 2 (T-1)/T x its bytes, each of the 2 (T-1) steps one latency;
 * an edge from an output split T ways (not along the batch) into an op
 * not split on the tensor axis is an all-gather, (T-1)/T x its bytes.
 * Once per step (after the flush): the update ops, and the gradient
 * all-reduce over the D data-parallel replicas (2 (D-1)/D x the gradient
 * / its update's parts). Step = sum_s t_s + (M-1) max_s t_s + max_s once_s
 * (the 1F1B and GPipe fill, steady state and drain). Memory per device of
 * stage s: params, gradients and update state (each op's param and
 * output bytes of its once ops / their parts) + the activations of one
 * micro-batch (the outputs of its forward ops) x the micro-batches in
 * flight: min(S - s, M) for 1F1B, M for GPipe.
 * Interleaved (V chunks per device, chunk c on device c mod P, P = S / V):
 * T_d = the sum of device d's chunks' t_s; step = M max_d T_d + (sum_s t_s
 * - max_d T_d) / V + max_d once_d (Megatron-LM's fill, (P-1) T / V on
 * equal chunks); device d holds its chunks' static memory + its
 * activations x min(2 (P-d-1) + (V-1) P + 1, M V) / V (the virtual
 * micro-batches of its warm-up, each of one chunk).
 */
#include "internal/lower.h"
#include "internal/pipeline.h"

#include <stdlib.h>
#include <string.h>

static int parts_of(const dp_strategy *s, const dp_graph *g, uint32_t u)
{
	if (s->spmd.naxes < 1 || !s->spmd.axes)
		return 1;
	dp_dims d;
	uint32_t nd = dp_op_dims(g, u, &d) ? d.n : 1;
	int p = 1;
	for (uint32_t i = 0; i < nd && i < DP_MAX_OP_DIMS; i++)
		p *= dp_spmd_parts(&s->spmd, u, i);
	return p;
}

/* The parts of u's dims that index its output (out true; the batch dim
 * left out: 1 when u's output is whole on each device of the tensor axis)
 * or that do not (its reduction dims: 1 when u holds no partial sums). */
static int parts_by_out(const dp_strategy *s, const dp_graph *g, uint32_t u,
			bool out)
{
	dp_dims d;
	if (s->spmd.naxes < 1 || !s->spmd.axes || !dp_op_dims(g, u, &d) ||
	    d.nout < 0)
		return 1;
	const char *bd = dp_graph_batch_dim(g);
	int bi = out && bd[0] ? dp_op_find_dim(g, u, bd) : -1;
	int p = 1;
	for (uint32_t i = 0; i < d.n; i++) {
		bool in = false;
		for (int k = 0; k < d.nout; k++)
			in = in || d.out[k] == (uint8_t)i;
		if (in == out && (int)i != bi)
			p *= dp_spmd_parts(&s->spmd, u, i);
	}
	return p;
}

typedef struct est_stage {
	double t, once, mem_static, act;
	double wts; /* weights (not optimizer state): asynchronous versions */
} est_stage;

double dpi_pipe_estimate(const dp_graph *g, const dp_machine *m,
			 const dp_strategy *s, int D, int64_t *peak)
{
	int S = s->pipe.nstages, M = s->pipe.microbatches;
	est_stage *st = calloc((size_t)S, sizeof *st);
	uint8_t *kd = dpi_pipe_kinds(g);
	if (!st || !kd) {
		free(st);
		free(kd);
		*peak = INT64_MAX;
		return 1e300;
	}
	double bw = m->bw > 0 ? m->bw : 1, lat = m->lat;
	bool dp_only = s->spmd.naxes > 0 && !dpi_pipe_is_tp(g, s);
	for (uint32_t u = 0; u < g->nops; u++) {
		est_stage *e = &st[s->pipe.stage[u]];
		const dp_op *o = &g->ops[u];
		int pu = parts_of(s, g, u);
		bool ts = false, os = false;
		if (kd[u] != DPI_PIPE_ONCE)
			dpi_pipe_scaling(g, u, &ts, &os);
		if (dp_only && pu == 1 && ts)
			pu = D; /* lower_pipe3d.c splits every batched op */
		e->mem_static += (double)o->param_bytes / pu;
		e->wts += (double)dpi_pipe_weight_bytes(g, u) / pu;
		if (kd[u] == DPI_PIPE_ONCE) {
			e->once += o->time_us / pu;
			e->mem_static += (double)o->output_bytes / pu;
			continue;
		}
		e->t += dpi_kernel_time(o->time_us, 1.0 / pu / (ts ? M : 1),
					m->kernel_us);
		if (kd[u] == DPI_PIPE_FWD)
			e->act += (double)o->output_bytes / pu / (os ? M : 1);
	}
	for (uint32_t x = 0; x < g->nedges; x++) {
		const dp_edge *ed = &g->edges[x];
		uint32_t u = ed->from, v = ed->to;
		if (ed->control || kd[u] == DPI_PIPE_ONCE)
			continue;
		est_stage *e = &st[s->pipe.stage[u]];
		bool ts, os;
		dpi_pipe_scaling(g, u, &ts, &os);
		double b = (double)ed->bytes / (os ? M : 1);
		if (kd[v] == DPI_PIPE_ONCE) {
			if (D > 1)
				e->once += 2.0 * (D - 1) / D *
						   (double)ed->bytes /
						   parts_of(s, g, v) / bw +
					   2.0 * (D - 1) * lat;
			continue;
		}
		int pp = parts_by_out(s, g, u, false), po;
		if (s->pipe.stage[u] != s->pipe.stage[v])
			e->t += lat + b / D / bw;
		else if (pp > 1)
			e->t += 2.0 * (pp - 1) / pp * b / D / bw +
				2.0 * (pp - 1) * lat;
		else if ((po = parts_by_out(s, g, u, true)) > 1 &&
			 parts_of(s, g, v) <= D)
			e->t += (double)(po - 1) / po * b / D / bw +
				(po - 1) * lat; /* an all-gather */
	}
	int V = s->pipe.virtual_stages > 1 ? s->pipe.virtual_stages : 1;
	if (V > 1 && S % V == 0) {
		int P = S / V;
		for (int c = P; c < S; c++) { /* fold chunks onto devices */
			st[c % P].t += st[c].t;
			st[c % P].once += st[c].once;
			st[c % P].mem_static += st[c].mem_static;
			st[c % P].act += st[c].act;
		}
		double sum = 0, tmax = 0, omax = 0, mmax = 0;
		for (int d = 0; d < P; d++) {
			sum += st[d].t;
			tmax = st[d].t > tmax ? st[d].t : tmax;
			omax = st[d].once > omax ? st[d].once : omax;
			int w = 2 * (P - d - 1) + (V - 1) * P + 1;
			w = w < M * V ? w : M * V;
			double mem = st[d].mem_static + st[d].act * w / V;
			mmax = mem > mmax ? mem : mmax;
		}
		free(st);
		free(kd);
		*peak = mmax > 9e18 ? INT64_MAX : (int64_t)mmax;
		return M * tmax + (sum - tmax) / V + omax;
	}
	double sum = 0, tmax = 0, omax = 0, mmax = 0;
	for (int i = 0; i < S; i++) {
		sum += st[i].t;
		tmax = st[i].t > tmax ? st[i].t : tmax;
		omax = st[i].once > omax ? st[i].once : omax;
		int fl = s->pipe.schedule == DP_SCHED_GPIPE ? M
			 : S - i < M			    ? S - i
							    : M;
		int nv = dp_schedule_versions(s->pipe.schedule, S, i);
		double mem = st[i].mem_static + st[i].act * fl +
			     (nv - 1) * st[i].wts;
		mmax = mem > mmax ? mem : mmax;
	}
	/* an asynchronous schedule's steady step: the busiest stage, with
	 * stash's update after every micro-batch */
	double busy = 0;
	for (int i = 0; i < S; i++) {
		double b = M * st[i].t +
			   st[i].once *
				   (s->pipe.schedule == DP_SCHED_STASH ? M : 1);
		busy = b > busy ? b : busy;
	}
	free(st);
	free(kd);
	*peak = mmax > 9e18 ? INT64_MAX : (int64_t)mmax;
	if (dp_schedule_is_async(s->pipe.schedule))
		return busy;
	return sum + (M - 1) * tmax + omax;
}
