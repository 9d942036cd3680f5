/* test_export_svg.c - SVG export: well-formed XML that shows every device,
 * big graphs coarsened before layout, cancel and timeout stop the layout
 * process and leave no file, Graphviz problems reported, not printed. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dnnpart/algo.h"
#include "dnnpart/export.h"
#include "dnnpart/gen.h"
#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

/* ---- a small XML well-formedness checker ---- */

typedef struct xml {
	const char *s, *p;
	char why[160];
} xml;

static bool xfail(xml *x, const char *why)
{
	snprintf(x->why, sizeof x->why, "%s at byte %ld", why,
		 (long)(x->p - x->s));
	return false;
}

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == ':' || (unsigned char)c >= 0x80 ||
	       (!first && ((c >= '0' && c <= '9') || c == '-' || c == '.'));
}

static size_t xname(xml *x)
{
	size_t n = 0;
	while (name_char(x->p[n], n == 0))
		n++;
	return n;
}

/* Character data or an attribute value up to stop: entities must be
 * known, no '<', no control characters other than tab, CR, LF. */
static bool chars(xml *x, char stop)
{
	for (; *x->p && *x->p != stop; x->p++) {
		unsigned char c = (unsigned char)*x->p;
		if (c == '<' && stop != '<')
			return xfail(x, "'<' inside a value");
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			return xfail(x, "control character");
		if (c == '&') {
			const char *semi = strchr(x->p, ';');
			if (!semi || semi - x->p > 10)
				return xfail(x, "bad entity");
			size_t n = (size_t)(semi - x->p);
			bool ok = (n == 4 && !strncmp(x->p, "&amp", 4)) ||
				  (n == 3 && !strncmp(x->p, "&lt", 3)) ||
				  (n == 3 && !strncmp(x->p, "&gt", 3)) ||
				  (n == 5 && !strncmp(x->p, "&quot", 5)) ||
				  (n == 5 && !strncmp(x->p, "&apos", 5)) ||
				  (n > 2 && x->p[1] == '#');
			if (!ok)
				return xfail(x, "unknown entity");
			x->p = semi;
		}
	}
	return true;
}

static bool skip_until(xml *x, const char *end)
{
	const char *e = strstr(x->p, end);
	if (!e)
		return xfail(x, "unterminated markup");
	x->p = e + strlen(end);
	return true;
}

static bool xml_well_formed(const char *doc, char *why, size_t size)
{
	xml x = {doc, doc, ""};
	const char *stack[256];
	size_t lens[256];
	int depth = 0;
	bool root_done = false, ok = true;
	while (ok && *x.p) {
		if (*x.p != '<') {
			if (depth == 0 && !strchr(" \t\r\n", *x.p)) {
				ok = xfail(&x, "text outside the root");
				break;
			}
			ok = chars(&x, '<');
			continue;
		}
		if (!strncmp(x.p, "<?", 2)) {
			ok = skip_until(&x, "?>");
		} else if (!strncmp(x.p, "<!--", 4)) {
			ok = skip_until(&x, "-->");
		} else if (!strncmp(x.p, "<!DOCTYPE", 9)) {
			ok = depth == 0 && !root_done ? skip_until(&x, ">")
						      : xfail(&x, "DOCTYPE");
		} else if (!strncmp(x.p, "<![CDATA[", 9)) {
			ok = depth > 0 ? skip_until(&x, "]]>")
				       : xfail(&x, "CDATA outside");
		} else if (x.p[1] == '/') {
			x.p += 2;
			size_t n = xname(&x);
			if (depth == 0 || n != lens[depth - 1] ||
			    strncmp(x.p, stack[depth - 1], n)) {
				ok = xfail(&x, "mismatched end tag");
				break;
			}
			x.p += n;
			while (strchr(" \t\r\n", *x.p) && *x.p)
				x.p++;
			if (*x.p != '>') {
				ok = xfail(&x, "bad end tag");
				break;
			}
			x.p++;
			if (--depth == 0)
				root_done = true;
		} else {
			x.p++;
			size_t n = xname(&x);
			if (n == 0 || (depth == 0 && root_done) ||
			    depth == 256) {
				ok = xfail(&x, "bad start tag");
				break;
			}
			const char *name = x.p;
			x.p += n;
			for (;;) {
				while (*x.p && strchr(" \t\r\n", *x.p))
					x.p++;
				if (*x.p == '>' || !strncmp(x.p, "/>", 2))
					break;
				size_t an = xname(&x);
				if (an == 0) {
					ok = xfail(&x, "bad attribute");
					break;
				}
				x.p += an;
				if (*x.p != '=' ||
				    (x.p[1] != '"' && x.p[1] != '\'')) {
					ok = xfail(&x, "attribute without a "
						       "quoted value");
					break;
				}
				char q = x.p[1];
				x.p += 2;
				if (!(ok = chars(&x, q)))
					break;
				if (*x.p != q) {
					ok = xfail(&x, "unterminated value");
					break;
				}
				x.p++;
			}
			if (!ok)
				break;
			if (*x.p == '>') {
				stack[depth] = name;
				lens[depth++] = n;
				x.p++;
			} else {
				x.p += 2;
				if (depth == 0)
					root_done = true;
			}
		}
	}
	if (ok && (depth != 0 || !root_done))
		ok = xfail(&x, "document not closed");
	snprintf(why, size, "%s", x.why);
	return ok;
}

/* ---- graphs ---- */

/* Names that XML must escape and a control character. (Invalid UTF-8
 * cannot reach an export: the graph refuses such names, test_graph.c.) */
static dp_graph *awkward(void)
{
	dp_graph *g = dp_graph_new("a <b> & \"c\"");
	uint32_t a = test_add_op(g, "x<y", 10, 1 << 20, "l<1>");
	uint32_t b = test_add_op(g, "p&q", 20, 1 << 20, "l&2");
	uint32_t c = test_add_op(g,
				 "bad\x01"
				 "byte",
				 5, 4096, NULL);
	uint32_t d = test_add_op(g, "caf\xc3\xa9 \"quoted\"", 5, 4096, NULL);
	dp_graph_add_edge(g, a, b, -1, false, NULL);
	dp_graph_add_edge(g, b, c, -1, false, NULL);
	dp_graph_add_edge(g, a, d, -1, false, NULL);
	dp_graph_add_edge(g, d, c, -1, false, NULL);
	return test_finalized(g);
}

/* A chain with skip connections in layers "stage/block/unit". */
/* Contiguous stages of the topological order, or round robin. */
static int32_t *split(const dp_graph *g, int k, bool round_robin)
{
	int32_t *pl = malloc((g->nops + 1) * sizeof *pl);
	for (uint32_t i = 0; pl && i < g->nops; i++)
		pl[g->topo[i]] = round_robin ? (int32_t)(i % (uint32_t)k)
					     : (int32_t)((uint64_t)i *
							 (uint32_t)k / g->nops);
	return pl;
}

/* A picture to export: test_layered_chain(n) split over k devices, evaluated. */
typedef struct pic {
	dp_graph *g;
	int32_t *pl;
	dp_machine m;
	dp_plan plan;
} pic;

static bool pic_open(pic *p, uint32_t n, int k, bool round_robin)
{
	memset(p, 0, sizeof *p);
	p->g = test_layered_chain(n);
	p->pl = p->g ? split(p->g, k, round_robin) : NULL;
	return p->pl && test_evaluate(p->g, k, p->pl, &p->m, &p->plan);
}

static void pic_close(pic *p)
{
	free(p->pl);
	dp_plan_free(&p->plan);
	dp_machine_free(&p->m);
	dp_graph_free(p->g);
}

/* The SVG at path (the caller frees); a failure when it is not
 * well-formed, NULL (a failure) when it cannot be read. */
static char *read_svg(const char *path)
{
	char *svg = test_read_file(path, NULL);
	char why[160];
	if (!svg)
		test_fail(__FILE__, __LINE__, "cannot read %s", path);
	else if (!xml_well_formed(svg, why, sizeof why))
		test_fail(__FILE__, __LINE__, "SVG not well-formed: %s", why);
	return svg;
}

/* ---- tests ---- */

static void test_svg_checker_rejects_broken_xml(void)
{
	char why[160];
	CHECK(xml_well_formed("<?xml version=\"1.0\"?>\n<a x=\"1\"><b/>t</a>\n",
			      why, sizeof why));
	CHECK(!xml_well_formed("<a><b></a></b>", why, sizeof why));
	CHECK(!xml_well_formed("<a x=\"<\"/>", why, sizeof why));
	CHECK(!xml_well_formed("<a>&nbsp;</a>", why, sizeof why));
	CHECK(!xml_well_formed("<a>\x01</a>", why, sizeof why));
	CHECK(!xml_well_formed("<a>", why, sizeof why));
	CHECK(!xml_well_formed("<a/><b/>", why, sizeof why));
}

static void test_svg_is_well_formed_and_shows_every_device(void)
{
	dp_graph *g = awkward();
	int32_t pl[] = {0, 1, 1, 0};
	dp_machine m;
	dp_plan plan;
	REQUIRE(test_evaluate(g, 3, pl, &m, &plan)); /* device 2 has no ops */
	const char *path = test_tmp_path("awk.svg");
	dp_err err;
	dp_export_report rep;
	dp_status st = dp_export_write_opts(path, DP_EXPORT_SVG, g, &m, &plan,
					    NULL, NULL, &rep, &err);
	if (st != DP_OK)
		test_fail(__FILE__, __LINE__, "export: %s", err.msg);
	char *svg = read_svg(path);
	REQUIRE(svg);
	CHECK_CONTAINS(svg, "<svg");
	CHECK_CONTAINS(svg, "<title>cluster_dev0</title>");
	CHECK_CONTAINS(svg, "<title>cluster_dev1</title>");
	CHECK_CONTAINS(svg, "<title>cluster_dev2</title>");
	CHECK_CONTAINS(svg, ">GPU 2: 0 ops");
	CHECK_CONTAINS(svg, "x&lt;y");
	CHECK_CONTAINS(svg, "p&amp;q");
	CHECK_CONTAINS(svg, "#cc3311"); /* the critical path */
	/* the default layout: device columns in order, whatever the size */
	CHECK_STR(rep.layout, "timeline");
	CHECK(!rep.coarsened);
	free(svg);
	test_free(g, &m, &plan);
}

/* 100,000 ops: coarsened to at most 2,000 nodes before the layout, so the
 * export ends in bounded time (bounded by the coarsening and the layout
 * time limit, not by a timer here). */
static void test_svg_of_100k_ops_is_coarsened(void)
{
	pic x;
	REQUIRE(pic_open(&x, 100000, 4, false));
	const char *path = test_tmp_path("big.svg");
	dp_err err;
	dp_export_report rep;
	dp_status st = dp_export_write_opts(path, DP_EXPORT_SVG, x.g, &x.m,
					    &x.plan, NULL, NULL, &rep, &err);
	if (st != DP_OK)
		test_fail(__FILE__, __LINE__, "export: %s", err.msg);
	CHECK(rep.coarsened);
	CHECK(rep.nodes <= DP_EXPORT_MAX_NODES);
	CHECK(rep.nodes >= 4);
	CHECK_CONTAINS(rep.note, "100000 ops drawn as");
	char *svg = read_svg(path);
	REQUIRE(svg);
	CHECK_CONTAINS(svg, "COARSENED");
	for (int d = 0; d < 4; d++) {
		char t[64];
		snprintf(t, sizeof t, "<title>cluster_dev%d</title>", d);
		CHECK_CONTAINS(svg, t);
	}
	free(svg);
	pic_close(&x);
}

static void cancel_in_layout(void *ud, const char *phase, double f)
{
	(void)f;
	if (!strncmp(phase, "laying out", 10))
		atomic_store((atomic_int *)ud, 1);
}

static void test_svg_cancel_leaves_no_file_and_keeps_the_old(void)
{
	pic x;
	REQUIRE(pic_open(&x, 4000, 4, true));
	const char *path = test_tmp_path("cancel.svg");
	REQUIRE(test_write_file(path, "old picture\n"));
	atomic_int cancel = 0;
	dp_progress p = {cancel_in_layout, &cancel, &cancel};
	dp_export_opts o;
	dp_export_opts_default(&o);
	o.coarsen = DP_COARSEN_NEVER;
	dp_err err;
	CHECK_INT(dp_export_write_opts(path, DP_EXPORT_SVG, x.g, &x.m, &x.plan,
				       &o, &p, NULL, &err),
		  DP_ECANCELED);
	CHECK_FILE(path, "old picture\n");
	CHECK_INT(test_count_files(".cancel.svg"), 0);
	/* the layout process was killed and reaped */
	errno = 0;
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
	/* and a fresh name is not created at all */
	atomic_store(&cancel, 0);
	CHECK_INT(dp_export_write_opts(test_tmp_path("new.svg"), DP_EXPORT_SVG,
				       x.g, &x.m, &x.plan, &o, &p, NULL, &err),
		  DP_ECANCELED);
	CHECK_INT(test_count_files("new.svg"), 0);
	CHECK_INT(test_count_files(".new.svg"), 0);
	pic_close(&x);
}

static void test_svg_layout_over_the_time_limit_is_stopped(void)
{
	pic x;
	REQUIRE(pic_open(&x, 3000, 4, true));
	dp_export_opts o;
	dp_export_opts_default(&o);
	o.coarsen = DP_COARSEN_NEVER;
	o.layout = "dot";
	o.timeout_s = 0.05;
	dp_err err;
	const char *path = test_tmp_path("slow.svg");
	CHECK_INT(dp_export_write_opts(path, DP_EXPORT_SVG, x.g, &x.m, &x.plan,
				       &o, NULL, NULL, &err),
		  DP_EIO);
	CHECK_CONTAINS(err.msg, "layout took longer than 0.05 s");
	CHECK_CONTAINS(err.msg, "--max-nodes");
	CHECK(access(path, F_OK) != 0);
	CHECK_INT(test_count_files(".slow.svg"), 0);
	pic_close(&x);
}

static void test_svg_unknown_layout_names_the_installed_ones(void)
{
	dp_graph *g = awkward();
	int32_t pl[] = {0, 1, 1, 0};
	dp_machine m;
	dp_plan plan;
	REQUIRE(test_evaluate(g, 2, pl, &m, &plan));
	dp_export_opts o;
	dp_export_opts_default(&o);
	o.layout = "nosuch";
	dp_err err;
	const char *path = test_tmp_path("nolayout.svg");
	CHECK_INT(dp_export_write_opts(path, DP_EXPORT_SVG, g, &m, &plan, &o,
				       NULL, NULL, &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "'nosuch' is not installed");
	CHECK_CONTAINS(err.msg, "dot");
	CHECK(access(path, F_OK) != 0);
	test_free(g, &m, &plan);
}

/* A mid-size training graph (3,000 generated ops, K=4 under 8 GiB caps, as
 * `dnnpart plan --svg` makes it): its coarsened picture has hundreds of
 * groups joined by long edges, on which dot with device clusters ran past
 * the 120 s limit even ranked by time. The automatic choice lays it out as
 * a timeline: it succeeds (no time limit hit) and shows every device. */
static void test_svg_of_a_3000_op_training_graph_is_a_timeline(void)
{
	dp_gen_opts go;
	dp_gen_opts_default(&go);
	go.ops = 3000;
	dp_graph *g = NULL;
	dp_err err;
	REQUIRE(dp_gen_graph(&go, &g, &err) == DP_OK);
	dp_machine m;
	REQUIRE(dp_machine_init(&m, 4, &err) == DP_OK);
	REQUIRE(dp_machine_set_caps(&m, "8GiB", &err) == DP_OK);
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	REQUIRE(dp_plan_run(g, &m, dp_algo_default(), NULL, NULL, &plan,
			    &err) == DP_OK);
	const char *path = test_tmp_path("g3k.svg");
	dp_export_report rep;
	dp_status st = dp_export_write_opts(path, DP_EXPORT_SVG, g, &m, &plan,
					    NULL, NULL, &rep, &err);
	if (st != DP_OK)
		test_fail(__FILE__, __LINE__, "export: %s", err.msg);
	CHECK_STR(rep.layout, "timeline");
	CHECK(rep.coarsened);
	/* a real picture, not a handful of boxes, and a readable one */
	CHECK(rep.nodes >= 20 && rep.nodes <= DP_EXPORT_MAX_NODES);
	char *svg = read_svg(path);
	REQUIRE(svg);
	CHECK_CONTAINS(svg, "COARSENED");
	CHECK_CONTAINS(svg, "timeline: one column per device");
	CHECK_CONTAINS(svg, "#cc3311"); /* the critical path */
	for (int d = 0; d < 4; d++) {
		char t[64];
		snprintf(t, sizeof t, "<title>cluster_dev%d</title>", d);
		CHECK_CONTAINS(svg, t);
		snprintf(t, sizeof t, ">GPU %d: ", d);
		CHECK_CONTAINS(svg, t);
	}
	free(svg);
	test_free(g, &m, &plan);
}

/* Sends SIGTERM, once, to every child of this (single-threaded) test
 * process while the layout runs. */
static void term_children(void *ud, const char *phase, double f)
{
	(void)f;
	int *sent = ud;
	if (*sent || strncmp(phase, "laying out", 10) != 0)
		return;
	char p[64];
	snprintf(p, sizeof p, "/proc/self/task/%d/children", (int)getpid());
	FILE *cf = fopen(p, "r");
	if (!cf)
		return;
	for (int pid; fscanf(cf, "%d", &pid) == 1;) {
		kill(pid, SIGTERM);
		(*sent)++;
	}
	fclose(cf);
}

/* A front end may fork the layout from a thread that blocks signals; the
 * child unblocks them, so a SIGTERM stops it (before, it stayed pending and
 * the layout ran on to its end). */
static void test_svg_layout_child_takes_sigterm_when_forked_blocked(void)
{
	pic x;
	REQUIRE(pic_open(&x, 3000, 4, true));
	sigset_t term, old;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	REQUIRE(pthread_sigmask(SIG_BLOCK, &term, &old) == 0);
	dp_export_opts o;
	dp_export_opts_default(&o);
	o.coarsen = DP_COARSEN_NEVER;
	o.layout = "dot"; /* 3,000 ops by dot: longer than the test waits */
	o.timeout_s = 60;
	int sent = 0;
	dp_progress p = {term_children, &sent, NULL};
	dp_err err;
	const char *path = test_tmp_path("term.svg");
	dp_status st = dp_export_write_opts(path, DP_EXPORT_SVG, x.g, &x.m,
					    &x.plan, &o, &p, NULL, &err);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	CHECK(sent >= 1);
	CHECK_INT(st, DP_EINTERNAL);
	CHECK_CONTAINS(err.msg, "stopped by signal 15");
	CHECK(access(path, F_OK) != 0);
	CHECK_INT(test_count_files(".term.svg"), 0);
	pic_close(&x);
}

static void test_svg_cleanup(void)
{
	CHECK(test_tmp_cleanup());
}

TEST_MAIN(TEST(test_svg_checker_rejects_broken_xml),
	  TEST(test_svg_is_well_formed_and_shows_every_device),
	  TEST(test_svg_of_100k_ops_is_coarsened),
	  TEST(test_svg_cancel_leaves_no_file_and_keeps_the_old),
	  TEST(test_svg_layout_over_the_time_limit_is_stopped),
	  TEST(test_svg_unknown_layout_names_the_installed_ones),
	  TEST(test_svg_of_a_3000_op_training_graph_is_a_timeline),
	  TEST(test_svg_layout_child_takes_sigterm_when_forked_blocked),
	  TEST(test_svg_cleanup))
