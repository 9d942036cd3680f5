/* test_units.c - human units: sizes, bandwidths, times, formatting. */
#include <math.h>
#include <string.h>

#include "dnnpart/units.h"
#include "lib/testlib.h"

#define GIB (1024.0 * 1024 * 1024)

static void test_units_sizes_parse_every_unit(void)
{
	static const struct {
		const char *text;
		int64_t want;
	} cases[] = {
		{"0", 0},
		{"4096", 4096},
		{"4096B", 4096},
		{"4096 B", 4096},
		{"1kiB", 1024},
		{"1kB", 1000},
		{"1KB", 1000},
		{"1KiB", 1024},
		{"1k", 1024},
		{"1K", 1024},
		{"512MB", 512000000},
		{"2MiB", 2 * 1048576},
		{"2 MiB", 2 * 1048576},
		{"  2m  ", 2 * 1048576},
		{"16GiB", 16 * 1073741824LL},
		{"16g", 16 * 1073741824LL},
		{"16G", 16 * 1073741824LL},
		{"16GB", 16000000000LL},
		{"1.5TB", 1500000000000LL},
		{"1TiB", 1099511627776LL},
		{"1t", 1099511627776LL},
		{"0.5KiB", 512},
		{"1e3", 1000},
		{"1.5", 2}, /* rounded to the nearest byte */
		{"+7", 7},
		{"4194304TiB", 4611686018427387904LL}, /* 2^62, the largest */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t b = -1;
		dp_err err;
		dp_err_clear(&err);
		dp_status st = dp_units_parse_bytes(cases[i].text, &b, &err);
		if (st != DP_OK || b != cases[i].want)
			test_fail(__FILE__, __LINE__,
				  "'%s': status %d, %lld bytes, want %lld (%s)",
				  cases[i].text, st, (long long)b,
				  (long long)cases[i].want, err.msg);
	}
}

static void test_units_bad_size_says_what_was_expected(void)
{
	dp_err err;
	int64_t b = 77;
	CHECK_INT(dp_units_parse_bytes("16GX", &b, &err), DP_EINPUT);
	CHECK_STR(err.msg, "bad size '16GX': expected a number with an "
			   "optional unit B, kB, MB, GB, TB, KiB, MiB, GiB, "
			   "TiB (or k, m, g, t)");
	CHECK_INT(b, 77); /* untouched on error */
	static const struct {
		const char *text, *want;
	} bad[] = {
		{"", "empty size"},
		{"   ", "empty size"},
		{"-5", "must not be negative"},
		{"-1GiB", "must not be negative"},
		{"nan", "bad size 'nan': expected a number"},
		{"inf", "bad size 'inf': expected a number"},
		{"NaN GiB", "expected a number"},
		{"GiB", "bad size 'GiB'"},
		{"0x10", "bad size '0x10'"},
		{"1.5.5", "bad size '1.5.5'"},
		{"1,5GiB", "bad size '1,5GiB'"},
		{"16 G B", "bad size '16 G B'"},
		{"16Gi", "bad size '16Gi'"},
		{"16PB", "bad size '16PB'"},
		{"16iB", "bad size '16iB'"},
		{"16Gb", "bad size '16Gb': 'Gb' is bits (an upper-case "
			 "prefix with a lower-case b)"},
		{"512Mb", "'Mb' is bits"},
		{"1Kb", "'Kb' is bits"},
		{"2Gib", "'Gib' is bits"},
		{"2GIb", "'GIb' is bits"},
		{"16gbb", "bad size '16gbb'"},
		{"1e400", "too large"},
		{"4194305TiB", "too large (at most 2^62 bytes"},
		{"99999999999999999999", "too large"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		dp_err_clear(&err);
		dp_status st = dp_units_parse_bytes(bad[i].text, &b, &err);
		if (st != DP_EINPUT || !strstr(err.msg, bad[i].want))
			test_fail(__FILE__, __LINE__,
				  "'%s': status %d, message \"%s\", want "
				  "DP_EINPUT with \"%s\"",
				  bad[i].text, st, err.msg, bad[i].want);
	}
	CHECK_INT(dp_units_parse_bytes(NULL, &b, &err), DP_EINPUT);
}

/* A size a person types for memory (a cap) needs a unit: "--mem 16"
 * reads as 16 GiB to a person and as 16 bytes to a parser. */
static void test_units_size_needs_a_unit(void)
{
	dp_err err;
	int64_t b = 77;
	CHECK_INT(dp_units_parse_size("16", &b, &err), DP_EINPUT);
	CHECK_STR(err.msg, "a size needs a unit, e.g. 16GiB or 16GB (16B for "
			   "bytes)");
	CHECK_INT(dp_units_parse_size(" 0.5 ", &b, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "e.g. 0.5GiB or 0.5GB");
	CHECK_INT(b, 77);
	CHECK_INT(dp_units_parse_size("16Gb", &b, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "'Gb' is bits");
	CHECK_INT(dp_units_parse_size("", &b, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "empty size: expected a number with a unit");
	/* a plain number of bytes may still say so with B */
	CHECK_INT(dp_units_parse_size("17179869184B", &b, &err), DP_OK);
	CHECK_INT(b, 17179869184LL);
	CHECK_INT(dp_units_parse_size("16GiB", &b, &err), DP_OK);
	CHECK_INT(b, 17179869184LL);
	CHECK_INT(dp_units_parse_size("16 g", &b, &err), DP_OK);
	CHECK_INT(b, 17179869184LL);
	CHECK_INT(dp_units_parse_size("16GB", &b, &err), DP_OK);
	CHECK_INT(b, 16000000000LL);
	/* fields named in bytes keep plain numbers */
	CHECK_INT(dp_units_parse_bytes("16", &b, &err), DP_OK);
	CHECK_INT(b, 16);
}

static void test_units_bandwidth_in_bits_is_an_error(void)
{
	dp_err err;
	double bw = 7;
	CHECK_INT(dp_units_parse_bandwidth("100Gb/s", &bw, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "'Gb/s' is bits");
	CHECK(bw == 7);
	CHECK_INT(dp_units_parse_bandwidth("100GB/s", &bw, &err), DP_OK);
	/* all in lower case it is bytes, as with sizes */
	CHECK_INT(dp_units_parse_bandwidth("100gb/s", &bw, &err), DP_OK);
	CHECK(bw == 100e9 / 1e6);
}

/* `--mem 16gb` means bytes to the person who types it: a unit all in lower
 * case is the same size as in upper case; only an upper-case prefix with a
 * lower-case b ("Gb") is bits. */
static void test_units_lower_case_units_are_bytes(void)
{
	dp_err err;
	int64_t b = 0;
	static const struct {
		const char *text;
		int64_t want;
	} ok[] = {
		{"16gb", 16000000000LL},    {"16GB", 16000000000LL},
		{"16gib", 17179869184LL},   {"16GiB", 17179869184LL},
		{"512mb", 512000000LL},	    {"1kb", 1000},
		{"4096b", 4096},	    {"2tib", 2199023255552LL},
		{"1.5 gb", 1500000000LL},
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		dp_err_clear(&err);
		if (dp_units_parse_size(ok[i].text, &b, &err) != DP_OK ||
		    b != ok[i].want)
			test_fail(__FILE__, __LINE__,
				  "'%s': %lld bytes (%s), want %lld",
				  ok[i].text, (long long)b, err.msg,
				  (long long)ok[i].want);
	}
}

static void test_units_bandwidth_is_bytes_per_us(void)
{
	static const struct {
		const char *text;
		double want; /* bytes per µs */
	} cases[] = {
		{"130GB/s", 130000}, {"5.7GB/s", 5700},
		{"25 GB/s", 25000},  {"900GiB/s", 900 * GIB / 1e6},
		{"1e9", 1000},	     {"1000000", 1},
		{"1MB/s", 1},	     {"8B/s", 8e-6},
		{"1/s", 1e-6},	     {"2kB/s", 2e-3},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double v = -1;
		dp_err err;
		dp_status st =
			dp_units_parse_bandwidth(cases[i].text, &v, &err);
		if (st != DP_OK ||
		    fabs(v - cases[i].want) > 1e-9 * cases[i].want)
			test_fail(__FILE__, __LINE__,
				  "'%s': status %d, %.9g, want %.9g",
				  cases[i].text, st, v, cases[i].want);
	}
	static const char *const bad[] = {"130GB", "0",		"-1GB/s",
					  "abc",   "130XB/s",	"",
					  "0GB/s", "1e400GB/s", "GB/s"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		double v;
		dp_err err;
		dp_err_clear(&err);
		if (dp_units_parse_bandwidth(bad[i], &v, &err) != DP_EINPUT ||
		    !strstr(err.msg, "bandwidth"))
			test_fail(__FILE__, __LINE__,
				  "'%s' accepted or bad message \"%s\"", bad[i],
				  err.msg);
	}
	dp_err err;
	double v;
	dp_units_parse_bandwidth("130GB", &v, &err);
	CHECK_CONTAINS(err.msg, "such as 130GB/s");
}

static void test_units_time_is_microseconds(void)
{
	static const struct {
		const char *text;
		double want;
	} cases[] = {
		{"25us", 25},	{"25µs", 25},  {"25\xce\xbcs", 25},
		{"25", 25},	{"2ms", 2000}, {"1.5s", 1.5e6},
		{"100ns", 0.1}, {"0", 0},      {" 3 ms ", 3000},
		{"2MS", 2000},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double v = -1;
		dp_err err;
		dp_status st = dp_units_parse_time(cases[i].text, &v, &err);
		if (st != DP_OK || fabs(v - cases[i].want) > 1e-12)
			test_fail(__FILE__, __LINE__,
				  "'%s': status %d, %.9g, want %.9g",
				  cases[i].text, st, v, cases[i].want);
	}
	static const struct {
		const char *text, *want;
	} bad[] = {
		{"2x", "bad time '2x': expected a number with an optional "
		       "unit ns, us, µs, ms, s (a plain number is µs)"},
		{"-1ms", "must not be negative"},
		{"", "empty time"},
		{"inf", "bad time 'inf'"},
		{"ms", "bad time 'ms'"},
		{"1e308s", "too large"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		double v;
		dp_err err;
		dp_err_clear(&err);
		if (dp_units_parse_time(bad[i].text, &v, &err) != DP_EINPUT ||
		    !strstr(err.msg, bad[i].want))
			test_fail(__FILE__, __LINE__,
				  "'%s': message \"%s\", want \"%s\"",
				  bad[i].text, err.msg, bad[i].want);
	}
}

static void test_units_format_three_digits(void)
{
	char b[64];
	CHECK_STR(dp_units_fmt_bytes(0, b, sizeof b), "0 B");
	CHECK_STR(dp_units_fmt_bytes(512, b, sizeof b), "512 B");
	CHECK_STR(dp_units_fmt_bytes(1023, b, sizeof b), "1023 B");
	CHECK_STR(dp_units_fmt_bytes(1536, b, sizeof b), "1.50 KiB");
	CHECK_STR(dp_units_fmt_bytes(100LL << 20, b, sizeof b), "100 MiB");
	CHECK_STR(dp_units_fmt_bytes(16LL << 30, b, sizeof b), "16.0 GiB");
	CHECK_STR(dp_units_fmt_bytes(-2048, b, sizeof b), "-2.00 KiB");
	CHECK_STR(dp_units_fmt_bytes(-5, b, sizeof b), "-5 B");
	/* three significant digits across a prefix: not "1023 KiB" */
	CHECK_STR(dp_units_fmt_bytes(1048000, b, sizeof b), "1.00 MiB");
	CHECK_STR(dp_units_fmt_bytes(999LL << 10, b, sizeof b), "999 KiB");
	CHECK_STR(dp_units_fmt_bytes(1023LL << 10, b, sizeof b), "1.00 MiB");
	CHECK_STR(dp_units_fmt_bytes(1048575, b, sizeof b), "1.00 MiB");
	CHECK_STR(dp_units_fmt_time(-5, b, sizeof b), "-5 us");
	CHECK_STR(dp_units_fmt_c(b, sizeof b, "%.2f,%.1f", 1.5, 2.25),
		  "1.50,2.2");
	CHECK_STR(dp_units_fmt_time(850, b, sizeof b), "850 us");
	CHECK_STR(dp_units_fmt_time(0.5, b, sizeof b), "0.50 us");
	CHECK_STR(dp_units_fmt_time(12500, b, sizeof b), "12.5 ms");
	CHECK_STR(dp_units_fmt_time(3.2e6, b, sizeof b), "3.20 s");
	CHECK_STR(dp_units_fmt_bandwidth(130000, b, sizeof b), "130 GB/s");
	CHECK_STR(dp_units_fmt_bandwidth(5700, b, sizeof b), "5.7 GB/s");
	CHECK_STR(dp_units_fmt_bandwidth(0.5, b, sizeof b), "500 kB/s");
	/* a short buffer truncates, never overflows */
	char small[4];
	dp_units_fmt_bytes(16LL << 30, small, sizeof small);
	CHECK_INT(strlen(small), 3);
}

/* The prompt's text, the rounded value and the screen's text are one size:
 * what a person reads is what the parser reads back. */
static void test_units_size_input_reads_back_as_shown(void)
{
	char b[64], shown[64];
	CHECK_STR(dp_units_fmt_bytes_input(0, b, sizeof b), "0B");
	CHECK_STR(dp_units_fmt_bytes_input(512, b, sizeof b), "512B");
	CHECK_STR(dp_units_fmt_bytes_input(1536, b, sizeof b), "1.5KiB");
	CHECK_STR(dp_units_fmt_bytes_input(16LL << 30, b, sizeof b), "16GiB");
	CHECK_STR(dp_units_fmt_bytes_input(800LL << 20, b, sizeof b), "800MiB");
	/* the screen's "1.00 MiB", not "1023KiB" */
	CHECK_STR(dp_units_fmt_bytes_input(1048000, b, sizeof b), "1MiB");
	CHECK_STR(dp_units_fmt_bytes_input(-5, b, sizeof b), "-5B");
	CHECK_INT(dp_units_round_bytes(1048000), 1048576);
	CHECK_INT(dp_units_round_bytes(819.2 * 1048576), 819LL << 20);
	CHECK_INT(dp_units_round_bytes(-5), -5);
	CHECK_INT(dp_units_round_bytes(NAN), 0);
	CHECK_INT(dp_units_round_bytes(1e30), 4611686018427387904LL);
	uint64_t seed = 17;
	for (int i = 0; i < 2000; i++) {
		/* sizes from bytes to 2^49 (512 TiB; the parser reads no
		 * prefix past TiB), on a log scale */
		double e = (double)test_randn(&seed, 4900) / 100.0;
		int64_t x = (int64_t)pow(2, e) + (int64_t)test_randn(&seed, 7);
		int64_t r = dp_units_round_bytes((double)x), back = -1;
		dp_err err;
		char again[64] = "";
		dp_units_fmt_bytes_input(x, b, sizeof b);
		dp_units_fmt_bytes(x, shown, sizeof shown);
		if (dp_units_parse_bytes(b, &back, &err) != DP_OK ||
		    back != r ||
		    strcmp(dp_units_fmt_bytes(r, again, sizeof again), shown) !=
			    0 ||
		    dp_units_round_bytes((double)r) != r) {
			test_fail(
				__FILE__, __LINE__,
				"%lld: shown \"%s\", input \"%s\" reads %lld, "
				"rounded %lld shows \"%s\"",
				(long long)x, shown, b, (long long)back,
				(long long)r, again);
			break;
		}
	}
}

static void test_units_exact_sizes_for_files(void)
{
	char b[64];
	CHECK_STR(dp_units_fmt_bytes_exact(16LL << 30, b, sizeof b), "16GiB");
	CHECK_STR(dp_units_fmt_bytes_exact(1536LL << 20, b, sizeof b),
		  "1536MiB");
	CHECK_STR(dp_units_fmt_bytes_exact(2LL << 40, b, sizeof b), "2TiB");
	CHECK_STR(dp_units_fmt_bytes_exact(1000, b, sizeof b), "1000");
	CHECK_STR(dp_units_fmt_bytes_exact(0, b, sizeof b), "0");
	CHECK_STR(dp_units_fmt_bytes_exact(-1024, b, sizeof b), "-1024");
}

static void test_units_fmt_num_round_trips(void)
{
	static const double vals[] = {0,     0.1,    1.0 / 3,	    1048576,
				      -2.5,  1e-300, 6.02214076e23, 12.25,
				      130000};
	char b[40];
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		dp_units_fmt_num(vals[i], b, sizeof b);
		double back;
		size_t n = dp_units_scan_number(b, &back);
		if (n != strlen(b) || back != vals[i])
			test_fail(__FILE__, __LINE__,
				  "%.17g -> \"%s\" -> %.17g", vals[i], b, back);
	}
	CHECK_STR(dp_units_fmt_num(0.1, b, sizeof b), "0.1");
	CHECK_STR(dp_units_fmt_num(1048576, b, sizeof b), "1048576");
	CHECK_STR(dp_units_fmt_num(NAN, b, sizeof b), "null");
	double v;
	CHECK_INT(dp_units_scan_number("12.5ms", &v), 4);
	CHECK_NEAR(v, 12.5, 0);
	CHECK_INT(dp_units_scan_number("abc", &v), 0);
	CHECK_INT(dp_units_scan_number(".5", &v), 2);
	CHECK_INT(dp_units_scan_number("1e", &v),
		  1); /* "e" is not an exponent */
}

TEST_MAIN(TEST(test_units_sizes_parse_every_unit),
	  TEST(test_units_bad_size_says_what_was_expected),
	  TEST(test_units_size_needs_a_unit),
	  TEST(test_units_bandwidth_in_bits_is_an_error),
	  TEST(test_units_lower_case_units_are_bytes),
	  TEST(test_units_bandwidth_is_bytes_per_us),
	  TEST(test_units_time_is_microseconds),
	  TEST(test_units_format_three_digits),
	  TEST(test_units_size_input_reads_back_as_shown),
	  TEST(test_units_exact_sizes_for_files),
	  TEST(test_units_fmt_num_round_trips))
