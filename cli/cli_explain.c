/* cli_explain.c - `plan --explain`: the engine's explanation of a plan
 * (explain.h) as text after the report, and as the "explain" object of
 * --json. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "dnnpart/explain.h"
#include "dnnpart/units.h"

static const dp_explain_bound shown[] = {
	DP_XB_COMPUTE, DP_XB_COMM, DP_XB_DEVICE,
	DP_XB_BUBBLE,  DP_XB_WORK, DP_XB_MEMORY,
};

/* What each share is of, for people (by dp_explain_bound). */
static const char *const bound_text[DP_XB_COUNT] = {
	"compute of the ops on the critical path",
	"transfers the critical path waits for",
	"the critical path waiting for a busy device",
	"pipeline bubble: the share its devices wait",
	"work of the busiest device",
	"what the caps cost: the makespan over the same algorithm without "
	"caps",
};

/* The JSON keys of the shares: the names, one word each. */
static const char *const json_key[DP_XB_COUNT] = {
	"compute", "communication", "device_waits",
	"bubble",  "work",	    "memory"};

static const char *kind_name(dp_mem_kind k)
{
	return dp_sim_mem_kind_name(k);
}

void cli_print_explain(FILE *out, const dp_graph *g, const dp_plan *plan,
		       const dp_explain *x)
{
	char a[32], b[32], c[32];
	const dp_graph *pg = dp_plan_graph(plan, g);
	fprintf(out, "\nwhy: what bounds the step (%s; the first three add up "
		     "to it)\n",
		dp_units_fmt_time(x->makespan, a, sizeof a));
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
		dp_explain_bound bd = shown[i];
		const dp_explain_share *s = &x->share[bd];
		if (s->us < 0)
			continue;
		fprintf(out, "  %c %-13s %10s  %5.1f%%  %s", bd == x->bound ? '*' : ' ',
			dp_explain_bound_name(bd),
			dp_units_fmt_time(s->us, a, sizeof a), 100 * s->share,
			bound_text[bd]);
		if (bd == DP_XB_WORK)
			fprintf(out, " (GPU%d)", x->busiest);
		fputc('\n', out);
	}
	fprintf(out, "\nwhy: what holds each device's peak (largest live "
		     "tensors at the peak)\n");
	for (int d = 0; d < x->k; d++) {
		const dp_explain_device *e = &x->dev[d];
		fprintf(out, "  GPU%d peak %s at %s", d,
			dp_units_fmt_bytes(e->peak_bytes, a, sizeof a),
			dp_units_fmt_time(e->peak_time, b, sizeof b));
		if (e->cap_bytes != DP_CAP_UNLIMITED)
			fprintf(out, ", cap %s",
				dp_units_fmt_bytes(e->cap_bytes, c, sizeof c));
		fprintf(out, "; the %d largest of %u hold %s\n", e->ntop,
			e->nlive,
			dp_units_fmt_bytes(e->top_bytes, a, sizeof a));
		for (int i = 0; i < e->ntop; i++) {
			const dp_explain_tensor *t = &e->top[i];
			fprintf(out, "    %10s  %-11s %-6s  %s\n",
				dp_units_fmt_bytes(t->bytes, a, sizeof a),
				dp_mem_role_name(t->role), kind_name(t->kind),
				dp_graph_op_name(pg, t->op));
		}
	}
	if (!x->nchanges)
		return;
	fprintf(out, "\nwhy: changes, each a rerun (+: it fits where this "
		     "does not, or it is faster and fits)\n");
	for (int i = 0; i < x->nchanges; i++) {
		const dp_explain_change *ch = &x->changes[i];
		fprintf(out, "  %c %-34s ", ch->helps ? '+' : ' ', ch->what);
		if (ch->status) {
			fprintf(out, "failed: %s\n", ch->err);
			continue;
		}
		fprintf(out, "%10s  %5.2fx  ",
			dp_units_fmt_time(ch->makespan, a, sizeof a),
			ch->makespan > 0 ? x->makespan / ch->makespan : 0);
		if (ch->feasible)
			fprintf(out, "fits");
		else
			fprintf(out, "GPU%d over by %s", ch->worst,
				dp_units_fmt_bytes(ch->over_bytes, a,
						   sizeof a));
		if (ch->label[0])
			fprintf(out, "  %s", ch->label);
		fputc('\n', out);
	}
}

void cli_json_explain(dp_json *w, const dp_graph *g, const dp_plan *plan,
		      const dp_explain *x)
{
	const dp_graph *pg = dp_plan_graph(plan, g);
	dp_json_begin_object(w, "explain");
	dp_json_str(w, "bound", json_key[x->bound]);
	dp_json_begin_object(w, "shares");
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
		const dp_explain_share *s = &x->share[shown[i]];
		if (s->us < 0) {
			dp_json_null(w, json_key[shown[i]]);
			continue;
		}
		dp_json_begin_line(w, json_key[shown[i]]);
		dp_json_num(w, "us", s->us);
		dp_json_num(w, "share", s->share);
		dp_json_end_object(w);
	}
	dp_json_end_object(w);
	dp_json_int(w, "busiest_device", x->busiest);
	dp_json_begin_array(w, "devices");
	for (int d = 0; d < x->k; d++) {
		const dp_explain_device *e = &x->dev[d];
		/* the peak and what holds it: top_bytes of the live_tensors
		 * are in top */
		const struct {
			const char *key;
			int64_t v;
		} ints[] = {{"index", d},
			    {"peak_bytes", e->peak_bytes},
			    {"live_tensors", e->nlive},
			    {"top_bytes", e->top_bytes}};
		dp_json_begin_object(w, NULL);
		for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
			dp_json_int(w, ints[i].key, ints[i].v);
		dp_json_num(w, "peak_time_us", e->peak_time);
		cli_json_cap(w, "cap_bytes", e->cap_bytes);
		dp_json_begin_array(w, "top");
		for (int i = 0; i < e->ntop; i++) {
			const dp_explain_tensor *t = &e->top[i];
			dp_json_begin_line(w, NULL);
			dp_json_str(w, "op", dp_graph_op_name(pg, t->op));
			dp_json_str(w, "kind", kind_name(t->kind));
			dp_json_str(w, "role", dp_mem_role_name(t->role));
			dp_json_int(w, "bytes", t->bytes);
			dp_json_end_object(w);
		}
		dp_json_end_array(w);
		dp_json_end_object(w);
	}
	dp_json_end_array(w);
	dp_json_begin_array(w, "changes");
	static const char *const kinds[] = {"devices", "caps", "strategy"};
	for (int i = 0; i < x->nchanges; i++) {
		const dp_explain_change *ch = &x->changes[i];
		dp_json_begin_line(w, NULL);
		dp_json_str(w, "kind", kinds[ch->kind]);
		dp_json_str(w, "change", ch->what);
		dp_json_str(w, "algorithm", ch->algo);
		if (ch->status) {
			dp_json_str(w, "error", ch->err);
		} else {
			dp_json_num(w, "makespan_us", ch->makespan);
			dp_json_bool(w, "feasible", ch->feasible);
			if (ch->label[0])
				dp_json_str(w, "strategy", ch->label);
			dp_json_bool(w, "helps", ch->helps);
		}
		dp_json_end_object(w);
	}
	dp_json_end_array(w);
	dp_json_end_object(w);
}
