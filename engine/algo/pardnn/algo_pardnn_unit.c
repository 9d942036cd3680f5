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

/* Calls visit(ud, e, x) for every edge e between an op of rep's unit and
 * an op x outside its colocation group, in a fixed order: the members in
 * unit order, each one's in-edges, then its out-edges. */
static void unit_outside_edges(const pd_ctx *c, uint32_t rep,
			       void (*visit)(void *ud, uint32_t e, uint32_t x),
			       void *ud)
{
	const dp_graph *g = c->g;
	uint32_t len;
	const uint32_t *mem = dpi_pd_unit(g, &rep, &len);
	int32_t grp = g->ops[rep].colocate;
	for (uint32_t i = 0; i < len; i++) {
		uint32_t u = mem[i];
		for (int out = 0; out < 2; out++) {
			const uint32_t *off = out ? g->succ_off : g->pred_off;
			const uint32_t *edge =
				out ? g->succ_edge : g->pred_edge;
			for (uint32_t j = off[u]; j < off[u + 1]; j++) {
				const dp_edge *ed = &g->edges[edge[j]];
				uint32_t x = out ? ed->to : ed->from;
				if (grp < 0 || g->ops[x].colocate != grp)
					visit(ud, edge[j], x);
			}
		}
	}
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
