/* test_json_out.c - the one JSON writer (dnnpart/json.h): layout, strings,
 * numbers, and that what it writes parses back (cJSON) to the same values. */
#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/json.h"
#include "lib/testlib.h"

/* Runs fill on a writer over a memory stream; returns the text (freed by
 * the caller). */
static char *written(void (*fill)(dp_json *w))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	dp_json w;
	dp_json_init(&w, f);
	fill(&w);
	fclose(f);
	return buf;
}

static void small(dp_json *w)
{
	dp_json_begin_object(w, NULL);
	dp_json_str(w, "name", "a \"b\"\\c\n\x01");
	dp_json_int(w, "n", -5);
	dp_json_num(w, "x", 0.1);
	dp_json_bool(w, "ok", true);
	dp_json_null(w, "none");
	dp_json_str(w, "nul", NULL);
	dp_json_begin_array(w, "rows");
	dp_json_begin_line(w, NULL);
	dp_json_int(w, "i", 0);
	dp_json_num(w, "t", INFINITY); /* not finite: null */
	dp_json_end_object(w);
	dp_json_end_array(w);
	dp_json_begin_array(w, "empty");
	dp_json_end_array(w);
	dp_json_end_object(w);
}

static void test_json_layout_and_escapes(void)
{
	char *s = written(small);
	REQUIRE(s);
	CHECK_STR(s, "{\n"
		     "  \"name\": \"a \\\"b\\\"\\\\c\\n\\u0001\",\n"
		     "  \"n\": -5,\n"
		     "  \"x\": 0.1,\n"
		     "  \"ok\": true,\n"
		     "  \"none\": null,\n"
		     "  \"nul\": null,\n"
		     "  \"rows\": [\n"
		     "    {\"i\": 0, \"t\": null}\n"
		     "  ],\n"
		     "  \"empty\": []\n"
		     "}\n");
	cJSON *o = cJSON_Parse(s);
	REQUIRE(o);
	CHECK_STR(cJSON_GetObjectItem(o, "name")->valuestring,
		  "a \"b\"\\c\n\x01");
	CHECK_NEAR(cJSON_GetObjectItem(o, "x")->valuedouble, 0.1, 0);
	cJSON_Delete(o);
	free(s);
}

static void bad_utf8(dp_json *w)
{
	dp_json_begin_object(w, NULL);
	dp_json_str(w, "s", "caf\xc3\xa9 \xff!");
	dp_json_end_object(w);
}

static void test_json_invalid_utf8_becomes_replacement(void)
{
	char *s = written(bad_utf8);
	REQUIRE(s);
	CHECK_CONTAINS(s, "\"caf\xc3\xa9 \\ufffd!\"");
	cJSON *o = cJSON_Parse(s);
	CHECK(o != NULL);
	cJSON_Delete(o);
	free(s);
}

static void deep(dp_json *w)
{
	for (int i = 0; i < 40; i++)
		dp_json_begin_array(w, NULL);
	dp_json_int(w, NULL, 7);
	for (int i = 0; i < 40; i++)
		dp_json_end_array(w);
}

static void test_json_nesting_past_the_tracked_depth_stays_valid(void)
{
	char *s = written(deep);
	REQUIRE(s);
	cJSON *o = cJSON_Parse(s);
	REQUIRE(o);
	cJSON *v = o;
	int depth = 0;
	while (cJSON_IsArray(v)) {
		v = v->child;
		depth++;
	}
	CHECK_INT(depth, 40);
	CHECK(cJSON_IsNumber(v) && v->valueint == 7);
	cJSON_Delete(o);
	free(s);
}

static double nums[] = {0, -2.5, 1.0 / 3, 1e-300, 6.02214076e23, 1048576};

static void numbers(dp_json *w)
{
	dp_json_begin_array(w, NULL);
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
		dp_json_num(w, NULL, nums[i]);
	dp_json_end_array(w);
}

static void test_json_numbers_read_back_exactly(void)
{
	char *s = written(numbers);
	REQUIRE(s);
	CHECK_CONTAINS(s, "0.33333333333333331");
	cJSON *o = cJSON_Parse(s);
	REQUIRE(o);
	int i = 0;
	for (cJSON *v = o->child; v; v = v->next, i++)
		CHECK(v->valuedouble == nums[i]);
	CHECK_INT(i, (int)(sizeof nums / sizeof nums[0]));
	cJSON_Delete(o);
	free(s);
}

TEST_MAIN(TEST(test_json_layout_and_escapes),
	  TEST(test_json_invalid_utf8_becomes_replacement),
	  TEST(test_json_nesting_past_the_tracked_depth_stays_valid),
	  TEST(test_json_numbers_read_back_exactly))
