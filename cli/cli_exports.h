/* cli_exports.h - writing exports from the batch commands (plan, export).
 *
 * cli_write_exports() (declared in cli.h) writes what --dot, --svg, --csv,
 * --device-map and --tf-map asked for with the default export options;
 * `dnnpart export` builds its own list of jobs and options and calls
 * cli_run_exports(). Ctrl-C cancels the export in progress (no file is
 * left half-written); progress is shown on stderr when it is a terminal.
 */
#ifndef DNNPART_CLI_EXPORTS_H
#define DNNPART_CLI_EXPORTS_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "dnnpart/export.h"

/* The most files one command exports. */
#define CLI_MAX_EXPORTS 32

/* One file to write and its kind. */
typedef struct cli_export_job {
	const char *path;
	dp_export_kind kind;
} cli_export_job;

/* Writes the jobs in order with options eo (NULL = defaults). For each file
 * written, a line goes to out (NULL = none), or with json one object
 * {"exports":[...]} at the end; notes (coarsening, split layers) go to
 * stderr as "dnnpart: note: ...". Stops at the first failure, printing its
 * error. Returns 0 or the exit code. */
int cli_run_exports(const cli_export_job *jobs, int n, const dp_graph *g,
		    const dp_machine *m, const dp_plan *plan,
		    const dp_export_opts *eo, const cli_out_rule *rule,
		    FILE *out, bool json);

#endif
