/* state_fit.c - what fits (f): the explorer's state keeps the last fit
 * job's answers for one settings generation and says them in words. */
#include "state.h"

#include <stdio.h>

#include "dnnpart/units.h"

void state_fit_done(vstate *st, unsigned gen, int dev, const dp_fit_result *k,
		    const dp_fit_result *cap)
{
	st->fit_valid = true;
	st->fit_gen = gen;
	st->fit_dev = dev;
	st->fit_k_found = k->found;
	st->fit_k = k->found ? k->k : 0;
	st->fit_k_max = 0;
	for (size_t i = 0; i < k->nprobes; i++)
		if (k->probes[i].k > st->fit_k_max)
			st->fit_k_max = k->probes[i].k;
	st->fit_cap_found = cap->found;
	st->fit_cap = cap->found ? cap->caps[dev] : 0;
	st->fit_probes = (int)(k->nprobes + cap->nprobes);
	if (gen != st->gen)
		return;
	char buf[160];
	state_fit_text(st, false, buf, sizeof buf);
	state_status(st, false, "%s (%d reruns)", buf, st->fit_probes);
}

bool state_fit_current(const vstate *st)
{
	return st->fit_valid && st->fit_gen == st->gen;
}

void state_fit_text(const vstate *st, bool shortform, char *buf, int size)
{
	char k[64] = "", c[80], b[32];
	if (!shortform) {
		if (st->fit_k_found)
			snprintf(k, sizeof k, "fits with %d device%s; ",
				 st->fit_k, st->fit_k == 1 ? "" : "s");
		else
			snprintf(k, sizeof k, "no K up to %d fits; ",
				 st->fit_k_max);
	}
	if (st->fit_cap_found)
		snprintf(c, sizeof c, "GPU%d fits with %s", st->fit_dev,
			 dp_units_fmt_bytes(st->fit_cap, b, sizeof b));
	else
		snprintf(c, sizeof c, "no cap of GPU%d fits", st->fit_dev);
	snprintf(buf, (size_t)size, "%s%s", k, c);
}
