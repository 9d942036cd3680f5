/* lower_pipe_tp.c - a pipeline whose stages are tensor parallel (the 3D
 * case with T > 1; docs/pipeline.md "Stages on several
 * devices").
 *
 * The split inside the stages is first lowered as an spmd strategy on one
 * group's mesh (lower_spmd*.c: shards, and the reduces and gathers that
 * the block-intersection rule makes), and that graph is then pipelined
 * (lower_pipeline.c) with every op on its stage's group at the position
 * its mesh device has: micro-batch copies, gradient accumulation, and the
 * schedule's order kept per device. So a tensor-parallel all-reduce of
 * activations (the reduces of a forward or backward op's partial sums)
 * happens per micro-batch, inside the stage's group, and the gradient
 * all-reduce across data-parallel replicas (the reduces of a weight
 * gradient's partial sums, which feed only ops that run once) happens once
 * per step on the accumulated gradients, after the flush: each reduce runs
 * once when everything it feeds runs once. Transfers between stages join
 * the devices that hold the blocks the block rule says, as they do inside
 * a stage. Names: "fc1@m2#d5", "fc2/rs@m2#d5", "w/acc@m3#d5".
 */
#include "internal/lower.h"
#include "internal/pipeline.h"

#include <stdlib.h>
#include <string.h>

/* Kinds of the spmd lowering's ops: its shards take their source's; the
 * ops it adds (reduces, gathers, ids from ninst on) run once when all
 * their data consumers do, else as their source. */
static void kinds_of(const dp_lowered *l0, const uint8_t *uk, uint32_t ninst,
		     uint8_t *kind)
{
	const dp_graph *lg = l0->g;
	for (uint32_t x = 0; x < lg->nops; x++)
		kind[x] = uk[l0->source[x]];
	for (uint32_t i = lg->nops; i-- > 0;) {
		uint32_t x = lg->topo[i];
		if (x < ninst || kind[x] == DPI_PIPE_ONCE)
			continue;
		bool once = false, other = false;
		for (uint32_t j = lg->succ_off[x]; j < lg->succ_off[x + 1];
		     j++) {
			const dp_edge *e = &lg->edges[lg->succ_edge[j]];
			if (e->control)
				continue;
			if (kind[e->to] == DPI_PIPE_ONCE)
				once = true;
			else
				other = true;
		}
		if (once && !other)
			kind[x] = DPI_PIPE_ONCE;
	}
}

dp_status dpi_lower_pipeline_tp(const dp_graph *g, const dp_machine *m,
				const dp_strategy *s, const dp_progress *p,
				dp_lowered *out, dp_err *err)
{
	dp_strategy s0;
	dp_strategy_init(&s0);
	s0.kind = DP_STRAT_SPMD;
	s0.nops = s->nops;
	s0.spmd = s->spmd;
	s0.k = dp_spmd_size(&s->spmd);
	dp_lowered l0;
	memset(&l0, 0, sizeof l0);
	dp_status st = dpi_lower_spmd(g, m, &s0, p, &l0, err);
	if (st)
		return st;
	uint32_t ninst = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		ninst += s->spmd.device && s->spmd.device[u] >= 0
				 ? 1
				 : (uint32_t)s0.k;
	uint8_t *uk = dpi_pipe_kinds(g);
	dpi_pipe_src ps = {
		.g = l0.g,
		.source = l0.source,
		.sub = l0.placement,
		.group = s0.k,
		.kind = malloc(l0.g->nops ? l0.g->nops : 1),
	};
	if (!uk || !ps.kind)
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"out of memory while lowering a pipeline");
	if (!st) {
		kinds_of(&l0, uk, ninst, ps.kind);
		st = dpi_lower_pipeline_of(g, s, &ps, p, out, err);
	}
	free(uk);
	free(ps.kind);
	dp_lowered_free(&l0);
	return st;
}
