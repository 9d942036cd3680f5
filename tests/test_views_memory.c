/* test_views_memory.c - the Memory view: its own time window and axis, the
 * cap and reserve lines broken where the curve crosses them (in glyphs as
 * well as styles), and the peak split by layer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "bar.h"
#include "grid.h"
#include "lib/testlib.h"
#include "screen.h"
#include "state.h"
#include "test_views_fixture.h"
#include "view.h"

#define LABEL_W 7 /* the device labels left of the chart */
#define NUM_W 22  /* the numbers right of it */

/* The Memory view of st, drawn on a w x h grid. */
static void draw_memory(vstate *st, vgrid *g, int w, int h)
{
	st->view = VIEW_MEMORY;
	state_prepare(st);
	REQUIRE(grid_init(g, w, h) == 0);
	screen_draw(st, g);
}

/* The infeasible fixture with GPU1 (over its cap) selected. */
static void fx_gpu1(vstate *st)
{
	fx_state(st, true);
	st->dev = 1;
}

static void finish(vgrid *g, vstate *st)
{
	grid_free(g);
	state_free(st);
}

/* The first row at or below from whose text starts with prefix, or -1. */
static int row_of(const vgrid *g, int from, const char *prefix)
{
	char buf[4096];
	for (int y = from; y < g->h; y++)
		if (strncmp(grid_row_text(g, y, buf, sizeof buf), prefix,
			    strlen(prefix)) == 0)
			return y;
	return -1;
}

/* The row of device label in the chart (below the view's header, not in
 * the devices panel), or -1. */
static int chart_row(const vgrid *g, const char *label)
{
	int y = row_of(g, 0, "Memory ");
	return y < 0 ? -1 : row_of(g, y, label);
}

static const char *row(const vgrid *g, int y)
{
	static char buf[4096];
	return grid_row_text(g, y, buf, sizeof buf);
}

/* Columns of row y in the chart (n of them from LABEL_W) holding ch. */
static int count_glyph(const vgrid *g, int y, int n, uint32_t ch)
{
	int k = 0;
	for (int c = 0; c < n; c++)
		k += grid_cell_const(g, LABEL_W + c, y)->ch == ch;
	return k;
}

static void test_memory_view_zooms_on_its_own_window(void)
{
	vstate st;
	fx_state(&st, true);
	st.view = VIEW_MEMORY;
	actions_key(&st, 120, 40, 'z');
	CHECK_INT(st.time[VIEW_MEMORY].zoom, 2);
	CHECK_INT(st.time[VIEW_TIMELINE].zoom, 1);
	actions_key(&st, 120, 40, VK_RIGHT);
	CHECK(st.time[VIEW_MEMORY].left > 0.25);
	CHECK(st.time[VIEW_TIMELINE].left == 0);
	actions_key(&st, 120, 40, VK_HOME);
	CHECK(st.time[VIEW_MEMORY].left == 0);
	vgrid g;
	draw_memory(&st, &g, 120, 40);
	int y = row_of(&g, 0, "Memory ");
	REQUIRE(y > 0);
	CHECK_CONTAINS(row(&g, y), "0 us-105 us of 210 us, zoom 2\xc3\x97");
	CHECK_CONTAINS(row(&g, y), "z/Z zoom");
	/* the axis under it, ticks every 14 columns from the window's start */
	CHECK_CONTAINS(row(&g, y + 1), "\xe2\x94\x82"
				       "0 us");
	CHECK_INT(grid_cell_const(&g, LABEL_W + 14, y + 1)->ch, 0x2502);
	grid_free(&g);
	/* the timeline keeps its own: the whole step */
	st.view = VIEW_TIMELINE;
	actions_key(&st, 120, 40, 'Z');
	CHECK_INT(st.time[VIEW_TIMELINE].zoom, 1);
	CHECK_INT(st.time[VIEW_MEMORY].zoom, 2);
	state_free(&st);
}

/* GPU1's curve is over its 100 MiB cap from 115 us to 140 us: the columns
 * of those times, out of n over 210 us. */
static void over_columns(int n, int *first, int *last)
{
	double dt = 210.0 / n;
	*first = (int)(115 / dt);
	*last = (int)(140 / dt);
}

/* Draws st at w x h: GPU1's chart row, the chart's n columns and those
 * where GPU1 is over its cap. */
static int draw_gpu1(vstate *st, vgrid *g, int w, int h, int *n, int *first,
		     int *last)
{
	draw_memory(st, g, w, h);
	*n = w - LABEL_W - NUM_W;
	over_columns(*n, first, last);
	return chart_row(g, "GPU1");
}

static void test_memory_view_breaks_the_cap_line_where_the_curve_crosses(void)
{
	vstate st;
	fx_gpu1(&st);
	vgrid g;
	int n, first, last;
	int y = draw_gpu1(&st, &g, 120, 40, &n, &first, &last);
	REQUIRE(y > 0);
	CHECK_CONTAINS(row(&g, y), "100 MiB +20.0 MiB");
	for (int c = 0; c < n; c++) {
		const vcell *l = grid_cell_const(&g, LABEL_W + c, y);
		const vcell *f = grid_cell_const(&g, LABEL_W + c, y + 1);
		bool over = c >= first && c <= last;
		CHECK_INT(l->ch, over ? GLYPH_OVER : GLYPH_LINE);
		CHECK_INT(l->style, over ? ST_BAR_OVER : ST_CAP_MARK);
		if (over) /* the curve under the line is over along it */
			CHECK_INT(f->style, ST_BAR_OVER);
	}
	/* GPU0 stays under its 1 GiB: an unbroken line; GPU2 has no cap */
	int y0 = chart_row(&g, "GPU0"), y2 = chart_row(&g, "GPU2");
	CHECK_INT(count_glyph(&g, y0, n, GLYPH_LINE), n);
	CHECK_INT(count_glyph(&g, y2, n, GLYPH_LINE), 0);
	CHECK_CONTAINS(row(&g, row_of(&g, 0, "Memory ")), "cap");
	/* monochrome: the text alone tells the line from the crossing */
	char *a = grid_to_text(&g, true);
	char want[128];
	snprintf(want, sizeof want, "GPU1   %.*s!", first,
		 "------------"
		 "--------------------------------------------------------");
	CHECK_CONTAINS(a, want);
	free(a);
	finish(&g, &st);
}

static void test_memory_view_draws_the_reserve_line(void)
{
	vstate st;
	fx_gpu1(&st);
	/* usable 100 MiB, cap 130 MiB: the peak (120) is in the reserve */
	st.plan->sim.dev[1].reserve_bytes = 30 * MiB;
	vgrid g;
	int n, first, last;
	int y = draw_gpu1(&st, &g, 200, 60, &n, &first, &last);
	REQUIRE(y > 0);
	/* the cap line is whole, the reserve line under it broken */
	CHECK_INT(count_glyph(&g, y, n, GLYPH_LINE), n);
	CHECK_INT(count_glyph(&g, y + 1, n, GLYPH_OVER), last - first + 1);
	CHECK_INT(count_glyph(&g, y + 1, n, GLYPH_RESERVE),
		  n - (last - first + 1));
	CHECK_CONTAINS(row(&g, y + 2), "reserve 30.0 MiB");
	CHECK_CONTAINS(row(&g, row_of(&g, 0, "Memory ")),
		       "\xe2\x96\x91 reserve");
	grid_free(&g);
	/* a cap of 110 MiB: the curve goes over both lines */
	st.plan->sim.dev[1].reserve_bytes = 10 * MiB;
	draw_memory(&st, &g, 200, 60);
	CHECK_INT(count_glyph(&g, y, n, GLYPH_OVER), last - first + 1);
	CHECK_INT(count_glyph(&g, y + 1, n, GLYPH_OVER), last - first + 1);
	grid_free(&g);
	/* 80x24 has room for one line: the usable cap, broken the same */
	y = draw_gpu1(&st, &g, 80, 24, &n, &first, &last);
	REQUIRE(y > 0);
	CHECK_INT(count_glyph(&g, y, n, GLYPH_OVER), last - first + 1);
	finish(&g, &st);
}

static void test_memory_view_splits_the_peak_by_layer(void)
{
	vstate st;
	fx_gpu1(&st);
	vgrid g;
	draw_memory(&st, &g, 120, 40);
	/* GPU1 at 115 us: attn1's temp and output (enc/1), attn0's param and
	 * output (enc/0), embed's copy */
	int y = row_of(&g, 0, "by layer: ");
	REQUIRE(y > 0);
	CHECK_STR(row(&g, y),
		  "by layer: enc/1 72.0 MiB, enc/0 40.0 MiB, embed 8.00 MiB");
	grid_free(&g);
	/* long names are cut in the middle; what does not fit is "other" */
	dp_graph_set_layer(st.g, 4, "encoder/block_01/self_attention/qkv",
			   NULL);
	dp_graph_set_layer(st.g, 2, "encoder/block_00/self_attention/out",
			   NULL);
	draw_memory(&st, &g, 80, 24);
	y = row_of(&g, 0, "by layer: ");
	REQUIRE(y > 0);
	CHECK_CONTAINS(row(&g, y), "by layer: encoder/bl");
	CHECK_CONTAINS(row(&g, y), "\xe2\x80\xa6");
	CHECK_CONTAINS(row(&g, y),
		       "\xe2\x80\xa6ttention/qkv 72.0 MiB, other 48.0 MiB");
	grid_free(&g);
	/* an op without a layer counts under its type */
	dp_graph_set_layer(st.g, 1, "", NULL);
	draw_memory(&st, &g, 200, 60);
	CHECK_CONTAINS(row(&g, row_of(&g, 0, "by layer: ")), "Gather 8.00 MiB");
	finish(&g, &st);
}

TEST_MAIN(TEST(test_memory_view_zooms_on_its_own_window),
	  TEST(test_memory_view_breaks_the_cap_line_where_the_curve_crosses),
	  TEST(test_memory_view_draws_the_reserve_line),
	  TEST(test_memory_view_splits_the_peak_by_layer))
