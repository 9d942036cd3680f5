/* algo_mtopo.c - Baechi's m-TOPO: fill devices in topological order.
 *
 * After Jeon et al., "Baechi: fast device placement of machine learning
 * graphs", SoCC 2020 (the m-TOPO placer, with its uniform memory limit and
 * colocation rule). Devices are filled one after the other, walking the
 * graph's topological order; device d takes ops until the next one would push
 * it past its budget
 *
 *     budget(d) = min(cap(d), total memory / K + largest op memory)
 *
 * where an op's memory is param + output + temp bytes (Baechi's "op memory";
 * its liveness is ignored, which is what makes m-TOPO cheap and pessimistic).
 * The "+ largest op" slack (Baechi's _calculate_max_memory_per_device) keeps
 * the last device from receiving everything the earlier ones rounded away.
 *
 * Differences from the Python reference, all so that it always returns a
 * placement (the plan layer reports infeasibility with numbers):
 * - a colocation group is placed as a unit when its first member is met in
 *   topological order; its memory is the sum of its members';
 * - pinned ops (and their groups) go to the pin and count against it;
 * - a unit that does not fit an empty device is placed there anyway (moving
 *   on cannot make it fit a device of the same budget, and skipping devices
 *   would leave them idle);
 * - when the last device is full it keeps filling it (the reference raises).
 */
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "internal/algo_int.h"

/* How often (in ops) progress is reported and the cancel flag polled. */
#define MTOPO_POLL 65536u

static int64_t op_memory(const dp_op *op)
{
	return op->param_bytes + op->output_bytes + op->temp_bytes;
}

static int64_t group_memory(const dp_graph *g, uint32_t grp)
{
	int64_t sum = 0;
	for (uint32_t i = g->group_off[grp]; i < g->group_off[grp + 1]; i++)
		sum += op_memory(&g->ops[g->group_ops[i]]);
	return sum;
}

static dp_status mtopo_run(const dp_graph *g, const dp_machine *m,
			   const dp_algo_opts *o, const dp_progress *p,
			   int32_t *placement, dp_err *err)
{
	(void)o;
	uint32_t n = g->nops;
	int k = m->k;
	int64_t *used = calloc((size_t)k, sizeof *used);
	int64_t *budget = malloc((size_t)k * sizeof *budget);
	if (!used || !budget) {
		free(used);
		free(budget);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory in mtopo (%d devices)", k);
	}

	int64_t total = 0, largest = 0;
	for (uint32_t u = 0; u < n; u++) {
		int64_t mem = op_memory(&g->ops[u]);
		total += mem;
		if (mem > largest)
			largest = mem;
	}
	int64_t share = total / k + largest;
	for (int d = 0; d < k; d++)
		budget[d] = m->cap[d] < share ? m->cap[d] : share;

	for (uint32_t u = 0; u < n; u++)
		placement[u] = -1;

	/* Pinned units first: they are fixed, and the devices they land on
	 * have that much less room for the fill below. */
	for (uint32_t u = 0; u < n; u++) {
		if (placement[u] >= 0)
			continue;
		int32_t grp = g->ops[u].colocate;
		int32_t pin = grp >= 0 ? dpi_algo_group_pin(g, (uint32_t)grp)
				       : g->ops[u].pin;
		if (pin < 0)
			continue;
		used[pin] += grp >= 0 ? group_memory(g, (uint32_t)grp)
				      : op_memory(&g->ops[u]);
		dpi_algo_unit_set(g, placement, u, pin);
	}

	int d = 0;
	for (uint32_t i = 0; i < n; i++) {
		dp_status st;
		if (i % MTOPO_POLL == 0 &&
		    (st = dpi_poll(p, "mtopo", "mtopo: filling devices",
					(double)i / (double)n, err))) {
			free(used);
			free(budget);
			return st;
		}
		uint32_t u = g->topo[i];
		if (placement[u] >= 0)
			continue; /* pinned, or placed with its group */
		int32_t grp = g->ops[u].colocate;
		int64_t mem = grp >= 0 ? group_memory(g, (uint32_t)grp)
				       : op_memory(&g->ops[u]);
		while (d < k - 1 && used[d] > 0 && used[d] + mem > budget[d])
			d++;
		used[d] += mem;
		dpi_algo_unit_set(g, placement, u, d);
	}
	dp_progress_report(p, "mtopo: done", 1.0);
	free(used);
	free(budget);
	return DP_OK;
}

DPI_ALGO_DEFINE(mtopo,
		"fill devices in topological order up to total/K + "
		"largest op (Baechi m-TOPO)",
		"Jeon et al., Baechi, SoCC 2020", mtopo_run);
