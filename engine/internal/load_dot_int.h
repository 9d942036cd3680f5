/* load_dot_int.h - what the DOT loader's files share (load_dot.c: the
 * format; load_dot_dims.c: iteration spaces). Not a public header. */
#ifndef DNNPART_LOAD_DOT_INT_H
#define DNNPART_LOAD_DOT_INT_H

#include <cgraph.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dnnpart/graph.h"

typedef struct dload {
	const char *path;
	const char *text;
	dp_graph *g;
	Agraph_t *ag;
	dp_err *err;
	/* attribute symbols (NULL when no object declares them) */
	Agsym_t *time, *out, *param, *temp, *type, *layer, *coloc, *pin;
	Agsym_t *dims, *dout, *dparam, *elem, *role; /* docs/formats.md */
	Agsym_t *ebytes, *econtrol, *edims;
} dload;

/* The value of attribute sym of a node or edge; NULL when the attribute is
 * not declared or the value is empty. */
const char *dpi_dot_attr(void *obj, Agsym_t *sym);
/* Error about a value: "WHAT 'NAME', attribute FIELD: MSG" at a guessed
 * line (cgraph keeps no line numbers). */
dp_status dpi_dot_value_error(dload *D, const char *what, const char *name,
			      const char *field, const char *msg);
/* Is text[i..i+n) a name as a token (quoted or bare)? */
bool dpi_dot_token_at(const char *text, size_t i, size_t n, size_t len);
/* Line of the first line mentioning name (and attr, when given), or of the
 * first mentioning name; 0 when not found. */
int dpi_dot_guess_line(const char *text, const char *name, const char *attr);

/* load_dot_dims.c: node nd's dims, out, param and elem_bytes (op id), and
 * edge ed's dims (edge e, just added); checked with the graph's rules. */
dp_status dpi_dot_read_node_dims(dload *D, Agnode_t *nd, uint32_t id);
dp_status dpi_dot_read_edge_dims(dload *D, Agedge_t *ed, uint32_t e);

#endif
