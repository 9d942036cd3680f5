/* settings.c - changes of the session's settings (see settings.h). */
#include "settings.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dnnpart/units.h"
#include "fmt.h"
#include "view.h"

unsigned settings_changed(vstate *st)
{
	state_settings_changed(st);
	st->status[0] = '\0';
	const view_class *c = view_current(st);
	return AR_REDRAW | AR_RERUN | (c->rerun ? c->rerun(st) : 0);
}

int64_t settings_cap_at(int64_t base, int n)
{
	static const double frac[4] = {1, 1.25, 1.5, 1.75};
	int q = n >= 0 ? n / 4 : -((-n + 3) / 4);
	double v = (double)base * ldexp(frac[n - 4 * q], q);
	int64_t r = n == 0 ? base : dp_units_round_bytes(v);
	return r < 1 ? 1 : r;
}

static int64_t device_peak(const vstate *st, int d)
{
	if (st->plan && d < st->plan->sim.k)
		return st->plan->sim.dev[d].peak_bytes;
	return 0;
}

unsigned settings_devices(vstate *st, int delta)
{
	int k = st->m.k + delta;
	if (k < 1) {
		state_status(st, true, "one device is the minimum");
		return AR_REDRAW;
	}
	if (k > DP_MAX_DEVICES) {
		state_status(st, true, "%d devices is the maximum",
			     DP_MAX_DEVICES);
		return AR_REDRAW;
	}
	dp_err err;
	if (dp_machine_resize(&st->m, k, &err) != DP_OK) {
		state_status(st, true, "%s", err.msg);
		return AR_REDRAW;
	}
	unsigned r = settings_changed(st);
	if (st->dev >= k && k < state_ndev(st) && !st->plan)
		st->dev = k - 1;
	state_status(st, false, "K=%d", k);
	return r;
}

/* Step n of the walk in progress: from no cap, the step above the first
 * cap is no cap again, so that m M comes back to it. */
static int64_t step_cap(const vstate *st, int n)
{
	if (st->step_none && n > 0)
		return DP_CAP_UNLIMITED;
	return settings_cap_at(st->step_base, n);
}

unsigned settings_cap_step(vstate *st, bool raise)
{
	int d = st->dev;
	char a[32], b[32];
	if (d >= st->m.k) {
		state_status(st, true, "GPU%d is not in the machine any more",
			     d);
		return AR_REDRAW;
	}
	int64_t old = st->m.cap[d], v;
	bool walking =
		d == st->step_dev && old == st->step_last && st->step_base > 0;
	if (old == DP_CAP_UNLIMITED && raise) {
		state_status(st, true, "GPU%d has no cap to raise", d);
		return AR_REDRAW;
	}
	if (walking) {
		/* on with the walk; a step that the rounding of a tiny cap
		 * swallows goes further */
		int n = st->step_n;
		v = old;
		for (int tries = 0; v == old && tries < 64; tries++) {
			n += raise ? 1 : -1;
			v = step_cap(st, n);
		}
		if (v == old) {
			state_status(st, true, "GPU%d's cap is at its smallest",
				     d);
			return AR_REDRAW;
		}
		st->step_n = n;
	} else if (old == DP_CAP_UNLIMITED) {
		/* from no cap, m starts just under the current peak; M from
		 * there is no cap again */
		int64_t peak = device_peak(st, d);
		if (peak <= 0) {
			state_status(st, true,
				     "GPU%d has no cap and no peak yet: c "
				     "types one",
				     d);
			return AR_REDRAW;
		}
		v = dp_units_round_bytes((double)peak * 0.875);
		st->step_base = v < 1 ? 1 : v;
		st->step_n = 0;
		st->step_none = true;
		v = st->step_base;
	} else if (old <= 0) {
		state_status(st, true, "GPU%d's cap is 0 B: c types one", d);
		return AR_REDRAW;
	} else {
		/* a new walk from a cap set another way */
		st->step_base = old;
		st->step_n = 0;
		st->step_none = false;
		st->step_last = old;
		st->step_dev = d;
		return settings_cap_step(st, raise);
	}
	st->step_dev = d;
	st->step_last = v;
	st->m.cap[d] = v;
	unsigned r = settings_changed(st);
	state_status(st, false, "GPU%d cap %s (was %s)", d,
		     fmt_cap(v, a, sizeof a), fmt_cap(old, b, sizeof b));
	return r;
}

unsigned settings_cap(vstate *st, int d, int64_t bytes)
{
	char a[32];
	if (d < 0 || d >= st->m.k)
		return AR_REDRAW;
	st->m.cap[d] = bytes;
	unsigned r = settings_changed(st);
	state_status(st, false, "GPU%d cap %s", d, fmt_cap(bytes, a, sizeof a));
	return r;
}

/* Applies set(m, text) to a copy of the machine, which replaces it only
 * when set succeeds; false with the status line saying why (what: "caps",
 * "reserve") when not. */
static bool edit_machine(vstate *st, const char *text, const char *what,
			 dp_status (*set)(dp_machine *, const char *, dp_err *))
{
	dp_err err;
	dp_err_clear(&err);
	dp_machine tmp;
	if (dp_machine_copy(&tmp, &st->m, &err) != DP_OK) {
		state_status(st, true, "%s", err.msg);
		return false;
	}
	if (set(&tmp, text, &err) != DP_OK) {
		dp_machine_free(&tmp);
		state_status(st, true, "%s not changed: %s", what, err.msg);
		return false;
	}
	dp_machine_free(&st->m);
	st->m = tmp;
	return true;
}

unsigned settings_caps(vstate *st, const char *text)
{
	dp_err err;
	dp_err_clear(&err);
	/* each entry as --mem reads it, with its messages */
	if (dp_machine_check_caps(text, &err) != DP_OK) {
		state_status(st, true, "caps not changed: %s: %s", text,
			     err.msg);
		return AR_REDRAW;
	}
	if (!edit_machine(st, text, "caps", dp_machine_set_caps))
		return AR_REDRAW;
	unsigned r = settings_changed(st);
	state_status(st, false, "caps set to %s", text);
	return r;
}

unsigned settings_reserve(vstate *st, const char *text)
{
	if (!edit_machine(st, text, "reserve", dp_machine_set_reserve))
		return AR_REDRAW;
	unsigned r = settings_changed(st);
	char b[32];
	state_status(st, false, "reserve %s per device",
		     dp_machine_reserve_text(&st->m, b, sizeof b));
	return r;
}

unsigned settings_bandwidth(vstate *st, bool raise)
{
	double bw = raise ? st->m.bw * 2 : st->m.bw / 2;
	if (!(bw >= 1e-6) || !(bw <= 1e12)) {
		state_status(st, true, "bandwidth out of range");
		return AR_REDRAW;
	}
	st->m.bw = bw;
	/* with the link "file" the bandwidth prices only the edges without a
	 * time of their own: the link stays "file" */
	if (!st->m.link_file)
		snprintf(st->m.link_name, sizeof st->m.link_name, "custom");
	unsigned r = settings_changed(st);
	char a[32];
	state_status(st, false, "bandwidth %s",
		     dp_units_fmt_bandwidth(bw, a, sizeof a));
	return r;
}

unsigned settings_algo(vstate *st, int dir)
{
	size_t n = dp_algo_count(), i = 0;
	while (i < n && dp_algo_at(i) != st->algo)
		i++;
	i = (i + n + (size_t)(dir > 0 ? 1 : n - 1)) % n;
	st->algo = dp_algo_at(i);
	state_algo_changed(st);
	state_status(st, false, "algorithm %s: %s", st->algo->name,
		     st->algo->summary);
	return AR_REDRAW | AR_RERUN;
}

unsigned settings_contention(vstate *st)
{
	st->contention =
		st->contention == DP_CONT_PORT ? DP_CONT_NONE : DP_CONT_PORT;
	unsigned r = settings_changed(st);
	state_status(st, false, "contention %s",
		     dp_sim_contention_name(st->contention));
	return r;
}

/* u / U: halve or double the micro-batches of pipelines, within 1 and
 * the most the step allows (the batch size, when the graph has one: a
 * micro-batch holds at least one sample). Past either end the count goes
 * back to automatic (each pipeline's own choice, as `dnnpart compare`
 * makes it), so that u/U is never a one-way street. */
unsigned settings_microbatches(vstate *st, bool raise)
{
	int64_t batch = dp_graph_batch_size(st->g);
	int most = batch > 0 && batch < DP_MAX_MICROBATCHES
			   ? (int)batch
			   : DP_MAX_MICROBATCHES;
	int mb = st->microbatches;
	if (!mb)
		mb = st->plan && st->plan->strat &&
				     st->plan->kind == DP_STRAT_PIPELINE
			     ? st->plan->strat->pipe.microbatches
			     : 4;
	bool was_auto = st->microbatches == 0;
	mb = raise ? mb * 2 : mb / 2;
	if (mb < 1 || mb > most) {
		if (was_auto) {
			state_status(st, true,
				     "micro-batches stay within 1..%d%s; they "
				     "are automatic now",
				     most,
				     most < DP_MAX_MICROBATCHES
					     ? " (the batch size)"
					     : "");
			return AR_REDRAW;
		}
		st->microbatches = 0;
		unsigned r = settings_changed(st);
		state_status(st, false,
			     "micro-batches automatic again: each pipeline "
			     "picks its own (%s went past %d)",
			     raise ? "U" : "u", raise ? most : 1);
		return r;
	}
	st->microbatches = mb;
	unsigned r = settings_changed(st);
	state_status(st, false,
		     "%d micro-batch%s for pipelines (u/U past 1 or %d: "
		     "automatic again)",
		     mb, mb == 1 ? "" : "es", most);
	return r;
}

unsigned settings_schedule(vstate *st)
{
	const dp_plan *p = st->plan;
	const char *what = !p ? "has no plan yet" : "made a placement";
	if (p && p->kind == DP_STRAT_SPMD)
		what = "made an spmd plan";
	if (!p || p->kind != DP_STRAT_PIPELINE || !p->strat) {
		state_status(st, true,
			     "the schedule is a pipeline's, and %s %s (a picks "
			     "gpipe, 1f1b, pipedream or hybrid)",
			     p ? p->algo : st->algo->name, what);
		return AR_REDRAW;
	}
	int cur =
		st->schedule >= 0 ? st->schedule : (int)p->strat->pipe.schedule;
	/* gpipe -> 1f1b -> zb-h1 -> stash -> 2bw -> gpipe */
	st->schedule = cur == DP_SCHED_LAST ? DP_SCHED_GPIPE : cur + 1;
	unsigned r = settings_changed(st);
	state_status(st, false, "schedule %s for pipelines: %s",
		     dp_schedule_name((dp_schedule)st->schedule),
		     st->schedule == DP_SCHED_GPIPE ? "all forwards, then all "
						      "backwards"
		     : st->schedule == DP_SCHED_1F1B
			     ? "warm-up forwards, then one forward one "
			       "backward"
		     : st->schedule == DP_SCHED_ZBH1
			     ? "1F1B with the weight gradients deferred "
			       "into the bubbles"
		     : st->schedule == DP_SCHED_STASH
			     ? "1F1B without flush, a weight version per "
			       "micro-batch in flight (PipeDream)"
			     : "1F1B without flush, two weight versions "
			       "(PipeDream-2BW)");
	return r;
}

unsigned settings_batch(vstate *st, bool raise)
{
	const dp_graph *g = st->base ? st->base : st->g;
	int64_t b0 = dp_graph_batch_size(g);
	if (b0 <= 0) {
		state_status(st, true,
			     "this graph has no batch dim (batch_dim and dims "
			     "that name it): its batch size cannot change");
		return AR_REDRAW;
	}
	if (st->file_job != PROMPT_NONE) {
		state_status(st, true, "wait for the %s to finish",
			     st->file_job == PROMPT_OPEN ? "open" : "export");
		return AR_REDRAW;
	}
	long long b = st->batch ? st->batch : b0;
	long long nb = raise ? b * 2 : b / 2;
	if (nb < 1 || nb > ((long long)1 << 30)) {
		state_status(st, true, "batch size stays within 1..2^30");
		return AR_REDRAW;
	}
	st->batch = nb;
	state_status(st, false, "batch size %lld (loaded at %lld)", nb,
		     (long long)b0);
	return AR_REDRAW | AR_REBATCH;
}

unsigned settings_lever(vstate *st, bool recompute)
{
	dp_levers lv = st->m.levers;
	if (recompute) {
		/* none, selective, full; auto's choice goes back to none */
		lv.recompute = lv.recompute >= DP_RECOMP_FULL
				       ? DP_RECOMP_NONE
				       : (dp_recompute)(lv.recompute + 1);
		memset(lv.rc_sel, 0, sizeof lv.rc_sel);
		lv.rc_chosen = false;
	} else {
		lv.precision = (dp_precision)((lv.precision + 1) %
					      DP_PREC_COUNT);
		/* a GPU without bf16 (--gpu v100): fp32, fp16 */
		if (lv.no_bf16 && lv.precision == DP_PREC_BF16)
			lv.precision = DP_PREC_FP16;
	}
	st->lv_next = lv;
	return AR_REDRAW | AR_RELEVER;
}
