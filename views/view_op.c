/* view_op.c - one op: where and when it ran, and each predecessor and
 * successor with its device and what the edge between them cost (the
 * transfer the simulator made for it, or nothing when they share a
 * device). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/units.h"
#include "view_common.h"

/* The transfers that touch op u: its output's, by target device, and
 * those that bring a predecessor's output to u's device. One pass over the
 * plan's transfers per draw, so a draw costs O(transfers), not O(transfers
 * x edges) on large graphs. */
typedef struct op_xfers {
	const dp_transfer **out; /* k entries */
	uint32_t *pred;		 /* sorted, distinct predecessor ids */
	const dp_transfer **in;	 /* aligned with pred */
	uint32_t npred;
} op_xfers;

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void op_xfers_free(op_xfers *x)
{
	free(x->out);
	free(x->pred);
	free(x->in);
}

static bool op_xfers_build(const vstate *st, uint32_t u, op_xfers *x)
{
	const dp_graph *g = state_plan_graph(st);
	const dp_sim_result *s = &st->plan->sim;
	uint32_t lo = g->pred_off[u], hi = g->pred_off[u + 1];
	memset(x, 0, sizeof *x);
	x->out = calloc((size_t)s->k, sizeof *x->out);
	x->pred = malloc((size_t)(hi - lo + 1) * sizeof *x->pred);
	x->in = calloc((size_t)(hi - lo + 1), sizeof *x->in);
	if (!x->out || !x->pred || !x->in) {
		op_xfers_free(x);
		return false;
	}
	for (uint32_t i = lo; i < hi; i++)
		x->pred[i - lo] = g->edges[g->pred_edge[i]].from;
	qsort(x->pred, hi - lo, sizeof *x->pred, u32_cmp);
	for (uint32_t i = 0; i < hi - lo; i++)
		if (x->npred == 0 || x->pred[x->npred - 1] != x->pred[i])
			x->pred[x->npred++] = x->pred[i];
	int dev = st->plan->placement[u];
	for (uint32_t i = 0; i < s->nxfers; i++) {
		const dp_transfer *t = &s->xfers[i];
		if (t->op == u && t->dst >= 0 && t->dst < s->k) {
			x->out[t->dst] = t;
		} else if (t->dst == dev) {
			uint32_t *at = bsearch(&t->op, x->pred, x->npred,
					       sizeof *x->pred, u32_cmp);
			if (at)
				x->in[at - x->pred] = t;
		}
	}
	return true;
}

/* The transfer of predecessor p's output to u's device, or NULL. */
static const dp_transfer *xfer_in(const op_xfers *x, uint32_t p)
{
	uint32_t *at = bsearch(&p, x->pred, x->npred, sizeof *x->pred, u32_cmp);
	return at ? x->in[at - x->pred] : NULL;
}

/* One edge line: the other op, its device, bytes and the cost. */
static void edge_line(const vstate *st, vgrid *g, int x, int y, int w,
		      uint32_t e, bool pred, const dp_transfer *xf)
{
	const dp_plan *p = st->plan;
	const dp_edge *ed = &state_plan_graph(st)->edges[e];
	uint32_t other = pred ? ed->from : ed->to;
	int dev_o = p->placement[other];
	char buf[320], a[32], b[32], c[32];
	int wop = w - 48;
	if (wop < 16)
		wop = 16;
	grid_puts_fit(g, x, y, wop - 1,
		      st->on_cp[other] ? ST_CRITICAL : ST_NORMAL,
		      dp_graph_op_name(state_plan_graph(st), other));
	snprintf(buf, sizeof buf, "GPU%d", dev_o);
	grid_puts_fit(g, x + wop, y, 6, ST_NORMAL, buf);
	grid_puts_fit(g, x + wop + 7, y, 10, ST_NORMAL,
		      ed->control ? "control"
				  : dp_units_fmt_bytes(ed->bytes, a, sizeof a));
	if (dev_o == p->placement[pred ? ed->to : ed->from]) {
		grid_puts(g, x + wop + 18, y, w - wop - 18, ST_DIM,
			  "same device: no transfer");
		return;
	}
	if (ed->control) {
		grid_puts(g, x + wop + 18, y, w - wop - 18, ST_DIM,
			  "control: latency only");
		return;
	}
	if (!xf) {
		grid_puts(g, x + wop + 18, y, w - wop - 18, ST_DIM,
			  "shares a transfer (see the producer)");
		return;
	}
	snprintf(buf, sizeof buf, "transfer %s, %s-%s",
		 dp_units_fmt_time(xf->end - xf->start, a, sizeof a),
		 dp_units_fmt_time(xf->start, b, sizeof b),
		 dp_units_fmt_time(xf->end, c, sizeof c));
	grid_puts(g, x + wop + 18, y, w - wop - 18, ST_BAR_WARN, buf);
}

/* Rows of the header above the edge list: name, timing, sizes, and the
 * colocation line when the op has a group or a pin. */
static int head_rows(const vstate *st, uint32_t v)
{
	const dp_op *op = &state_plan_graph(st)->ops[v];
	uint32_t u = st->plan ? dp_plan_source(st->plan, v) : v;
	bool pinned = u < st->g->nops && st->pins[u] >= 0;
	return op->colocate >= 0 || op->pin >= 0 || pinned ? 4 : 3;
}

/* The edge list of op u: "Predecessors", preds, a blank, "Successors",
 * succs. */
static int edge_lines(const dp_graph *g, uint32_t u)
{
	return (int)(g->pred_off[u + 1] - g->pred_off[u]) +
	       (int)(g->succ_off[u + 1] - g->succ_off[u]) + 3;
}

static void op_list(const vstate *st, vrect r, view_list *l)
{
	uint32_t u = st->op;
	if (u >= state_plan_graph(st)->nops)
		view_list_text(l, 0, r.h, st->op_scroll);
	else
		view_list_text(l, edge_lines(state_plan_graph(st), u),
			       r.h - head_rows(st, u), st->op_scroll);
}

static void op_seek(vstate *st, int row, const view_list *l)
{
	(void)l;
	st->op_scroll = row;
}

unsigned view_open_op(vstate *st, uint32_t u)
{
	st->op = u;
	st->op_scroll = 0;
	return view_show(st, VIEW_OP);
}

static void op_draw(const vstate *st, vgrid *g, vrect r)
{
	const dp_plan *p = st->plan;
	const dp_graph *gr = state_plan_graph(st);
	uint32_t u = st->op;
	if (u >= gr->nops) {
		view_message(g, r, ST_DIM,
			     "no op selected: Enter on a row of Ops or "
			     "Critical path opens one");
		return;
	}
	const dp_op *op = &gr->ops[u];
	char buf[400], a[32], b[32], c[32], d[32];
	int y = r.y;
	snprintf(buf, sizeof buf, "%s  type %s  layer %s",
		 dp_graph_op_name(gr, u),
		 op->type ? dp_graph_str(gr, op->type) : "-",
		 op->layer ? dp_graph_str(gr, op->layer) : "-");
	grid_puts(g, r.x, y++, r.w, ST_HEADER, buf);
	snprintf(
		buf, sizeof buf, "GPU%d  start %s  end %s  duration %s%s",
		p->placement[u],
		dp_units_fmt_time(p->sim.start[u], a, sizeof a),
		dp_units_fmt_time(p->sim.end[u], b, sizeof b),
		dp_units_fmt_time(p->sim.end[u] - p->sim.start[u], c, sizeof c),
		st->on_cp[u] ? "  on the critical path" : "");
	grid_puts(g, r.x, y++, r.w, st->on_cp[u] ? ST_CRITICAL : ST_NORMAL,
		  buf);
	snprintf(buf, sizeof buf,
		 "output %s  params %s  temp %s  inputs ready at %s",
		 dp_units_fmt_bytes(op->output_bytes, a, sizeof a),
		 dp_units_fmt_bytes(op->param_bytes, b, sizeof b),
		 dp_units_fmt_bytes(op->temp_bytes, c, sizeof c),
		 p->sim.avail ? dp_units_fmt_time(p->sim.avail[u], d, sizeof d)
			      : "-");
	grid_puts(g, r.x, y++, r.w, ST_NORMAL, buf);
	if (head_rows(st, u) == 4) {
		/* the pin the next rerun uses (p, P, y change it): the user's
		 * op's, which a strategy's shard inherits */
		uint32_t src = dp_plan_source(p, u);
		int32_t pin = src < st->g->nops ? st->pins[src] : op->pin;
		snprintf(buf, sizeof buf, "colocation group %s  pin %s%s",
			 op->colocate >= 0
				 ? dp_graph_str(gr,
						gr->group_label[op->colocate])
				 : "-",
			 pin >= 0 ? (snprintf(a, sizeof a, "GPU%d", pin), a)
				  : "-",
			 pin != op->pin ? " (from the next rerun)" : "");
		grid_puts(g, r.x, y++, r.w, pin >= 0 ? ST_BAR_WARN : ST_DIM,
			  buf);
	}
	uint32_t np = gr->pred_off[u + 1] - gr->pred_off[u];
	uint32_t ns = gr->succ_off[u + 1] - gr->succ_off[u];
	int total = edge_lines(gr, u);
	view_list l;
	op_list(st, r, &l);
	int first = l.top, rows = r.y + r.h - y;
	op_xfers xf;
	if (!op_xfers_build(st, u, &xf)) {
		grid_puts(g, r.x, y, r.w, ST_ERROR,
			  "out of memory listing the edges");
		return;
	}
	for (int i = 0; i < rows && first + i < total; i++) {
		int li = first + i, yy = y + i;
		if (li == 0) {
			snprintf(buf, sizeof buf, "Predecessors (%u)", np);
			view_table_head(g, r, yy, &(view_col){buf, r.w}, 1);
		} else if (li <= (int)np) {
			uint32_t e = gr->pred_edge[gr->pred_off[u] + li - 1];
			uint32_t from = gr->edges[e].from;
			edge_line(st, g, r.x + 2, yy, r.w - 2, e, true,
				  xfer_in(&xf, from));
		} else if (li == (int)np + 1) {
			continue;
		} else if (li == (int)np + 2) {
			snprintf(buf, sizeof buf, "Successors (%u)", ns);
			view_table_head(g, r, yy, &(view_col){buf, r.w}, 1);
		} else {
			uint32_t e =
				gr->succ_edge[gr->succ_off[u] + li - np - 3];
			uint32_t to = gr->edges[e].to;
			edge_line(st, g, r.x + 2, yy, r.w - 2, e, false,
				  xf.out[p->placement[to]]);
		}
	}
	op_xfers_free(&xf);
	view_scroll_note(g, r, y, first, rows, total);
}

/* a class reads best with its hooks side by side */
/* clang-format off */
const view_class view_op_class = {
	VIEW_CLASS(VIEW_OP, "op", "Op detail", "Op",
		   op_draw, op_list, op_seek),
	.aliases = {"detail", "op-detail"}, .needs_plan = true,
	.stacked = true, .home = VIEW_OPS,
};
/* clang-format on */
