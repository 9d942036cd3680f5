/* strategy.h - ways to split a model beyond op placement (docs/spmd.md,
 * docs/pipeline.md).
 *
 * A strategy says how a training step runs on K devices. Three kinds:
 *
 *   placement  a device per op (what the placement algorithms return);
 *   spmd       a device mesh (e.g. [2,4]) and per op a split: for each dim
 *              of its iteration space, the mesh axes that split it (parts =
 *              product of those axes' sizes); mesh axes that split none of
 *              an op's dims replicate it. Whole ops (no dims) are replicated
 *              on every device of the mesh, placed on one device, or, when
 *              their role is input/forward/backward/grad/loss, split evenly
 *              along the batch by the axes given for their one implicit
 *              dim (a split grad op's parts hold partial sums);
 *   pipeline   a stage per op, M micro-batches, a schedule (dp_schedule),
 *              and per stage a group of devices; with an spmd split inside
 *              every stage (its mesh has the shape of every stage's group:
 *              the 3D case) or none (each stage on one device).
 *
 * A strategy is *lowered* (dp_strategy_lower) to a larger graph and a
 * placement of it, which the one simulator prices unchanged: spmd by exact
 * block intersection (a consumer shard receives from each producer shard
 * the intersection of their blocks; partial sums of a split reduction dim
 * are reduce-scattered first), pipeline by micro-batch copies, gradient
 * accumulation and control edges for the schedule's order. Every lowered op
 * keeps the user's op it came from (dp_lowered.source), so views, critical
 * path and exports can group by it. Lowered names: `name#d3` (the shard or
 * replica of name on device 3), `name@m2` (micro-batch 2), `name/rs#d1` (a
 * reduce of name's partial sums on device 1); combined as `name@m2#d3`.
 *
 * Strategy files: {"format":"dnnpart-strategy","version":1,"kind":...}
 * (docs/formats.md), read with dp_strategy_read() and written with
 * dp_strategy_write() (temporary file + rename).
 */
#ifndef DNNPART_STRATEGY_H
#define DNNPART_STRATEGY_H

#include <stdbool.h>
#include <stdint.h>

#include "algo.h"
#include "err.h"
#include "graph.h"
#include "machine.h"

typedef enum dp_strategy_kind {
	DP_STRAT_PLACEMENT = 0,
	DP_STRAT_SPMD,
	DP_STRAT_PIPELINE
} dp_strategy_kind;

typedef enum dp_schedule {
	DP_SCHED_GPIPE = 0, /* all forwards, then all backwards */
	DP_SCHED_1F1B,	    /* warm-up of S-s-1 forwards, then one F one B */
	DP_SCHED_ZBH1,	    /* zero bubble H1: 1F1B with the backward split
			       into B (input gradients) and W (weight
			       gradients, role grad), W deferred */
	DP_SCHED_STASH,	    /* PipeDream's weight stashing: 1F1B's order,
			       no flush, S - s weight versions on stage s,
			       an update after every micro-batch */
	DP_SCHED_2BW	    /* PipeDream-2BW: 1F1B's order, no flush, two
			       weight versions, one update per M */
} dp_schedule;
#define DP_SCHED_LAST DP_SCHED_2BW

/* Asynchronous schedules (stash, 2bw) have no flush: docs/pipeline.md,
 * "Asynchronous pipelines". */
static inline bool dp_schedule_is_async(dp_schedule s)
{
	return s == DP_SCHED_STASH || s == DP_SCHED_2BW;
}

/* The weight versions stage s of S holds under sch: S - s with stash,
 * 2 with 2bw, 1 otherwise. */
static inline int dp_schedule_versions(dp_schedule sch, int S, int s)
{
	return sch == DP_SCHED_STASH ? S - s : sch == DP_SCHED_2BW ? 2 : 1;
}

/* "placement", "spmd", "pipeline"; "gpipe", "1f1b", "zb-h1", "stash",
 * "2bw". */
const char *dp_strategy_kind_name(dp_strategy_kind k);
const char *dp_schedule_name(dp_schedule s);
/* A schedule's name (dp_schedule_name) into *out; else DP_EINPUT "unknown
 * schedule 'X' (known: gpipe, 1f1b, zb-h1, stash, 2bw)" (*out untouched). */
dp_status dp_schedule_parse(const char *text, dp_schedule *out, dp_err *err);

#define DP_MAX_MESH_AXES 4
#define DP_MAX_MICROBATCHES 4096
#define DP_MAX_VIRTUAL_STAGES 64

/* An spmd split of every op over a device mesh. */
typedef struct dp_spmd {
	int naxes;		    /* 0 = no split (pipeline without one) */
	int mesh[DP_MAX_MESH_AXES]; /* axis sizes, each >= 1 */
	/* per op and dim: a bit mask of the mesh axes that split dim i of op
	 * u, at axes[(size_t)u * DP_MAX_OP_DIMS + i]; 0 = not split. For an
	 * op without dims, entry 0 is its implicit batch dim. NULL = every
	 * op replicated. */
	uint8_t *axes;
	/* per op: -1 = on every device of the mesh (split or replicated),
	 * else the one mesh device (0..size-1) that runs the whole op. NULL =
	 * all -1. */
	int32_t *device;
} dp_spmd;

/* A pipeline of stages over groups of devices. */
typedef struct dp_pipeline {
	int nstages;	  /* S >= 1 */
	int32_t *stage;	  /* per op: its stage, 0..S-1 */
	int microbatches; /* M, 1..DP_MAX_MICROBATCHES */
	dp_schedule schedule;
	/* V > 1: interleaved 1F1B (Megatron-LM's virtual pipeline): the
	 * nstages stages are chunks of the model, chunk c on the group of
	 * chunk c mod (nstages / V), so each group holds V non-adjacent
	 * chunks; 0 or 1: none */
	int virtual_stages;
	/* stage s runs on devices group[group_off[s] .. group_off[s+1]);
	 * each group has the size of the inner spmd mesh (1 without one) */
	int32_t *group_off; /* S + 1 */
	int32_t *group;
} dp_pipeline;

typedef struct dp_strategy {
	dp_strategy_kind kind;
	int k;		    /* devices it uses: 0..k-1 */
	uint32_t nops;	    /* ops of the graph it was made for */
	char label[64];	    /* for people: "placement", "spmd 2x4",
			    "1f1b S=4 M=16", "dp 8", ... */
	char algo[32];	    /* the algorithm that made it, "" if none */
	/* what pins did to it, for people ("" when nothing to say): a pipeline
	 * whose pins leave stages without a forward op names the pin and why
	 * (not saved in strategy files) */
	char note[256];
	int32_t *placement; /* DP_STRAT_PLACEMENT: nops devices */
	dp_spmd spmd;	    /* DP_STRAT_SPMD, or the split inside every
			       stage of a DP_STRAT_PIPELINE */
	dp_pipeline pipe;   /* DP_STRAT_PIPELINE */
	/* gradient buckets (docs/spmd.md, "Gradient buckets"): the weight
	 * gradients' all-reduces and reduce-scatters are grouped, in the
	 * order the gradients become ready, into buckets of at least this many
	 * bytes, one collective each, as PyTorch DDP does; 0 = one collective
	 * per gradient. dp_strategy_init: DP_BUCKET_DEFAULT */
	int64_t bucket;
	/* the ZeRO stage of an spmd strategy (zero): 1 optimizer state
	 * sharded, 2 gradients too, 3 weights too (FSDP's full shard); 0 =
	 * none (plain data parallelism keeps whole gradients) */
	int zero_stage;
	/* Megatron-LM's sequence parallelism (--sp): the ops its tensor
	 * parallelism replicates are split along the sequence; recorded so
	 * that the Megatron-LM export writes --sequence-parallel */
	bool sp;
} dp_strategy;

/* An empty strategy (kind placement, nothing allocated, buckets of
 * DP_BUCKET_DEFAULT, no ZeRO stage). */
void dp_strategy_init(dp_strategy *s);
void dp_strategy_free(dp_strategy *s);

/* A deep copy of src into *dst (dst is overwritten, not freed first).
 * DP_ENOMEM. */
dp_status dp_strategy_copy(dp_strategy *dst, const dp_strategy *src,
			   dp_err *err);

/* Allocates the arrays a strategy of kind needs for g (zeroed: no split,
 * stage 0, placement 0; device -1) and sets kind, nops. For spmd,
 * naxes/mesh are set by the caller afterwards; for a pipeline, nstages
 * must be given so group_off can be sized (groups of one device each, s).
 * Errors: DP_ENOMEM. */
dp_status dp_strategy_alloc(dp_strategy *s, dp_strategy_kind kind,
			    const dp_graph *g, int nstages, dp_err *err);

/* Number of devices of an spmd mesh (product of its axes; 1 for none). */
int dp_spmd_size(const dp_spmd *sp);

/* Parts of dim i of op u under sp: the product of the sizes of the axes
 * that split it (1 when not split). */
int dp_spmd_parts(const dp_spmd *sp, uint32_t u, uint32_t i);

/* Checks a strategy against its graph and machine: sizes agree, devices in
 * 0..m->k-1, every split's parts divide the dim, a dim split only by axes
 * no other dim of the op uses, whole ops split only along the batch when
 * their role allows it, pins honoured (a pinned op is placed whole on its
 * pin, or its stage runs on its pin), stages that respect dependencies
 * (forward data goes to the same or a later stage, backward data to the
 * same or an earlier one: docs/pipeline.md), M >= 1 and dividing the batch
 * of every micro-batched op, groups of the mesh's size without a device in
 * two stages. DP_EINPUT with a message naming the op, the dim and what was
 * expected. */
dp_status dp_strategy_check(const dp_graph *g, const dp_machine *m,
			    const dp_strategy *s, dp_err *err);

/* Whether data parallelism applies to g at all, whatever K: the graph has
 * a batch_dim, or no op has dims and every op has a role, with a grad or
 * update op wherever there are weights (so that the gradients' all-reduce
 * can be priced). dp and zero follow this rule, and so do the data
 * parallel stages (D > 1) of hybrid and pipedream. DP_OK, or DP_EINPUT
 * with a message that starts with name and says what is missing. */
dp_status dp_strategy_check_data_parallel(const dp_graph *g, const char *name,
					  dp_err *err);

/* The strategy in a lowered form for the simulator. */
typedef struct dp_lowered {
	dp_graph *g;	    /* the lowered graph, finalized; owned */
	int32_t *placement; /* lowered op -> device */
	uint32_t *source;   /* lowered op -> the user's op it came from
			       (a reduce: the op whose partial sums it sums) */
	int32_t *micro;	    /* lowered op -> micro-batch, -1 when none */
} dp_lowered;

/* Lowers s on g for machine m (s must pass dp_strategy_check). A
 * placement lowers to a copy of g with that placement. Progress and cancel
 * through p (may be NULL). On success *out owns its arrays (free with
 * dp_lowered_free); on failure *out is untouched. Deterministic. */
dp_status dp_strategy_lower(const dp_graph *g, const dp_machine *m,
			    const dp_strategy *s, const dp_progress *p,
			    dp_lowered *out, dp_err *err);
void dp_lowered_free(dp_lowered *l);

/* Strategy files. Reading validates against g (names must be ops of g)
 * and, when m is not NULL, m (dp_strategy_check; with m NULL the lowering
 * checks it later), and names the file, line and column of a fault. Writing goes through a temporary file and a rename; it refuses to
 * replace an existing file unless overwrite is true. */
dp_status dp_strategy_read(const char *path, const dp_graph *g,
			   const dp_machine *m, dp_strategy *s, dp_err *err);
dp_status dp_strategy_write(const char *path, const dp_graph *g,
			    const dp_strategy *s, bool overwrite, dp_err *err);
/* True when path is a strategy file: JSON whose "format" (among the keys
 * of its first 64 KiB) is "dnnpart-strategy". For front ends that take a
 * placement or a strategy in one argument (eval GRAPH FILE). */
bool dp_strategy_is_file(const char *path);

#endif
