/* test_bar_reserve.c - readable memory in the views: the memory bar with a
 * reserve (machine.h): the reserved cells before the cap mark, a peak
 * within the usable part never marked over (even when rounding would reach
 * the reserve), one above it always, the ASCII text telling them apart; an
 * over-cap fill in the over style; bars without a cap on one scale; long
 * op names cut in the middle. */
#include <stdlib.h>
#include <string.h>

#include "bar.h"
#include "dnnpart/machine.h"
#include "grid.h"
#include "lib/testlib.h"

static void test_bar_reserve_segment_and_overflow(void)
{
	vgrid g;
	REQUIRE(grid_init(&g, 32, 4) == 0);
	/* cap 100 = 80 usable + 20 reserved */
	bar_memory_reserve(&g, 0, 0, 32, 40, 80, 20, 40, false);
	bar_memory_reserve(&g, 0, 1, 32, 80, 80, 20, 80, false); /* at usable */
	bar_memory_reserve(&g, 0, 2, 32, 81, 80, 20, 81, false); /* just over */
	bar_memory_reserve(&g, 0, 3, 32, 40, 80, 0, 40, false); /* no reserve */
	char row[256];
	grid_row_text(&g, 0, row, sizeof row);
	CHECK(strstr(row, "\xe2\x96\x91\xe2\x94\x83") != NULL); /* ░┃ */
	CHECK(strchr(row, '!') == NULL);
	grid_row_text(&g, 1, row, sizeof row);
	CHECK(strchr(row, '!') == NULL);
	CHECK(strstr(row, "\xe2\x96\x91") != NULL);
	grid_row_text(&g, 2, row, sizeof row);
	CHECK(strchr(row, '!') != NULL);
	grid_row_text(&g, 3, row, sizeof row);
	CHECK(strstr(row, "\xe2\x96\x91") == NULL);
	/* the cap mark sits where a plain bar of cap 100 puts it */
	CHECK(grid_cell(&g, 1 + bar_cap_cell(30, 40, 100), 0)->ch == GLYPH_CAP);
	char *a = grid_to_text(&g, true);
	CHECK_CONTAINS(a, ".|");
	free(a);
	/* over the cap: the whole fill is in the over style */
	CHECK_INT(grid_cell(&g, 1, 2)->style, ST_BAR_OVER);
	CHECK_INT(grid_cell(&g, 1, 1)->style, ST_BAR_WARN);
	grid_free(&g);
}

/* Without a cap the bars share the largest peak's scale: half the peak
 * fills half the bar, not all of it. */
static void test_bar_without_cap_scales_to_the_largest_peak(void)
{
	vgrid g;
	REQUIRE(grid_init(&g, 22, 2) == 0);
	bar_memory_reserve(&g, 0, 0, 22, 100, DP_CAP_UNLIMITED, 0, 100, false);
	bar_memory_reserve(&g, 0, 1, 22, 50, DP_CAP_UNLIMITED, 0, 100, false);
	int full0 = 0, full1 = 0;
	for (int i = 1; i <= 20; i++) {
		full0 += grid_cell(&g, i, 0)->ch == GLYPH_FULL;
		full1 += grid_cell(&g, i, 1)->ch == GLYPH_FULL;
	}
	CHECK_INT(full0, 20);
	CHECK_INT(full1, 10);
	grid_free(&g);
}

/* Long names are cut in the middle: head, ellipsis, tail. */
static void test_long_names_get_a_middle_ellipsis(void)
{
	vgrid g;
	REQUIRE(grid_init(&g, 12, 3) == 0);
	grid_puts_mid(&g, 0, 0, 11, ST_NORMAL, "model/h3/attn/qkv/grad");
	grid_puts_mid(&g, 0, 1, 11, ST_NORMAL, "model/h11/attn/qkv/grad");
	grid_puts_mid(&g, 0, 2, 11, ST_NORMAL, "short");
	char a[64], b[64], c[64];
	grid_row_text(&g, 0, a, sizeof a);
	grid_row_text(&g, 1, b, sizeof b);
	grid_row_text(&g, 2, c, sizeof c);
	CHECK_STR(a, "model\xe2\x80\xa6/grad");
	CHECK_STR(c, "short");
	CHECK_CONTAINS(b, "/grad");
	CHECK_INT(text_width(a), 11);
	grid_free(&g);
}

TEST_MAIN(TEST(test_bar_reserve_segment_and_overflow),
	  TEST(test_bar_without_cap_scales_to_the_largest_peak),
	  TEST(test_long_names_get_a_middle_ellipsis))
