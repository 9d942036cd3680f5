/* fit_int.h - the search of fit.c with another probe (the lever search of
 * fit_levers.c runs its combinations in each probe of K). */
#ifndef DNNPART_FIT_INT_H
#define DNNPART_FIT_INT_H

#include "dnnpart/fit.h"

/* One probe on machine m: fills pr (k, makespan, feasible, worst, over,
 * strategy; the caller sets cap); p carries the cancel flag only. */
typedef dp_status (*dpi_fit_prober)(void *ctx, const dp_machine *m,
				    const dp_progress *p, dp_fit_probe *pr,
				    dp_err *err);

/* The probe of dp_fit_run: one dp_plan_run of algo on g and m. */
dp_status dpi_fit_rerun(const dp_graph *g, const dp_machine *m,
			const dp_algo *algo, const dp_algo_opts *ao,
			const dp_progress *p, dp_fit_probe *pr, dp_err *err);

/* dp_fit_run with run (NULL: dpi_fit_rerun) as each probe; algo and ao
 * still set the K step (an algorithm's --tp). */
dp_status dpi_fit_search(const dp_graph *g, const dp_machine *m,
			 const dp_algo *algo, const dp_algo_opts *ao,
			 const dp_fit_opts *fo, const dp_progress *p,
			 dpi_fit_prober run, void *run_ctx, dp_fit_result *r,
			 dp_err *err);

#endif
