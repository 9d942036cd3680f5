/* test_machine.c - devices, caps, speeds, link presets. */
#include <string.h>

#include "dnnpart/machine.h"
#include "lib/testlib.h"

#define GIB 1073741824LL

static void test_machine_init_defaults(void)
{
	dp_machine m;
	dp_err err;
	REQUIRE(dp_machine_init(&m, 4, &err) == DP_OK);
	CHECK_INT(m.k, 4);
	for (int d = 0; d < 4; d++) {
		CHECK(m.cap[d] == DP_CAP_UNLIMITED);
		CHECK_NEAR(m.speed[d], 1.0, 0);
	}
	CHECK_STR(m.link_name, "pardnn");
	CHECK_NEAR(m.bw, 130000, 0); /* 130 GB/s in bytes per µs */
	CHECK_NEAR(m.lat, 25, 0);
	CHECK_NEAR(dp_machine_comm(&m, 0, 1, 1300000), 25 + 10, 1e-12);
	CHECK_NEAR(dp_machine_comm(&m, 2, 2, 1300000), 0, 0);
	CHECK_NEAR(dp_machine_comm(&m, 0, 3, 0), 25, 0); /* control: latency */
	dp_machine_free(&m);
}

static void test_machine_device_count_is_checked(void)
{
	dp_machine m;
	dp_err err;
	CHECK_INT(dp_machine_init(&m, 0, &err), DP_EINPUT);
	CHECK_STR(err.msg, "bad number of devices 0: expected 1 to 1024");
	CHECK_INT(dp_machine_init(&m, DP_MAX_DEVICES + 1, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "1025");
	REQUIRE(dp_machine_init(&m, DP_MAX_DEVICES, &err) == DP_OK);
	CHECK_INT(dp_machine_resize(&m, -3, &err), DP_EINPUT);
	CHECK_INT(m.k, DP_MAX_DEVICES); /* unchanged */
	dp_machine_free(&m);
}

static void test_machine_caps_one_for_all_or_one_each(void)
{
	dp_machine m;
	dp_err err;
	REQUIRE(dp_machine_init(&m, 4, &err) == DP_OK);
	REQUIRE(dp_machine_set_caps(&m, "16GiB", &err) == DP_OK);
	for (int d = 0; d < 4; d++)
		CHECK_INT(m.cap[d], 16 * GIB);
	REQUIRE(dp_machine_set_caps(&m, "16GiB, 8g,inf ,none", &err) == DP_OK);
	CHECK_INT(m.cap[0], 16 * GIB);
	CHECK_INT(m.cap[1], 8 * GIB);
	CHECK(m.cap[2] == DP_CAP_UNLIMITED);
	CHECK(m.cap[3] == DP_CAP_UNLIMITED);
	/* a cap of 0 is allowed: the plan is reported infeasible instead */
	REQUIRE(dp_machine_set_caps(&m, "0B", &err) == DP_OK);
	CHECK_INT(m.cap[3], 0);
	dp_machine_free(&m);
}

static void test_machine_bad_caps_name_the_entry(void)
{
	dp_machine m;
	dp_err err;
	REQUIRE(dp_machine_init(&m, 4, &err) == DP_OK);
	REQUIRE(dp_machine_set_caps(&m, "1GiB", &err) == DP_OK);
	CHECK_INT(dp_machine_set_caps(&m, "16GiB,8GiB", &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "has 2 entries but the machine has 4 devices");
	CHECK_CONTAINS(err.msg, "exactly 4");
	CHECK_INT(dp_machine_set_caps(&m, "16GiB,8GX,1,1", &err), DP_EINPUT);
	CHECK_STR(err.msg, "cap entry 2 of 4 ('8GX'): bad size '8GX': "
			   "expected a number with a unit B, kB, "
			   "MB, GB, TB, KiB, MiB, GiB, TiB (or k, m, g, t)");
	/* a plain number is no cap: it needs a unit, in every entry */
	CHECK_INT(dp_machine_set_caps(&m, "16GiB,8GiB,1,1g", &err), DP_EINPUT);
	CHECK_STR(err.msg, "cap entry 3 of 4 ('1'): a size needs a unit, "
			   "e.g. 1GiB or 1GB (1B for bytes)");
	CHECK_INT(dp_machine_set_caps(&m, "1g,2g,3g,", &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "cap entry 4 of 4 (''): empty size");
	CHECK_INT(dp_machine_set_caps(&m, "1g,2g,3g,4g,5g,6g", &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "has 6 entries");
	CHECK_INT(dp_machine_set_caps(&m, "-1GiB", &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "cap '-1GiB': bad size '-1GiB': must not be "
				"negative");
	/* before the device count is known: what --mem and C check */
	CHECK_INT(dp_machine_check_caps("16GiB,inf,8g", &err), DP_OK);
	CHECK_INT(dp_machine_check_caps("16", &err), DP_EINPUT);
	CHECK_STR(err.msg, "a size needs a unit, e.g. 16GiB or 16GB (16B for "
			   "bytes)");
	CHECK_INT(dp_machine_check_caps("16GiB,8", &err), DP_EINPUT);
	CHECK_STR(err.msg, "'8': a size needs a unit, e.g. 8GiB or 8GB (8B "
			   "for bytes)");
	/* nothing changed by the failed calls */
	for (int d = 0; d < 4; d++)
		CHECK_INT(m.cap[d], GIB);
	dp_machine_free(&m);
}

static void test_machine_speeds(void)
{
	dp_machine m;
	dp_err err;
	REQUIRE(dp_machine_init(&m, 4, &err) == DP_OK);
	REQUIRE(dp_machine_set_speeds(&m, "1,1,0.5,2", &err) == DP_OK);
	CHECK_NEAR(m.speed[2], 0.5, 0);
	CHECK_NEAR(dp_machine_sum_speed(&m), 4.5, 1e-12);
	CHECK_NEAR(dp_machine_max_speed(&m), 2, 0);
	REQUIRE(dp_machine_set_speeds(&m, "1.5", &err) == DP_OK);
	CHECK_NEAR(dp_machine_sum_speed(&m), 6, 1e-12);
	CHECK_INT(dp_machine_set_speeds(&m, "0", &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "speed '0'");
	CHECK_CONTAINS(err.msg, "> 0");
	CHECK_INT(dp_machine_set_speeds(&m, "1,x,1,1", &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "speed entry 2 of 4 ('x')");
	CHECK_INT(dp_machine_set_speeds(&m, "2fast", &err), DP_EINPUT);
	CHECK_NEAR(m.speed[0], 1.5, 0);
	dp_machine_free(&m);
}

static void test_machine_link_presets(void)
{
	static const struct {
		const char *name;
		double bw, lat;
	} want[] = {
		{"pardnn", 130000, 25},
		{"baechi", 5700, 134},
		{"pcie4", 25000, 10},
		{"nvlink", 300000, 5},
	};
	dp_machine m;
	dp_err err;
	REQUIRE(dp_machine_init(&m, 2, &err) == DP_OK);
	for (size_t i = 0; i < 4; i++) {
		REQUIRE(dp_machine_set_link(&m, want[i].name, &err) == DP_OK);
		CHECK_NEAR(m.bw, want[i].bw, 0);
		CHECK_NEAR(m.lat, want[i].lat, 0);
		CHECK_STR(m.link_name, want[i].name);
		CHECK(dp_machine_find_link(want[i].name) != NULL);
		CHECK_CONTAINS(dp_machine_link_names(), want[i].name);
	}
	CHECK_INT(dp_machine_set_link(&m, "infiniband", &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "unknown link preset 'infiniband'");
	CHECK_CONTAINS(err.msg, "pardnn, baechi, pcie4, nvlink");
	CHECK_STR(m.link_name, "nvlink");
	CHECK(dp_machine_find_link("PARDNN") == NULL);
	dp_machine_free(&m);
}

static void test_machine_resize_copies_last_device(void)
{
	dp_machine m;
	dp_err err;
	REQUIRE(dp_machine_init(&m, 2, &err) == DP_OK);
	REQUIRE(dp_machine_set_caps(&m, "1GiB,2GiB", &err) == DP_OK);
	REQUIRE(dp_machine_set_speeds(&m, "1,3", &err) == DP_OK);
	REQUIRE(dp_machine_resize(&m, 4, &err) == DP_OK);
	CHECK_INT(m.k, 4);
	CHECK_INT(m.cap[0], GIB);
	CHECK_INT(m.cap[3], 2 * GIB);
	CHECK_NEAR(m.speed[3], 3, 0);
	REQUIRE(dp_machine_resize(&m, 1, &err) == DP_OK);
	CHECK_INT(m.cap[0], GIB);
	CHECK_NEAR(dp_machine_sum_speed(&m), 1, 0);
	dp_machine_free(&m);
}

static void test_machine_copy_is_deep(void)
{
	dp_machine a, b;
	dp_err err;
	REQUIRE(dp_machine_init(&a, 3, &err) == DP_OK);
	REQUIRE(dp_machine_set_caps(&a, "5GiB", &err) == DP_OK);
	REQUIRE(dp_machine_copy(&b, &a, &err) == DP_OK);
	a.cap[0] = 1;
	CHECK_INT(b.cap[0], 5 * GIB);
	CHECK(b.cap != a.cap);
	CHECK_STR(b.link_name, "pardnn");
	dp_machine_free(&a);
	dp_machine_free(&b);
}

static void test_machine_from_hint(void)
{
	dp_machine m;
	dp_err err;
	dp_machine_hint h = {3, 8 * GIB, 5700, 134};
	REQUIRE(dp_machine_init_from_hint(&m, &h, &err) == DP_OK);
	CHECK_INT(m.k, 3);
	CHECK_INT(m.cap[2], 8 * GIB);
	CHECK_STR(m.link_name, "baechi"); /* the hint equals that preset */
	dp_machine_free(&m);
	dp_machine_hint h2 = {0, 0, 1000, -1};
	REQUIRE(dp_machine_init_from_hint(&m, &h2, &err) == DP_OK);
	CHECK_INT(m.k, 1);
	CHECK(m.cap[0] == DP_CAP_UNLIMITED);
	CHECK_NEAR(m.bw, 1000, 0);
	CHECK_NEAR(m.lat, 25, 0); /* not given: the default link's */
	CHECK_STR(m.link_name, "custom");
	dp_machine_free(&m);
	dp_machine_hint h3 = {5000, 0, 0, -1};
	CHECK_INT(dp_machine_init_from_hint(&m, &h3, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "5000 devices");
}

TEST_MAIN(TEST(test_machine_init_defaults),
	  TEST(test_machine_device_count_is_checked),
	  TEST(test_machine_caps_one_for_all_or_one_each),
	  TEST(test_machine_bad_caps_name_the_entry), TEST(test_machine_speeds),
	  TEST(test_machine_link_presets),
	  TEST(test_machine_resize_copies_last_device),
	  TEST(test_machine_copy_is_deep), TEST(test_machine_from_hint))
