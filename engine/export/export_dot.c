/* export_dot.c - the partition as a Graphviz graph, built with cgraph.
 *
 * One `cluster_devN` subgraph per device, labelled with its load and peak
 * memory and filled with the device's color; ops (or groups of ops, see
 * coarsen.h) as boxes labelled with name, time and memory; cross-device
 * edges labelled with the bytes they move; the schedule's critical path
 * (docs/simulator.md) bold and red. An op-by-op DOT also carries the input
 * format's attributes (time_us, output_bytes, ..., edge bytes), so that
 * dnnpart can load it back as a graph, plus device, start_us and end_us.
 */
#include <cgraph.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/afile.h"
#include "internal/export_impl.h"

#define NAME_CHARS 40 /* longest op name shown in a label */
#define CANCEL_EVERY 16384u

typedef struct dot_ctx {
	Agraph_t *root;
	Agraph_t **clusters;
	dpi_sbuf sb;
	char num[64];
	/* node attributes */
	Agsym_t *n_label, *n_tooltip, *n_fill, *n_color, *n_pen, *n_style,
		*n_device, *n_critical, *n_ops;
	Agsym_t *n_time, *n_out, *n_param, *n_temp, *n_type, *n_layer, *n_coloc,
		*n_pin, *n_start, *n_end;
	/* edge attributes */
	Agsym_t *e_label, *e_xlabel, *e_tooltip, *e_color, *e_pen, *e_style,
		*e_bytes, *e_control, *e_critical;
} dot_ctx;

/* v may be NULL when a label buffer could not grow (the build then fails
 * with DP_ENOMEM): cgraph is given "" meanwhile. */
static void set(void *obj, Agsym_t *sym, const char *v)
{
	agxset(obj, sym, (char *)(v ? v : ""));
}

static Agsym_t *decl(Agraph_t *g, int kind, const char *name, const char *dflt)
{
	return agattr(g, kind, (char *)name, (char *)dflt);
}

/* ---- labels ---- */

static void graph_label(dot_ctx *x, const dp_graph *g, const dp_machine *m,
			const dp_plan *plan, const dp_coarse *c, int time_ranks)
{
	char a[64], b[64];
	dpi_sbuf *sb = &x->sb;
	dpi_sbuf_reset(sb);
	dpi_sbuf_put_label(sb, g->name ? g->name : "graph", 60);
	dpi_sbuf_printf(sb, ": %s on %d device%s", plan->algo, plan->k,
			plan->k == 1 ? "" : "s");
	if (m && m->link_name[0])
		dpi_sbuf_printf(sb, " (link %s)", m->link_name);
	dpi_sbuf_printf(sb, ", makespan %s",
			dp_units_fmt_time(plan->sim.makespan, a, sizeof a));
	dpi_sbuf_printf(sb, " = %s x LB",
			dp_units_fmt_c(b, sizeof b, "%.2f", plan->xlb));
	if (plan->feasible) {
		dpi_sbuf_puts(sb, ", fits");
	} else {
		int w = dp_plan_worst_device(plan);
		dpi_sbuf_printf(sb, ", OVER the memory cap on GPU %d",
				w < 0 ? 0 : w);
	}
	dpi_sbuf_printf(sb, "\\ncritical path (bold red): %u op%s", c->cp_len,
			c->cp_len == 1 ? "" : "s");
	if (c->method != DP_COARSE_NONE) {
		char how[128];
		dpi_coarsen_describe(c, how, sizeof how);
		dpi_sbuf_printf(sb,
				"\\nCOARSENED: %u ops drawn as %u nodes, %s",
				g->nops, c->n, how);
		if (c->edges_all > c->nedges)
			dpi_sbuf_printf(
				sb,
				"\\n%u of %u edges between groups drawn: "
				"the critical path and each group's "
				"largest input",
				c->nedges, c->edges_all);
	}
	if (time_ranks > 0)
		dpi_sbuf_printf(
			sb,
			"\\nrows follow the schedule: top to bottom are "
			"%d windows of the step's time",
			time_ranks);
	set(x->root, agattr(x->root, AGRAPH, "label", ""), sb->s);
}

static void cluster_label(dot_ctx *x, const dp_plan *plan, int d)
{
	const dp_device_stats *s = &plan->sim.dev[d];
	char busy[48], pct[32], peak[48], cap[48];
	double frac = plan->sim.makespan > 0
			      ? 100.0 * s->busy_us / plan->sim.makespan
			      : 0.0;
	dp_units_fmt_time(s->busy_us, busy, sizeof busy);
	dp_units_fmt_c(pct, sizeof pct, "%.1f", frac);
	dp_units_fmt_bytes(s->peak_bytes, peak, sizeof peak);
	dp_units_fmt_bytes(s->cap_bytes, cap, sizeof cap);
	/* a cap of 0 B is a cap, as for the simulator, the CLI and the
	 * explorer: only DP_CAP_UNLIMITED is none */
	bool capped = s->cap_bytes != DP_CAP_UNLIMITED;
	bool over = capped && s->peak_bytes > s->cap_bytes;
	dpi_sbuf_reset(&x->sb);
	dpi_sbuf_printf(&x->sb,
			"GPU %d: %u op%s, busy %s (%s%%)\\npeak memory %s", d,
			s->ops, s->ops == 1 ? "" : "s", busy, pct, peak);
	if (!capped)
		dpi_sbuf_puts(&x->sb, " (no cap)");
	else
		dpi_sbuf_printf(&x->sb, " %s %s%s", over ? ">" : "of", cap,
				over ? " - OVER CAP" : "");
}

static void op_label(dot_ctx *x, const dp_graph *g, const dp_plan *plan,
		     uint32_t u)
{
	const dp_op *op = &g->ops[u];
	char t[48], o[48], p[48];
	dpi_sbuf_reset(&x->sb);
	dpi_sbuf_put_label(&x->sb, dp_graph_op_name(g, u), NAME_CHARS);
	dpi_sbuf_printf(&x->sb, "\\n%s",
			dp_units_fmt_time(plan->sim.end[u] - plan->sim.start[u],
					  t, sizeof t));
	if (op->output_bytes)
		dpi_sbuf_printf(
			&x->sb, ", out %s",
			dp_units_fmt_bytes(op->output_bytes, o, sizeof o));
	if (op->param_bytes)
		dpi_sbuf_printf(
			&x->sb, ", par %s",
			dp_units_fmt_bytes(op->param_bytes, p, sizeof p));
}

static const char *cause_text(int cause)
{
	switch (cause) {
	case DP_HOP_DATA:
		return "waited for a producer on its device";
	case DP_HOP_TRANSFER:
		return "waited for a transfer";
	case DP_HOP_DEVICE:
		return "waited for its device";
	default:
		return "started the path";
	}
}

static void op_tooltip(dot_ctx *x, const dp_graph *g, const dp_plan *plan,
		       uint32_t u, int cause)
{
	const dp_op *op = &g->ops[u];
	char a[48], b[48], c[48], d[48], e[48];
	dpi_sbuf *sb = &x->sb;
	dpi_sbuf_reset(sb);
	dpi_sbuf_put_label(sb, dp_graph_op_name(g, u), 0);
	if (op->type) {
		dpi_sbuf_puts(sb, " (");
		dpi_sbuf_put_label(sb, dp_graph_str(g, op->type), 0);
		dpi_sbuf_puts(sb, ")");
	}
	dpi_sbuf_printf(sb, "\\nGPU %d, %s .. %s (%s)", plan->placement[u],
			dp_units_fmt_time(plan->sim.start[u], a, sizeof a),
			dp_units_fmt_time(plan->sim.end[u], b, sizeof b),
			dp_units_fmt_time(plan->sim.end[u] - plan->sim.start[u],
					  c, sizeof c));
	dpi_sbuf_printf(sb, "\\noutput %s, params %s, temp %s",
			dp_units_fmt_bytes(op->output_bytes, a, sizeof a),
			dp_units_fmt_bytes(op->param_bytes, d, sizeof d),
			dp_units_fmt_bytes(op->temp_bytes, e, sizeof e));
	if (op->layer) {
		dpi_sbuf_puts(sb, "\\nlayer ");
		dpi_sbuf_put_label(sb, dp_graph_str(g, op->layer), 0);
	}
	if (cause >= 0)
		dpi_sbuf_printf(sb, "\\non the critical path: %s",
				cause_text(cause));
}

static void group_label(dot_ctx *x, const dp_graph *g, const dp_coarse *c,
			const dp_cnode *nd, bool tooltip)
{
	char t[48], o[48], p[48];
	dpi_sbuf *sb = &x->sb;
	dpi_sbuf_reset(sb);
	if (nd->label) {
		dpi_sbuf_put_label(sb, c->strs + nd->label,
				   tooltip ? 0 : NAME_CHARS);
	} else if (c->method == DP_COARSE_LAYER) {
		dpi_sbuf_puts(sb, "(ops without a layer)");
	} else {
		dpi_sbuf_put_label(sb, dp_graph_op_name(g, nd->op),
				   tooltip ? 0 : NAME_CHARS / 2);
		dpi_sbuf_puts(sb, tooltip ? "\\n.. " : " ..\\n");
		dpi_sbuf_put_label(sb, dp_graph_op_name(g, nd->last_op),
				   tooltip ? 0 : NAME_CHARS / 2);
	}
	dpi_sbuf_printf(sb, "\\n%u ops, busy %s", nd->nops,
			dp_units_fmt_time(nd->busy_us, t, sizeof t));
	if (nd->out_bytes || nd->param_bytes)
		dpi_sbuf_printf(
			sb, "\\nout %s, par %s",
			dp_units_fmt_bytes(nd->out_bytes, o, sizeof o),
			dp_units_fmt_bytes(nd->param_bytes, p, sizeof p));
	if (nd->ncrit)
		dpi_sbuf_printf(sb, "\\n%u critical-path op%s", nd->ncrit,
				nd->ncrit == 1 ? "" : "s");
	if (tooltip) {
		dpi_sbuf_printf(sb, "\\nGPU %d, %s .. %s", nd->dev,
				dp_units_fmt_time(nd->start, o, sizeof o),
				dp_units_fmt_time(nd->end, p, sizeof p));
	}
}

/* ---- names ---- */

/* Whether node nd stands for one op drawn as itself (not a group). */
static bool is_single(const dp_coarse *c, const dp_cnode *nd)
{
	return nd->nops == 1 && (c->method == DP_COARSE_NONE || nd->ncrit);
}

/* The node's name: the op's name for a single op (when render, only if it
 * is safe to show in SVG: valid UTF-8 without control characters), else a
 * made-up name that no op has. Returns the op name or buf. */
static const char *node_name(dot_ctx *x, const dp_graph *g, const dp_coarse *c,
			     const dp_cnode *nd, uint32_t id, bool render,
			     char *buf, size_t size)
{
	if (is_single(c, nd)) {
		const char *name = dp_graph_op_name(g, nd->op);
		if (!render)
			return name;
		dpi_sbuf_reset(&x->sb);
		dpi_sbuf_put_label(&x->sb, name, 0);
		if (x->sb.s && strcmp(x->sb.s, name) == 0)
			return name;
	}
	snprintf(buf, size, "group%u", id);
	for (int i = 0; dp_graph_find(g, buf) != UINT32_MAX; i++)
		snprintf(buf, size, "group%u_%d", id, i);
	return buf;
}

/* ---- building ---- */

static void declare(dot_ctx *x, bool render)
{
	Agraph_t *r = x->root;
	decl(r, AGRAPH, "labelloc", "t");
	decl(r, AGRAPH, "fontname", "Helvetica");
	decl(r, AGRAPH, "fontsize", "12");
	decl(r, AGRAPH, "style", "");
	decl(r, AGRAPH, "fillcolor", "");
	decl(r, AGRAPH, "color", "");
	decl(r, AGRAPH, "penwidth", "1");
	decl(r, AGRAPH, "tooltip", "");
	decl(r, AGRAPH, "newrank", "true");
	x->n_label = decl(r, AGNODE, "label", "\\N");
	x->n_tooltip = decl(r, AGNODE, "tooltip", "");
	decl(r, AGNODE, "shape", "box");
	x->n_style = decl(r, AGNODE, "style", "filled,rounded");
	x->n_fill = decl(r, AGNODE, "fillcolor", "white");
	x->n_color = decl(r, AGNODE, "color", "#555555");
	x->n_pen = decl(r, AGNODE, "penwidth", "1");
	decl(r, AGNODE, "fontname", "Helvetica");
	decl(r, AGNODE, "fontsize", "10");
	x->n_device = decl(r, AGNODE, "device", "");
	x->n_critical = decl(r, AGNODE, "critical", "");
	x->n_ops = decl(r, AGNODE, "ops", "");
	x->n_start = decl(r, AGNODE, "start_us", "");
	x->n_end = decl(r, AGNODE, "end_us", "");
	if (!render) {
		x->n_time = decl(r, AGNODE, "time_us", "");
		x->n_out = decl(r, AGNODE, "output_bytes", "");
		x->n_param = decl(r, AGNODE, "param_bytes", "");
		x->n_temp = decl(r, AGNODE, "temp_bytes", "");
		x->n_type = decl(r, AGNODE, "type", "");
		x->n_layer = decl(r, AGNODE, "layer", "");
		x->n_coloc = decl(r, AGNODE, "colocate", "");
		x->n_pin = decl(r, AGNODE, "pin", "");
	}
	x->e_label = decl(r, AGEDGE, "label", "");
	if (render) {
		/* an edge's bytes as an external label, placed after the
		 * layout where it overlaps nothing, else left out (the
		 * tooltip keeps it): labels of many edges into one node
		 * overlapped each other and the nodes */
		x->e_xlabel = decl(r, AGEDGE, "xlabel", "");
		decl(r, AGRAPH, "forcelabels", "false");
	}
	x->e_tooltip = decl(r, AGEDGE, "tooltip", "");
	x->e_color = decl(r, AGEDGE, "color", "#555555");
	x->e_pen = decl(r, AGEDGE, "penwidth", "1");
	x->e_style = decl(r, AGEDGE, "style", "");
	x->e_critical = decl(r, AGEDGE, "critical", "");
	decl(r, AGEDGE, "fontname", "Helvetica");
	decl(r, AGEDGE, "fontsize", "9");
	decl(r, AGEDGE, "arrowsize", "0.6");
	if (!render) {
		x->e_bytes = decl(r, AGEDGE, "bytes", "");
		x->e_control = decl(r, AGEDGE, "control", "");
	}
}

static void make_clusters(dot_ctx *x, const dp_plan *plan, bool render)
{
	Agsym_t *label = agattr(x->root, AGRAPH, "label", NULL);
	Agsym_t *tooltip = agattr(x->root, AGRAPH, "tooltip", NULL);
	for (int d = 0; d < plan->k; d++) {
		char name[32];
		snprintf(name, sizeof name, "cluster_dev%d", d);
		Agraph_t *s = agsubg(x->root, name, 1);
		x->clusters[d] = s;
		cluster_label(x, plan, d);
		set(s, label, x->sb.s);
		set(s, tooltip, x->sb.s);
		agsafeset(s, "style", "filled,rounded", "");
		agsafeset(s, "fillcolor", (char *)dpi_export_device_tint(d),
			  "");
		agsafeset(s, "color", (char *)dpi_export_device_color(d), "");
		agsafeset(s, "penwidth", "2", "1");
		if (render && plan->sim.dev[d].ops == 0) {
			/* dot draws no empty cluster: keep the device seen */
			snprintf(name, sizeof name, "empty_dev%d", d);
			Agnode_t *n = agnode(s, name, 1);
			agxset(n, x->n_label, "(no ops)");
			agxset(n, x->n_style, "dashed,rounded");
			snprintf(name, sizeof name, "%d", d);
			agxset(n, x->n_device, name);
		}
	}
}

static void add_node(dot_ctx *x, const dp_graph *g, const dp_plan *plan,
		     const dp_coarse *c, uint32_t id, const int8_t *cause,
		     bool render, Agnode_t **nodes)
{
	const dp_cnode *nd = &c->nodes[id];
	char buf[64];
	const char *name = node_name(x, g, c, nd, id, render, buf, sizeof buf);
	Agnode_t *n = agnode(x->clusters[nd->dev], (char *)name, 1);
	nodes[id] = n;
	bool single = is_single(c, nd);
	if (single) {
		op_label(x, g, plan, nd->op);
		set(n, x->n_label, x->sb.s);
		op_tooltip(x, g, plan, nd->op, cause[nd->op]);
		set(n, x->n_tooltip, x->sb.s);
	} else {
		group_label(x, g, c, nd, false);
		set(n, x->n_label, x->sb.s);
		group_label(x, g, c, nd, true);
		set(n, x->n_tooltip, x->sb.s);
		set(n, x->n_ops,
		    dp_units_fmt_c(x->num, sizeof x->num, "%u", nd->nops));
	}
	set(n, x->n_fill, dpi_export_device_color(nd->dev));
	set(n, x->n_device,
	    dp_units_fmt_c(x->num, sizeof x->num, "%d", nd->dev));
	set(n, x->n_start, dp_units_fmt_num(nd->start, x->num, sizeof x->num));
	set(n, x->n_end, dp_units_fmt_num(nd->end, x->num, sizeof x->num));
	if (nd->ncrit) {
		set(n, x->n_critical, "true");
		set(n, x->n_color, EXPORT_CRIT_COLOR);
		set(n, x->n_pen, "3");
		set(n, x->n_style, "filled,rounded,bold");
	}
	if (render || !single)
		return;
	const dp_op *op = &g->ops[nd->op];
	set(n, x->n_time, dp_units_fmt_num(op->time_us, x->num, sizeof x->num));
	set(n, x->n_out,
	    dp_units_fmt_c(x->num, sizeof x->num, "%lld",
			   (long long)op->output_bytes));
	if (op->param_bytes)
		set(n, x->n_param,
		    dp_units_fmt_c(x->num, sizeof x->num, "%lld",
				   (long long)op->param_bytes));
	if (op->temp_bytes)
		set(n, x->n_temp,
		    dp_units_fmt_c(x->num, sizeof x->num, "%lld",
				   (long long)op->temp_bytes));
	if (op->type)
		set(n, x->n_type, dp_graph_str(g, op->type));
	if (op->layer)
		set(n, x->n_layer, dp_graph_str(g, op->layer));
	if (op->colocate >= 0)
		set(n, x->n_coloc,
		    dp_graph_str(g, g->group_label[op->colocate]));
	if (op->pin >= 0)
		set(n, x->n_pin,
		    dp_units_fmt_c(x->num, sizeof x->num, "%d", op->pin));
}

static void add_edge(dot_ctx *x, const dp_coarse *c, const dp_cedge *ce,
		     bool render, Agnode_t **nodes)
{
	Agnode_t *t = nodes[ce->from], *h = nodes[ce->to];
	Agedge_t *e = agedge(x->root, t, h, NULL, 1);
	int dt = c->nodes[ce->from].dev, dh = c->nodes[ce->to].dev;
	char b[48];
	dp_units_fmt_bytes(ce->bytes, b, sizeof b);
	dpi_sbuf_reset(&x->sb);
	if (ce->nedges == 0)
		dpi_sbuf_puts(&x->sb, "next on the same device");
	else if (ce->control)
		dpi_sbuf_puts(&x->sb, "control dependency");
	else if (dt == dh)
		dpi_sbuf_printf(&x->sb, "%s on GPU %d", b, dt);
	else
		dpi_sbuf_printf(&x->sb, "%s, GPU %d -> GPU %d", b, dt, dh);
	if (ce->nedges > 1)
		dpi_sbuf_printf(&x->sb, " (%u edges)", ce->nedges);
	if (ce->hop)
		dpi_sbuf_printf(&x->sb, "; critical path: %s",
				cause_text(ce->hop));
	set(e, x->e_tooltip, x->sb.s);
	if (dt != dh && ce->bytes > 0)
		set(e, render ? x->e_xlabel : x->e_label, b);
	const char *style = ce->nedges == 0 ? "dashed"
			    : ce->control   ? "dashed"
					    : "";
	if (ce->hop) {
		set(e, x->e_critical, "true");
		set(e, x->e_color, EXPORT_CRIT_COLOR);
		set(e, x->e_pen, "3");
		style = ce->nedges == 0 || ce->control ? "bold,dashed" : "bold";
	}
	if (style[0])
		set(e, x->e_style, style);
	if (render || c->method != DP_COARSE_NONE || ce->nedges == 0)
		return;
	set(e, x->e_bytes,
	    dp_units_fmt_c(x->num, sizeof x->num, "%lld",
			   (long long)ce->bytes));
	if (ce->control)
		set(e, x->e_control, "true");
}

/* Puts the nodes into rank=same groups by the time window of their start,
 * with an invisible chain of anchors that keeps the windows in order: dot
 * then lays the picture out like a timeline, and an edge crosses at most
 * `windows` ranks, however long it is in the graph. */
static bool rank_by_time(dot_ctx *x, const dp_graph *g, const dp_plan *plan,
			 const dp_coarse *c, int windows, Agnode_t **nodes)
{
	Agraph_t **sub = calloc((size_t)windows, sizeof *sub);
	if (!sub)
		return false;
	double span = plan->sim.makespan > 0 ? plan->sim.makespan : 1.0;
	Agnode_t *prev = NULL;
	char name[64];
	for (int w = 0; w < windows; w++) {
		snprintf(name, sizeof name, "time_window_%d", w);
		for (int i = 0; dp_graph_find(g, name) != UINT32_MAX; i++)
			snprintf(name, sizeof name, "time_window_%d_%d", w, i);
		sub[w] = agsubg(x->root, name, 1);
		agsafeset(sub[w], "rank", "same", "");
		Agnode_t *a = agnode(sub[w], name, 1);
		agxset(a, x->n_label, "");
		agxset(a, x->n_style, "invis");
		agsafeset(a, "shape", "point", "box");
		if (prev) {
			Agedge_t *e = agedge(x->root, prev, a, NULL, 1);
			agxset(e, x->e_style, "invis");
		}
		prev = a;
	}
	for (uint32_t id = 0; id < c->n; id++) {
		int w = (int)(c->nodes[id].start / span * windows);
		w = w < 0 ? 0 : w >= windows ? windows - 1 : w;
		agsubnode(sub[w], nodes[id], 1);
	}
	free(sub);
	return true;
}

dp_status dpi_export_dot_build(const dp_graph *g, const dp_machine *m,
			       const dp_plan *plan, const dp_coarse *c,
			       bool render, int time_ranks,
			       const dp_progress *p, struct Agraph_s **out,
			       dp_err *err)
{
	dot_ctx x;
	memset(&x, 0, sizeof x);
	*out = NULL;
	/* cause of each critical op's hop (-1: not on the path) */
	int8_t *cause = malloc((size_t)g->nops + 1);
	Agnode_t **nodes = calloc((size_t)c->n + 1, sizeof *nodes);
	x.clusters = calloc((size_t)plan->k, sizeof *x.clusters);
	x.root = agopen((char *)(g->name && g->name[0] ? g->name : "dnnpart"),
			Agdirected, NULL);
	dp_status st = DP_OK;
	if (!cause || !nodes || !x.clusters || !x.root) {
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"out of memory while building the DOT graph");
		goto out;
	}
	memset(cause, -1, (size_t)g->nops);
	const uint8_t *cpc = plan->sim.cp_cause;
	for (uint32_t i = 0; i < plan->sim.cp_len && plan->sim.cp_ops; i++)
		cause[plan->sim.cp_ops[i]] = (int8_t)(cpc ? cpc[i] : 0);
	if (plan->sim.cp_len == 0)
		for (uint32_t u = 0; u < g->nops; u++)
			if (c->nodes[c->of[u]].ncrit &&
			    c->nodes[c->of[u]].nops == 1)
				cause[u] = 0;

	declare(&x, render);
	graph_label(&x, g, m, plan, c, time_ranks);
	make_clusters(&x, plan, render);
	for (uint32_t id = 0; id < c->n; id++) {
		if ((id & (CANCEL_EVERY - 1)) == 0 && dp_progress_canceled(p))
			goto canceled;
		add_node(&x, g, plan, c, id, cause, render, nodes);
	}
	dp_progress_report(p, "building the graph", 0.5);
	for (uint32_t i = 0; i < c->nedges; i++) {
		if ((i & (CANCEL_EVERY - 1)) == 0 && dp_progress_canceled(p))
			goto canceled;
		/* an op-by-op DOT stays a graph dnnpart can load: a hop that
		 * waited for the device, which is no graph edge, is left out
		 * there (its ops are still red) */
		if (c->edges[i].nedges == 0 && !render &&
		    c->method == DP_COARSE_NONE)
			continue;
		add_edge(&x, c, &c->edges[i], render, nodes);
	}
	if (time_ranks > 0 && !rank_by_time(&x, g, plan, c, time_ranks, nodes))
		x.sb.oom = true;
	if (x.sb.oom) {
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"out of memory while building the DOT graph");
		goto out;
	}
	*out = x.root;
	x.root = NULL;
	goto out;
canceled:
	st = dp_err_set(err, DP_ECANCELED, NULL, 0, 0,
			"export canceled; no file written");
out:
	if (x.root)
		agclose(x.root);
	free(cause);
	free(nodes);
	free(x.clusters);
	dpi_sbuf_free(&x.sb);
	return st;
}

static dp_status write_dot(const dpi_picture_job *j, const dp_coarse *c,
			   dp_afile *af, dp_err *err)
{
	Agraph_t *dot = NULL;
	dp_status st = dpi_export_dot_build(j->g, j->m, j->plan, c, false, 0,
					    j->p, &dot, err);
	if (st)
		return st;
	dp_progress_report(j->p, "writing DOT", 0.8);
	if (agwrite(dot, af->f) != 0 || ferror(af->f))
		st = dp_err_set(err, DP_EIO, j->path, 0, 0,
				"could not write the DOT file (disk full?)");
	agclose(dot);
	return st;
}

dp_status dpi_export_dot_write(const char *path, const dp_graph *g,
			       const dp_machine *m, const dp_plan *plan,
			       const dp_export_opts *o, const dp_progress *p,
			       dp_export_report *rep, dp_err *err)
{
	dpi_picture_job j = {path, g, m, plan, o, p, rep, NULL};
	return dpi_export_picture(&j, DP_EXPORT_DOT_FULL_MAX, write_dot, err);
}
