/* test_format_everywhere.c - a number reads the same wherever dnnpart
 * prints it: the command line's report, the explorer's views, and the
 * labels of the DOT and SVG pictures all take their text from the one
 * formatter (dnnpart/units.h). Two copies of it once drifted: DOT labels
 * said "1.00 MiB" for 1,048,000 bytes while the screen said "1023 KiB".
 *
 * One plan: op a runs 1234.5678 us and outputs 1,048,000 bytes, op b runs
 * 10 us after it on the same device, so the makespan is 1244.5678 us and
 * the device's peak is a's output. Each output must hold the formatter's
 * exact text for those numbers. The command line is the binary under test
 * ($DNNPART, as tests/run.sh sets it; ./dnnpart otherwise). */
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cgraph.h>

#include "dnnpart/algo.h"
#include "dnnpart/export.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "dnnpart/units.h"
#include "fmt.h"
#include "grid.h"
#include "lib/fixtures.h"
#include "lib/screen_text.h"
#include "lib/testlib.h"
#include "screen.h"
#include "state.h"

#define OUT_BYTES 1048000
#define A_US 1234.5678
#define B_US 10.0

/* The formatter's text for the numbers of the plan. */
static char want_size[32], want_op_time[32], want_makespan[32];

static void wants(void)
{
	dp_units_fmt_bytes(OUT_BYTES, want_size, sizeof want_size);
	dp_units_fmt_time(A_US, want_op_time, sizeof want_op_time);
	dp_units_fmt_time(A_US + B_US, want_makespan, sizeof want_makespan);
}

static const char graph_json[] =
	"{\"format\":\"dnnpart-graph\",\"version\":1,\"name\":\"fmt\",\n"
	" \"ops\":[{\"name\":\"a\",\"type\":\"MatMul\",\"time_us\":1234.5678,"
	"\"output_bytes\":1048000},\n"
	"        {\"name\":\"b\",\"type\":\"Relu\",\"time_us\":10,"
	"\"output_bytes\":0}],\n"
	" \"edges\":[{\"from\":\"a\",\"to\":\"b\"}]}\n";

static dp_graph *two_ops(void)
{
	dp_graph *g = dp_graph_new("fmt");
	uint32_t a = test_add_op(g, "a", A_US, OUT_BYTES, NULL);
	uint32_t b = test_add_op(g, "b", B_US, 0, NULL);
	dp_graph_add_edge(g, a, b, -1, false, NULL);
	return test_finalized(g);
}

/* The explorer's state for the plan on one device with cap (bytes), made
 * by the `single` algorithm; false on failure (recorded). */
static bool make_state(vstate *st, int64_t cap)
{
	dp_graph *g = two_ops();
	if (!g)
		return false;
	dp_machine m;
	dp_err err;
	if (dp_machine_init(&m, 1, &err) != DP_OK) {
		dp_graph_free(g);
		return false;
	}
	m.cap[0] = cap;
	const dp_algo *single = dp_algo_find("single");
	if (!single ||
	    state_init(st, g, &m, single, DP_CONT_PORT, &err) != DP_OK) {
		dp_machine_free(&m);
		dp_graph_free(g);
		return false;
	}
	dp_machine_free(&m);
	dp_plan p;
	if (dp_plan_run(st->g, &st->m, single, NULL, NULL, &p, &err) != DP_OK) {
		test_fail(__FILE__, __LINE__, "dp_plan_run: %s", err.msg);
		state_free(st);
		return false;
	}
	state_set_plan(st, &p, st->gen);
	state_prepare(st);
	return true;
}

/* The screen's text with view v shown, w x h cells (the caller frees). */
static char *draw(vstate *st, view_id v, int w, int h)
{
	st->view = v;
	return test_screen_text(st, w, h);
}

/* The first line of text that holds needle, or that starts with it when
 * at_start, in a static buffer ("" if none). */
static const char *line_with(const char *text, const char *needle,
			     bool at_start)
{
	static char line[512];
	line[0] = '\0';
	for (const char *s = text; s && *s;) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n >= sizeof line)
			n = sizeof line - 1;
		memcpy(line, s, n);
		line[n] = '\0';
		const char *hit = strstr(line, needle);
		if (hit && (!at_start || hit == line))
			return line;
		s = e ? e + 1 : NULL;
	}
	line[0] = '\0';
	return line;
}

/* CHECK_CONTAINS for a whole file or screen: names it instead of printing
 * it all. */
#define CHECK_HAS(what, text, needle)                                          \
	do {                                                                   \
		if (!strstr((text), (needle)))                                 \
			test_fail(__FILE__, __LINE__, "%s lacks \"%s\"",       \
				  (what), (needle));                           \
	} while (0)
#define CHECK_HAS_NO_1023(what, text)                                          \
	do {                                                                   \
		if (strstr((text), "1023"))                                    \
			test_fail(__FILE__, __LINE__,                          \
				  "%s says 1023 (KiB?): \"%s\"", (what),       \
				  line_with((text), "1023", false));           \
	} while (0)

static const char *cluster_label(Agraph_t *G)
{
	Agraph_t *c = agsubg(G, "cluster_dev0", 0);
	char *v = c ? agget(c, "label") : NULL;
	return v ? v : "";
}

static const char *node_label(Agraph_t *G, const char *name)
{
	Agnode_t *n = agnode(G, (char *)name, 0);
	char *v = n ? agget(n, "label") : NULL;
	return v ? v : "";
}

/* Runs the command line `dnnpart ARGS` on the graph; its output (the caller
 * frees), NULL when it cannot run (recorded). */
static char *cli(const char *args)
{
	const char *bin = getenv("DNNPART");
	if (!bin || !*bin)
		bin = "./dnnpart";
	const char *gpath = test_tmp_path("fmt.json");
	if (!test_write_file(gpath, graph_json)) {
		test_fail(__FILE__, __LINE__, "cannot write the graph file");
		return NULL;
	}
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "'%s' plan '%s' %s 2>&1", bin, gpath, args);
	FILE *p = popen(cmd, "r");
	if (!p) {
		test_fail(__FILE__, __LINE__, "cannot run %s", cmd);
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *out = malloc(cap);
	if (out) {
		n = fread(out, 1, cap - 1, p);
		out[n] = '\0';
	}
	int rc = pclose(p);
	if (rc != 0 || !out) {
		test_fail(__FILE__, __LINE__, "%s: status %d: %.300s", cmd, rc,
			  out ? out : "");
		free(out);
		return NULL;
	}
	return out;
}

/* The formatter's rule, pinned: three significant digits across a prefix. */
static void test_the_formatter_says_1_00_MiB_and_1_24_ms(void)
{
	wants();
	CHECK_STR(want_size, "1.00 MiB");
	CHECK_STR(want_op_time, "1.23 ms");
	CHECK_STR(want_makespan, "1.24 ms");
	char b[32];
	/* negative sizes keep their sign in every front end's helper */
	CHECK_STR(dp_units_fmt_bytes(-5, b, sizeof b), "-5 B");
	CHECK_STR(fmt_cap(-5, b, sizeof b), "-5 B");
	CHECK_STR(fmt_size_input(-5, b, sizeof b), "-5B");
	/* the views' cap prompt starts from the size the screen shows */
	CHECK_STR(fmt_cap(OUT_BYTES, b, sizeof b), want_size);
	CHECK_STR(fmt_size_input(OUT_BYTES, b, sizeof b), "1MiB");
}

static void test_dot_svg_views_and_cli_print_the_same_text(void)
{
	wants();
	vstate st;
	REQUIRE(make_state(&st, DP_CAP_UNLIMITED));
	char a_label[96], peak_line[96], op_line[96];
	snprintf(a_label, sizeof a_label, "a\\n%s, out %s", want_op_time,
		 want_size);
	snprintf(op_line, sizeof op_line, "%s, out %s", want_op_time,
		 want_size);
	snprintf(peak_line, sizeof peak_line, "peak memory %s (no cap)",
		 want_size);

	/* DOT: the op's and the device's labels */
	const char *dot = test_tmp_path("fmt.dot");
	Agraph_t *G = test_dot_of(dot, st.g, &st.m, st.plan);
	REQUIRE(G);
	CHECK_STR(node_label(G, "a"), a_label);
	CHECK_CONTAINS(cluster_label(G), peak_line);
	char *glabel = agget(G, "label");
	char mk[64];
	snprintf(mk, sizeof mk, "makespan %s", want_makespan);
	CHECK_CONTAINS(glabel ? glabel : "", mk);
	agclose(G);

	/* SVG: the same label lines as text elements */
	char *text = test_export_text(test_tmp_path("fmt.svg"), DP_EXPORT_SVG,
				      st.g, &st.m, st.plan);
	REQUIRE(text);
	char el[160];
	snprintf(el, sizeof el, ">%s</text>", op_line);
	CHECK_HAS("the SVG", text, el);
	snprintf(el, sizeof el, ">%s</text>", peak_line);
	CHECK_HAS("the SVG", text, el);
	CHECK_HAS("the SVG", text, mk);
	CHECK_HAS_NO_1023("the SVG", text);
	free(text);

	/* views: the Ops view's row of a, the Devices view's peak, the
	 * header's makespan */
	char *ops = draw(&st, VIEW_OPS, 120, 30);
	REQUIRE(ops);
	const char *row = line_with(ops, "a ", true);
	CHECK_CONTAINS(row, want_size);
	CHECK_CONTAINS(row, want_op_time);
	CHECK_HAS("the Ops view", ops, mk);
	CHECK_HAS_NO_1023("the Ops view", ops);
	free(ops);
	char *devs = draw(&st, VIEW_DEVICES, 120, 30);
	REQUIRE(devs);
	char peak_at[64];
	snprintf(peak_at, sizeof peak_at, "peak %s at", want_size);
	CHECK_HAS("the Devices view", devs, peak_at);
	CHECK_HAS_NO_1023("the Devices view", devs);
	free(devs);

	/* the command line: the summary's makespan, the device row's peak */
	char *out = cli("-k 1 --algo single");
	if (out) {
		CHECK_CONTAINS(line_with(out, "makespan ", true),
			       want_makespan);
		const char *dev0 = line_with(out, "     0 ", true);
		CHECK_CONTAINS(dev0, want_size);
		CHECK_CONTAINS(dev0, want_makespan); /* busy */
		CHECK_HAS_NO_1023("dnnpart plan", out);
		free(out);
	}
	state_free(&st);
}

/* A cap of 0 B is a cap everywhere: the simulator, the CLI, the views and
 * the pictures' labels all call the device over it (DOT labels used to say
 * "no cap"). */
static void test_a_zero_cap_is_a_cap_everywhere(void)
{
	wants();
	vstate st;
	REQUIRE(make_state(&st, 0));
	CHECK(!st.plan->feasible);
	const char *dot = test_tmp_path("zero.dot");
	Agraph_t *G = test_dot_of(dot, st.g, &st.m, st.plan);
	REQUIRE(G);
	char want[96];
	snprintf(want, sizeof want, "peak memory %s > 0 B - OVER CAP",
		 want_size);
	CHECK_CONTAINS(cluster_label(G), want);
	agclose(G);
	char *devs = draw(&st, VIEW_DEVICES, 120, 30);
	REQUIRE(devs);
	snprintf(want, sizeof want, "by %s (peak %s, cap 0 B)", want_size,
		 want_size);
	CHECK_HAS("the Devices view", devs, want);
	free(devs);
	char *out = cli("-k 1 --algo single --mem 0B");
	if (out) {
		CHECK_HAS("dnnpart plan --mem 0B", out, want);
		free(out);
	}
	state_free(&st);
}

/* The explorer runs under the user's locale (setlocale(LC_ALL, "")): its
 * ratios and seconds print with '.' like its sizes and like the pictures,
 * not "1,00" beside "1.00 MiB". */
static void test_views_ignore_a_comma_locale(void)
{
	wants();
	vstate st;
	REQUIRE(make_state(&st, DP_CAP_UNLIMITED));
	bool comma = test_comma_locale();
	if (!comma)
		printf("# no comma locale here (localedef failed): checked "
		       "in the C locale only\n");
	char *devs = draw(&st, VIEW_DEVICES, 120, 30);
	st.running = true;
	st.elapsed_s = 2.25;
	st.fraction = -1;
	char *busy = draw(&st, VIEW_DEVICES, 120, 30);
	st.running = false;
	setlocale(LC_NUMERIC, "C");
	REQUIRE(devs && busy);
	CHECK_HAS("the Devices view", devs, "\xc3\x97LB 1.00");
	CHECK_HAS("the Devices view", devs, "speedup 1.00\xc3\x97");
	CHECK_HAS("the Devices view", devs, "speed 1.00,");
	CHECK_HAS("the Devices view", devs, "makespan 1.00\xc3\x97LB");
	CHECK_HAS("the Devices view", devs, want_size);
	CHECK_HAS("the running Devices view", busy, " 2.2s (Esc cancels)");
	if (strstr(devs, "1,00") || strstr(busy, "2,2"))
		test_fail(__FILE__, __LINE__, "a comma: \"%s\"",
			  line_with(strstr(devs, "1,00") ? devs : busy,
				    strstr(devs, "1,00") ? "1,00" : "2,2",
				    false));
	free(devs);
	free(busy);
	state_free(&st);
}

static void test_cleanup(void)
{
	CHECK(test_tmp_cleanup());
}

TEST_MAIN(TEST(test_the_formatter_says_1_00_MiB_and_1_24_ms),
	  TEST(test_dot_svg_views_and_cli_print_the_same_text),
	  TEST(test_a_zero_cap_is_a_cap_everywhere),
	  TEST(test_views_ignore_a_comma_locale), TEST(test_cleanup))
