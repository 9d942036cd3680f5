/* load_json_int.h - what the native JSON loader's files share
 * (load_json.c: the format; load_json_dims.c: iteration spaces). Not a
 * public header. */
#ifndef DNNPART_LOAD_JSON_INT_H
#define DNNPART_LOAD_JSON_INT_H

#include <cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dnnpart/graph.h"
#include "internal/json_scan.h"

#define DPI_JSON_MAX_BYTES 4611686018427387904.0 /* 2^62, as units.c */

typedef struct jload {
	jscan js;
	dp_graph *g;
	const char *path;
	dp_err *err;
	/* the element being read: "ops"/"edges", its index and extent */
	const char *arr;
	bool indexed; /* "ops[3]" rather than "machine" */
	uint32_t idx;
	size_t s, e;
} jload;

/* "string", "number", ... for messages. */
const char *dpi_json_kind(const cJSON *v);
/* The optional member field of o: NULL when absent or null. */
const cJSON *dpi_json_member(const cJSON *o, const char *field);
/* Error "ARR[IDX].LABEL: message" at offset off of the file. */
dp_status dpi_json_error_at(jload *L, size_t off, const char *label,
			    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Error "ARR[IDX].FIELD: message" at the field's value in the file (at the
 * element itself when field is NULL or absent). */
dp_status dpi_json_field_error(jload *L, const char *field, const char *fmt,
			       ...) __attribute__((format(printf, 3, 4)));

/* load_json_dims.c: the op's dims, out, param and elem_bytes (o is the op
 * element being read, id the op just added), and an edge's dims (e the
 * edge just added); checked with the graph's rules, errors at the
 * offending value. */
dp_status dpi_json_read_op_dims(jload *L, const cJSON *o, uint32_t id);
dp_status dpi_json_read_edge_dims(jload *L, const cJSON *o, uint32_t e);

#endif
