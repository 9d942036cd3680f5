/* cli_schedule.c - the command line's checks of the asynchronous pipeline
 * schedules (docs/pipeline.md, "Asynchronous pipelines"). */
#include "cli.h"

#include <stdio.h>

/* An asynchronous schedule (stash, 2bw) has no interleaved form, and
 * applies only to a pipeline algorithm when one algorithm is run. */
int cli_check_async(const cli_opts *o, const dp_algo *const *algos, size_t n)
{
	if (o->schedule < 0 || !dp_schedule_is_async((dp_schedule)o->schedule))
		return 0;
	const char *sch = dp_schedule_name((dp_schedule)o->schedule);
	if (o->virtual_stages > 1) {
		fprintf(stderr,
			"dnnpart: --virtual-stages %d: the asynchronous schedule "
			"%s has no interleaved form (PipeDream and "
			"PipeDream-2BW run one stage per device); use "
			"--virtual-stages 1 or --schedule 1f1b\n",
			o->virtual_stages, sch);
		return 2;
	}
	if (n != 1 || algos[0]->takes_schedule)
		return 0;
	fprintf(stderr,
		"dnnpart: --schedule %s: an asynchronous schedule applies to "
		"the pipeline algorithms gpipe, 1f1b, pipedream and hybrid "
		"(--algo), not to %s\n",
		sch, algos[0]->name);
	return 2;
}
