/* test_utf8_names.c - text from input files is safe to show: names and
 * labels must be UTF-8 (graph.c), since they are shown on terminals and
 * written into JSON, so a byte that is not UTF-8 is an input error naming
 * what and where; a graph's own name, often taken from a file name in any
 * encoding, is repaired instead; error messages, which quote files and
 * paths, escape bytes a terminal would act on (err.c).
 */
#include <stdlib.h>
#include <string.h>

#include "dnnpart/graph.h"
#include "lib/testlib.h"

static dp_status add(const char *name, dp_err *err)
{
	dp_graph *g = dp_graph_new("t");
	uint32_t id;
	dp_err_clear(err);
	dp_status s = dp_graph_add_op(g, name, &id, err);
	dp_graph_free(g);
	return s;
}

static void test_utf8_names_accept_every_well_formed_length(void)
{
	dp_err err;
	CHECK_INT(add("plain/ascii_0", &err), DP_OK);
	CHECK_INT(add("caf\xc3\xa9", &err), DP_OK);	       /* 2 bytes */
	CHECK_INT(add("\xe2\x86\x92 arrow", &err), DP_OK);     /* 3 bytes */
	CHECK_INT(add("\xed\x9f\xbf", &err), DP_OK);	       /* U+D7FF */
	CHECK_INT(add("emoji \xf0\x9f\x98\x80", &err), DP_OK); /* 4 bytes */
	CHECK_INT(add("\xf4\x8f\xbf\xbf", &err), DP_OK);       /* U+10FFFF */
}

static void test_utf8_names_refuse_malformed_bytes(void)
{
	/* each name and why it is not UTF-8 */
	static const char *const bad[][2] = {
		{"a\xff", "a lone 0xFF"},
		{"\x80", "a continuation byte first"},
		{"ab\xc3", "a sequence cut by the end"},
		{"\xc3(", "a sequence cut by ASCII"},
		{"\xc0\xaf", "an overlong '/'"},
		{"\xe0\x80\xaf", "an overlong 3-byte form"},
		{"\xf0\x80\x80\xaf", "an overlong 4-byte form"},
		{"\xed\xa0\x80", "a UTF-16 surrogate"},
		{"\xf4\x90\x80\x80", "past U+10FFFF"},
		{"\xf5\x80\x80\x80", "a 0xF5 lead byte"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		dp_err err;
		if (add(bad[i][0], &err) != DP_EINPUT ||
		    !strstr(err.msg, "op name is not valid UTF-8"))
			test_fail(__FILE__, __LINE__,
				  "%s: accepted or bad message \"%s\"",
				  bad[i][1], err.msg);
	}
}

static void test_utf8_message_shows_only_valid_text(void)
{
	dp_err err;
	CHECK_INPUT_MSG(add("w\xc3\xa9ight\xff", &err), &err,
			"op name is not valid UTF-8: byte 0xFF after "
			"\"w\xc3\xa9ight\" (names must be UTF-8 text)");
	CHECK_INPUT_MSG(add("\xfe", &err), &err,
			"op name is not valid UTF-8: byte 0xFE at its "
			"start (names must be UTF-8 text)");
	/* a long prefix is cut to its last 40 bytes or fewer, never inside a
	 * character: 30 'x' then 10 two-byte characters then a bad byte */
	char name[64];
	memset(name, 'x', 30);
	for (int i = 0; i < 10; i++)
		memcpy(name + 30 + 2 * i, "\xc3\xa9", 2);
	strcpy(name + 50, "\xff");
	CHECK_INT(add(name, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "after \"...xxxxxxxxxxxxxxxxxxxx\xc3\xa9");
	/* 2 'x' then 15 three-byte arrows: the last 40 bytes would start
	 * inside an arrow, so 39 (13 whole arrows) are shown */
	memset(name, 'x', 2);
	for (int i = 0; i < 15; i++)
		memcpy(name + 2 + 3 * i, "\xe2\x86\x92", 3);
	strcpy(name + 47, "\xff");
	CHECK_INT(add(name, &err), DP_EINPUT);
	char want[64] = "after \"...";
	for (int i = 0; i < 13; i++)
		strcat(want, "\xe2\x86\x92");
	strcat(want, "\" (names");
	CHECK_CONTAINS(err.msg, want);
}

static void test_utf8_labels_are_checked_too(void)
{
	dp_err err;
	dp_graph *g = dp_graph_new("t");
	uint32_t id;
	REQUIRE(dp_graph_add_op(g, "a", &id, &err) == DP_OK);
	CHECK_INT(dp_graph_set_type(g, id, "Mat\xffMul", &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "op type is not valid UTF-8: byte 0xFF");
	CHECK_INT(dp_graph_set_layer(g, id, "\xc0", &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "layer is not valid UTF-8");
	CHECK_INT(dp_graph_set_colocate(g, id, "g\x80", &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "colocation label is not valid UTF-8");
	CHECK_INT(dp_graph_set_type(g, id, "MatMul", &err), DP_OK);
	dp_graph_free(g);
}

static void test_utf8_graph_name_is_repaired(void)
{
	dp_err err;
	dp_graph *g = dp_graph_new("t");
	CHECK_INT(dp_graph_set_name(g, "r\xe9sum\xe9-net", &err), DP_OK);
	CHECK_STR(g->name, "r?sum?-net");
	CHECK_INT(dp_graph_set_name(g, "r\xc3\xa9sum\xc3\xa9", &err), DP_OK);
	CHECK_STR(g->name, "r\xc3\xa9sum\xc3\xa9");
	dp_graph_free(g);
}

/* Found with tests/bad/dot_binary_after_header.dot: the DOT syntax error
 * quoted a raw 0x01 byte, and a .place file of binary garbage printed it
 * all, escape sequences included, onto the user's terminal. */
static void test_error_messages_escape_terminal_controls(void)
{
	dp_err err;
	dp_err_set(&err, DP_EINPUT, "dir/\x1b]0;title\x07.json", 3, 4,
		   "got '%s'", "\x1b[31mred\x7f");
	CHECK_STR(err.file, "dir/\\x1B]0;title\\x07.json");
	CHECK_STR(err.msg, "got '\\x1B[31mred\\x7F'");
	/* bytes that are not UTF-8, and C1 controls such as U+009B (CSI) */
	dp_err_set(&err, DP_EINPUT, NULL, 0, 0,
		   "a\xff"
		   "b \xc2\x9b \xc2\xb5s");
	CHECK_STR(err.msg, "a\\xFFb \\xC2\\x9B \xc2\xb5s");
	/* already escaped text stays as it is when passed on */
	dp_err e2;
	dp_err_set(&e2, DP_EINPUT, NULL, 0, 0, "%s", err.msg);
	CHECK_STR(e2.msg, err.msg);
	/* a long run is cut at a whole escape, within the buffer */
	char junk[1100];
	memset(junk, 1, sizeof junk - 1);
	junk[sizeof junk - 1] = '\0';
	dp_err_set(&err, DP_EINPUT, NULL, 0, 0, "%s", junk);
	size_t n = strlen(err.msg);
	CHECK(n < sizeof err.msg && n % 4 == 0 && n >= sizeof err.msg - 8);
	CHECK_STR(err.msg + n - 4, "\\x01");
	/* a file written straight into the struct is escaped when shown */
	dp_err_clear(&err);
	strcpy(err.file, "a\x1b.json");
	strcpy(err.msg, "bad");
	char buf[128];
	CHECK_STR(dp_err_format(&err, buf, sizeof buf), "a\\x1B.json: bad");
}

TEST_MAIN(TEST(test_utf8_names_accept_every_well_formed_length),
	  TEST(test_utf8_names_refuse_malformed_bytes),
	  TEST(test_utf8_message_shows_only_valid_text),
	  TEST(test_utf8_labels_are_checked_too),
	  TEST(test_utf8_graph_name_is_repaired),
	  TEST(test_error_messages_escape_terminal_controls))
