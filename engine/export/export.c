/* export.c - export kinds, dispatch, and what the writers share: the frame
 * of a picture, Graphviz label text, the device palette. Numbers go through
 * dnnpart/units.h, JSON through dnnpart/json.h. See export.h and
 * engine/internal/export_impl.h. */
#include "dnnpart/export.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dnnpart/placement.h"
#include "internal/export_impl.h"
#include "internal/utf8.h"

/* ---- kinds ---- */

static const struct {
	const char *suffix;
	dp_export_kind kind;
} suffixes[] = {
	/* longer suffixes first: "x.devmap.json" is a map, not a placement */
	{".devmap.json", DP_EXPORT_DEVMAP_TORCH},
	{".torch.json", DP_EXPORT_DEVMAP_TORCH},
	{".tf.txt", DP_EXPORT_DEVMAP_TF},
	{".trace.json", DP_EXPORT_TRACE},
	{".pippy.py", DP_EXPORT_PIPPY},
	{".megatron.sh", DP_EXPORT_MEGATRON},
	{".deepspeed.json", DP_EXPORT_DEEPSPEED},
	{".torch.py", DP_EXPORT_TORCHWRAP},
	{".dot", DP_EXPORT_DOT},
	{".gv", DP_EXPORT_DOT},
	{".svg", DP_EXPORT_SVG},
	{".png", DP_EXPORT_PNG},
	{".pdf", DP_EXPORT_PDF},
	{".json", DP_EXPORT_JSON},
	{".place", DP_EXPORT_PLACE},
	{".csv", DP_EXPORT_CSV},
};

static bool ends_with_ci(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && strcasecmp(s + n - m, suffix) == 0;
}

dp_status dp_export_kind_from_path(const char *path, dp_export_kind *kind,
				   dp_err *err)
{
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
		if (ends_with_ci(path, suffixes[i].suffix)) {
			*kind = suffixes[i].kind;
			return DP_OK;
		}
	return dp_err_set(err, DP_EINPUT, path, 0, 0,
			  "cannot tell the export format from the file name; "
			  "expected one of .dot .gv .svg .png .pdf .json "
			  ".place .csv .devmap.json (PyTorch device map) "
			  ".tf.txt (TensorFlow device strings) .trace.json "
			  "(Chrome / Perfetto trace) .pippy.py "
			  "(torch.distributed.pipelining split) .megatron.sh "
			  "(Megatron-LM arguments) .deepspeed.json (DeepSpeed "
			  "config) .torch.py (PyTorch DDP / FSDP wrapping)");
}

const char *dp_export_kind_name(dp_export_kind kind)
{
	switch (kind) {
	case DP_EXPORT_DOT:
		return "DOT";
	case DP_EXPORT_SVG:
		return "SVG";
	case DP_EXPORT_JSON:
		return "placement JSON";
	case DP_EXPORT_PLACE:
		return "ParDNN .place";
	case DP_EXPORT_CSV:
		return "CSV schedule";
	case DP_EXPORT_DEVMAP_TORCH:
		return "PyTorch device map";
	case DP_EXPORT_DEVMAP_TF:
		return "TensorFlow device strings";
	case DP_EXPORT_PNG:
		return "PNG";
	case DP_EXPORT_PDF:
		return "PDF";
	case DP_EXPORT_TRACE:
		return "Perfetto trace";
	case DP_EXPORT_PIPPY:
		return "PiPPy split";
	case DP_EXPORT_MEGATRON:
		return "Megatron-LM arguments";
	case DP_EXPORT_DEEPSPEED:
		return "DeepSpeed config";
	case DP_EXPORT_TORCHWRAP:
		return "PyTorch wrapping";
	}
	return "unknown";
}

void dp_export_opts_default(dp_export_opts *o)
{
	o->coarsen = DP_COARSEN_AUTO;
	o->max_nodes = DP_EXPORT_MAX_NODES;
	o->timeout_s = DP_EXPORT_TIMEOUT_S;
	o->layout = NULL;
}

dp_status dp_export_coarsen_parse(const char *s, dp_export_coarsen *c,
				  dp_err *err)
{
	if (strcmp(s, "auto") == 0)
		*c = DP_COARSEN_AUTO;
	else if (strcmp(s, "never") == 0)
		*c = DP_COARSEN_NEVER;
	else if (strcmp(s, "always") == 0)
		*c = DP_COARSEN_ALWAYS;
	else
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "bad coarsening '%s': expected auto, never "
				  "or always",
				  s);
	return DP_OK;
}

/* ---- dispatch ---- */

static dp_status check_plan(const dp_graph *g, const dp_machine *m,
			    const dp_plan *plan, dp_err *err)
{
	if (!g->finalized)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "export: the graph is not finalized");
	if (plan->nops != g->nops || plan->sim.nops != g->nops)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "export: the plan has %u ops but the graph "
				  "has %u",
				  plan->nops, g->nops);
	if (m && m->k != plan->k)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "export: the plan has %d devices but the "
				  "machine has %d",
				  plan->k, m->k);
	for (uint32_t u = 0; u < g->nops; u++)
		if (plan->placement[u] < 0 || plan->placement[u] >= plan->k)
			return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
					  "export: op '%s' is on device %d, "
					  "outside 0..%d",
					  dp_graph_op_name(g, u),
					  plan->placement[u], plan->k - 1);
	return DP_OK;
}

dp_status dp_export_write_opts(const char *path, dp_export_kind kind,
			       const dp_graph *g, const dp_machine *m,
			       const dp_plan *plan, const dp_export_opts *opts,
			       const dp_progress *progress,
			       dp_export_report *report, dp_err *err)
{
	/* a strategy's plan places the ops of its lowered graph; the
	 * pipeline exports read the stages of the user's */
	const dp_graph *user = g;
	g = dp_plan_graph(plan, g);
	dp_export_opts o;
	dp_export_report scratch;
	dp_export_report *rep = report ? report : &scratch;
	memset(rep, 0, sizeof *rep);
	if (opts)
		o = *opts;
	else
		dp_export_opts_default(&o);
	if (o.max_nodes == 0)
		o.max_nodes = DP_EXPORT_MAX_NODES;
	if (o.max_nodes < 16)
		o.max_nodes = 16;
	if (!(o.timeout_s > 0))
		o.timeout_s = DP_EXPORT_TIMEOUT_S;

	dp_status st = check_plan(g, m, plan, err);
	if (st)
		return st;
	if (dp_progress_canceled(progress))
		return dp_err_set(err, DP_ECANCELED, path, 0, 0,
				  "export canceled; no file written");
	switch (kind) {
	case DP_EXPORT_DOT:
		return dpi_export_dot_write(path, g, m, plan, &o, progress, rep,
					    err);
	case DP_EXPORT_SVG:
	case DP_EXPORT_PNG:
	case DP_EXPORT_PDF:
		return dpi_export_svg_write(path, kind, g, m, plan, &o,
					    progress, rep, err);
	case DP_EXPORT_TRACE:
		return dpi_export_trace_write(path, g, user, m, plan, &o, progress,
					      rep, err);
	case DP_EXPORT_JSON:
		rep->entries = g->nops;
		return dp_placement_write_json(path, g, plan, err);
	case DP_EXPORT_PLACE:
		rep->entries = g->nops;
		return dp_placement_write_place(path, g, plan->placement, err);
	case DP_EXPORT_CSV:
		return dpi_export_csv_write(path, g, plan, rep, err);
	case DP_EXPORT_DEVMAP_TORCH:
		return dpi_export_torch_write(path, g, plan, rep, err);
	case DP_EXPORT_DEVMAP_TF:
		return dpi_export_tf_write(path, g, plan, rep, err);
	case DP_EXPORT_PIPPY:
	case DP_EXPORT_MEGATRON:
		return dpi_export_pipe_write(path, kind, user, plan, rep, err);
	case DP_EXPORT_DEEPSPEED:
		return dpi_export_deepspeed_write(path, user, plan, rep, err);
	case DP_EXPORT_TORCHWRAP:
		return dpi_export_torchwrap_write(path, user, plan, rep, err);
	}
	return dp_err_set(err, DP_EINTERNAL, path, 0, 0,
			  "export: unknown kind %d", (int)kind);
}

dp_status dp_export_write(const char *path, dp_export_kind kind,
			  const dp_graph *g, const dp_machine *m,
			  const dp_plan *plan, const dp_progress *progress,
			  dp_err *err)
{
	return dp_export_write_opts(path, kind, g, m, plan, NULL, progress,
				    NULL, err);
}

/* ---- the frame of a picture (DOT, SVG) ---- */

/* What a picture's report says: nodes, edges, the grouping and a note when
 * ops were grouped. */
static void report_picture(const dp_coarse *c, const dp_graph *g,
			   const char *path, dp_export_report *rep)
{
	rep->coarsened = c->method != DP_COARSE_NONE;
	rep->nodes = c->n;
	rep->edges = c->nedges;
	dpi_coarsen_describe(c, rep->method, sizeof rep->method);
	if (rep->coarsened)
		snprintf(rep->note, sizeof rep->note,
			 "%s: %u ops drawn as %u nodes, %s", path, g->nops,
			 c->n, rep->method);
}

dp_status dpi_export_picture(const dpi_picture_job *j, uint32_t auto_limit,
			     dpi_picture_body body, dp_err *err)
{
	const char *path = j->path;
	const dp_graph *g = j->g;
	const dp_progress *p = j->p;
	dp_coarse c;
	dp_progress_report(p, "preparing the picture", 0.0);
	dp_status st =
		dpi_coarsen_build(g, j->plan, j->o->coarsen, j->o->max_nodes,
				  auto_limit, p, &c, err);
	if (st)
		return st;
	dp_afile af;
	st = dp_afile_open(&af, path, err);
	if (!st) {
		st = body(j, &c, &af, err);
		if (!st && dp_progress_canceled(p))
			st = dp_err_set(err, DP_ECANCELED, path, 0, 0,
					"export canceled; no file written");
		if (st)
			dp_afile_abort(&af);
		else
			st = dp_afile_commit(&af, err);
	}
	if (!st) {
		report_picture(&c, g, path, j->rep);
		dp_progress_report(p, "done", 1.0);
	}
	dpi_coarsen_free(&c);
	return st;
}

/* ---- Graphviz label text ---- */

void dpi_sbuf_reset(dpi_sbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

void dpi_sbuf_free(dpi_sbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

static bool sbuf_reserve(dpi_sbuf *b, size_t extra)
{
	if (b->oom)
		return false;
	if (b->len + extra + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 128;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *s = realloc(b->s, cap);
	if (!s) {
		b->oom = true;
		return false;
	}
	b->s = s;
	b->cap = cap;
	return true;
}

static void sbuf_putn(dpi_sbuf *b, const char *s, size_t n)
{
	if (!sbuf_reserve(b, n))
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void dpi_sbuf_puts(dpi_sbuf *b, const char *s)
{
	sbuf_putn(b, s, strlen(s));
}

void dpi_sbuf_printf(dpi_sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !sbuf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void dpi_sbuf_put_label(dpi_sbuf *b, const char *s, size_t max_chars)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t chars = 0;
	while (*p) {
		if (max_chars && chars == max_chars) {
			dpi_sbuf_puts(b, "...");
			return;
		}
		int n = dpi_utf8_seq_len((const char *)p);
		if (n == 0) {
			dpi_sbuf_puts(b, "\xEF\xBF\xBD");
			p++;
		} else if (n > 1) {
			sbuf_putn(b, (const char *)p, (size_t)n);
			p += n;
		} else if (*p == '\\') {
			dpi_sbuf_puts(b, "\\\\");
			p++;
		} else if (*p < 0x20 || *p == 0x7F) {
			dpi_sbuf_puts(b, "?");
			p++;
		} else {
			sbuf_putn(b, (const char *)p, 1);
			p++;
		}
		chars++;
	}
}

/* ---- palette ---- */

/* ordered so that neighbouring devices differ most */
static const char *const tol_light[] = {
	"#77AADD", "#EE8866", "#44BB99", "#EEDD88", "#FFAABB",
	"#99DDFF", "#BBCC33", "#AAAA00", "#DDDDDD",
};
/* tol_light mixed 75% with white */
static const char *const tol_light_tint[] = {
	"#DDEAF6", "#FBE1D9", "#D0EEE6", "#FBF6E1", "#FFEAEE",
	"#E6F6FF", "#EEF2CC", "#EAEABF", "#F6F6F6",
};
#define NPALETTE (sizeof tol_light / sizeof tol_light[0])

const char *dpi_export_device_color(int dev)
{
	return tol_light[(size_t)(dev < 0 ? 0 : dev) % NPALETTE];
}

const char *dpi_export_device_tint(int dev)
{
	return tol_light_tint[(size_t)(dev < 0 ? 0 : dev) % NPALETTE];
}
