/* view_why.c - why the plan takes what it takes (the engine's explain.h):
 * what bounds the step with its share of the makespan, what holds the
 * selected device's peak at its peak moment, and the changes that would
 * fit or speed it up, from the reruns the explorer already makes (the
 * Compare table's strategies, what `f` found). `dnnpart plan --explain`
 * prints the same and reruns the changes itself. */
#include <stdio.h>
#include <stdlib.h>

#include "dnnpart/explain.h"
#include "dnnpart/units.h"
#include "view_common.h"

static const dp_explain_bound shown[] = {DP_XB_COMPUTE, DP_XB_COMM,
					 DP_XB_DEVICE, DP_XB_BUBBLE,
					 DP_XB_WORK};

static const char *const what[] = {
	"compute of the ops on the critical path",
	"transfers the critical path waits for",
	"the critical path waiting for a busy device",
	"pipeline bubble: the share its devices wait",
	"work of the busiest device",
};

/* The Compare table helps when it was made for these settings. */
static bool compare_current(const vstate *st)
{
	return st->cmp_valid && st->cmp_gen == st->gen;
}

static unsigned why_show(vstate *st)
{
	if (st->cmp_valid || st->comparing)
		return 0;
	state_compare_reset(st);
	st->cmp_valid = true;
	return AR_COMPARE;
}

static unsigned why_rerun(vstate *st)
{
	state_compare_reset(st);
	st->cmp_valid = true;
	return AR_COMPARE;
}

/* Rows: the device list (Up/Down pick the device whose peak is shown). */
static void why_list(const vstate *st, vrect r, view_list *l)
{
	view_list_devices(st, r.h > 0 ? r.h : 1, l);
}

/* The rows of the Compare table that would help this plan: they fit
 * where it does not, or fit and are faster by more than 0.1 %. */
static int draw_changes(const vstate *st, const dp_plan *p, vgrid *g, vrect r,
			int y)
{
	char buf[300], a[32];
	int n = 0;
	/* the rows that help, fastest first */
	int idx[64], m = 0;
	for (int i = 0; compare_current(st) && i < st->ncmp && m < 64; i++) {
		const cmp_row *c = &st->cmp[i];
		if (c->status != CMP_DONE || !c->feasible ||
		    c->algo == st->algo ||
		    (p->feasible && !(c->makespan < p->sim.makespan * 0.999)))
			continue;
		int j = m++;
		for (; j > 0 && st->cmp[idx[j - 1]].makespan > c->makespan; j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	for (int k = 0; k < m && y < r.y + r.h; k++) {
		const cmp_row *c = &st->cmp[idx[k]];
		snprintf(buf, sizeof buf, "  + algo %-10s %10s  %5.2fx  fits  %s",
			 c->algo->name,
			 dp_units_fmt_time(c->makespan, a, sizeof a),
			 c->makespan > 0 ? p->sim.makespan / c->makespan : 0,
			 c->has_plan ? c->plan.strategy : "");
		grid_puts(g, r.x, y++, r.w, ST_OK, buf);
		n++;
	}
	if (state_fit_current(st) && y < r.y + r.h) {
		state_fit_text(st, false, buf, sizeof buf);
		grid_printf(g, r.x, y++, r.w, ST_NORMAL, "  f: %s", buf);
		n++;
	}
	if (y < r.y + r.h && st->comparing)
		grid_puts(g, r.x, y++, r.w, ST_DIM,
			  "  comparing every strategy on these settings...");
	else if (y < r.y + r.h && !n)
		grid_puts(g, r.x, y++, r.w, ST_DIM,
			  compare_current(st)
				  ? "  no other algorithm fits and is faster; "
				    "f finds the K and cap that fit"
				  : "  r reruns every strategy (the Compare "
				    "table); f finds the K and cap that fit");
	return y;
}

static void why_draw(const vstate *st, vgrid *g, vrect r)
{
	const dp_plan *p = st->plan;
	char buf[300], a[32], b[32];
	dp_explain x;
	dp_err err;
	dp_explain_opts eo = {.top = r.h > 24 ? 8 : 4};
	if (dp_explain_plan(st->g, &st->m, NULL, NULL, p, &eo, NULL, &x,
			    &err) != DP_OK) {
		view_message(g, r, ST_ERROR, err.msg);
		return;
	}
	int y = r.y;
	snprintf(buf, sizeof buf, "What bounds the step (%s)",
		 dp_units_fmt_time(x.makespan, a, sizeof a));
	grid_puts(g, r.x, y++, r.w, ST_HEADER, buf);
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
		const dp_explain_share *s = &x.share[shown[i]];
		if (s->us < 0 || y >= r.y + r.h)
			continue;
		snprintf(buf, sizeof buf, "%c %-13s %10s %5.1f%%  %s%s",
			 shown[i] == x.bound ? '*' : ' ',
			 dp_explain_bound_name(shown[i]),
			 dp_units_fmt_time(s->us, a, sizeof a), 100 * s->share,
			 what[i], shown[i] == DP_XB_WORK ? " (GPU" : "");
		int w = grid_puts(g, r.x, y, r.w,
				  shown[i] == x.bound ? ST_CRITICAL : ST_NORMAL,
				  buf);
		if (shown[i] == DP_XB_WORK)
			grid_printf(g, r.x + w, y, r.w - w, ST_NORMAL, "%d)",
				    x.busiest);
		y++;
	}
	int d = st->dev < x.k ? st->dev : x.k - 1;
	const dp_explain_device *e = &x.dev[d > 0 ? d : 0];
	if (y + 1 < r.y + r.h) {
		y++;
		snprintf(buf, sizeof buf,
			 "What holds GPU%d's peak (Up/Down: another device): "
			 "%s at %s, %d of %u tensors shown",
			 d, dp_units_fmt_bytes(e->peak_bytes, a, sizeof a),
			 dp_units_fmt_time(e->peak_time, b, sizeof b), e->ntop,
			 e->nlive);
		grid_puts(g, r.x, y++, r.w, ST_HEADER, buf);
	}
	/* by role, then the largest tensors */
	int n = 0;
	for (int i = 0; i < DP_MEMR_COUNT; i++)
		if (e->by_role[i])
			n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%s %s",
				      n ? ", " : "  ",
				      dp_mem_role_name((dp_mem_role)i),
				      dp_units_fmt_bytes(e->by_role[i], a,
							 sizeof a));
	if (n && y < r.y + r.h)
		grid_puts(g, r.x, y++, r.w, ST_DIM, buf);
	const dp_graph *pg = dp_plan_graph(p, st->g);
	for (int i = 0; i < e->ntop && y < r.y + r.h - 2; i++) {
		const dp_explain_tensor *t = &e->top[i];
		snprintf(buf, sizeof buf, "  %10s  %-11s %-6s  %s",
			 dp_units_fmt_bytes(t->bytes, a, sizeof a),
			 dp_mem_role_name(t->role),
			 dp_sim_mem_kind_name(t->kind),
			 dp_graph_op_name(pg, t->op));
		grid_puts(g, r.x, y++, r.w, ST_NORMAL, buf);
	}
	dp_explain_free(&x);
	if (y + 1 < r.y + r.h) {
		y++;
		grid_puts(g, r.x, y++, r.w, ST_HEADER,
			  "What would help (reruns: Compare, f; `plan "
			  "--explain` has them all)");
		draw_changes(st, p, g, r, y);
	}
}

/* a class reads best with its hooks side by side */
/* clang-format off */
const view_class view_why_class = {
	VIEW_CLASS(VIEW_WHY, "why", "Why", "Why", why_draw, why_list,
		   view_seek_device),
	.needs_plan = true, .show = why_show, .rerun = why_rerun,
};
/* clang-format on */
