/* pipeline.h - what the pipeline lowering, its check and the gpipe/1f1b
 * built-ins share (engine/strategy/; docs/pipeline.md).
 *
 * Each op of the user's graph is one of three kinds in a pipeline:
 *   once      param and update ops: one copy per step;
 *   forward   input, forward and loss ops, and ops without a role: one copy
 *             per micro-batch, in the forward blocks of their stage (an
 *             op without a role needs dims to be split:
 *             dpi_pipe_batch_unknown);
 *   backward  backward and grad ops, and forward ones that depend on
 *             them: one copy per micro-batch, in the backward blocks of
 *             their stage.
 * Forward data flows to the same or a later stage, backward data to the
 * same or an earlier one; forward ops feed backward ones on any stage.
 */
#ifndef DNNPART_PIPELINE_H
#define DNNPART_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/strategy.h"

typedef enum dpi_pipe_kind {
	DPI_PIPE_ONCE = 0,
	DPI_PIPE_FWD,
	DPI_PIPE_BWD
} dpi_pipe_kind;

/* The kind of every op of g, indexed by op: by its role, except that an op
 * of the forward kind that depends on one of the backward kind (through a
 * data or a control edge) is of the backward kind too, since it runs after
 * the backward pass has begun (a loader that marks ops by name may leave
 * such an op, e.g. a control_dependency tuple under gradients/, without
 * the backward role). A malloc'ed array of dpi_pipe_kind values, or NULL
 * when out of memory. */
uint8_t *dpi_pipe_kinds(const dp_graph *g);

/* The weight bytes among op u's param bytes (pipe_async.c): its param
 * tensor (product of its param dims x elem_bytes, at most param_bytes)
 * when its dims give one, else all its param bytes; 0 for an update op
 * (optimizer state). */
int64_t dpi_pipe_weight_bytes(const dp_graph *g, uint32_t u);
/* The extra weight versions a lowered op of the user's op u (ug) holds
 * under s's schedule when it has pb param bytes (u's, or a shard's):
 * (versions - 1) x its weights, versions dp_schedule_versions of u's
 * stage; 0 under a synchronous schedule. */
int64_t dpi_pipe_stash_bytes(const dp_graph *ug, const dp_strategy *s,
			     uint32_t u, int64_t pb);

/* The steady-state step of a pipeline s with an asynchronous schedule
 * (pipe_async.c): from r, the simulated step of its lowered graph
 * (source: lowered op -> ug's op, NULL: the same; placement: lowered op
 * -> device), the largest over devices of busy (plus, under stash, M - 1
 * times the device's update ops' time), receiving and sending time. 0
 * for a synchronous schedule or a strategy that is no pipeline. */
struct dp_sim_result;
double dpi_pipe_steady_us(const dp_graph *ug, const dp_strategy *s,
			  const uint32_t *source, const int32_t *placement,
			  const struct dp_sim_result *r);

/* zb-h1 (pipe_zb.c): per op of g under s, 1 when it runs in the W blocks
 * (a grad op, of the backward kind in kd, that sends nothing to another
 * stage), else 0; malloc'ed, NULL when out of memory. And the check that g
 * has W ops and that none feeds a backward op outside W (DP_EINPUT). */
uint8_t *dpi_pipe_w_ops(const dp_graph *g, const dp_strategy *s,
			const uint8_t *kd);
dp_status dpi_pipe_check_zb(const dp_graph *g, const dp_strategy *s,
			    const uint8_t *kd, dp_err *err);
/* Before a search: when o asks for zb-h1, that g has ops of role grad
 * (else DP_EINPUT naming algorithm name); dpi_pipe_check_batch_known
 * runs it. */
dp_status dpi_pipe_check_zb_roles(const dp_graph *g, const dp_algo_opts *o,
				  const char *name, dp_err *err);

/* How the micro-batch copies of op u (of the forward or backward kind)
 * share its cost. *time_split: each copy takes time / M and temp / M
 * (false: each does the whole op's work, an op whose dims do not contain
 * the graph's batch dim). *out_split: each copy's output is the op's / M,
 * shared as dpi_pipe_share says (false: each copy has the whole output, as
 * a weight gradient has, or an output the batch dim does not index). */
void dpi_pipe_scaling(const dp_graph *g, uint32_t u, bool *time_split,
		      bool *out_split);

/* Whether op u's batch is unknown: it has no role and no dims that can
 * say (no dims at all, or dims in a graph without a batch_dim). Such an op
 * cannot be split into micro-batches: nothing says whether its work scales
 * with the batch (dp refuses such a graph too). */
bool dpi_pipe_batch_unknown(const dp_graph *g, uint32_t u);

/* Refuses, as algorithm name, to pipeline g in micro-batches when an op's
 * batch is unknown (dpi_pipe_batch_unknown), naming the first such op;
 * DP_OK when there is none or o asks for one micro-batch (o->microbatches
 * == 1: nothing is split). DP_EINPUT with the message in err. Also
 * dpi_pipe_check_zb_roles. */
dp_status dpi_pipe_check_batch_known(const dp_graph *g, const dp_algo_opts *o,
				     const char *name, dp_err *err);

/* Copy i of M of an amount divided evenly: v / M, and one more for the
 * first v % M copies (so the copies add up to v). */
static inline int64_t dpi_pipe_share(int64_t v, int m, int i)
{
	int64_t q = v / m, r = v % m;
	return q + (i < r ? 1 : 0);
}

/* The op that u (a backward, grad or update op) mirrors, found by name:
 * its name with path components taken off the end ("fc1/grad_w" ->
 * "fc1"), or its first component taken off and then its last ones
 * ("grad/fc1" -> "fc1"), the first of those that names a forward-kind op
 * (for an update: a param op). UINT32_MAX when none does. */
uint32_t dpi_pipe_mirror(const dp_graph *g, uint32_t u);

/* pipe_chunks.c. The forward op each op belongs to, indexed by op: a
 * forward op itself; a backward op the forward op it mirrors
 * (dpi_pipe_mirror), else, when no op of that name exists, the first
 * forward op (topological order) with its `layer` label; UINT32_MAX for
 * the rest. malloc'ed, NULL when out of memory. */
uint32_t *dpi_pipe_owners(const dp_graph *g, const uint8_t *kd);
/* Into t (one per forward op, topological order): its time_us, plus with
 * with_bwd the time of the backward ops it owns (dpi_pipe_owners).
 * DP_ENOMEM. */
dp_status dpi_pipe_cut_times(const dp_graph *g, const uint8_t *kd,
			     bool with_bwd, double *t);
/* The model's numbered layers ("model/h3" of the layer labels of forward
 * ops, runs in topological order): Megatron-LM's transformer layers. */
uint32_t dpi_pipe_layer_count(const dp_graph *g, const uint8_t *kd);
/* The virtual stages a search tries on S stages (nf forward ops), into Vs
 * (room for DP_MAX_VIRTUAL_STAGES + 1); returns how many: o's V when
 * given, else 1 and, under 1F1B, every V > 1 dividing the layers per
 * stage with S V <= nf. */
int dpi_pipe_virtual_choices(const dp_graph *g, const dp_algo_opts *o,
			     dp_schedule sch, int S, uint32_t nf, int *Vs);
/* Moves ops between neighbouring chunks of the cut fs (chunk of each of
 * the n forward ops, times t, non-decreasing 0..C-1; chunk c on device
 * c mod P of speed sp[c mod P]) while that lowers the most loaded
 * device's time: an interleaved pipeline's step is M x that load plus a
 * fill that shrinks with V. Each chunk keeps an op. */
void dpi_pipe_balance_chunks(const double *t, uint32_t n, int C, int P,
			     const double *sp, int32_t *fs);

/* A pipeline strategy of S_want stages (one device each, stage s on device
 * s) for the algorithm called name, in schedule sch: the forward-kind ops
 * (in the graph's topological order) take the stages in given (one per
 * forward op, non-decreasing, 0..S_want-1), or, with given NULL, are cut
 * into min(S_want, their number) runs of balanced forward time; the other
 * ops follow as algo_pipe.c says; M from o (or the default). Checked
 * with dp_strategy_check. algo_pipe.c. */
dp_status dpi_pipe_make(const dp_graph *g, const dp_machine *m,
			const dp_algo_opts *o, const dp_progress *p,
			dp_schedule sch, const char *name, int S_want,
			const int32_t *given, dp_strategy *out, dp_err *err);

/* The schedule a pipeline algorithm whose own is own runs: o's when it
 * names one (dp_algo_opts.schedule), else own (algo_pipe.c). */
dp_schedule dpi_pipe_schedule(const dp_algo_opts *o, dp_schedule own);

/* The default M of a pipeline of S stages on g (algo_pipe.c). */
int dpi_pipe_default_microbatches(const dp_graph *g, int S);

/* The gcd of the batch-dim sizes of g's copied ops (0: none has one):
 * those not of kind DPI_PIPE_ONCE in kd, or when kd is NULL, those neither
 * param nor update. */
int64_t dpi_pipe_batch_gcd(const dp_graph *g, const uint8_t *kd);

/* The largest M <= want with M x D dividing G (any M <= want when G is
 * 0), at least 1; 0 when even M = 1 does not fit (D does not divide G). */
int dpi_pipe_pick_microbatches(int64_t G, int want, int D);

/* Why algorithm name made no pipeline of g for m: -M (o->microbatches)
 * that does not divide the batch, naming the M that do (and, for hybrid
 * and pipedream, that M x D must divide it with D data-parallel groups),
 * else that no pipeline of stages dividing K and micro-batches dividing
 * the batch could be made. Always DP_EINPUT, with the message in err. */
dp_status dpi_pipe_none_made(const dp_graph *g, const dp_machine *m,
			     const dp_algo_opts *o, const char *name,
			     dp_err *err);

/* Makes s, a pipeline of one device per stage (stage s on device s), data
 * parallel over D devices per stage and, with T > 1, tensor parallel over
 * T: stage s on devices sDT .. sDT+DT-1; with T = 1 an spmd mesh [D]
 * splitting the batch of every copied op (lower_pipe3d.c), else a mesh
 * [D, T] with Megatron's layout (internal/megatron.h; lower_pipe_tp.c).
 * DP_ENOMEM. algo_hybrid.c. */
dp_status dpi_pipe_widen(const dp_graph *g, dp_strategy *s, int D, int T,
			 dp_err *err);

/* An analytic step time (µs) of pipeline s on m, its stages D-way data
 * parallel (under an asynchronous schedule its steady step: the busiest
 * stage, stash's updates M times), and in *peak the largest memory of a
 * device (bytes, the extra weight versions included), for
 * ranking candidates before simulating them (pipe_estimate.c; a model, not
 * the simulator). 1e300 and INT64_MAX when out of memory. */
double dpi_pipe_estimate(const dp_graph *g, const dp_machine *m,
			 const dp_strategy *s, int D, int64_t *peak);

/* pipedream's cut (algo_pipedream.c): the forward ops' stages (*fs,
 * malloc'ed, one per forward op in topological order) and their number *S
 * for M micro-batches and D devices per stage, with the program's slowest
 * stage in *cost. DP_EINPUT when nothing fits the caps. */
dp_status dpi_pipedream_cut(const dp_graph *g, const dp_machine *m, int M,
			    int D, int *S, int32_t **fs, double *cost,
			    dp_err *err);

/* pipe_memcut.c: the forward ops' stages (*fs, malloc'ed, one per forward
 * op in topological order) of S stages on devices 0..S-1 of m with M
 * micro-batches under sch, cut for the least largest forward time / speed
 * among the cuts whose every stage's estimated memory (its params and
 * optimizer state + the activations of the micro-batches it keeps) fits
 * its device's cap. DP_EINPUT when no device has a cap or no cut fits;
 * DP_ENOMEM. */
dp_status dpi_pipe_cut_memory(const dp_graph *g, const dp_machine *m, int S,
			      int M, dp_schedule sch, int32_t **fs,
			      dp_err *err);

/* The stage search of gpipe and 1f1b (algo_hybrid.c) for the algorithm
 * called name, in schedule sch: S among the divisors of K, M among powers
 * of two (or o's), cut balanced or by pipedream's program, each candidate
 * simulated; the shortest that fits. */
dp_status dpi_pipe_search(const dp_graph *g, const dp_machine *m,
			  const dp_algo_opts *o, const dp_progress *p,
			  const char *name, dp_schedule sch, dp_strategy *out,
			  dp_err *err);

#endif
