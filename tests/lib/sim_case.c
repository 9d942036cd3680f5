/* sim_case.c - the checks of a hand-computed simulator case on a run's
 * result (the lines after `run`, tests/test_sim_cases.c) and the helpers
 * that read their words. */
#include "sim_case.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool sc_fail(scase *c, const char *fmt, ...)
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

bool sc_num(scase *c, const char *s, double *v, double *eps)
{
	char *end;
	*v = strtod(s, &end);
	if (eps)
		*eps = 0;
	if (eps && *end == '~')
		*eps = strtod(end + 1, &end);
	if (end == s || *end)
		return sc_fail(c, "expected a number, got '%s'", s);
	return true;
}

bool sc_integer(scase *c, const char *s, long long *v)
{
	char *end;
	*v = strtoll(s, &end, 10);
	if (end == s || *end)
		return sc_fail(c, "expected a whole number, got '%s'", s);
	return true;
}

bool sc_op_id(scase *c, const char *name, uint32_t *id)
{
	*id = dp_graph_find(c->g, name);
	if (*id == UINT32_MAX)
		return sc_fail(c, "no op named '%s'", name);
	return true;
}

const char *sc_kv(char **w, int n, int from, const char *name)
{
	size_t l = strlen(name);
	for (int i = from; i < n; i++)
		if (!strncmp(w[i], name, l) && w[i][l] == '=')
			return w[i] + l + 1;
	return NULL;
}

bool sc_same_t(scase *c, const char *what, double got, const char *want)
{
	double v, eps;
	if (!sc_num(c, want, &v, &eps))
		return false;
	if (!(got >= v - eps && got <= v + eps))
		return sc_fail(c, "%s: got %.17g, want %s", what, got, want);
	return true;
}

bool sc_same_i(scase *c, const char *what, long long got, const char *want)
{
	long long v;
	if (!sc_integer(c, want, &v))
		return false;
	if (got != v)
		return sc_fail(c, "%s: got %lld, want %lld", what, got, v);
	return true;
}

bool sc_device(scase *c, const char *s, int *d)
{
	long long v;
	if (!sc_integer(c, s, &v))
		return false;
	if (v < 0 || v >= c->m.k)
		return sc_fail(c, "device %lld is not one of the machine's %d",
			       v, c->m.k);
	*d = (int)v;
	return true;
}

static const char *const kinds[] = {"param", "output", "temp", "copy"};
static const dp_mem_kind kind_vals[] = {DP_MEM_PARAM, DP_MEM_OUTPUT,
					DP_MEM_TEMP, DP_MEM_COPY};
static const char *const causes[] = {"start", "data", "transfer", "device"};

static bool check_xfer(scase *c, const dp_sim_result *r, char **w, int n)
{
	uint32_t lo = 0, hi = r->nxfers;
	if (strcmp(w[1], "*")) {
		long long i;
		if (!sc_integer(c, w[1], &i))
			return false;
		if (i < 0 || (uint32_t)i >= r->nxfers)
			return sc_fail(c, "transfer %lld: there are %u", i,
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
		if ((v = sc_kv(w, n, 2, "op"))) {
			if (!sc_op_id(c, v, &id))
				return false;
			if (x->op != id)
				return sc_fail(
					c, "%s: op '%s', want '%s'", what,
					dp_graph_op_name(c->g, x->op), v);
		}
		static const char *const in[] = {"src", "dst", "bytes"};
		static const char *const tn[] = {"start", "end"};
		const long long iv[] = {x->src, x->dst, x->bytes};
		const double tv[] = {x->start, x->end};
		for (int k = 0; k < 3; k++)
			if ((v = sc_kv(w, n, 2, in[k])) &&
			    !sc_same_i(c, what, iv[k], v))
				return false;
		for (int k = 0; k < 2; k++)
			if ((v = sc_kv(w, n, 2, tn[k])) &&
			    !sc_same_t(c, what, tv[k], v))
				return false;
	}
	return true;
}

static bool check_dev(scase *c, const dp_sim_result *r, char **w, int n)
{
	int d;
	if (n < 3 || !sc_device(c, w[1], &d))
		return n < 3 ? sc_fail(c, "dev D NAME=VALUE...") : false;
	const dp_device_stats *s = &r->dev[d];
	/* the first NT keys are times, the others whole numbers */
	enum { NT = 3 };
	static const char *const keys[] = {
		"peak_time",	 "busy",    "comm_out_us", "peak",
		"ops",		 "params",  "cap",	   "comm_out_bytes",
		"comm_in_bytes", "xfers_in"};
	const double tvals[NT] = {s->peak_time, s->busy_us, s->comm_out_us};
	const long long ivals[] = {s->peak_bytes,     s->ops,
				   s->param_bytes,    s->cap_bytes,
				   s->comm_out_bytes, s->comm_in_bytes,
				   s->xfers_in};
	for (int i = 2; i < n; i++) {
		const char *eq = strchr(w[i], '=');
		size_t len = eq ? (size_t)(eq - w[i]) : 0;
		bool known = false;
		char what[64];
		for (size_t k = 0; eq && k < sizeof keys / sizeof *keys; k++) {
			if (strlen(keys[k]) != len ||
			    strncmp(w[i], keys[k], len))
				continue;
			snprintf(what, sizeof what, "device %d %s", d, keys[k]);
			if (k < NT ? !sc_same_t(c, what, tvals[k], eq + 1)
				   : !sc_same_i(c, what, ivals[k - NT], eq + 1))
				return false;
			known = true;
		}
		if (!known)
			return sc_fail(c, "dev: unknown check '%s'", w[i]);
	}
	return true;
}

/* A line "KEY D ITEM..." (usage) of one item for each of device D's
 * entries in an array indexed by off: *d and the first entry *lo. */
static bool device_items(scase *c, char **w, int n, const char *usage,
			 const char *items, const uint32_t *off, int *d,
			 uint32_t *lo)
{
	if (n < 2 || !sc_device(c, w[1], d))
		return n < 2 ? sc_fail(c, "%s", usage) : false;
	*lo = off[*d];
	uint32_t got = off[*d + 1] - *lo;
	if (got != (uint32_t)(n - 2))
		return sc_fail(c, "device %d has %u %s, want %d", *d, got,
			       items, n - 2);
	return true;
}

static bool check_curve(scase *c, const dp_sim_result *r, char **w, int n)
{
	int d;
	uint32_t lo;
	if (!device_items(c, w, n, "curve D T:B ...", "curve points",
			  r->curve_off, &d, &lo))
		return false;
	for (int i = 2; i < n; i++) {
		char t[64];
		const char *colon = strchr(w[i], ':');
		if (!colon)
			return sc_fail(c, "curve point T:B, got '%s'", w[i]);
		snprintf(t, sizeof t, "%.*s", (int)(colon - w[i]), w[i]);
		char what[64];
		snprintf(what, sizeof what, "device %d curve point %d", d,
			 i - 2);
		if (!sc_same_t(c, what, r->curve[lo + (uint32_t)i - 2].t, t) ||
		    !sc_same_i(c, what, r->curve[lo + (uint32_t)i - 2].bytes,
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
		return sc_fail(c, "%s: unknown kind '%s'", what, buf);
	if (t->kind != (int32_t)kind_vals[k])
		return sc_fail(c, "%s: kind %d, want %s", what, (int)t->kind,
			       buf);
	uint32_t id;
	if (opn && (!sc_op_id(c, opn, &id) ||
		    (t->op != id &&
		     !sc_fail(c, "%s: op %u, want %s", what, t->op, opn))))
		return false;
	if (at) {
		char *dash = strchr(at, '-');
		if (!dash)
			return sc_fail(c, "%s: @ALLOC-FREE, got '@%s'", what,
				       at);
		*dash++ = '\0';
		if (*at && !sc_same_t(c, what, t->alloc, at))
			return false;
		if (*dash && !sc_same_t(c, what, t->free, dash))
			return false;
	}
	return !bytes || sc_same_i(c, what, t->bytes, bytes);
}

static bool check_live(scase *c, const dp_sim_result *r, char **w, int n)
{
	int d;
	uint32_t lo;
	if (!device_items(c, w, n, "live D ITEM ...",
			  "live tensors at its peak", r->live_off, &d, &lo))
		return false;
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
	if (n != 3 || !sc_integer(c, w[1], &i))
		return n != 3 ? sc_fail(c, "cp I OP[:CAUSE]") : false;
	if (i < 0 || (uint32_t)i >= r->cp_len)
		return sc_fail(c, "critical path hop %lld: the path has %u", i,
			       r->cp_len);
	char buf[200];
	snprintf(buf, sizeof buf, "%s", w[2]);
	char *cause = strchr(buf, ':');
	if (cause)
		*cause++ = '\0';
	uint32_t id;
	if (!sc_op_id(c, buf, &id))
		return false;
	if (r->cp_ops[i] != id)
		return sc_fail(c, "critical path hop %lld: op '%s', want '%s'",
			       i, dp_graph_op_name(c->g, r->cp_ops[i]), buf);
	if (cause) {
		int k = -1;
		for (int j = 0; j < 4; j++)
			if (!strcmp(cause, causes[j]))
				k = j;
		if (k < 0)
			return sc_fail(c, "unknown cause '%s'", cause);
		if (r->cp_cause[i] != k)
			return sc_fail(c,
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
		return sc_fail(c, "%s OP T", w[0]);
	if (!sc_op_id(c, w[1], &id))
		return false;
	double v = !strcmp(w[0], "start")   ? r->start[id]
		   : !strcmp(w[0], "end")   ? r->end[id]
		   : !strcmp(w[0], "avail") ? r->avail[id]
					    : r->end[id] - r->start[id];
	char what[160];
	snprintf(what, sizeof what, "%s of %s", w[0], w[1]);
	return sc_same_t(c, what, v, w[2]);
}

bool sc_check_run(scase *c, const dp_sim_result *r, char **w, int n)
{
	const char *k = w[0];
	if (!strcmp(k, "makespan"))
		return n == 2 ? sc_same_t(c, "makespan", r->makespan, w[1])
			      : sc_fail(c, "makespan T");
	if (!strcmp(k, "start") || !strcmp(k, "end") || !strcmp(k, "avail") ||
	    !strcmp(k, "duration"))
		return check_time(c, r, w, n);
	if (!strcmp(k, "transfers"))
		return n == 2 ? sc_same_i(c, "transfers", r->nxfers, w[1])
			      : sc_fail(c, "transfers N");
	if (!strcmp(k, "xfer"))
		return n >= 3 ? check_xfer(c, r, w, n)
			      : sc_fail(c, "xfer I|* NAME=VALUE...");
	if (!strcmp(k, "cut_edges"))
		return n == 2 ? sc_same_i(c, "cut edges", r->cut_edges, w[1])
			      : sc_fail(c, "cut_edges N");
	if (!strcmp(k, "cut_bytes"))
		return n == 2 ? sc_same_i(c, "cut bytes", r->cut_bytes, w[1])
			      : sc_fail(c, "cut_bytes B");
	if (!strcmp(k, "feasible")) {
		if (n != 2 || (strcmp(w[1], "yes") && strcmp(w[1], "no")))
			return sc_fail(c, "feasible yes|no");
		if (r->feasible != !strcmp(w[1], "yes"))
			return sc_fail(c, "feasible: got %s, want %s",
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
		return n == 2 ? sc_same_i(c, "critical path length", r->cp_len,
					  w[1])
			      : sc_fail(c, "cp_len N");
	if (!strcmp(k, "cp"))
		return check_cp(c, r, w, n);
	return sc_fail(c, "unknown line '%s'", k);
}
