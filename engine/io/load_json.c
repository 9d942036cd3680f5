/* load_json.c - the native dnnpart JSON graph format (docs/formats.md).
 *
 * Files may hold millions of ops, so the file is never parsed into one cJSON
 * tree: the streaming scanner (json_scan.c) walks the top-level object and
 * the "ops" and "edges" arrays, and each element (one small object) is
 * parsed by cJSON on its own and freed before the next. Peak memory is the
 * text plus the graph plus one element. Errors inside an element are mapped
 * back to the line and column of the offending member in the file.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/units.h"
#include "internal/graph_int.h"
#include "internal/load_json_int.h"
#include "internal/load_util.h"

const char *dpi_json_kind(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "string";
	if (cJSON_IsNumber(v))
		return "number";
	if (cJSON_IsBool(v))
		return "boolean";
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsArray(v))
		return "array";
	return "object";
}

dp_status dpi_json_error_at(jload *L, size_t off, const char *label,
			    const char *fmt, ...)
{
	char msg[900];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	char where[64] = "";
	if (L->indexed)
		snprintf(where, sizeof where, "%s[%u]", L->arr, L->idx);
	else if (L->arr)
		snprintf(where, sizeof where, "%s", L->arr);
	return dpi_jscan_error_at(&L->js, off, "%s%s%s: %s", where,
				  label && where[0] ? "." : "",
				  label ? label : "", msg);
}

dp_status dpi_json_field_error(jload *L, const char *field, const char *fmt,
			       ...)
{
	char msg[900];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	size_t off =
		field ? dpi_jscan_member_offset(L->js.text, L->s, L->e, field)
		      : L->s;
	return dpi_json_error_at(L, off, field, "%s", msg);
}

const cJSON *dpi_json_member(const cJSON *o, const char *field)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, field);
	return v && !cJSON_IsNull(v) ? v : NULL;
}

/* A label the graph refused (not UTF-8): at the field, as other field
 * errors; out of memory keeps its code. */
static dp_status label_error(jload *L, const char *field, const dp_err *e)
{
	if (e->code != DP_EINPUT)
		return dp_err_set(L->err, e->code, L->path, 0, 0, "%s", e->msg);
	return dpi_json_field_error(L, field, "%s", e->msg);
}

/* The optional member field of obj when it is of the type is (want names
 * it for the error); NULL when absent or null (*st = DP_OK) or of another
 * type (*st the error). */
static const cJSON *typed_member(jload *L, const cJSON *obj, const char *field,
				 cJSON_bool (*is)(const cJSON *const),
				 const char *want, dp_status *st)
{
	const cJSON *v = dpi_json_member(obj, field);
	*st = v && !is(v)
		      ? dpi_json_field_error(L, field, "expected %s, got %s",
					     want, dpi_json_kind(v))
		      : DP_OK;
	return *st ? NULL : v;
}

/* Optional string member; *out = NULL when absent or null. */
static dp_status get_string(jload *L, const cJSON *obj, const char *field,
			    const char **out)
{
	dp_status st;
	const cJSON *v =
		typed_member(L, obj, field, cJSON_IsString, "a string", &st);
	*out = v ? v->valuestring : NULL;
	return st;
}

/* Optional number >= 0 member (time_us). */
static dp_status get_time(jload *L, const cJSON *obj, const char *field,
			  double *out)
{
	dp_status st;
	const cJSON *v = typed_member(L, obj, field, cJSON_IsNumber,
				      "a number >= 0", &st);
	if (!v)
		return st;
	if (!isfinite(v->valuedouble) || v->valuedouble < 0)
		return dpi_json_field_error(
			L, field, "expected a finite number >= 0, got %g",
			v->valuedouble);
	*out = v->valuedouble;
	return DP_OK;
}

/* Optional size member: a number of bytes or a string with units (the
 * machine's "memory", a cap, must have one: "16GiB", never "16"; an op's
 * "param_bytes": "4096" says bytes in its name). *given tells whether it
 * was there. */
static dp_status get_size(jload *L, const cJSON *obj, const char *field,
			  int64_t *out, bool *given)
{
	const cJSON *v = dpi_json_member(obj, field);
	if (given)
		*given = false;
	if (!v)
		return DP_OK;
	if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;
		if (!isfinite(d) || d < 0 || d > DPI_JSON_MAX_BYTES)
			return dpi_json_field_error(
				L, field,
				"expected a number of bytes from 0 "
				"to 2^62, got %g",
				d);
		*out = (int64_t)llround(d);
	} else if (cJSON_IsString(v)) {
		dp_err e;
		dp_status ps =
			strcmp(field, "memory") == 0
				? dp_units_parse_size(v->valuestring, out, &e)
				: dp_units_parse_bytes(v->valuestring, out, &e);
		if (ps)
			return dpi_json_field_error(L, field, "%s", e.msg);
	} else {
		return dpi_json_field_error(
			L, field,
			"expected a number of bytes or a size "
			"string such as \"1MiB\", got %s",
			dpi_json_kind(v));
	}
	if (given)
		*given = true;
	return DP_OK;
}

static dp_status read_op(jload *L, const cJSON *o)
{
	dp_graph *g = L->g;
	const cJSON *nv = cJSON_GetObjectItemCaseSensitive(o, "name");
	if (!nv)
		return dpi_json_field_error(
			L, NULL,
			"missing \"name\" (every op needs a unique "
			"name)");
	if (!cJSON_IsString(nv) || !nv->valuestring[0])
		return dpi_json_field_error(
			L, "name", "expected a non-empty string, got %s",
			cJSON_IsString(nv) ? "\"\"" : dpi_json_kind(nv));
	uint32_t prev = dp_graph_find(g, nv->valuestring);
	if (prev != UINT32_MAX)
		return dpi_json_field_error(
			L, "name",
			"duplicate op name '%s' (first defined "
			"as ops[%u]); op names must be unique",
			nv->valuestring, prev);
	uint32_t id;
	dp_err e;
	if (dp_graph_add_op(g, nv->valuestring, &id, &e))
		return dpi_json_field_error(L, "name", "%s", e.msg);
	dp_op *op = &g->ops[id];
	const char *s;
	dp_status st;
	if ((st = get_string(L, o, "type", &s)))
		return st;
	if (s && dp_graph_set_type(g, id, s, &e))
		return label_error(L, "type", &e);
	if ((st = get_string(L, o, "layer", &s)))
		return st;
	if (s && dp_graph_set_layer(g, id, s, &e))
		return label_error(L, "layer", &e);
	op = &g->ops[id];
	if ((st = get_time(L, o, "time_us", &op->time_us)) ||
	    (st = get_size(L, o, "output_bytes", &op->output_bytes, NULL)) ||
	    (st = get_size(L, o, "param_bytes", &op->param_bytes, NULL)) ||
	    (st = get_size(L, o, "temp_bytes", &op->temp_bytes, NULL)))
		return st;

	const cJSON *pv = cJSON_GetObjectItemCaseSensitive(o, "pin");
	if (pv && !cJSON_IsNull(pv)) {
		if (!cJSON_IsNumber(pv))
			return dpi_json_field_error(
				L, "pin",
				"expected an integer from -1 (not "
				"pinned) to %d, got %s",
				DP_MAX_DEVICES - 1, dpi_json_kind(pv));
		double d = pv->valuedouble;
		if (d != floor(d) || d < -1 || d >= DP_MAX_DEVICES)
			return dpi_json_field_error(
				L, "pin",
				"expected an integer from -1 (not "
				"pinned) to %d, got %g",
				DP_MAX_DEVICES - 1, d);
		op->pin = (int32_t)d;
	}

	/* colocation labels: strings, or integers as written by converters
	 * of formats that number their groups */
	const cJSON *cv = cJSON_GetObjectItemCaseSensitive(o, "colocate");
	if (cv && !cJSON_IsNull(cv)) {
		char num[32];
		const char *label;
		if (cJSON_IsString(cv)) {
			label = cv->valuestring;
		} else if (cJSON_IsNumber(cv) &&
			   cv->valuedouble == floor(cv->valuedouble) &&
			   fabs(cv->valuedouble) < 1e15) {
			snprintf(num, sizeof num, "%.0f", cv->valuedouble);
			label = num;
		} else {
			return dpi_json_field_error(
				L, "colocate",
				"expected a group label (a string "
				"or an integer), got %s",
				dpi_json_kind(cv));
		}
		if (dp_graph_set_colocate(g, id, label, &e))
			return label_error(L, "colocate", &e);
	}
	const char *role;
	if ((st = get_string(L, o, "role", &role)))
		return st;
	dp_role r;
	if (role &&
	    (dp_role_parse(role, &r, &e) || dp_graph_set_role(g, id, r, &e)))
		return label_error(L, "role", &e);
	return dpi_json_read_op_dims(L, o, id);
}

/* An endpoint member of an edge: a known op name. */
static dp_status get_endpoint(jload *L, const cJSON *o, const char *field,
			      uint32_t *id)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, field);
	if (!v)
		return dpi_json_field_error(
			L, NULL,
			"missing \"%s\" (every edge needs \"from\" "
			"and \"to\" op names)",
			field);
	if (!cJSON_IsString(v))
		return dpi_json_field_error(L, field,
					    "expected an op name, got %s",
					    dpi_json_kind(v));
	*id = dp_graph_find(L->g, v->valuestring);
	if (*id == UINT32_MAX)
		return dpi_json_field_error(L, field, "unknown op '%s'",
					    v->valuestring);
	return DP_OK;
}

static dp_status read_edge(jload *L, const cJSON *o)
{
	uint32_t from, to;
	dp_status st;
	if ((st = get_endpoint(L, o, "from", &from)) ||
	    (st = get_endpoint(L, o, "to", &to)))
		return st;
	int64_t bytes = -1;
	bool given;
	if ((st = get_size(L, o, "bytes", &bytes, &given)))
		return st;
	if (!given)
		bytes = -1;
	bool control = false;
	const cJSON *cv = cJSON_GetObjectItemCaseSensitive(o, "control");
	if (cv && !cJSON_IsNull(cv)) {
		if (!cJSON_IsBool(cv))
			return dpi_json_field_error(
				L, "control", "expected true or false, got %s",
				dpi_json_kind(cv));
		control = cJSON_IsTrue(cv);
	}
	if (from == to)
		return dpi_json_field_error(
			L, "to",
			"self-loop on op '%s' (an op cannot depend "
			"on itself)",
			dp_graph_op_name(L->g, from));
	dp_err e;
	if (dp_graph_add_edge(L->g, from, to, bytes, control, &e))
		return dpi_json_field_error(L, NULL, "%s", e.msg);
	return dpi_json_read_edge_dims(L, o, L->g->nedges - 1);
}

/* Reads the array at the current position, one element at a time. */
static dp_status read_array(jload *L, const char *arr,
			    dp_status (*fn)(jload *, const cJSON *))
{
	jscan *js = &L->js;
	jscan_iter it;
	dp_status st = dpi_jscan_array_begin(js, &it, arr);
	if (st)
		return st;
	L->arr = arr;
	L->indexed = true;
	for (L->idx = 0;; L->idx++) {
		bool has;
		if ((st = dpi_jscan_array_next(js, &it, &has)))
			return st;
		if (!has)
			break;
		if (dpi_jscan_peek(js) != '{')
			return dpi_jscan_error_at(
				js, js->pos,
				"%s[%u]: expected an object, got "
				"%s",
				arr, L->idx, dpi_jscan_kind(js));
		if ((st = dpi_jscan_value(js, &L->s, &L->e)))
			return st;
		const char *endp = NULL;
		cJSON *item = cJSON_ParseWithLengthOpts(
			js->text + L->s, L->e - L->s, &endp, false);
		if (!item) {
			size_t off = endp && endp >= js->text + L->s
					     ? (size_t)(endp - js->text)
					     : L->s;
			return dpi_jscan_error_at(
				js, off,
				"%s[%u]: cannot read this element "
				"(a \\u escape that is not valid "
				"UTF-16, or out of memory)",
				arr, L->idx);
		}
		st = fn(L, item);
		cJSON_Delete(item);
		if (st)
			return st;
	}
	L->arr = NULL;
	L->indexed = false;
	return DP_OK;
}

/* The machine's "bandwidth" or "latency": a number in the file's unit
 * (divided by div for the engine's; > 0, or >= 0 when zero_ok) or a string
 * with units that parse reads. */
typedef struct link_field {
	const char *name;
	dp_status (*parse)(const char *, double *, dp_err *);
	double div;
	bool zero_ok;
	const char *expect;	/* for the error: what the field may be */
	const char *bad_number; /* ... and what a number out of range is */
} link_field;

static dp_status get_link_field(jload *L, const cJSON *m, const link_field *f,
				double *out)
{
	const cJSON *v = dpi_json_member(m, f->name);
	if (!v)
		return DP_OK;
	if (cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
	    (v->valuedouble > 0 || (f->zero_ok && v->valuedouble == 0))) {
		*out = v->valuedouble / f->div;
		return DP_OK;
	}
	dp_err e;
	if (cJSON_IsString(v))
		return f->parse(v->valuestring, out, &e)
			       ? dpi_json_field_error(L, f->name, "%s", e.msg)
			       : DP_OK;
	return dpi_json_field_error(
		L, f->name, "expected %s, got %s", f->expect,
		cJSON_IsNumber(v) ? f->bad_number : dpi_json_kind(v));
}

/* The optional "machine" block: defaults for the command line. */
static dp_status read_machine(jload *L)
{
	jscan *js = &L->js;
	if (dpi_jscan_peek(js) != '{')
		return dpi_jscan_error_at(js, js->pos,
					  "machine: expected an object, got %s",
					  dpi_jscan_kind(js));
	dp_status st = dpi_jscan_value(js, &L->s, &L->e);
	if (st)
		return st;
	cJSON *m = cJSON_ParseWithLengthOpts(js->text + L->s, L->e - L->s, NULL,
					     false);
	if (!m)
		return dpi_jscan_error_at(
			js, L->s,
			"machine: cannot read this object (a \\u "
			"escape that is not valid UTF-16, or out "
			"of memory)");
	L->arr = "machine";
	L->indexed = false;
	dp_machine_hint *h = &L->g->hint;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "devices");
	if (v && !cJSON_IsNull(v)) {
		if (!cJSON_IsNumber(v) ||
		    v->valuedouble != floor(v->valuedouble) ||
		    v->valuedouble < 1 || v->valuedouble > DP_MAX_DEVICES) {
			char got[32];
			if (cJSON_IsNumber(v))
				snprintf(got, sizeof got, "%g", v->valuedouble);
			else
				snprintf(got, sizeof got, "%s",
					 dpi_json_kind(v));
			st = dpi_json_field_error(
				L, "devices",
				"expected an integer from 1 to %d, got %s",
				DP_MAX_DEVICES, got);
			goto out;
		}
		h->devices = (int)v->valuedouble;
	}
	bool given;
	int64_t mem = 0;
	if ((st = get_size(L, m, "memory", &mem, &given)))
		goto out;
	if (given)
		h->memory_bytes = mem;
	static const link_field bw = {
		"bandwidth",
		dp_units_parse_bandwidth,
		1e6,
		false,
		"bytes per second (a number > 0) or a string such as "
		"\"130GB/s\"",
		"a number <= 0"};
	static const link_field lat = {
		"latency",
		dp_units_parse_time,
		1,
		true,
		"microseconds (a number >= 0) or a string such as \"25us\"",
		"a negative number"};
	if (!(st = get_link_field(L, m, &bw, &h->bw_bytes_per_us)))
		st = get_link_field(L, m, &lat, &h->lat_us);
out:
	L->arr = NULL;
	cJSON_Delete(m);
	return st;
}

/* A top-level string member (name, format). */
static dp_status top_string(jload *L, const char *key)
{
	if (dpi_jscan_peek(&L->js) != '"')
		return dpi_jscan_error_at(&L->js, L->js.pos,
					  "%s: expected a string, got %s", key,
					  dpi_jscan_kind(&L->js));
	return dpi_jscan_string(&L->js);
}

/* A member given twice at the top level. */
static dp_status duplicate(jscan *js, size_t key_off, const char *key)
{
	return dpi_jscan_error_at(js, key_off, "duplicate member \"%s\"", key);
}

static dp_status read_top(jload *L)
{
	jscan *js = &L->js;
	jscan_iter it;
	dp_status st = dpi_jscan_object_begin(js, &it, "the top-level object");
	if (st)
		return st;
	size_t ops_at = 0, edges_at = 0, batch_at = 0;
	bool have_ops = false, have_edges = false;
	for (;;) {
		bool has;
		size_t key_off;
		if ((st = dpi_jscan_object_next(js, &it, &has, &key_off)))
			return st;
		if (!has)
			break;
		char key[16];
		snprintf(key, sizeof key, "%s", js->sbuf);
		bool known = js->slen < sizeof key;
		if (known && strcmp(key, "ops") == 0) {
			if (have_ops)
				return duplicate(js, key_off, "ops");
			have_ops = true;
			dpi_jscan_peek(js);
			ops_at = js->pos;
			if ((st = read_array(L, "ops", read_op)))
				return st;
			if (have_edges) { /* edges came first: read them now */
				size_t here = js->pos;
				js->pos = edges_at;
				if ((st = read_array(L, "edges", read_edge)))
					return st;
				js->pos = here;
			}
		} else if (known && strcmp(key, "edges") == 0) {
			if (have_edges)
				return duplicate(js, key_off, "edges");
			have_edges = true;
			dpi_jscan_peek(js);
			edges_at = js->pos;
			if (have_ops) {
				if ((st = read_array(L, "edges", read_edge)))
					return st;
			} else if ((st = dpi_jscan_value(js, NULL, NULL))) {
				return st;
			}
		} else if (known && strcmp(key, "machine") == 0) {
			if ((st = read_machine(L)))
				return st;
		} else if (known && strcmp(key, "batch_dim") == 0) {
			dpi_jscan_peek(js);
			batch_at = js->pos;
			if ((st = top_string(L, "batch_dim")))
				return st;
			dp_err e;
			if (dp_graph_set_batch_dim(L->g, js->sbuf, &e))
				return e.code == DP_EINPUT
					       ? dpi_jscan_error_at(js,
								    batch_at,
								    "%s", e.msg)
					       : dp_err_set(L->err, e.code,
							    L->path, 0, 0, "%s",
							    e.msg);
		} else if (known && strcmp(key, "name") == 0) {
			if ((st = top_string(L, "name")))
				return st;
			if (dp_graph_set_name(L->g, js->sbuf, L->err))
				return L->err ? L->err->code : DP_ENOMEM;
		} else if (known && strcmp(key, "format") == 0) {
			dpi_jscan_peek(js);
			size_t at = js->pos;
			if ((st = top_string(L, "format")))
				return st;
			if (strcmp(js->sbuf, "dnnpart-graph") != 0)
				return dpi_jscan_error_at(
					js, at,
					"format: expected \"dnnpart-graph\", "
					"got \"%s\"%s",
					js->sbuf,
					strcmp(js->sbuf, "dnnpart-placement") ==
							0
						? " (this is a placement file, "
						  "not a graph)"
						: "");
		} else if (known && strcmp(key, "version") == 0) {
			size_t s, e;
			if ((st = dpi_jscan_value(js, &s, &e)))
				return st;
			double v;
			size_t n = dp_units_scan_number(js->text + s, &v);
			if (n != e - s || v != floor(v) || v < 1)
				return dpi_jscan_error_at(
					js, s,
					"version: expected the "
					"integer 1");
			if (v > 1)
				return dpi_jscan_error_at(
					js, s,
					"version: this file is format version "
					"%.0f; this dnnpart reads version 1",
					v);
		} else if ((st = dpi_jscan_value(js, NULL, NULL))) {
			/* unknown members are ignored so the format can grow */
			return st;
		}
	}
	if ((st = dpi_jscan_end(js)))
		return st;
	if (!have_ops)
		return dpi_jscan_error_at(
			js, 0,
			"missing the \"ops\" array: a native "
			"dnnpart graph is an object with \"ops\" "
			"(and usually \"edges\")");
	if (L->g->nops == 0)
		return dpi_jscan_error_at(
			js, ops_at,
			"ops: the graph has no ops (expected at "
			"least one)");
	dp_err e;
	if (dpi_graph_check_batch_dim(L->g, &e))
		return dpi_jscan_error_at(js, batch_at, "batch_dim: %s", e.msg);
	return DP_OK;
}

dp_status dp_load_json(const char *path, const char *text, size_t len,
		       dp_graph **out, dp_err *err)
{
	jload L;
	memset(&L, 0, sizeof L);
	L.path = path;
	L.err = err;
	L.g = dp_graph_new(NULL);
	if (!L.g)
		return dp_err_set(err, DP_ENOMEM, path, 0, 0, "out of memory");
	dpi_jscan_init(&L.js, path, text, len, err);
	if (dpi_jscan_peek(&L.js) == -1) {
		dpi_jscan_free(&L.js);
		dp_graph_free(L.g);
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "empty file: expected a JSON object");
	}
	dp_status st = read_top(&L);
	dpi_jscan_free(&L.js);
	if (!st && !L.g->name[0])
		st = dpi_load_name_from_file(L.g, path, err);
	if (st) {
		if (err && !err->file[0])
			snprintf(err->file, sizeof err->file, "%s", path);
		dp_graph_free(L.g);
		return st;
	}
	*out = L.g;
	return DP_OK;
}
