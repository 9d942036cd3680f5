/* placement.c - placement files: native JSON and ParDNN .place (see
 * placement.h and docs/formats.md).
 *
 * A placement made elsewhere often leaves ops out (ParDNN's .place files
 * skip ops it pins to the CPU and ops added after profiling). Such ops get
 * the device of their heaviest placed neighbour, the device that saves the
 * most communication, so that evaluating the file measures the placement
 * its author meant rather than an artefact of the gaps.
 */
#include "dnnpart/placement.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/afile.h"
#include "dnnpart/load.h"
#include "dnnpart/levers.h"
#include "dnnpart/machine.h"
#include "dnnpart/units.h"
#include "internal/arrays.h"
#include "internal/json_file.h"
#include "internal/json_scan.h"
#include "internal/placement_lines.h"

#define UNSET (-2)

typedef struct pread {
	const char *path;
	const dp_graph *g;
	int32_t *dev; /* per op: device, -1 (CPU) or UNSET */
	/* per op, where the file placed it (0 = not placed): the line for
	 * .place, the offset + 1 for JSON (turned into a line only for a
	 * message, so that reading stays linear) */
	size_t *where;
	const char *text; /* JSON text, for offsets -> lines */
	int max_dev;
	dp_err *err;
} pread;

static void where_line_col(const pread *P, size_t where, int *line, int *col)
{
	if (P->text) {
		dp_load_line_col(P->text, where - 1, line, col);
	} else {
		*line = (int)where;
		*col = 1;
	}
}

/* Parses a device number: an integer from -1 to DP_MAX_DEVICES-1. */
static bool parse_device(const char *s, size_t n, int32_t *dev)
{
	double v;
	size_t k = dp_units_scan_number(s, &v);
	if (!k || k != n || v != floor(v) || v < -1 || v >= DP_MAX_DEVICES)
		return false;
	*dev = (int32_t)v;
	return true;
}

/* Records op name -> device placed at where (see pread); errors name the
 * line. */
static dp_status assign(pread *P, const char *name, int32_t dev, size_t where)
{
	uint32_t u = dp_graph_find(P->g, name);
	int line, col;
	if (u == UINT32_MAX) {
		where_line_col(P, where, &line, &col);
		return dp_err_set(P->err, DP_EINPUT, P->path, line, col,
				  "unknown op '%s': the graph '%s' has no op "
				  "of that name",
				  name, P->g->name);
	}
	if (P->where[u]) {
		int l0, c0;
		where_line_col(P, P->where[u], &l0, &c0);
		where_line_col(P, where, &line, &col);
		return dp_err_set(P->err, DP_EINPUT, P->path, line, col,
				  "op '%s' is placed twice (first on line %d)",
				  name, l0);
	}
	P->dev[u] = dev;
	P->where[u] = where;
	if (dev > P->max_dev)
		P->max_dev = dev;
	return DP_OK;
}

/* ParDNN .place: one "name device" per line; the device is the last
 * token, so names may contain spaces. Blank lines and '#' comments are
 * skipped. */
static dp_status read_place(pread *P, char *text)
{
	int line = 0;
	char *p = text;
	while (*p) {
		line++;
		char *eol = strchr(p, '\n');
		char *next = eol ? eol + 1 : p + strlen(p);
		if (eol)
			*eol = '\0';
		char *e = p + strlen(p);
		while (e > p && isspace((unsigned char)e[-1]))
			*--e = '\0';
		char *s = p;
		while (isspace((unsigned char)*s))
			s++;
		if (*s && *s != '#') {
			char *sp = e;
			while (sp > s && !isspace((unsigned char)sp[-1]))
				sp--;
			if (sp == s)
				return dp_err_set(P->err, DP_EINPUT, P->path,
						  line, 1,
						  "expected 'NAME DEVICE' (an "
						  "op name, a space and a "
						  "device number), got '%.60s'",
						  s);
			int32_t dev;
			if (!parse_device(sp, strlen(sp), &dev))
				return dp_err_set(
					P->err, DP_EINPUT, P->path, line,
					(int)(sp - p) + 1,
					"bad device '%.40s': expected "
					"an integer from -1 (CPU) to "
					"%d",
					sp, DP_MAX_DEVICES - 1);
			char *ne = sp;
			while (ne > s && isspace((unsigned char)ne[-1]))
				ne--;
			*ne = '\0';
			dp_status st = assign(P, s, dev, (size_t)line);
			if (st)
				return st;
		}
		p = next;
	}
	return DP_OK;
}

/* The "placement" object of the native JSON: {"op": device, ...}. */
static dp_status read_json_map(pread *P, jscan *js, size_t *max_off)
{
	jscan_iter it;
	dp_status st = dpi_jscan_object_begin(js, &it, "placement");
	if (st)
		return st;
	char *name = NULL;
	size_t cap = 0;
	size_t key_off;
	while (dpi_jscan_member(js, &it, &key_off, &st)) {
		/* keep the name: scanning the value reuses js->sbuf */
		if (js->slen + 1 > cap) {
			char *q = realloc(name, js->slen + 1);
			if (!q) {
				st = dp_err_set(P->err, DP_ENOMEM, P->path, 0,
						0, "out of memory");
				break;
			}
			name = q;
			cap = js->slen + 1;
		}
		memcpy(name, js->sbuf, js->slen + 1);
		size_t s, e;
		if ((st = dpi_jscan_value(js, &s, &e)))
			break;
		int32_t dev;
		if (js->text[s] == '"' || js->text[s] == '{' ||
		    js->text[s] == '[' ||
		    !parse_device(js->text + s, e - s, &dev)) {
			st = dpi_jscan_error_at(
				js, s,
				"placement of '%s': expected a "
				"device number from -1 (CPU) to %d",
				name, DP_MAX_DEVICES - 1);
			break;
		}
		int prev_max = P->max_dev;
		if ((st = assign(P, name, dev, key_off + 1)))
			break;
		if (dev > prev_max)
			*max_off = s; /* first entry with the largest device */
	}
	free(name);
	return st;
}

static dp_status read_json(pread *P, const char *text, size_t len, int *devices,
			   char *algo, size_t algo_size)
{
	jscan js;
	dpi_jscan_init(&js, P->path, text, len, P->err);
	P->text = text;
	jscan_iter it;
	bool seen_map = false;
	size_t max_off = 0, dev_off = 0;
	dp_status st = dpi_jscan_object_begin(&js, &it, "the top-level object");
	while (dpi_jscan_member(&js, &it, NULL, &st)) {
		char key[16];
		bool known = js.slen < sizeof key;
		snprintf(key, sizeof key, "%s", js.sbuf);
		int next = dpi_jscan_peek(&js);
		size_t at = js.pos;
		if (known && strcmp(key, "placement") == 0) {
			seen_map = true;
			st = read_json_map(P, &js, &max_off);
		} else if (known && strcmp(key, "format") == 0) {
			if ((st = dpi_jscan_string(&js)))
				break;
			if (strcmp(js.sbuf, "dnnpart-placement") != 0)
				st = dpi_jscan_error_at(
					&js, at,
					"format: expected "
					"\"dnnpart-placement\", got \"%s\"%s",
					js.sbuf,
					strcmp(js.sbuf, "dnnpart-graph") == 0
						? " (this is a graph file, "
						  "not a placement)"
						: "");
		} else if (known && strcmp(key, "algorithm") == 0 &&
			   next == '"') {
			/* what made the placement, for the titles of its
			 * exports; anything but a string is ignored */
			if ((st = dpi_jscan_string(&js)))
				break;
			snprintf(algo, algo_size, "%s", js.sbuf);
		} else if (known && strcmp(key, "levers") == 0 &&
			   next == '"') {
			if ((st = dpi_jscan_string(&js)))
				break;
			dp_err e;
			if (dp_levers_check_file(P->g, js.sbuf, &e))
				st = dpi_jscan_error_at(&js, at, "%s", e.msg);
		} else if (known && strcmp(key, "devices") == 0) {
			size_t s, e;
			double v;
			if ((st = dpi_jscan_value(&js, &s, &e)))
				break;
			size_t k = dp_units_scan_number(text + s, &v);
			if (k != e - s || v != floor(v) || v < 1 ||
			    v > DP_MAX_DEVICES)
				st = dpi_jscan_error_at(&js, s,
							"devices: expected an "
							"integer from 1 to %d",
							DP_MAX_DEVICES);
			else
				*devices = (int)v;
			dev_off = s;
		} else {
			st = dpi_jscan_value(&js, NULL, NULL);
		}
	}
	if (!st)
		st = dpi_jscan_end(&js);
	if (!st && !seen_map)
		st = dpi_jscan_error_at(
			&js, 0,
			"missing the \"placement\" object: a "
			"placement file maps op names to devices, "
			"{\"placement\": {\"op\": 0, ...}}");
	if (!st && *devices > 0 && P->max_dev >= *devices) {
		int line, col;
		dp_load_line_col(text, max_off, &line, &col);
		int dl, dc;
		dp_load_line_col(text, dev_off, &dl, &dc);
		st = dp_err_set(P->err, DP_EINPUT, P->path, line, col,
				"device %d is out of range: the file says "
				"\"devices\": %d on line %d (devices 0 to %d)",
				P->max_dev, *devices, dl, *devices - 1);
	}
	dpi_jscan_free(&js);
	return st;
}

/* Gives every unplaced op (UNSET or -1) the device of its heaviest placed
 * neighbour: largest edge bytes, ties to the smallest op id, over in- and
 * out-edges. First only ops the file placed count; then, for ops with no
 * such neighbour, a topological pass (so chains of omitted ops follow their
 * producers), a reverse pass (so omitted sources follow their consumers),
 * and device 0 for whole components the file left out. */
static void fill_omitted(const dp_graph *g, int32_t *dev,
			 const int32_t *file_dev)
{
	uint32_t n = g->nops;
	for (int pass = 0; pass < 3; pass++) {
		for (uint32_t k = 0; k < n; k++) {
			uint32_t u = pass == 0	 ? k
				     : pass == 1 ? g->topo[k]
						 : g->topo[n - 1 - k];
			if (dev[u] >= 0)
				continue;
			const int32_t *from = pass == 0 ? file_dev : dev;
			int64_t best_bytes = -1;
			uint32_t best_op = UINT32_MAX;
			for (int dir = 0; dir < 2; dir++) {
				const uint32_t *off =
					dir ? g->pred_off : g->succ_off;
				const uint32_t *idx =
					dir ? g->pred_edge : g->succ_edge;
				for (uint32_t i = off[u]; i < off[u + 1]; i++) {
					const dp_edge *e = &g->edges[idx[i]];
					uint32_t v = dir ? e->from : e->to;
					if (from[v] < 0)
						continue;
					if (e->bytes > best_bytes ||
					    (e->bytes == best_bytes &&
					     v < best_op)) {
						best_bytes = e->bytes;
						best_op = v;
					}
				}
			}
			if (best_op != UINT32_MAX)
				dev[u] = from[best_op];
		}
	}
	for (uint32_t u = 0; u < n; u++)
		if (dev[u] < 0)
			dev[u] = 0;
}

dp_status dp_placement_read(const char *path, const dp_graph *g,
			    int32_t *placement, dp_placement_info *info,
			    dp_err *err)
{
	dp_placement_info inf;
	memset(&inf, 0, sizeof inf);
	char *text;
	size_t len;
	dp_status st = dp_load_read_file(path, 0, &text, &len, err);
	if (st)
		return st;
	pread P = {path, g, NULL, NULL, NULL, -1, err};
	P.dev = malloc(((size_t)g->nops + 1) * sizeof *P.dev);
	P.where = calloc((size_t)g->nops + 1, sizeof *P.where);
	int32_t *file_dev = malloc(((size_t)g->nops + 1) * sizeof *file_dev);
	if (!P.dev || !P.where || !file_dev) {
		st = dp_err_set(err, DP_ENOMEM, path, 0, 0, "out of memory");
		goto out;
	}
	for (uint32_t u = 0; u < g->nops; u++)
		P.dev[u] = UNSET;
	const char *p = text;
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '\0') {
		st = dp_err_set(err, DP_EINPUT, path, 0, 0,
				"empty file: expected a placement (native "
				"JSON or 'NAME DEVICE' lines)");
		goto out;
	}
	int devices = 0;
	st = *p == '{' ? read_json(&P, text, len, &devices, inf.algorithm,
				   sizeof inf.algorithm)
		       : read_place(&P, text);
	if (st)
		goto out;
	for (uint32_t u = 0; u < g->nops; u++) {
		if (P.dev[u] == UNSET)
			inf.omitted++;
		else if (P.dev[u] == -1)
			inf.cpu_pinned++;
		file_dev[u] = P.dev[u];
	}
	fill_omitted(g, P.dev, file_dev);
	memcpy(placement, P.dev, (size_t)g->nops * sizeof *placement);
	inf.devices = devices > 0 ? devices : P.max_dev + 1;
	inf.devices_stated = devices > 0;
	if (inf.devices < 1)
		inf.devices = 1;
	if (info)
		*info = inf;
out:
	DPI_FREE_ALL(text, P.dev, P.where, file_dev);
	return st;
}

dp_status dp_placement_write_json(const char *path, const dp_graph *g,
				  const dp_plan *plan, dp_err *err)
{
	if (plan->lowered)
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "this plan is the strategy '%s', which "
				  "splits ops or micro-batches: save it as a "
				  "strategy file (.strategy.json), not as a "
				  "placement",
				  plan->strategy);
	dp_afile af;
	dp_json w;
	dp_status st = dpi_json_file_begin(&af, &w, path, "dnnpart-placement",
					   g->name, err);
	if (st)
		return st;
	dp_json_int(&w, "devices", plan->k);
	dp_json_str(&w, "algorithm", plan->algo);
	if (g->levers)
		dp_json_str(&w, "levers", dp_graph_levers(g));
	dp_json_begin_object(&w, "placement");
	for (uint32_t u = 0; u < g->nops; u++)
		dp_json_int(&w, dp_graph_op_name(g, u), plan->placement[u]);
	dp_json_end_object(&w);
	dp_json_begin_object(&w, "metrics");
	dp_plan_write_metrics(&w, g, plan);
	dp_json_end_object(&w);
	dp_json_end_object(&w);
	return dp_afile_commit(&af, err);
}

dp_status dpi_placement_write_lines(const char *path, const dp_graph *g,
				    const int32_t *placement,
				    const char *device_prefix, const char *what,
				    dp_err *err)
{
	/* one line per op: a name with a line break cannot be written */
	for (uint32_t u = 0; u < g->nops; u++)
		if (strpbrk(dp_graph_op_name(g, u), "\n\r"))
			return dp_err_set(err, DP_EINPUT, path, 0, 0,
					  "op #%u's name contains a line "
					  "break, which %s cannot hold; write "
					  "the placement as JSON instead",
					  u, what);
	dp_afile af;
	dp_status st = dp_afile_open(&af, path, err);
	if (st)
		return st;
	for (uint32_t u = 0; u < g->nops; u++)
		fprintf(af.f, "%s%s%d\n", dp_graph_op_name(g, u), device_prefix,
			(int)placement[u]);
	return dp_afile_commit(&af, err);
}

dp_status dp_placement_write_place(const char *path, const dp_graph *g,
				   const int32_t *placement, dp_err *err)
{
	return dpi_placement_write_lines(path, g, placement, " ",
					 "a line of a .place file", err);
}
