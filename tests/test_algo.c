/* test_algo.c - the algorithm registry: the whole list, looking a name up
 * and parsing a comma list of names (the --algos of compare and the bench
 * tools). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/machine.h"
#include "dnnpart/strategy.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

static void test_algo_all_is_the_registry_in_order(void)
{
	const dp_algo *const *all = dp_algo_all();
	REQUIRE(all);
	REQUIRE(dp_algo_count() >= 7);
	for (size_t i = 0; i < dp_algo_count(); i++)
		CHECK(all[i] == dp_algo_at(i));
	/* pardnn first in the list; best, the default, last */
	CHECK(all[0] == dp_algo_find("pardnn"));
	CHECK(all[dp_algo_count() - 1] == dp_algo_default());
	CHECK(dp_algo_at(dp_algo_count()) == NULL);
}

static void test_algo_lookup_names_the_known_ones(void)
{
	const dp_algo *a = NULL;
	dp_err err;
	CHECK_INT(dp_algo_lookup("heft", &a, &err), DP_OK);
	CHECK(a == dp_algo_find("heft"));
	a = NULL;
	CHECK_INT(dp_algo_lookup("nope", &a, &err), DP_EINPUT);
	CHECK(a == NULL);
	CHECK_CONTAINS(err.msg, "unknown algorithm 'nope' (known: ");
	CHECK_CONTAINS(err.msg, dp_algo_names());
}

static void test_algo_parse_list_keeps_the_order_given(void)
{
	const dp_algo *out[8];
	size_t n = 99;
	dp_err err;
	REQUIRE(dp_algo_parse_list("metis,single,heft", out, 8, &n, &err) ==
		DP_OK);
	CHECK_INT(n, 3);
	CHECK(out[0] == dp_algo_find("metis"));
	CHECK(out[1] == dp_algo_find("single"));
	CHECK(out[2] == dp_algo_find("heft"));
	REQUIRE(dp_algo_parse_list("mtopo", out, 8, &n, &err) == DP_OK);
	CHECK_INT(n, 1);
	CHECK(out[0] == dp_algo_find("mtopo"));
	/* every name once fits in dp_algo_count() */
	char all[512] = "";
	for (size_t i = 0; i < dp_algo_count(); i++) {
		if (i)
			strcat(all, ",");
		strcat(all, dp_algo_at(i)->name);
	}
	const dp_algo *every[64];
	REQUIRE(dp_algo_count() <= 64);
	REQUIRE(dp_algo_parse_list(all, every, dp_algo_count(), &n, &err) ==
		DP_OK);
	CHECK_INT(n, dp_algo_count());
	for (size_t i = 0; i < n; i++)
		CHECK(every[i] == dp_algo_at(i));
}

static void test_algo_parse_list_rejects_with_a_reason(void)
{
	const dp_algo *out[8];
	size_t n = 99;
	dp_err err;
	CHECK_INT(dp_algo_parse_list("heft,metis,heft", out, 8, &n, &err),
		  DP_EINPUT);
	CHECK_STR(err.msg, "'heft' is listed twice");
	CHECK_INT(n, 99); /* untouched on failure */
	CHECK_INT(dp_algo_parse_list("metf,nope", out, 8, &n, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "unknown algorithm 'nope'");
	static const char *const empty[] = {"", ",", "heft,", ",heft",
					    "heft,,metis"};
	for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
		CHECK_INT(dp_algo_parse_list(empty[i], out, 8, &n, &err),
			  DP_EINPUT);
		CHECK_CONTAINS(err.msg, "expected a comma list of algorithm "
					"names");
	}
	CHECK_INT(dp_algo_parse_list("heft,metis", out, 1, &n, &err),
		  DP_EINPUT);
	CHECK_STR(err.msg, "more than 1 algorithms in 'heft,metis'");
	CHECK_INT(n, 99);
}

/* Every algorithm that polls the flag stops at once with one message,
 * "NAME: canceled"; single places everything in one step and never polls. */
static void test_algo_canceled_says_which_algorithm(void)
{
	test_dag_opts d =
		test_dag_spec(200, "window=10 inputs=2 time=1..50 "
				   "out=100..10000 groups=10 pins=20:3");
	dp_graph *g = test_random_dag_with(5, &d, "cancel");
	REQUIRE(g);
	dp_machine m;
	dp_err err;
	REQUIRE(dp_machine_init(&m, 3, &err) == DP_OK);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	REQUIRE(pl);
	atomic_int flag = 1;
	dp_progress p = {NULL, NULL, &flag};
	for (size_t i = 0; i < dp_algo_count(); i++) {
		const dp_algo *a = dp_algo_at(i);
		dp_err_clear(&err);
		dp_status st;
		if (a->strategize) {
			dp_strategy s;
			dp_strategy_init(&s);
			st = a->strategize(g, &m, NULL, &p, &s, &err);
			dp_strategy_free(&s);
		} else {
			st = dp_algo_place(a, g, &m, NULL, &p, pl, &err);
		}
		if (!strcmp(a->name, "single")) {
			CHECK_INT(st, DP_OK);
			continue;
		}
		char want[64];
		snprintf(want, sizeof want, "%s: canceled", a->name);
		CHECK_INT(st, DP_ECANCELED);
		CHECK_STR(err.msg, want);
	}
	free(pl);
	test_free(g, &m, NULL);
}

TEST_MAIN(TEST(test_algo_all_is_the_registry_in_order),
	  TEST(test_algo_lookup_names_the_known_ones),
	  TEST(test_algo_parse_list_keeps_the_order_given),
	  TEST(test_algo_parse_list_rejects_with_a_reason),
	  TEST(test_algo_canceled_says_which_algorithm))
