/* view_op.c - one op: where and when it ran, and each predecessor and
 * successor with its device and what the edge between them cost (the
 * transfer the simulator made for it, or nothing when they share a
 * device). */
#include <stdio.h>
#include <stdlib.h>

#include "units.h"
#include "views.h"

/* The transfer of producer u's output to device dst, or NULL. */
static const dp_transfer *find_xfer(const dp_sim_result *s, uint32_t u, int dst)
{
	for (uint32_t i = 0; i < s->nxfers; i++)
		if (s->xfers[i].op == u && s->xfers[i].dst == dst)
			return &s->xfers[i];
	return NULL;
}

/* One edge line: the other op, its device, bytes and the cost. */
static void edge_line(const vstate *st, vgrid *g, int x, int y, int w,
		      uint32_t e, bool pred, const dp_transfer *xf)
{
	const dp_plan *p = st->plan;
	const dp_edge *ed = &st->g->edges[e];
	uint32_t other = pred ? ed->from : ed->to;
	int dev_o = p->placement[other];
	char buf[320], a[32], b[32], c[32];
	int wop = w - 48;
	if (wop < 16)
		wop = 16;
	grid_puts_fit(g, x, y, wop - 1,
		      st->on_cp[other] ? ST_CRITICAL : ST_NORMAL,
		      graph_op_name(st->g, other));
	snprintf(buf, sizeof buf, "GPU%d", dev_o);
	grid_puts_fit(g, x + wop, y, 6, ST_NORMAL, buf);
	grid_puts_fit(g, x + wop + 7, y, 10, ST_NORMAL,
		      ed->control ? "control"
				  : units_fmt_bytes(ed->bytes, a, sizeof a));
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
		 units_fmt_time(xf->end - xf->start, a, sizeof a),
		 units_fmt_time(xf->start, b, sizeof b),
		 units_fmt_time(xf->end, c, sizeof c));
	grid_puts(g, x + wop + 18, y, w - wop - 18, ST_BAR_WARN, buf);
}

void view_op_draw(const vstate *st, vgrid *g, vrect r)
{
	const dp_plan *p = st->plan;
	const dp_graph *gr = st->g;
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
	snprintf(buf, sizeof buf, "%s  type %s  layer %s", graph_op_name(gr, u),
		 op->type ? graph_str(gr, op->type) : "-",
		 op->layer ? graph_str(gr, op->layer) : "-");
	grid_puts(g, r.x, y++, r.w, ST_HEADER, buf);
	snprintf(buf, sizeof buf, "GPU%d  start %s  end %s  duration %s%s",
		 p->placement[u], units_fmt_time(p->sim.start[u], a, sizeof a),
		 units_fmt_time(p->sim.end[u], b, sizeof b),
		 units_fmt_time(p->sim.end[u] - p->sim.start[u], c, sizeof c),
		 st->on_cp[u] ? "  on the critical path" : "");
	grid_puts(g, r.x, y++, r.w, st->on_cp[u] ? ST_CRITICAL : ST_NORMAL,
		  buf);
	snprintf(buf, sizeof buf,
		 "output %s  params %s  temp %s  inputs ready at %s",
		 units_fmt_bytes(op->output_bytes, a, sizeof a),
		 units_fmt_bytes(op->param_bytes, b, sizeof b),
		 units_fmt_bytes(op->temp_bytes, c, sizeof c),
		 p->sim.avail ? units_fmt_time(p->sim.avail[u], d, sizeof d)
			      : "-");
	grid_puts(g, r.x, y++, r.w, ST_NORMAL, buf);
	if (op->colocate >= 0 || op->pin >= 0) {
		snprintf(buf, sizeof buf, "colocation group %s  pin %s",
			 op->colocate >= 0
				 ? graph_str(gr, gr->group_label[op->colocate])
				 : "-",
			 op->pin >= 0
				 ? (snprintf(a, sizeof a, "GPU%d", op->pin), a)
				 : "-");
		grid_puts(g, r.x, y++, r.w, ST_DIM, buf);
	}
	/* the list: "Predecessors" title, preds, blank, "Successors", succs */
	uint32_t np = gr->pred_off[u + 1] - gr->pred_off[u];
	uint32_t ns = gr->succ_off[u + 1] - gr->succ_off[u];
	int total = (int)np + (int)ns + 3;
	int rows = r.y + r.h - y;
	int first = st->op_scroll;
	if (first > total - rows)
		first = total - rows;
	if (first < 0)
		first = 0;
	for (int i = 0; i < rows && first + i < total; i++) {
		int li = first + i, yy = y + i;
		if (li == 0) {
			snprintf(buf, sizeof buf, "Predecessors (%u)", np);
			grid_fill(g, (vrect){r.x, yy, r.w, 1}, ' ', ST_HEADER);
			grid_puts(g, r.x, yy, r.w, ST_HEADER, buf);
		} else if (li <= (int)np) {
			uint32_t e = gr->pred_edge[gr->pred_off[u] + li - 1];
			uint32_t from = gr->edges[e].from;
			edge_line(st, g, r.x + 2, yy, r.w - 2, e, true,
				  find_xfer(&p->sim, from, p->placement[u]));
		} else if (li == (int)np + 1) {
			continue;
		} else if (li == (int)np + 2) {
			snprintf(buf, sizeof buf, "Successors (%u)", ns);
			grid_fill(g, (vrect){r.x, yy, r.w, 1}, ' ', ST_HEADER);
			grid_puts(g, r.x, yy, r.w, ST_HEADER, buf);
		} else {
			uint32_t e =
				gr->succ_edge[gr->succ_off[u] + li - np - 3];
			uint32_t to = gr->edges[e].to;
			edge_line(st, g, r.x + 2, yy, r.w - 2, e, false,
				  find_xfer(&p->sim, u, p->placement[to]));
		}
	}
	view_scroll_note(g, r, y, first, rows, total);
}
