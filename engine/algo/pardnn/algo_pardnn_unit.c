/* algo_pardnn_unit.c - pardnn's units (an op, or its whole colocation
 * group, which always moves as one): their members, moving one, and the
 * communication a move adds or saves on the unit's edges to other units. */
#include "internal/pardnn.h"

uint32_t dpi_pd_rep(const dp_graph *g, uint32_t u)
{
	int32_t grp = g->ops[u].colocate;
	return grp >= 0 ? g->group_ops[g->group_off[grp]] : u;
}

const uint32_t *dpi_pd_unit(const dp_graph *g, const uint32_t *self,
			    uint32_t *len)
{
	int32_t grp = g->ops[*self].colocate;
	if (grp < 0) {
		*len = 1;
		return self;
	}
	*len = g->group_off[grp + 1] - g->group_off[grp];
	return g->group_ops + g->group_off[grp];
}

int32_t dpi_pd_move_unit(pd_ctx *c, uint32_t rep, int32_t to)
{
	int32_t from = c->place[rep];
	uint32_t len;
	const uint32_t *mem = dpi_pd_unit(c->g, &rep, &len);
	for (uint32_t i = 0; i < len; i++)
		c->place[mem[i]] = to;
	return from;
}

typedef void (*edge_visit)(void *ud, uint32_t e, uint32_t x);

/* Calls visit(ud, e, x) for every edge e of op u, x its other end: u's
 * in-edges, then its out-edges. */
static void op_edges(const dp_graph *g, uint32_t u, edge_visit visit, void *ud)
{
	for (int out = 0; out < 2; out++) {
		const uint32_t *off = out ? g->succ_off : g->pred_off;
		const uint32_t *edge = out ? g->succ_edge : g->pred_edge;
		for (uint32_t j = off[u]; j < off[u + 1]; j++) {
			const dp_edge *ed = &g->edges[edge[j]];
			visit(ud, edge[j], out ? ed->to : ed->from);
		}
	}
}

/* A visit passed on only for edges to ops outside colocation group grp. */
typedef struct outside {
	const dp_graph *g;
	int32_t grp;
	edge_visit visit;
	void *ud;
} outside;

static void if_outside(void *ud, uint32_t e, uint32_t x)
{
	const outside *o = ud;
	if (o->grp < 0 || o->g->ops[x].colocate != o->grp)
		o->visit(o->ud, e, x);
}

/* Calls visit(ud, e, x) for every edge e between an op of rep's unit and
 * an op x outside its colocation group: the members in unit order, each
 * by op_edges. */
static void unit_outside_edges(const pd_ctx *c, uint32_t rep, edge_visit visit,
			       void *ud)
{
	uint32_t len;
	const uint32_t *mem = dpi_pd_unit(c->g, &rep, &len);
	outside o = {c->g, c->g->ops[rep].colocate, visit, ud};
	for (uint32_t i = 0; i < len; i++)
		op_edges(c->g, mem[i], if_outside, &o);
}

/* dpi_pd_comm_delta's sum, or dpi_pd_comm_delta_all's costs per device */
typedef struct delta_acc {
	const pd_ctx *c;
	int32_t from, to;
	double delta, *on;
} delta_acc;

static void add_move_delta(void *ud, uint32_t e, uint32_t x)
{
	delta_acc *a = ud;
	const pd_ctx *c = a->c;
	int32_t dx = c->place[x];
	a->delta += (dx != a->to ? c->c[e] : 0) - (dx != a->from ? c->c[e] : 0);
}

static void sub_device_cost(void *ud, uint32_t e, uint32_t x)
{
	delta_acc *a = ud;
	a->on[a->c->place[x]] -= a->c->c[e];
}

double dpi_pd_comm_delta(const pd_ctx *c, uint32_t rep, int32_t to)
{
	delta_acc a = {c, c->place[rep], to, 0, NULL};
	unit_outside_edges(c, rep, add_move_delta, &a);
	return a.delta;
}

void dpi_pd_comm_delta_all(const pd_ctx *c, uint32_t rep, double *delta)
{
	/* with on[x] the cost of the unit's edges to ops on device x and T
	 * their total: delta[e] = (T - on[e]) - (T - on[from]) */
	delta_acc a = {c, c->place[rep], c->place[rep], 0, delta};
	for (int d = 0; d < c->k; d++)
		delta[d] = 0;
	unit_outside_edges(c, rep, sub_device_cost, &a);
	double on_from = -delta[a.from];
	for (int d = 0; d < c->k; d++)
		delta[d] += on_from;
}

int32_t dpi_pd_sole_neighbour_device(const pd_ctx *c, uint32_t rep, bool succ)
{
	const dp_graph *g = c->g;
	uint32_t len;
	const uint32_t *mem = dpi_pd_unit(g, &rep, &len);
	int32_t grp = g->ops[rep].colocate, dev = -1;
	for (uint32_t m = 0; m < len; m++) {
		uint32_t u = mem[m];
		uint32_t lo = succ ? g->succ_off[u] : g->pred_off[u];
		uint32_t hi = succ ? g->succ_off[u + 1] : g->pred_off[u + 1];
		for (uint32_t i = lo; i < hi; i++) {
			const dp_edge *e = &g->edges[succ ? g->succ_edge[i]
							  : g->pred_edge[i]];
			uint32_t x = succ ? e->to : e->from;
			if (grp >= 0 && g->ops[x].colocate == grp)
				continue;
			if (dev >= 0 && c->place[x] != dev)
				return -1;
			dev = c->place[x];
		}
	}
	return dev == c->place[rep] ? -1 : dev;
}

typedef struct placed_comm {
	const pd_ctx *c;
	double *comm;
} placed_comm;

static void add_if_placed(void *ud, uint32_t e, uint32_t x)
{
	const placed_comm *a = ud;
	int32_t d = a->c->place[x];
	if (d >= 0)
		a->comm[d] += a->c->c[e];
}

void dpi_pd_add_placed_comm(const pd_ctx *c, uint32_t u, double *comm)
{
	placed_comm a = {c, comm};
	op_edges(c->g, u, add_if_placed, &a);
}
