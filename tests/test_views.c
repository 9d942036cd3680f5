/* test_views.c - views drawn from a hand-built plan, compared with golden
 * text (tests/golden/views/VIEW_WxH.txt) over several sizes, and checks of
 * what each part of the screen must show. DNNPART_UPDATE_GOLDEN=1 rewrites
 * the golden files instead of comparing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bar.h"
#include "grid.h"
#include "lib/fixtures.h"
#include "lib/screen_text.h"
#include "lib/testlib.h"
#include "screen.h"
#include "state.h"
#include "test_views_fixture.h"
#include "view.h"

/* One letter per style, so that goldens also pin what each cell means. */
static const char style_letters[ST_COUNT + 1] = ".HowX|cszdEkKLtTpb012345";

/* The text, then "-- styles --", then one letter per cell (trailing
 * normal cells left out). */
static char *render_styled(const vstate *st, int w, int h)
{
	vgrid g;
	if (grid_init(&g, w, h) != 0)
		return NULL;
	screen_draw(st, &g);
	char *t = grid_to_text(&g, false);
	size_t tl = t ? strlen(t) : 0;
	char *out =
		t ? malloc(tl + 16 + (size_t)h * ((size_t)w + 1) + 1) : NULL;
	if (out) {
		memcpy(out, t, tl);
		size_t pos = tl;
		pos += (size_t)sprintf(out + pos, "-- styles --\n");
		for (int y = 0; y < h; y++) {
			size_t keep = pos;
			for (int x = 0; x < w; x++) {
				int sidx = grid_cell(&g, x, y)->style;
				out[pos++] = style_letters[sidx];
				if (sidx != ST_NORMAL)
					keep = pos;
			}
			pos = keep;
			out[pos++] = '\n';
		}
		out[pos] = '\0';
	}
	free(t);
	grid_free(&g);
	return out;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	if (s)
		s[n] = '\0';
	fclose(f);
	return s;
}

/* Compares text with the golden file; names the first differing line. */
static void check_golden(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof path, "tests/golden/views/%s.txt", name);
	const char *up = getenv("DNNPART_UPDATE_GOLDEN");
	if (up && up[0] == '1') {
		FILE *f = fopen(path, "wb");
		if (!f) {
			test_fail(__FILE__, __LINE__, "cannot write %s", path);
			return;
		}
		fputs(text, f);
		fclose(f);
		return;
	}
	char *want = read_all(path);
	if (!want) {
		test_fail(__FILE__, __LINE__,
			  "missing %s (DNNPART_UPDATE_GOLDEN=1 writes it)",
			  path);
		return;
	}
	if (strcmp(want, text) != 0) {
		int line = 1;
		const char *a = want, *b = text;
		while (*a && *a == *b) {
			if (*a == '\n')
				line++;
			a++;
			b++;
		}
		test_fail(__FILE__, __LINE__, "%s differs at line %d", path,
			  line);
	}
	free(want);
}

static void golden_view(view_id v, bool over, int w, int h)
{
	vstate st;
	fx_state(&st, over);
	st.view = v;
	st.op = 4; /* attn1, for Op detail */
	st.dev = 1;
	if (v == VIEW_COMPARE) {
		/* two rows with fixed numbers, whatever the registry holds */
		st.ncmp = 2;
		st.cmp_valid = true;
		st.cmp[0].algo = dp_algo_find("single");
		st.cmp[1].algo = dp_algo_find("single");
		dp_machine m;
		fx_machine(&m, over);
		dp_plan p;
		fx_plan(&p, &m);
		state_compare_done(&st, 0, &p);
		state_compare_failed(&st, 1, "cancelled");
		dp_machine_free(&m);
	}
	if (v == VIEW_DIFF) {
		/* a rerun after pins: attn1 moved to GPU2 and mlp0 to GPU1,
		 * GPU1's peak fell and the step got shorter */
		dp_machine m;
		dp_plan p;
		fx_moved_plan(&p, &m, over, 3, 1);
		p.sim.dev[1].peak_bytes -= 16 * MiB;
		p.sim.dev[2].peak_bytes += 8 * MiB;
		p.sim.makespan = 190;
		state_set_plan(&st, &p, st.gen);
		dp_machine_free(&m);
	}
	state_prepare(&st);
	char *t = render_styled(&st, w, h);
	char name[64];
	snprintf(name, sizeof name, "%s%s_%dx%d", view_table[v]->key,
		 over ? "_over" : "", w, h);
	REQUIRE(t);
	check_golden(name, t);
	free(t);
	state_free(&st);
}

static void test_views_golden_80x24(void)
{
	for (int v = 0; v <= VIEW_HELP; v++)
		golden_view((view_id)v, true, 80, 24);
}

static void test_views_golden_200x60(void)
{
	for (int v = 0; v <= VIEW_HELP; v++)
		golden_view((view_id)v, true, 200, 60);
}

static void test_views_golden_120x40_feasible(void)
{
	for (int v = 0; v < VIEW_COUNT; v++)
		golden_view((view_id)v, false, 120, 40);
}

/* A training chain of 8 layers "layers/<i>" (forward 100 us, input
 * gradient 100 us, weight gradient of role grad 100 us, its update), 1 MiB
 * activations; on 2 devices with a free link. */
static bool pipe_state(vstate *st)
{
	dp_graph *g = test_train_chain(8, 100, NULL, 100, 1 << 20, 0);
	dp_machine m;
	if (!g || dp_machine_init(&m, 2, NULL) != DP_OK) {
		dp_graph_free(g);
		return false;
	}
	m.bw = 1e12;
	m.lat = 0;
	dp_status r = state_init(st, g, &m, dp_algo_find("1f1b"),
				 DP_CONT_PORT, NULL);
	dp_machine_free(&m);
	if (r != DP_OK)
		dp_graph_free(g);
	return r == DP_OK;
}

/* The Timeline of interleaved 1F1B (2 devices of 2 chunks: letters a and
 * b) and of zb-h1 (deferred weight gradients: w), M = 4; golden text and
 * styles, and the glyphs checked here. */
static void test_timeline_shows_chunks_and_w_blocks(void)
{
	for (int c = 0; c < 2; c++) {
		vstate st;
		REQUIRE(pipe_state(&st));
		dp_algo_opts o;
		state_algo_opts(&st, &o);
		o.microbatches = 4;
		o.virtual_stages = c == 0 ? 2 : 0;
		o.schedule = c == 0 ? DP_SCHED_1F1B : DP_SCHED_ZBH1;
		dp_plan p;
		dp_err err;
		REQUIRE(dp_plan_run(st.g, &st.m, st.algo, &o, NULL, &p, &err) ==
			DP_OK);
		p.plan_ms = 0.05; /* the golden pins it */
		state_set_plan(&st, &p, st.gen);
		st.view = VIEW_TIMELINE;
		REQUIRE(state_prepare(&st) == DP_OK);
		char *t = render_styled(&st, 120, 40);
		REQUIRE(t);
		check_golden(c == 0 ? "timeline_interleaved_120x40"
				    : "timeline_zbh1_120x40",
			     t);
		if (c == 0) {
			CHECK_CONTAINS(t, "a-b chunk (colour: micro-batch)");
			CHECK(strstr(t, "aaa") && strstr(t, "bbb"));
			CHECK(strstr(t, "w weight") == NULL);
		} else {
			CHECK_CONTAINS(t, "w weight gradients (W)");
			CHECK(strstr(t, "www") != NULL);
			CHECK_CONTAINS(t, "0-9 micro-batch");
		}
		free(t);
		state_free(&st);
	}
}

static bool row_contains(const char *text, int row, const char *needle)
{
	const char *s = text;
	for (int i = 0; i < row && s; i++) {
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	if (!s)
		return false;
	const char *e = strchr(s, '\n');
	size_t n = e ? (size_t)(e - s) : strlen(s);
	char buf[2048];
	if (n >= sizeof buf)
		n = sizeof buf - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

static void test_screen_too_small_below_80x24(void)
{
	vstate st;
	fx_state(&st, false);
	static const int sizes[][2] = {{79, 24}, {80, 23}, {20, 5},
				       {1, 1},	 {0, 0},   {200, 10}};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		char *t = test_screen_text(&st, sizes[i][0], sizes[i][1]);
		REQUIRE(t);
		if (sizes[i][0] >= 30 && sizes[i][1] >= 3)
			CHECK_CONTAINS(t, "terminal too small");
		CHECK(strstr(t, "F10") == NULL);
		free(t);
	}
	char *t = test_screen_text(&st, 80, 24);
	CHECK(strstr(t, "too small") == NULL);
	CHECK(row_contains(t, 23, "F10Quit"));
	free(t);
	state_free(&st);
}

static void test_summary_names_the_device_over_its_cap(void)
{
	vstate st;
	fx_state(&st, true);
	char *t = test_screen_text(&st, 80, 24);
	CHECK(row_contains(t, 1, "INFEASIBLE GPU1 +20.0 MiB"));
	/* the panel row of GPU1 says OVER and its bar has the over glyph */
	CHECK(row_contains(t, 4, "GPU1"));
	CHECK(row_contains(t, 4, "OVER"));
	CHECK(row_contains(t, 4, "!"));
	CHECK(!row_contains(t, 3, "OVER"));
	free(t);
	t = test_screen_text(&st, 200, 60);
	CHECK(row_contains(t, 1,
			   "INFEASIBLE: GPU1 over by 20.0 MiB (peak 120 "
			   "MiB, cap 100 MiB)"));
	free(t);
	state_free(&st);
	fx_state(&st, false);
	t = test_screen_text(&st, 80, 24);
	CHECK(row_contains(t, 1, "FEASIBLE"));
	CHECK(!row_contains(t, 1, "INFEASIBLE"));
	CHECK(strstr(t, "OVER") == NULL);
	free(t);
	state_free(&st);
}

static void test_header_shows_settings(void)
{
	vstate st;
	fx_state(&st, false);
	char *t = test_screen_text(&st, 80, 24);
	CHECK(row_contains(t, 0, "toy-transformer"));
	CHECK(row_contains(t, 0, "K=3"));
	CHECK(row_contains(t, 0, "algo single"));
	CHECK(row_contains(t, 0, "10 ops"));
	free(t);
	t = test_screen_text(&st, 200, 60);
	CHECK(row_contains(t, 0, "link pardnn"));
	CHECK(row_contains(t, 0, "contention port"));
	free(t);
	state_free(&st);
}

static void test_stale_plan_is_marked_and_new_device_waits(void)
{
	vstate st;
	fx_state(&st, false);
	dp_machine_resize(&st.m, 4, NULL);
	state_settings_changed(&st);
	st.running = true;
	snprintf(st.phase, sizeof st.phase, "mapping");
	st.fraction = 0.5;
	st.elapsed_s = 1.25;
	char *t = test_screen_text(&st, 100, 30);
	CHECK(row_contains(t, 0, "K=4"));
	CHECK(row_contains(t, 1, "STALE"));
	CHECK(row_contains(t, 6, "GPU3"));
	CHECK(row_contains(t, 6, "waiting for the rerun"));
	CHECK(row_contains(t, 28, "rerunning single: mapping  50% 1.2s"));
	free(t);
	state_free(&st);
}

static void test_memory_bar_marks_cap_and_overflow(void)
{
	vgrid g;
	REQUIRE(grid_init(&g, 22, 3) == 0);
	bar_memory(&g, 0, 0, 22, 50, 100, false);  /* half the cap */
	bar_memory(&g, 0, 1, 22, 150, 100, false); /* 50 % over */
	bar_memory(&g, 0, 2, 22, 101, 100, false); /* just over */
	char row[256];
	grid_row_text(&g, 0, row, sizeof row);
	CHECK(strstr(row, "\xe2\x94\x83") != NULL); /* the cap mark */
	CHECK(strchr(row, '!') == NULL);
	grid_row_text(&g, 1, row, sizeof row);
	CHECK(strstr(row, "\xe2\x94\x83!!!") != NULL);
	grid_row_text(&g, 2, row, sizeof row);
	CHECK(strchr(row, '!') != NULL); /* even 1 % over shows */
	/* the cap of a fitting bar sits at 80 % of the interior */
	CHECK_INT(bar_cap_cell(20, 50, 100), 16);
	CHECK_INT(bar_cap_cell(20, 50, DP_CAP_UNLIMITED), -1);
	/* monochrome: the ASCII text still tells over from within */
	char *a = grid_to_text(&g, true);
	CHECK_CONTAINS(a, "|!!!");
	free(a);
	CHECK_INT(grid_cell(&g, 19, 1)->style, ST_BAR_OVER);
	CHECK_INT(grid_cell(&g, 1, 0)->style, ST_BAR_OK);
	grid_free(&g);
}

static void test_load_bar_fills_in_eighths(void)
{
	vgrid g;
	REQUIRE(grid_init(&g, 6, 1) == 0);
	bar_load(&g, 0, 0, 6, 0.5 + 1.0 / 8, false); /* 4 cells: 2.5 */
	CHECK_INT(grid_cell(&g, 1, 0)->ch, 0x2588);
	CHECK_INT(grid_cell(&g, 2, 0)->ch, 0x2588);
	CHECK_INT(grid_cell(&g, 3, 0)->ch, 0x258c); /* half */
	CHECK_INT(grid_cell(&g, 4, 0)->ch, ' ');
	CHECK_INT(grid_cell(&g, 5, 0)->ch, ']');
	grid_free(&g);
}

static void test_grid_keeps_one_cell_per_glyph(void)
{
	vgrid g;
	REQUIRE(grid_init(&g, 10, 2) == 0);
	/* wide CJK, invalid UTF-8 and a control character become '?' */
	CHECK_INT(grid_puts(&g, 0, 0, -1, ST_NORMAL, "a\xe6\x97\xa5\xff\x01z"),
		  5);
	char row[64];
	CHECK_STR(grid_row_text(&g, 0, row, sizeof row), "a???z");
	grid_puts_fit(&g, 0, 1, 4, ST_NORMAL, "abcdefg");
	CHECK_STR(grid_row_text(&g, 1, row, sizeof row), "abc~");
	/* writes outside the grid are dropped */
	grid_put(&g, 10, 0, 'x', ST_NORMAL);
	grid_put(&g, -1, 0, 'x', ST_NORMAL);
	grid_puts(&g, 8, 1, -1, ST_NORMAL, "xyz");
	CHECK_STR(grid_row_text(&g, 1, row, sizeof row), "abc~    xy");
	char *t = grid_to_text(&g, false);
	CHECK_STR(t, "a???z\nabc~    xy\n");
	free(t);
	CHECK_INT(text_width("\xc3\x97LB"), 3);
	grid_free(&g);
}

static void test_views_survive_every_size(void)
{
	/* every view at many sizes, a few with a scrolled state: nothing to
	 * compare, but ASan and the checks catch drawing past the grid */
	vstate st;
	fx_state(&st, true);
	st.cp_cursor = 7;
	st.ops_cursor = 9;
	st.op = 8;
	st.time[VIEW_TIMELINE] = (time_win){4, 0.9};
	st.time[VIEW_MEMORY] = (time_win){8, 0.5};
	st.mem_scroll = 100;
	st.help_scroll = 1000;
	for (int v = 0; v <= VIEW_HELP; v++) {
		st.view = (view_id)v;
		for (int w = 78; w <= 260; w += 13)
			for (int h = 22; h <= 70; h += 7) {
				char *t = test_screen_text(&st, w, h);
				REQUIRE(t);
				if (w >= 80 && h >= 24) {
					CHECK(row_contains(t, 0,
							   "toy-transformer"));
					CHECK(row_contains(t, h - 1, "F1Help"));
				}
				free(t);
			}
	}
	state_free(&st);
}

TEST_MAIN(TEST(test_views_golden_80x24), TEST(test_views_golden_200x60),
	  TEST(test_views_golden_120x40_feasible),
	  TEST(test_screen_too_small_below_80x24),
	  TEST(test_summary_names_the_device_over_its_cap),
	  TEST(test_header_shows_settings),
	  TEST(test_stale_plan_is_marked_and_new_device_waits),
	  TEST(test_memory_bar_marks_cap_and_overflow),
	  TEST(test_load_bar_fills_in_eighths),
	  TEST(test_grid_keeps_one_cell_per_glyph),
	  TEST(test_views_survive_every_size),
	  TEST(test_timeline_shows_chunks_and_w_blocks))
