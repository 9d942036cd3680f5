/* graph_roles.c - what each op does in the training step (graph.h
 * dp_role, docs/formats.md): one byte per op, allocated when the first role is
 * set. */
#include <stdlib.h>
#include <string.h>

#include "internal/graph_int.h"
#include "internal/names.h"

static const char *const role_names[DP_ROLE_COUNT] = {
	"", "input", "param", "forward", "backward", "grad", "update", "loss",
};

const char *dp_role_name(dp_role r)
{
	return r > DP_ROLE_NONE && r < DP_ROLE_COUNT ? role_names[r] : "";
}

dp_status dp_role_parse(const char *s, dp_role *out, dp_err *err)
{
	int i = 0;
	dp_status st = dpi_parse_name(
		s, role_names + DP_ROLE_NONE + 1,
		DP_ROLE_COUNT - DP_ROLE_NONE - 1, "role",
		"one of input, param, forward, backward, grad, update, loss",
		&i, err);
	if (!st)
		*out = (dp_role)(DP_ROLE_NONE + 1 + i);
	return st;
}

int dpi_graph_grow_roles(dp_graph *g)
{
	if (!g->roles || g->roles_cap >= g->ops_cap)
		return 0;
	uint8_t *q = realloc(g->roles, g->ops_cap);
	if (!q)
		return -1;
	memset(q + g->roles_cap, 0, g->ops_cap - g->roles_cap);
	g->roles = q;
	g->roles_cap = g->ops_cap;
	return 0;
}

dp_status dp_graph_set_role(dp_graph *g, uint32_t op, dp_role role, dp_err *err)
{
	if (op >= g->nops)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "dp_graph_set_role: no op %u", op);
	if ((int)role < 0 || role >= DP_ROLE_COUNT)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "role %d is not a role (expected 0 to %d)",
				  (int)role, DP_ROLE_COUNT - 1);
	if (!g->roles) {
		if (role == DP_ROLE_NONE)
			return DP_OK;
		g->roles = calloc(g->ops_cap, 1);
		if (!g->roles)
			return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
					  "out of memory while storing roles");
		g->roles_cap = g->ops_cap;
	}
	g->roles[op] = (uint8_t)role;
	return DP_OK;
}
