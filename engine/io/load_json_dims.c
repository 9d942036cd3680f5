/* load_json_dims.c - iteration spaces in the native JSON (docs/formats.md
 * "Iteration spaces and roles"): an op's dims, out, param and elem_bytes, an
 * edge's dims. The graph checks the rules (graph_dims.c); this file reads the
 * members and puts each error at the value it is about ("ops[2].dims.k",
 * "edges[0].dims[1]"). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal/graph_int.h"
#include "internal/load_json_int.h"

/* Offset of the value of the i-th member or element of the object or
 * array at offset off (already validated); off itself when it has fewer. */
static size_t nth_offset(const jload *L, size_t off, int i)
{
	return dpi_jscan_child_offset(L->js.text, off, L->e, NULL, i);
}

/* An iteration-space rule broken (at, message in e): at the field, or at
 * its entry ("dims.k", "out[1]"). */
static dp_status dims_error(jload *L, const cJSON *o, const dpi_dims_at *at,
			    const dp_err *e)
{
	if (e->code != DP_EINPUT || !at->field)
		return dp_err_set(L->err, e->code, L->path, 0, 0, "%s", e->msg);
	size_t off = dpi_jscan_member_offset(L->js.text, L->s, L->e, at->field);
	char label[128];
	snprintf(label, sizeof label, "%s", at->field);
	if (at->index >= 0 && off != L->s) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, at->field);
		const cJSON *c = cJSON_GetArrayItem(f, at->index);
		off = nth_offset(L, off, at->index);
		if (cJSON_IsObject(f) && c)
			snprintf(label, sizeof label, "%s.%.60s", at->field,
				 c->string);
		else
			snprintf(label, sizeof label, "%s[%d]", at->field,
				 at->index);
	}
	return dpi_json_error_at(L, off, label, "%s", e->msg);
}

/* A list of dim names (op out / param, edge dims): an array of strings,
 * at most DP_MAX_OP_DIMS of them; *n = -1 when absent. */
static dp_status get_dim_list(jload *L, const cJSON *o, const char *field,
			      const char **names, int32_t *n)
{
	const cJSON *v = dpi_json_member(o, field);
	*n = -1;
	if (!v)
		return DP_OK;
	if (!cJSON_IsArray(v))
		return dpi_json_field_error(
			L, field,
			"expected an array of dim names such as "
			"[\"b\", \"n\"], got %s",
			dpi_json_kind(v));
	int k = 0;
	for (const cJSON *c = v->child; c; c = c->next, k++) {
		if (k >= DP_MAX_OP_DIMS)
			return dpi_json_field_error(
				L, field,
				"%d names: a tensor may have at "
				"most %d dims",
				cJSON_GetArraySize(v), DP_MAX_OP_DIMS);
		if (!cJSON_IsString(c)) {
			char label[64];
			snprintf(label, sizeof label, "%s[%d]", field, k);
			return dpi_json_error_at(
				L,
				nth_offset(L,
					   dpi_jscan_member_offset(L->js.text,
								   L->s, L->e,
								   field),
					   k),
				label, "expected a dim name (a string), got %s",
				dpi_json_kind(c));
		}
		names[k] = c->valuestring;
	}
	*n = k;
	return DP_OK;
}

dp_status dpi_json_read_op_dims(jload *L, const cJSON *o, uint32_t id)
{
	const cJSON *dv = dpi_json_member(o, "dims");
	if (!dv) {
		static const char *const need_dims[] = {"out", "param",
							"elem_bytes"};
		for (int i = 0; i < 3; i++)
			if (dpi_json_member(o, need_dims[i]))
				return dpi_json_field_error(
					L, need_dims[i],
					"given without dims (it describes "
					"the op's iteration space: give the "
					"sizes of its dims in \"dims\")");
		return DP_OK;
	}
	if (!cJSON_IsObject(dv))
		return dpi_json_field_error(
			L, "dims",
			"expected an object of dim sizes such as "
			"{\"b\": 8, \"n\": 1024}, got %s",
			dpi_json_kind(dv));
	const char *names[DP_MAX_OP_DIMS], *out[DP_MAX_OP_DIMS],
		*param[DP_MAX_OP_DIMS];
	int64_t sizes[DP_MAX_OP_DIMS];
	dp_dims_spec spec = {0};
	size_t dims_off =
		dpi_jscan_member_offset(L->js.text, L->s, L->e, "dims");
	int k = 0;
	for (const cJSON *c = dv->child; c; c = c->next, k++) {
		if (k >= DP_MAX_OP_DIMS)
			return dpi_json_field_error(
				L, "dims", "%d dims: an op may have at most %d",
				cJSON_GetArraySize(dv), DP_MAX_OP_DIMS);
		double d = c->valuedouble;
		if (!cJSON_IsNumber(c) || d != floor(d) || d < 1 ||
		    d > DPI_JSON_MAX_BYTES) {
			char label[128], got[40];
			snprintf(label, sizeof label, "dims.%.60s", c->string);
			if (cJSON_IsNumber(c))
				snprintf(got, sizeof got, "%g", d);
			else
				snprintf(got, sizeof got, "%s",
					 dpi_json_kind(c));
			return dpi_json_error_at(
				L, nth_offset(L, dims_off, k), label,
				"expected an integer size from 1 to "
				"2^62, got %s",
				got);
		}
		names[k] = c->string;
		sizes[k] = (int64_t)llround(d);
	}
	spec.n = (uint32_t)k;
	spec.names = names;
	spec.sizes = sizes;
	dp_status st;
	if ((st = get_dim_list(L, o, "out", out, &spec.nout)) ||
	    (st = get_dim_list(L, o, "param", param, &spec.nparam)))
		return st;
	spec.out = out;
	spec.param = param;
	const cJSON *ev = dpi_json_member(o, "elem_bytes");
	if (ev) {
		if (!cJSON_IsNumber(ev) ||
		    ev->valuedouble != floor(ev->valuedouble) ||
		    ev->valuedouble < 1 ||
		    ev->valuedouble > DP_MAX_ELEM_BYTES) {
			char got[40];
			if (cJSON_IsNumber(ev))
				snprintf(got, sizeof got, "%g",
					 ev->valuedouble);
			else
				snprintf(got, sizeof got, "%s",
					 dpi_json_kind(ev));
			return dpi_json_field_error(
				L, "elem_bytes",
				"expected an integer from 1 to %d "
				"(the bytes of one element), got %s",
				DP_MAX_ELEM_BYTES, got);
		}
		spec.elem_bytes = (int64_t)ev->valuedouble;
	}
	dpi_dims_at at = {NULL, -1};
	dp_err e;
	if (dpi_graph_set_op_dims(L->g, id, &spec, &at, &e) ||
	    dpi_graph_check_op_dims(L->g, id, &at, &e))
		return dims_error(L, o, &at, &e);
	return DP_OK;
}

dp_status dpi_json_read_edge_dims(jload *L, const cJSON *o, uint32_t e)
{
	const char *names[DP_MAX_OP_DIMS], *from[DP_MAX_OP_DIMS];
	int32_t n, nf;
	dp_status st = get_dim_list(L, o, "dims", names, &n);
	if (!st)
		st = get_dim_list(L, o, "from_dims", from, &nf);
	if (st)
		return st;
	if (nf >= 0 && nf != n)
		return dpi_json_field_error(
			L, "from_dims",
			"expected %d names, one per name of the edge's dims "
			"(the producer's dims of the same axes), got %d",
			n < 0 ? 0 : n, nf);
	if (n < 0)
		return DP_OK;
	dpi_dims_at at = {NULL, -1};
	dp_err err;
	if (dpi_graph_set_edge_dims(L->g, e, (uint32_t)n, names,
				    nf >= 0 ? from : NULL, &at, &err) ||
	    dpi_graph_check_edge_dims(L->g, e, &at, &err))
		return dims_error(L, o, &at, &err);
	return DP_OK;
}
