/* test_sim_cases.c - the simulator's hand-computed cases, read from data.
 *
 * Each file tests/sim/NAME.case holds one small graph, a machine, a
 * placement and what the simulator must give, worked out by hand in the
 * file's comments (rules: DESIGN.md 3.1, docs/simulator.md). This runner
 * reads every case, runs the simulator and prints "ok - sim/NAME" or
 * "not ok - sim/NAME: FILE:LINE: what differed". A malformed line is a
 * failure naming the file and line. tests/sim/README says the format.
 *
 * Lines, in order of use ('#' starts a comment; words are separated by
 * blanks; NAME=VALUE words may come in any order):
 *   op NAME TIME OUT [param=B] [temp=B] [group=G]
 *   edge FROM TO [bytes=B] [control]
 *   machine k=K bw=BYTES_PER_US lat=US [cap.D=B] [speed.D=S]
 *   place D D ...                   a device per op, in the order of `op`
 *   run port|none|both              simulate (both: each check below holds
 *                                   under both contention models)
 *   set cap.D=B | temp.OP=B         change the machine or an op, then `run`
 * Checks (after `run`, except rank, bounds and groups):
 *   makespan T | start OP T | end OP T | avail OP T | duration OP T
 *   transfers N | xfer I|* [op=OP] [src=D] [dst=D] [bytes=B] [start=T]
 *     [end=T] | cut_edges N | cut_bytes B | feasible yes|no | groups N
 *   dev D [peak=B] [peak_time=T] [ops=N] [busy=T] [params=B] [cap=B]
 *     [comm_out_bytes=B] [comm_out_us=T] [comm_in_bytes=B] [xfers_in=N]
 *   curve D T:B T:B ...             the device's whole memory curve
 *   live D ITEM ...                 the tensors live at the device's peak,
 *     ITEM = KIND[:OP][@ALLOC-FREE][=BYTES] (KIND param, output, temp or
 *     copy; an empty ALLOC or FREE is not checked)
 *   cp_len N | cp I OP[:CAUSE]      the schedule's critical path, first op
 *     first (CAUSE start, data, transfer or device)
 *   rank OP T                       upward rank on the current machine
 *   bounds [cp=T] [work=T] [lb=T] [one=T]
 * A time T may end in ~EPS for a tolerance; times are otherwise exact.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"
#include "lib/testlib.h"

#define MAX_K 8
#define MAX_WORDS 40
#define SIM_DIR "tests/sim"

typedef struct scase {
	const char *file;
	int line;
	dp_graph *g;
	bool finalized;
	dp_machine m;
	int64_t cap[MAX_K];
	double speed[MAX_K];
	int32_t *place;
	uint32_t nplace;
	dp_sim_result r[2]; /* port, none */
	int nruns;	    /* 0, 1 (port or none) or 2 (both) */
	int run_cont[2];
	char why[600]; /* the first failure */
} scase;

/* Records the first failure of the case; returns false. */
static bool fail(scase *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static bool fail(scase *c, const char *fmt, ...)
{
	if (c->why[0])
		return false;
	int n = snprintf(c->why, sizeof c->why, "%s:%d: ", c->file, c->line);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->why + n, sizeof c->why - (size_t)n, fmt, ap);
	va_end(ap);
	return false;
}

static bool num(scase *c, const char *s, double *v, double *eps)
{
	char *end;
	*v = strtod(s, &end);
	if (eps)
		*eps = 0;
	if (eps && *end == '~')
		*eps = strtod(end + 1, &end);
	if (end == s || *end)
		return fail(c, "expected a number, got '%s'", s);
	return true;
}

static bool integer(scase *c, const char *s, long long *v)
{
	char *end;
	*v = strtoll(s, &end, 10);
	if (end == s || *end)
		return fail(c, "expected a whole number, got '%s'", s);
	return true;
}

static bool op_id(scase *c, const char *name, uint32_t *id)
{
	*id = dp_graph_find(c->g, name);
	if (*id == UINT32_MAX)
		return fail(c, "no op named '%s'", name);
	return true;
}

/* The value of NAME=VALUE among words w[from..n), or NULL. */
static const char *kv(char **w, int n, int from, const char *name)
{
	size_t l = strlen(name);
	for (int i = from; i < n; i++)
		if (!strncmp(w[i], name, l) && w[i][l] == '=')
			return w[i] + l + 1;
	return NULL;
}

static bool same_t(scase *c, const char *what, double got, const char *want)
{
	double v, eps;
	if (!num(c, want, &v, &eps))
		return false;
	if (!(got >= v - eps && got <= v + eps))
		return fail(c, "%s: got %.17g, want %s", what, got, want);
	return true;
}

static bool same_i(scase *c, const char *what, long long got, const char *want)
{
	long long v;
	if (!integer(c, want, &v))
		return false;
	if (got != v)
		return fail(c, "%s: got %lld, want %lld", what, got, v);
	return true;
}

static bool device(scase *c, const char *s, int *d)
{
	long long v;
	if (!integer(c, s, &v))
		return false;
	if (v < 0 || v >= c->m.k)
		return fail(c, "device %lld is not one of the machine's %d", v,
			    c->m.k);
	*d = (int)v;
	return true;
}

/* ---- building ---- */

static bool line_op(scase *c, char **w, int n)
{
	if (n < 4)
		return fail(c, "op NAME TIME OUT [param=B] [temp=B] [group=G]");
	uint32_t id;
	dp_err err;
	if (dp_graph_add_op(c->g, w[1], &id, &err))
		return fail(c, "%s", err.msg);
	double t;
	long long out, p = 0, tmp = 0;
	if (!num(c, w[2], &t, NULL) || !integer(c, w[3], &out))
		return false;
	const char *v;
	if ((v = kv(w, n, 4, "param")) && !integer(c, v, &p))
		return false;
	if ((v = kv(w, n, 4, "temp")) && !integer(c, v, &tmp))
		return false;
	dp_op *o = &c->g->ops[id];
	o->time_us = t;
	o->output_bytes = out;
	o->param_bytes = p;
	o->temp_bytes = tmp;
	if ((v = kv(w, n, 4, "group")) &&
	    dp_graph_set_colocate(c->g, id, v, &err))
		return fail(c, "%s", err.msg);
	return true;
}

static bool line_edge(scase *c, char **w, int n)
{
	uint32_t a, b;
	if (n < 3)
		return fail(c, "edge FROM TO [bytes=B] [control]");
	if (!op_id(c, w[1], &a) || !op_id(c, w[2], &b))
		return false;
	long long bytes = -1;
	const char *v = kv(w, n, 3, "bytes");
	if (v && !integer(c, v, &bytes))
		return false;
	bool control = n > 3 && !strcmp(w[n - 1], "control");
	dp_err err;
	if (dp_graph_add_edge(c->g, a, b, bytes, control, &err))
		return fail(c, "%s", err.msg);
	return true;
}

/* cap.D=B or speed.D=S words from index from on; temp.OP=B with ops. */
static bool settings(scase *c, char **w, int n, int from)
{
	for (int i = from; i < n; i++) {
		int d;
		char dev[16];
		const char *eq = strchr(w[i], '=');
		if (!eq)
			return fail(c, "expected NAME=VALUE, got '%s'", w[i]);
		if (!strncmp(w[i], "temp.", 5)) {
			char name[128];
			snprintf(name, sizeof name, "%.*s",
				 (int)(eq - w[i] - 5), w[i] + 5);
			uint32_t id;
			long long b;
			if (!op_id(c, name, &id) || !integer(c, eq + 1, &b))
				return false;
			c->g->ops[id].temp_bytes = b;
			continue;
		}
		const char *dot = strchr(w[i], '.');
		if (!dot || dot > eq)
			continue; /* k=, bw=, lat= are read by the caller */
		snprintf(dev, sizeof dev, "%.*s", (int)(eq - dot - 1), dot + 1);
		if (!device(c, dev, &d))
			return false;
		if (!strncmp(w[i], "cap.", 4)) {
			long long b;
			if (!integer(c, eq + 1, &b))
				return false;
			c->cap[d] = b;
		} else if (!strncmp(w[i], "speed.", 6)) {
			if (!num(c, eq + 1, &c->speed[d], NULL))
				return false;
		} else {
			return fail(c, "unknown setting '%s'", w[i]);
		}
	}
	return true;
}

static bool line_machine(scase *c, char **w, int n)
{
	const char *k = kv(w, n, 1, "k"), *bw = kv(w, n, 1, "bw"),
		   *lat = kv(w, n, 1, "lat");
	long long kk;
	if (!k || !bw || !lat)
		return fail(c, "machine k=K bw=B lat=T [cap.D=B] [speed.D=S]");
	if (!integer(c, k, &kk) || !num(c, bw, &c->m.bw, NULL) ||
	    !num(c, lat, &c->m.lat, NULL))
		return false;
	if (kk < 1 || kk > MAX_K)
		return fail(c, "k must be 1..%d", MAX_K);
	c->m.k = (int)kk;
	for (int d = 0; d < MAX_K; d++) {
		c->cap[d] = DP_CAP_UNLIMITED;
		c->speed[d] = 1.0;
	}
	return settings(c, w, n, 1);
}

static bool line_place(scase *c, char **w, int n)
{
	free(c->place);
	c->nplace = (uint32_t)(n - 1);
	c->place = calloc(c->nplace + 1, sizeof *c->place);
	for (int i = 1; i < n; i++) {
		long long d;
		if (!integer(c, w[i], &d))
			return false;
		c->place[i - 1] = (int32_t)d;
	}
	return true;
}

static bool finalize(scase *c)
{
	if (c->finalized)
		return true;
	dp_err err;
	if (dp_graph_finalize(c->g, &err))
		return fail(c, "finalize: %s", err.msg);
	c->finalized = true;
	return true;
}

static bool line_run(scase *c, char **w, int n)
{
	if (n != 2)
		return fail(c, "run port|none|both");
	if (!finalize(c))
		return false;
	if (c->nplace != c->g->nops)
		return fail(c, "place has %u devices for %u ops", c->nplace,
			    c->g->nops);
	int conts[2], nc = 0;
	if (!strcmp(w[1], "port") || !strcmp(w[1], "both"))
		conts[nc++] = DP_CONT_PORT;
	if (!strcmp(w[1], "none") || !strcmp(w[1], "both"))
		conts[nc++] = DP_CONT_NONE;
	if (!nc)
		return fail(c, "run port|none|both, got '%s'", w[1]);
	for (int i = 0; i < nc; i++) {
		dp_err err;
		dp_sim *s = dp_sim_new(c->g, &c->m, &err);
		if (!s)
			return fail(c, "dp_sim_new: %s", err.msg);
		dp_sim_opts o = {.contention = (dp_contention)conts[i],
				 .detail = true};
		dp_status st = dp_sim_run(s, c->place, &o, &c->r[i], &err);
		dp_sim_free(s);
		if (st)
			return fail(c, "dp_sim_run: %s", err.msg);
		c->run_cont[i] = conts[i];
	}
	c->nruns = nc;
	return true;
}

/* ---- checks on one run ---- */

static const char *const kinds[] = {"param", "output", "temp", "copy"};
static const dp_mem_kind kind_vals[] = {DP_MEM_PARAM, DP_MEM_OUTPUT,
					DP_MEM_TEMP, DP_MEM_COPY};
static const char *const causes[] = {"start", "data", "transfer", "device"};

static bool check_xfer(scase *c, const dp_sim_result *r, char **w, int n)
{
	uint32_t lo = 0, hi = r->nxfers;
	if (strcmp(w[1], "*")) {
		long long i;
		if (!integer(c, w[1], &i))
			return false;
		if (i < 0 || (uint32_t)i >= r->nxfers)
			return fail(c, "transfer %lld: there are %u", i,
				    r->nxfers);
		lo = (uint32_t)i;
		hi = lo + 1;
	}
	for (uint32_t i = lo; i < hi; i++) {
		const dp_transfer *x = &r->xfers[i];
		const char *v;
		uint32_t id;
		char what[64];
		snprintf(what, sizeof what, "transfer %u", i);
		if ((v = kv(w, n, 2, "op"))) {
			if (!op_id(c, v, &id))
				return false;
			if (x->op != id)
				return fail(c, "%s: op '%s', want '%s'", what,
					    dp_graph_op_name(c->g, x->op), v);
		}
		if ((v = kv(w, n, 2, "src")) && !same_i(c, what, x->src, v))
			return false;
		if ((v = kv(w, n, 2, "dst")) && !same_i(c, what, x->dst, v))
			return false;
		if ((v = kv(w, n, 2, "bytes")) && !same_i(c, what, x->bytes, v))
			return false;
		if ((v = kv(w, n, 2, "start")) && !same_t(c, what, x->start, v))
			return false;
		if ((v = kv(w, n, 2, "end")) && !same_t(c, what, x->end, v))
			return false;
	}
	return true;
}

static bool check_dev(scase *c, const dp_sim_result *r, char **w, int n)
{
	int d;
	if (n < 3 || !device(c, w[1], &d))
		return n < 3 ? fail(c, "dev D NAME=VALUE...") : false;
	const dp_device_stats *s = &r->dev[d];
	static const char *const tnames[] = {"peak_time", "busy",
					     "comm_out_us"};
	const double tvals[] = {s->peak_time, s->busy_us, s->comm_out_us};
	static const char *const inames[] = {
		"peak",		  "ops",	   "params",  "cap",
		"comm_out_bytes", "comm_in_bytes", "xfers_in"};
	const long long ivals[] = {s->peak_bytes,     s->ops,
				   s->param_bytes,    s->cap_bytes,
				   s->comm_out_bytes, s->comm_in_bytes,
				   s->xfers_in};
	for (int i = 2; i < n; i++) {
		const char *eq = strchr(w[i], '=');
		bool known = false;
		char what[64];
		for (size_t k = 0; eq && k < sizeof tnames / sizeof *tnames;
		     k++)
			if (!strncmp(w[i], tnames[k], (size_t)(eq - w[i])) &&
			    strlen(tnames[k]) == (size_t)(eq - w[i])) {
				snprintf(what, sizeof what, "device %d %s", d,
					 tnames[k]);
				if (!same_t(c, what, tvals[k], eq + 1))
					return false;
				known = true;
			}
		for (size_t k = 0; eq && k < sizeof inames / sizeof *inames;
		     k++)
			if (!strncmp(w[i], inames[k], (size_t)(eq - w[i])) &&
			    strlen(inames[k]) == (size_t)(eq - w[i])) {
				snprintf(what, sizeof what, "device %d %s", d,
					 inames[k]);
				if (!same_i(c, what, ivals[k], eq + 1))
					return false;
				known = true;
			}
		if (!known)
			return fail(c, "dev: unknown check '%s'", w[i]);
	}
	return true;
}

static bool check_curve(scase *c, const dp_sim_result *r, char **w, int n)
{
	int d;
	if (n < 2 || !device(c, w[1], &d))
		return n < 2 ? fail(c, "curve D T:B ...") : false;
	uint32_t lo = r->curve_off[d], got = r->curve_off[d + 1] - lo;
	if (got != (uint32_t)(n - 2))
		return fail(c, "device %d's curve has %u points, want %d", d,
			    got, n - 2);
	for (int i = 2; i < n; i++) {
		char t[64];
		const char *colon = strchr(w[i], ':');
		if (!colon)
			return fail(c, "curve point T:B, got '%s'", w[i]);
		snprintf(t, sizeof t, "%.*s", (int)(colon - w[i]), w[i]);
		char what[64];
		snprintf(what, sizeof what, "device %d curve point %d", d,
			 i - 2);
		if (!same_t(c, what, r->curve[lo + (uint32_t)i - 2].t, t) ||
		    !same_i(c, what, r->curve[lo + (uint32_t)i - 2].bytes,
			    colon + 1))
			return false;
	}
	return true;
}

/* ITEM = KIND[:OP][@ALLOC-FREE][=BYTES] */
static bool check_live_item(scase *c, const dp_live_tensor *t, const char *it,
			    const char *what)
{
	char buf[200];
	snprintf(buf, sizeof buf, "%s", it);
	char *bytes = strchr(buf, '=');
	if (bytes)
		*bytes++ = '\0';
	char *at = strchr(buf, '@');
	if (at)
		*at++ = '\0';
	char *opn = strchr(buf, ':');
	if (opn)
		*opn++ = '\0';
	int k = -1;
	for (int i = 0; i < 4; i++)
		if (!strcmp(buf, kinds[i]))
			k = i;
	if (k < 0)
		return fail(c, "%s: unknown kind '%s'", what, buf);
	if (t->kind != (int32_t)kind_vals[k])
		return fail(c, "%s: kind %d, want %s", what, (int)t->kind, buf);
	uint32_t id;
	if (opn &&
	    (!op_id(c, opn, &id) ||
	     (t->op != id && !fail(c, "%s: op %u, want %s", what, t->op, opn))))
		return false;
	if (at) {
		char *dash = strchr(at, '-');
		if (!dash)
			return fail(c, "%s: @ALLOC-FREE, got '@%s'", what, at);
		*dash++ = '\0';
		if (*at && !same_t(c, what, t->alloc, at))
			return false;
		if (*dash && !same_t(c, what, t->free, dash))
			return false;
	}
	return !bytes || same_i(c, what, t->bytes, bytes);
}

static bool check_live(scase *c, const dp_sim_result *r, char **w, int n)
{
	int d;
	if (n < 2 || !device(c, w[1], &d))
		return n < 2 ? fail(c, "live D ITEM ...") : false;
	uint32_t lo = r->live_off[d], got = r->live_off[d + 1] - lo;
	if (got != (uint32_t)(n - 2))
		return fail(c,
			    "device %d has %u live tensors at its peak, want "
			    "%d",
			    d, got, n - 2);
	for (int i = 2; i < n; i++) {
		char what[64];
		snprintf(what, sizeof what, "device %d live tensor %d", d,
			 i - 2);
		if (!check_live_item(c, &r->live[lo + (uint32_t)i - 2], w[i],
				     what))
			return false;
	}
	return true;
}

static bool check_cp(scase *c, const dp_sim_result *r, char **w, int n)
{
	long long i;
	if (n != 3 || !integer(c, w[1], &i))
		return n != 3 ? fail(c, "cp I OP[:CAUSE]") : false;
	if (i < 0 || (uint32_t)i >= r->cp_len)
		return fail(c, "critical path hop %lld: the path has %u", i,
			    r->cp_len);
	char buf[200];
	snprintf(buf, sizeof buf, "%s", w[2]);
	char *cause = strchr(buf, ':');
	if (cause)
		*cause++ = '\0';
	uint32_t id;
	if (!op_id(c, buf, &id))
		return false;
	if (r->cp_ops[i] != id)
		return fail(c, "critical path hop %lld: op '%s', want '%s'", i,
			    dp_graph_op_name(c->g, r->cp_ops[i]), buf);
	if (cause) {
		int k = -1;
		for (int j = 0; j < 4; j++)
			if (!strcmp(cause, causes[j]))
				k = j;
		if (k < 0)
			return fail(c, "unknown cause '%s'", cause);
		if (r->cp_cause[i] != k)
			return fail(c,
				    "critical path hop %lld: cause %s, want "
				    "%s",
				    i, causes[r->cp_cause[i] & 3], cause);
	}
	return true;
}

static bool check_time(scase *c, const dp_sim_result *r, char **w, int n)
{
	uint32_t id;
	if (n != 3)
		return fail(c, "%s OP T", w[0]);
	if (!op_id(c, w[1], &id))
		return false;
	double v = !strcmp(w[0], "start")   ? r->start[id]
		   : !strcmp(w[0], "end")   ? r->end[id]
		   : !strcmp(w[0], "avail") ? r->avail[id]
					    : r->end[id] - r->start[id];
	char what[160];
	snprintf(what, sizeof what, "%s of %s", w[0], w[1]);
	return same_t(c, what, v, w[2]);
}

/* A check on one run's result; false with the failure recorded. */
static bool check_run(scase *c, const dp_sim_result *r, char **w, int n)
{
	const char *k = w[0];
	if (!strcmp(k, "makespan"))
		return n == 2 ? same_t(c, "makespan", r->makespan, w[1])
			      : fail(c, "makespan T");
	if (!strcmp(k, "start") || !strcmp(k, "end") || !strcmp(k, "avail") ||
	    !strcmp(k, "duration"))
		return check_time(c, r, w, n);
	if (!strcmp(k, "transfers"))
		return n == 2 ? same_i(c, "transfers", r->nxfers, w[1])
			      : fail(c, "transfers N");
	if (!strcmp(k, "xfer"))
		return n >= 3 ? check_xfer(c, r, w, n)
			      : fail(c, "xfer I|* NAME=VALUE...");
	if (!strcmp(k, "cut_edges"))
		return n == 2 ? same_i(c, "cut edges", r->cut_edges, w[1])
			      : fail(c, "cut_edges N");
	if (!strcmp(k, "cut_bytes"))
		return n == 2 ? same_i(c, "cut bytes", r->cut_bytes, w[1])
			      : fail(c, "cut_bytes B");
	if (!strcmp(k, "feasible")) {
		if (n != 2 || (strcmp(w[1], "yes") && strcmp(w[1], "no")))
			return fail(c, "feasible yes|no");
		if (r->feasible != !strcmp(w[1], "yes"))
			return fail(c, "feasible: got %s, want %s",
				    r->feasible ? "yes" : "no", w[1]);
		return true;
	}
	if (!strcmp(k, "dev"))
		return check_dev(c, r, w, n);
	if (!strcmp(k, "curve"))
		return check_curve(c, r, w, n);
	if (!strcmp(k, "live"))
		return check_live(c, r, w, n);
	if (!strcmp(k, "cp_len"))
		return n == 2 ? same_i(c, "critical path length", r->cp_len,
				       w[1])
			      : fail(c, "cp_len N");
	if (!strcmp(k, "cp"))
		return check_cp(c, r, w, n);
	return fail(c, "unknown line '%s'", k);
}

/* ---- checks without a run ---- */

static bool check_rank(scase *c, char **w, int n)
{
	uint32_t id;
	if (n != 3)
		return fail(c, "rank OP T");
	if (!finalize(c) || !op_id(c, w[1], &id))
		return false;
	dp_err err;
	dp_sim *s = dp_sim_new(c->g, &c->m, &err);
	if (!s)
		return fail(c, "dp_sim_new: %s", err.msg);
	char what[160];
	snprintf(what, sizeof what, "rank of %s", w[1]);
	bool ok = same_t(c, what, dp_sim_ranks(s)[id], w[2]);
	dp_sim_free(s);
	return ok;
}

static bool check_bounds(scase *c, char **w, int n)
{
	if (!finalize(c))
		return false;
	dp_bounds b;
	dp_sim_bounds(c->g, &c->m, &b);
	const char *v;
	if ((v = kv(w, n, 1, "cp")) &&
	    !same_t(c, "graph critical path", b.graph_cp_us, v))
		return false;
	if ((v = kv(w, n, 1, "work")) &&
	    !same_t(c, "work bound", b.work_bound_us, v))
		return false;
	if ((v = kv(w, n, 1, "lb")) && !same_t(c, "lower bound", b.lb_us, v))
		return false;
	if ((v = kv(w, n, 1, "one")) &&
	    !same_t(c, "one device", b.one_device_us, v))
		return false;
	return true;
}

static bool do_line(scase *c, char **w, int n)
{
	const char *k = w[0];
	if (!strcmp(k, "op"))
		return line_op(c, w, n);
	if (!strcmp(k, "edge"))
		return line_edge(c, w, n);
	if (!strcmp(k, "machine"))
		return line_machine(c, w, n);
	if (!strcmp(k, "place"))
		return line_place(c, w, n);
	if (!strcmp(k, "run"))
		return line_run(c, w, n);
	if (!strcmp(k, "set"))
		return settings(c, w, n, 1);
	if (!strcmp(k, "rank"))
		return check_rank(c, w, n);
	if (!strcmp(k, "bounds"))
		return check_bounds(c, w, n);
	if (!strcmp(k, "groups")) {
		long long v;
		if (n != 2 || !finalize(c) || !integer(c, w[1], &v))
			return n != 2 ? fail(c, "groups N") : false;
		return c->g->ngroups == (uint32_t)v ||
		       fail(c, "groups: got %u, want %lld", c->g->ngroups, v);
	}
	if (!c->nruns)
		return fail(c, "'%s' before any run", k);
	for (int i = 0; i < c->nruns; i++)
		if (!check_run(c, &c->r[i], w, n)) {
			if (c->nruns > 1) {
				size_t l = strlen(c->why);
				snprintf(c->why + l, sizeof c->why - l,
					 " (contention %s)",
					 c->run_cont[i] == DP_CONT_NONE
						 ? "none"
						 : "port");
			}
			return false;
		}
	return true;
}

/* Runs one case file; returns the number of checks made, -1 on failure
 * (c->why says which). */
static int run_case(const char *path, char *why, size_t whysize)
{
	scase c;
	memset(&c, 0, sizeof c);
	c.file = path;
	c.g = dp_graph_new("case");
	c.m.cap = c.cap;
	c.m.speed = c.speed;
	c.m.k = 1;
	c.m.bw = 1;
	for (int d = 0; d < MAX_K; d++) {
		c.cap[d] = DP_CAP_UNLIMITED;
		c.speed[d] = 1.0;
	}
	FILE *f = fopen(path, "r");
	int checks = 0;
	bool ok = f != NULL;
	if (!f)
		fail(&c, "cannot open");
	char line[1024];
	while (ok && fgets(line, sizeof line, f)) {
		c.line++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *w[MAX_WORDS];
		int n = 0;
		for (char *t = strtok(line, " \t\r\n"); t && n < MAX_WORDS;
		     t = strtok(NULL, " \t\r\n"))
			w[n++] = t;
		if (!n)
			continue;
		ok = do_line(&c, w, n);
		checks++;
	}
	if (f)
		fclose(f);
	if (ok && !c.nruns && !checks)
		fail(&c, "no lines");
	snprintf(why, whysize, "%s", c.why);
	free(c.place);
	dp_sim_result_free(&c.r[0]);
	dp_sim_result_free(&c.r[1]);
	dp_graph_free(c.g);
	return c.why[0] ? -1 : checks;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_sim_hand_computed_cases(void)
{
	DIR *d = opendir(SIM_DIR);
	REQUIRE(d);
	char *names[256];
	int n = 0;
	for (struct dirent *e; (e = readdir(d)) && n < 256;) {
		size_t l = strlen(e->d_name);
		if (l > 5 && !strcmp(e->d_name + l - 5, ".case"))
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof *names, by_name);
	CHECK(n >= 10);
	for (int i = 0; i < n; i++) {
		char path[512], why[600];
		snprintf(path, sizeof path, "%s/%s", SIM_DIR, names[i]);
		int checks = run_case(path, why, sizeof why);
		names[i][strlen(names[i]) - 5] = '\0';
		if (checks < 0) {
			printf("not ok - sim/%s: %s\n", names[i], why);
			test_fail(path, 0, "%s", why);
		} else {
			printf("ok - sim/%s (%d lines)\n", names[i], checks);
		}
		free(names[i]);
	}
}

/* The runner itself fails on a wrong value and on a malformed line. */
static void test_sim_case_runner_fails_when_it_should(void)
{
	static const char *const bad[] = {
		"op a 10 0\nmachine k=1 bw=1 lat=0\nplace 0\nrun port\n"
		"makespan 11\n",
		"op a 10 0\nmachine k=1 bw=1 lat=0\nplace 0\nrun port\n"
		"dev 0 peak=1\n",
		"op a 10 0\nmachine k=1 bw=1 lat=0\nplace 0\nrun port\n"
		"frobnicate 1\n",
		"op a 10 0\nmachine k=1 bw=1 lat=0\nplace 0 0\nrun port\n",
		"op a 10 zero\n",
		"op a 10 0\nmakespan 10\n",
	};
	static const char *const want[] = {
		"makespan: got 10, want 11",
		"device 0 peak: got 0, want 1",
		"unknown line 'frobnicate'",
		"place has 2 devices for 1 ops",
		"expected a whole number, got 'zero'",
		"before any run",
	};
	const char *path = test_tmp_path("bad.case");
	REQUIRE(path);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		FILE *f = fopen(path, "w");
		REQUIRE(f);
		fputs(bad[i], f);
		fclose(f);
		char why[600];
		CHECK_INT(run_case(path, why, sizeof why), -1);
		CHECK_CONTAINS(why, want[i]);
		CHECK_CONTAINS(why, "bad.case:");
	}
	CHECK(test_tmp_cleanup());
}

TEST_MAIN(TEST(test_sim_hand_computed_cases),
	  TEST(test_sim_case_runner_fails_when_it_should))
