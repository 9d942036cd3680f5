/* test_bar_reserve.c - the memory bar with a reserve (machine.h): the
 * reserved cells before the cap mark, a peak within the usable part never
 * marked over (even when rounding would reach the reserve), one above it
 * always; the ASCII text tells them apart. */
#include <stdlib.h>
#include <string.h>

#include "bar.h"
#include "grid.h"
#include "lib/testlib.h"

static void test_bar_reserve_segment_and_overflow(void)
{
	vgrid g;
	REQUIRE(grid_init(&g, 32, 4) == 0);
	/* cap 100 = 80 usable + 20 reserved */
	bar_memory_reserve(&g, 0, 0, 32, 40, 80, 20, false);
	bar_memory_reserve(&g, 0, 1, 32, 80, 80, 20, false); /* at usable */
	bar_memory_reserve(&g, 0, 2, 32, 81, 80, 20, false); /* just over */
	bar_memory_reserve(&g, 0, 3, 32, 40, 80, 0, false);  /* no reserve */
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
	grid_free(&g);
}

TEST_MAIN(TEST(test_bar_reserve_segment_and_overflow))
