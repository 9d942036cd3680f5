/* fuzz_units.c - libFuzzer target: the human-unit parsers (sizes,
 * bandwidths, times), the number scanner and the per-device cap list, with
 * the properties their contracts promise checked on every input.
 */
#include <math.h>

#include "fuzz_util.h"
#include "dnnpart/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_parse(dp_status s, const dp_err *err)
{
	if (s != DP_OK && (s != DP_EINPUT || !err->msg[0]))
		fuzz_fail("a unit parse error without DP_EINPUT and a message",
			  err);
}

/* Runs a parser of a double (bandwidth, time) on s: its error contract,
 * and a finite value when it succeeds. Whether it did. */
static bool check_double(const char *s,
			 dp_status (*parse)(const char *, double *, dp_err *),
			 double *v)
{
	dp_err err;
	dp_err_clear(&err);
	dp_status st = parse(s, v, &err);
	check_parse(st, &err);
	if (st == DP_OK && !isfinite(*v))
		fuzz_fail("a unit parse gave a value that is not finite", NULL);
	return st == DP_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *s = fuzz_text(data, size);
	dp_err err;
	char buf[64];

	int64_t bytes = -1;
	dp_err_clear(&err);
	dp_status st = dp_units_parse_bytes(s, &bytes, &err);
	check_parse(st, &err);
	if (st == DP_OK) {
		if (bytes < 0 || bytes > ((int64_t)1 << 62))
			fuzz_fail("dp_units_parse_bytes out of 0..2^62", NULL);
		dp_units_fmt_bytes(bytes, buf, sizeof buf);
	}

	double bw = -1, us = -1;
	if (check_double(s, dp_units_parse_bandwidth, &bw)) {
		if (!(bw > 0))
			fuzz_fail("dp_units_parse_bandwidth not > 0", NULL);
		dp_units_fmt_bandwidth(bw, buf, sizeof buf);
	}
	if (check_double(s, dp_units_parse_time, &us)) {
		if (!(us >= 0))
			fuzz_fail("dp_units_parse_time not >= 0", NULL);
		dp_units_fmt_time(us, buf, sizeof buf);
	}

	double v = 0;
	size_t n = dp_units_scan_number(s, &v);
	if (n > size)
		fuzz_fail("dp_units_scan_number read past the text", NULL);
	if (n) {
		/* what dp_units_fmt_num writes must scan back to the same value */
		dp_units_fmt_num(v, buf, sizeof buf);
		double w = 0;
		if (isfinite(v) &&
		    (dp_units_scan_number(buf, &w) != strlen(buf) || w != v))
			fuzz_fail("dp_units_fmt_num does not read back", NULL);
	}

	dp_machine m;
	if (dp_machine_init(&m, 3, &err))
		fuzz_fail("dp_machine_init failed", &err);
	dp_err_clear(&err);
	st = dp_machine_set_caps(&m, s, &err);
	check_parse(st, &err);
	for (int d = 0; st == DP_OK && d < m.k; d++)
		if (m.cap[d] < 0)
			fuzz_fail("dp_machine_set_caps stored a negative cap",
				  NULL);
	dp_err_clear(&err);
	check_parse(dp_machine_set_speeds(&m, s, &err), &err);
	for (int d = 0; d < m.k; d++)
		if (!(m.speed[d] > 0) || !isfinite(m.speed[d]))
			fuzz_fail("a speed not finite > 0", NULL);
	dp_machine_free(&m);
	free(s);
	return 0;
}
