/* test_layout.c - the screen layout over every size and many device
 * counts: nothing overlaps, nothing is outside the screen, every row has
 * one owner, and below 80x24 only the "too small" message is drawn. */
#include <string.h>

#include "layout.h"
#include "lib/testlib.h"
#include "screen.h"

static const int ndevs[] = {1, 2, 3, 4, 7, 8, 9, 10, 11, 16, 40, 100, 1024};
#define NNDEV ((int)(sizeof ndevs / sizeof ndevs[0]))

static void check_layout(int w, int h, int ndev)
{
	vlayout l;
	layout_compute(w, h, ndev, &l);
	bool small = w < LAYOUT_MIN_W || h < LAYOUT_MIN_H;
	if (l.too_small != small) {
		test_fail(__FILE__, __LINE__, "%dx%d K=%d: too_small %d", w, h,
			  ndev, l.too_small);
		return;
	}
	if (small)
		return;
	vrect parts[] = {l.header, l.summary, l.panel_head, l.panel,
			 l.tabs,   l.main,    l.status,	    l.keys};
	int n = (int)(sizeof parts / sizeof parts[0]);
	int rows = 0;
	for (int i = 0; i < n; i++) {
		if (!rect_inside(parts[i], w, h) || parts[i].w != w ||
		    parts[i].x != 0 || parts[i].h < 1)
			test_fail(__FILE__, __LINE__,
				  "%dx%d K=%d: part %d at %d,%d %dx%d", w, h,
				  ndev, i, parts[i].x, parts[i].y, parts[i].w,
				  parts[i].h);
		rows += parts[i].h;
		for (int j = i + 1; j < n; j++)
			if (rect_overlap(parts[i], parts[j]))
				test_fail(__FILE__, __LINE__,
					  "%dx%d K=%d: parts %d and %d overlap",
					  w, h, ndev, i, j);
	}
	if (rows != h)
		test_fail(__FILE__, __LINE__, "%dx%d K=%d: %d rows of %d used",
			  w, h, ndev, rows, h);
	if (l.main.h < LAYOUT_MIN_MAIN)
		test_fail(__FILE__, __LINE__, "%dx%d K=%d: main view %d rows",
			  w, h, ndev, l.main.h);
	int want = ndev < l.panel.h ? ndev : l.panel.h;
	if (l.panel_rows != l.panel.h || l.panel_rows < 1 ||
	    l.panel_rows > ndev || want != l.panel_rows)
		test_fail(__FILE__, __LINE__, "%dx%d K=%d: panel rows %d", w, h,
			  ndev, l.panel_rows);
	/* the panel's columns are in order, apart and inside the width */
	int xs[][2] = {{l.x_name, l.w_name},	 {l.x_load, l.w_load},
		       {l.x_pct, l.w_pct},	 {l.x_mem, l.w_mem},
		       {l.x_memtxt, l.w_memtxt}, {l.x_comm, l.w_comm}};
	int end = 0;
	for (int i = 0; i < 6; i++) {
		if (xs[i][1] == 0)
			continue;
		if (xs[i][0] < end || xs[i][0] + xs[i][1] > w || xs[i][1] < 3)
			test_fail(__FILE__, __LINE__,
				  "%dx%d K=%d: panel column %d at %d+%d", w, h,
				  ndev, i, xs[i][0], xs[i][1]);
		end = xs[i][0] + xs[i][1];
	}
	/* every device name fits its column */
	if (l.w_name < 4 + (ndev > 10) + (ndev > 100) + (ndev > 1000))
		test_fail(__FILE__, __LINE__, "%dx%d K=%d: name column %d", w,
			  h, ndev, l.w_name);
}

static void test_layout_every_size_and_device_count(void)
{
	for (int w = 0; w <= 260; w++)
		for (int h = 0; h <= 90; h++)
			for (int i = 0; i < NNDEV; i++) {
				check_layout(w, h, ndevs[i]);
				if (test_failed())
					return;
			}
}

static void test_layout_panel_stays_at_most_half(void)
{
	vlayout l;
	layout_compute(80, 24, 4, &l);
	CHECK_INT(l.panel_rows, 4);
	CHECK_INT(l.main.h, 24 - 6 - 4);
	layout_compute(80, 24, 40, &l);
	CHECK_INT(l.panel_rows, 9);
	layout_compute(200, 60, 40, &l);
	CHECK_INT(l.panel_rows, 27);
	CHECK(l.w_comm > 0);
	layout_compute(80, 24, 1, &l);
	CHECK_INT(l.panel_rows, 1);
	CHECK_INT(l.w_comm, 0);
}

static void test_tabs_and_fkeys_fit_apart(void)
{
	for (int w = LAYOUT_MIN_W; w <= 260; w++) {
		int end = 0;
		for (int v = 0; v < VIEW_COUNT; v++) {
			int x0, x1;
			if (!screen_tab_span((view_id)v, w, &x0, &x1)) {
				test_fail(__FILE__, __LINE__,
					  "w %d: tab %d hidden", w, v);
				return;
			}
			CHECK(x0 >= end && x1 <= w && x1 > x0);
			end = x1;
		}
		end = 0;
		for (int n = 1; n <= 10; n++) {
			int x0, x1;
			if (!screen_fkey_span(n, w, &x0, &x1)) {
				test_fail(__FILE__, __LINE__,
					  "w %d: F%d hidden", w, n);
				return;
			}
			CHECK(x0 >= end && x1 <= w);
			end = x1;
		}
	}
}

static void test_rect_helpers(void)
{
	vrect a = {0, 0, 10, 2}, b = {9, 1, 5, 5}, c = {10, 0, 3, 3};
	CHECK(rect_overlap(a, b));
	CHECK(!rect_overlap(a, c));
	CHECK(!rect_overlap(a, (vrect){0, 0, 0, 0}));
	CHECK(rect_inside(a, 10, 2));
	CHECK(!rect_inside(a, 9, 2));
	CHECK(rect_contains(a, 9, 1));
	CHECK(!rect_contains(a, 10, 1));
}

TEST_MAIN(TEST(test_layout_every_size_and_device_count),
	  TEST(test_layout_panel_stays_at_most_half),
	  TEST(test_tabs_and_fkeys_fit_apart), TEST(test_rect_helpers))
