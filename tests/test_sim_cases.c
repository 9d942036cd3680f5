/* test_sim_cases.c - the simulator's hand-computed cases, read from data.
 *
 * Each file tests/sim/NAME.case holds one small graph, a machine, a
 * placement and what the simulator must give, worked out by hand in the
 * file's comments (rules: docs/simulator.md). This runner
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
#include "lib/sim_case.h"
#include "lib/testlib.h"

#define MAX_WORDS 40
#define SIM_DIR "tests/sim"

/* ---- building ---- */

static bool line_op(scase *c, char **w, int n)
{
	if (n < 4)
		return sc_fail(c,
			       "op NAME TIME OUT [param=B] [temp=B] [group=G]");
	uint32_t id;
	dp_err err;
	if (dp_graph_add_op(c->g, w[1], &id, &err))
		return sc_fail(c, "%s", err.msg);
	double t;
	long long out, p = 0, tmp = 0;
	if (!sc_num(c, w[2], &t, NULL) || !sc_integer(c, w[3], &out))
		return false;
	const char *v;
	if ((v = sc_kv(w, n, 4, "param")) && !sc_integer(c, v, &p))
		return false;
	if ((v = sc_kv(w, n, 4, "temp")) && !sc_integer(c, v, &tmp))
		return false;
	dp_op *o = &c->g->ops[id];
	o->time_us = t;
	o->output_bytes = out;
	o->param_bytes = p;
	o->temp_bytes = tmp;
	if ((v = sc_kv(w, n, 4, "group")) &&
	    dp_graph_set_colocate(c->g, id, v, &err))
		return sc_fail(c, "%s", err.msg);
	return true;
}

static bool line_edge(scase *c, char **w, int n)
{
	uint32_t a, b;
	if (n < 3)
		return sc_fail(c, "edge FROM TO [bytes=B] [control]");
	if (!sc_op_id(c, w[1], &a) || !sc_op_id(c, w[2], &b))
		return false;
	long long bytes = -1;
	const char *v = sc_kv(w, n, 3, "bytes");
	if (v && !sc_integer(c, v, &bytes))
		return false;
	bool control = n > 3 && !strcmp(w[n - 1], "control");
	dp_err err;
	if (dp_graph_add_edge(c->g, a, b, bytes, control, &err))
		return sc_fail(c, "%s", err.msg);
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
			return sc_fail(c, "expected NAME=VALUE, got '%s'",
				       w[i]);
		if (!strncmp(w[i], "temp.", 5)) {
			char name[128];
			snprintf(name, sizeof name, "%.*s",
				 (int)(eq - w[i] - 5), w[i] + 5);
			uint32_t id;
			long long b;
			if (!sc_op_id(c, name, &id) ||
			    !sc_integer(c, eq + 1, &b))
				return false;
			c->g->ops[id].temp_bytes = b;
			continue;
		}
		const char *dot = strchr(w[i], '.');
		if (!dot || dot > eq)
			continue; /* k=, bw=, lat= are read by the caller */
		snprintf(dev, sizeof dev, "%.*s", (int)(eq - dot - 1), dot + 1);
		if (!sc_device(c, dev, &d))
			return false;
		if (!strncmp(w[i], "cap.", 4)) {
			long long b;
			if (!sc_integer(c, eq + 1, &b))
				return false;
			c->cap[d] = b;
		} else if (!strncmp(w[i], "speed.", 6)) {
			if (!sc_num(c, eq + 1, &c->speed[d], NULL))
				return false;
		} else {
			return sc_fail(c, "unknown setting '%s'", w[i]);
		}
	}
	return true;
}

static bool line_machine(scase *c, char **w, int n)
{
	const char *k = sc_kv(w, n, 1, "k"), *bw = sc_kv(w, n, 1, "bw"),
		   *lat = sc_kv(w, n, 1, "lat");
	long long kk;
	if (!k || !bw || !lat)
		return sc_fail(c,
			       "machine k=K bw=B lat=T [cap.D=B] [speed.D=S]");
	if (!sc_integer(c, k, &kk) || !sc_num(c, bw, &c->m.bw, NULL) ||
	    !sc_num(c, lat, &c->m.lat, NULL))
		return false;
	if (kk < 1 || kk > MAX_K)
		return sc_fail(c, "k must be 1..%d", MAX_K);
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
		if (!sc_integer(c, w[i], &d))
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
		return sc_fail(c, "finalize: %s", err.msg);
	c->finalized = true;
	return true;
}

static bool line_run(scase *c, char **w, int n)
{
	if (n != 2)
		return sc_fail(c, "run port|none|both");
	if (!finalize(c))
		return false;
	if (c->nplace != c->g->nops)
		return sc_fail(c, "place has %u devices for %u ops", c->nplace,
			       c->g->nops);
	int conts[2], nc = 0;
	if (!strcmp(w[1], "port") || !strcmp(w[1], "both"))
		conts[nc++] = DP_CONT_PORT;
	if (!strcmp(w[1], "none") || !strcmp(w[1], "both"))
		conts[nc++] = DP_CONT_NONE;
	if (!nc)
		return sc_fail(c, "run port|none|both, got '%s'", w[1]);
	for (int i = 0; i < nc; i++) {
		dp_err err;
		dp_sim *s = dp_sim_new(c->g, &c->m, &err);
		if (!s)
			return sc_fail(c, "dp_sim_new: %s", err.msg);
		dp_sim_opts o = {.contention = (dp_contention)conts[i],
				 .detail = true};
		dp_status st = dp_sim_run(s, c->place, &o, &c->r[i], &err);
		dp_sim_free(s);
		if (st)
			return sc_fail(c, "dp_sim_run: %s", err.msg);
		c->run_cont[i] = conts[i];
	}
	c->nruns = nc;
	return true;
}

/* ---- checks without a run ---- */

static bool check_rank(scase *c, char **w, int n)
{
	uint32_t id;
	if (n != 3)
		return sc_fail(c, "rank OP T");
	if (!finalize(c) || !sc_op_id(c, w[1], &id))
		return false;
	dp_err err;
	dp_sim *s = dp_sim_new(c->g, &c->m, &err);
	if (!s)
		return sc_fail(c, "dp_sim_new: %s", err.msg);
	char what[160];
	snprintf(what, sizeof what, "rank of %s", w[1]);
	bool ok = sc_same_t(c, what, dp_sim_ranks(s)[id], w[2]);
	dp_sim_free(s);
	return ok;
}

static bool check_bounds(scase *c, char **w, int n)
{
	if (!finalize(c))
		return false;
	dp_bounds b;
	dp_sim_bounds(c->g, &c->m, &b);
	static const char *const keys[] = {"cp", "work", "lb", "one"};
	static const char *const what[] = {"graph critical path", "work bound",
					   "lower bound", "one device"};
	const double got[] = {b.graph_cp_us, b.work_bound_us, b.lb_us,
			      b.one_device_us};
	for (int i = 0; i < 4; i++) {
		const char *v = sc_kv(w, n, 1, keys[i]);
		if (v && !sc_same_t(c, what[i], got[i], v))
			return false;
	}
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
		if (n != 2 || !finalize(c) || !sc_integer(c, w[1], &v))
			return n != 2 ? sc_fail(c, "groups N") : false;
		return c->g->ngroups == (uint32_t)v ||
		       sc_fail(c, "groups: got %u, want %lld", c->g->ngroups,
			       v);
	}
	if (!c->nruns)
		return sc_fail(c, "'%s' before any run", k);
	for (int i = 0; i < c->nruns; i++)
		if (!sc_check_run(c, &c->r[i], w, n)) {
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
		sc_fail(&c, "cannot open");
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
		sc_fail(&c, "no lines");
	snprintf(why, whysize, "%s", c.why);
	free(c.place);
	dp_sim_result_free(&c.r[0]);
	dp_sim_result_free(&c.r[1]);
	dp_graph_free(c.g);
	return c.why[0] ? -1 : checks;
}

static void test_sim_hand_computed_cases(void)
{
	static char paths[256][512];
	int n = test_list_files(SIM_DIR, ".case", paths, 256);
	CHECK(n >= 10);
	for (int i = 0; i < n; i++) {
		char why[600], name[512];
		int checks = run_case(paths[i], why, sizeof why);
		/* sim/NAME: the path less the folder and ".case" */
		snprintf(name, sizeof name, "%.*s",
			 (int)(strlen(paths[i]) - strlen(SIM_DIR) - 6),
			 paths[i] + strlen(SIM_DIR) + 1);
		if (checks < 0) {
			printf("not ok - sim/%s: %s\n", name, why);
			test_fail(paths[i], 0, "%s", why);
		} else {
			printf("ok - sim/%s (%d lines)\n", name, checks);
		}
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
