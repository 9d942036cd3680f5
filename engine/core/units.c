/* units.c - human units for sizes, bandwidths and times (see units.h).
 *
 * Numbers are scanned with our own grammar (no hex, no "nan"/"inf") and
 * converted with strtod in a locale-independent way, because the TUI calls
 * setlocale() for wide characters and a comma decimal point must never turn
 * "1.5GiB" into an error or "1,5" into a number.
 */
#include "dnnpart/units.h"

#include <ctype.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE_UNITS "B, kB, MB, GB, TB, KiB, MiB, GiB, TiB (or k, m, g, t)"
#define MAX_BYTES 4611686018427387904.0 /* 2^62 */
#define UNITS_MIN_BW 1.0		/* bytes per second */
#define UNITS_MAX_BW 1e18
#define UNITS_MAX_TIME_US 1e15 /* = DP_MAX_GRAPH_TIME_US (graph.h) */

/* The locale's decimal point ("." in the C locale). */
static const char *decimal_point(void)
{
	const struct lconv *lc = localeconv();
	return lc && lc->decimal_point && lc->decimal_point[0]
		       ? lc->decimal_point
		       : ".";
}

size_t dp_units_scan_number(const char *s, double *v)
{
	size_t i = 0, digits = 0;
	if (s[i] == '+' || s[i] == '-')
		i++;
	while (isdigit((unsigned char)s[i])) {
		i++;
		digits++;
	}
	size_t dot = (size_t)-1;
	if (s[i] == '.') {
		dot = i++;
		while (isdigit((unsigned char)s[i])) {
			i++;
			digits++;
		}
	}
	if (!digits)
		return 0;
	if (s[i] == 'e' || s[i] == 'E') {
		size_t j = i + 1;
		if (s[j] == '+' || s[j] == '-')
			j++;
		if (isdigit((unsigned char)s[j])) {
			while (isdigit((unsigned char)s[j]))
				j++;
			i = j;
		}
	}
	/* strtod with the locale's decimal point in place of '.' */
	const char *dp = decimal_point();
	size_t dpl = strlen(dp);
	char stack[128];
	char *buf = i + dpl < sizeof stack ? stack : malloc(i + dpl + 1);
	if (!buf)
		return 0;
	size_t o = 0;
	for (size_t k = 0; k < i; k++) {
		if (k == dot) {
			memcpy(buf + o, dp, dpl);
			o += dpl;
		} else {
			buf[o++] = s[k];
		}
	}
	buf[o] = '\0';
	char *end;
	*v = strtod(buf, &end);
	size_t used = (size_t)(end - buf) == o ? i : 0;
	if (buf != stack)
		free(buf);
	return used;
}

/* Replaces every one of the locale's decimal points in s (printf output of
 * numbers) by '.'. */
static void fix_decimal_point(char *s)
{
	const char *dp = decimal_point();
	size_t dpl = strlen(dp);
	if (dpl == 0 || strcmp(dp, ".") == 0)
		return;
	for (char *p = strstr(s, dp); p; p = strstr(p + 1, dp)) {
		*p = '.';
		memmove(p + 1, p + dpl, strlen(p + dpl) + 1);
	}
}

char *dp_units_fmt_c(char *buf, size_t size, const char *fmt, ...)
{
	if (size == 0)
		return buf;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	fix_decimal_point(buf);
	return buf;
}

char *dp_units_fmt_num(double v, char *buf, size_t size)
{
	if (size == 0)
		return buf;
	if (!isfinite(v)) {
		snprintf(buf, size, "null");
		return buf;
	}
	/* the shortest of %.15g / %.17g that reads back as v */
	char tmp[64];
	double back;
	snprintf(tmp, sizeof tmp, "%.15g", v);
	fix_decimal_point(tmp);
	if (dp_units_scan_number(tmp, &back) == 0 || back != v) {
		snprintf(tmp, sizeof tmp, "%.17g", v);
		fix_decimal_point(tmp);
	}
	snprintf(buf, size, "%s", tmp);
	return buf;
}

/* DP_EINPUT with a message: the error of every parser below. */
static dp_status bad(dp_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static dp_status bad(dp_err *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	dp_status st = dp_err_setv(err, DP_EINPUT, NULL, 0, 0, fmt, ap);
	va_end(ap);
	return st;
}

#define ARG_MAX 256 /* the longest value a parser reads, with its NUL */

/* Copies s (NULL: "") without leading/trailing white space into buf of
 * ARG_MAX bytes. An empty or too long value is an error that names what
 * the value is ("size", "time") and, when empty, what was expected. */
static dp_status trimmed(const char *s, char *buf, const char *what,
			 const char *expect, dp_err *err)
{
	const char *b = s ? s : "";
	while (isspace((unsigned char)*b))
		b++;
	size_t n = strlen(b);
	while (n && isspace((unsigned char)b[n - 1]))
		n--;
	if (n == 0)
		return bad(err, "empty %s: %s", what, expect);
	if (n >= ARG_MAX)
		return bad(err, "bad %s '%.40s...': too long", what, s);
	memcpy(buf, b, n);
	buf[n] = '\0';
	return DP_OK;
}

/* Multiplier of a size unit ("" and "B" = 1); 0 when unknown, -1 when it
 * is a unit of bits: an upper-case letter with a lower-case b ("Gb", "Mb",
 * "Gib"), as network people write them. A unit all in lower case ("gb",
 * "mib", "b") is the same size in bytes as in upper case: people type
 * `--mem 16gb` meaning bytes. Prefix letters are otherwise
 * case-insensitive; kB..TB decimal, KiB..TiB and bare letters binary
 * (docs/formats.md, "Units"). */
static double size_unit(const char *u)
{
	static const char prefixes[] = "kmgt";
	if (!u[0])
		return 1;
	size_t n = strlen(u);
	bool upper = false;
	for (size_t i = 0; i < n; i++)
		upper |= isupper((unsigned char)u[i]) != 0;
	if (u[n - 1] == 'b' && upper)
		return -1;
	if ((u[0] == 'B' || u[0] == 'b') && !u[1])
		return 1;
	const char *p = strchr(prefixes, tolower((unsigned char)u[0]));
	if (!p)
		return 0;
	int e = (int)(p - prefixes) + 1;
	const char *rest = u + 1;
	if (!rest[0])
		return pow(1024, e);
	if (rest[0] == 'i' || rest[0] == 'I')
		rest++;
	if ((rest[0] == 'B' || rest[0] == 'b') && !rest[1])
		return pow(rest == u + 1 ? 1000 : 1024, e);
	return 0;
}

/* Splits "12.5 GiB" into a number and the unit text after optional
 * spaces. Returns 0 when there is no leading number. */
static int split_number(const char *t, double *v, const char **unit)
{
	size_t n = dp_units_scan_number(t, v);
	if (!n)
		return 0;
	const char *u = t + n;
	while (*u == ' ')
		u++;
	*unit = u;
	return 1;
}

/* The size in s; need_unit: a plain number is an error (memory caps). */
static dp_status parse_size(const char *s, bool need_unit, int64_t *bytes,
			    dp_err *err)
{
	char t[ARG_MAX], expect[128];
	snprintf(expect, sizeof expect,
		 "expected a number with %s unit " SIZE_UNITS,
		 need_unit ? "a" : "an optional");
	dp_status st = trimmed(s, t, "size", expect, err);
	if (st)
		return st;
	double v, mult = 0;
	const char *u = "";
	if (split_number(t, &v, &u))
		mult = size_unit(u);
	if (mult < 0)
		return bad(err,
			   "bad size '%s': '%s' is bits (an upper-case "
			   "prefix with a lower-case b); sizes are in "
			   "bytes: B, kB, MB, GB (or gb), KiB, MiB, GiB",
			   t, u);
	if (mult == 0)
		return bad(err, "bad size '%s': %s", t, expect);
	if (need_unit && !u[0])
		return bad(err,
			   "a size needs a unit, e.g. %sGiB or %sGB "
			   "(%sB for bytes)",
			   t, t, t);
	if (v < 0)
		return bad(err, "bad size '%s': must not be negative", t);
	double b = v * mult;
	if (!(b <= MAX_BYTES))
		return bad(err,
			   "bad size '%s': too large (at most 2^62 "
			   "bytes = 4 EiB)",
			   t);
	*bytes = (int64_t)llround(b);
	return DP_OK;
}

dp_status dp_units_parse_bytes(const char *s, int64_t *bytes, dp_err *err)
{
	return parse_size(s, false, bytes, err);
}

dp_status dp_units_parse_size(const char *s, int64_t *bytes, dp_err *err)
{
	return parse_size(s, true, bytes, err);
}

dp_status dp_units_parse_bandwidth(const char *s, double *bytes_per_us,
				   dp_err *err)
{
	char t[ARG_MAX];
	static const char expect[] =
		"expected bytes per second such as 130GB/s, 5.7GB/s or "
		"900GiB/s (units B, kB, MB, GB, TB, KiB, MiB, GiB, TiB per "
		"second; a plain number is bytes/s)";
	dp_status st = trimmed(s, t, "bandwidth", expect, err);
	if (st)
		return st;
	double v, mult = 0;
	const char *u;
	if (split_number(t, &v, &u)) {
		if (!u[0]) {
			mult = 1;
		} else {
			size_t ul = strlen(u);
			if (ul >= 2 && strcmp(u + ul - 2, "/s") == 0) {
				char pre[16];
				if (ul - 2 < sizeof pre) {
					memcpy(pre, u, ul - 2);
					pre[ul - 2] = '\0';
					/* "/s" alone means bytes per second */
					mult = pre[0] ? size_unit(pre) : 1;
					if (mult < 0)
						return bad(
							err,
							"bad bandwidth '%s': "
							"'%s' is bits (an "
							"upper-case prefix "
							"with a lower-case "
							"b); bandwidths are "
							"in bytes per "
							"second: GB/s (or "
							"gb/s), GiB/s",
							t, u);
				}
			}
		}
	}
	if (mult == 0)
		return bad(err, "bad bandwidth '%s': %s", t, expect);
	double bps = v * mult;
	if (!(bps > 0) || !isfinite(bps))
		return bad(err,
			   "bad bandwidth '%s': must be a finite "
			   "number > 0",
			   t);
	/* outside this range transfer times stop being finite numbers
	 * (4 PiB at 1e-300 B/s) or meaningful; docs/reliability.md */
	if (bps < UNITS_MIN_BW || bps > UNITS_MAX_BW)
		return bad(err,
			   "bad bandwidth '%s': out of range (expected "
			   "from 1 B/s to 1 EB/s)",
			   t);
	*bytes_per_us = bps / 1e6;
	return DP_OK;
}

dp_status dp_units_parse_time(const char *s, double *us, dp_err *err)
{
	char t[ARG_MAX];
	static const char expect[] =
		"expected a number with an optional unit ns, us, µs, ms, s "
		"(a plain number is µs)";
	dp_status st = trimmed(s, t, "time", expect, err);
	if (st)
		return st;
	static const struct {
		const char *u;
		double mult;
	} units[] = {
		{"", 1},	  {"us", 1},
		{"\xc2\xb5s", 1}, /* µ */
		{"\xce\xbcs", 1}, /* Greek mu */ {"ns", 1e-3},
		{"ms", 1e3},	  {"s", 1e6},
	};
	double v, mult = 0;
	const char *u;
	if (split_number(t, &v, &u))
		for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
			if (strcasecmp(u, units[i].u) == 0) {
				mult = units[i].mult;
				break;
			}
	if (mult == 0)
		return bad(err, "bad time '%s': %s", t, expect);
	if (v < 0)
		return bad(err, "bad time '%s': must not be negative", t);
	double r = v * mult;
	if (!isfinite(r) || r > UNITS_MAX_TIME_US)
		return bad(err,
			   "bad time '%s': too large (at most 1e15 us, "
			   "about 31 years)",
			   t);
	*us = r;
	return DP_OK;
}

/* The number of three significant digits: "1.50", "12.5", "850" (values
 * >= 1000 unrounded), '.' as decimal point. */
static void num3(char *num, size_t size, double v)
{
	const char *fmt = v < 9.995 ? "%.2f" : v < 99.95 ? "%.1f" : "%.0f";
	snprintf(num, size, fmt, v);
	fix_decimal_point(num);
}

static void fmt3(char *buf, size_t size, double v, const char *unit)
{
	char num[32];
	num3(num, sizeof num, v);
	snprintf(buf, size, "%s %s", num, unit);
}

static const char *const byte_units[] = {"B",	"KiB", "MiB", "GiB",
					 "TiB", "PiB", "EiB"};

/* How a size shows, without its sign: the number of |bytes| in num ("1.00",
 * "512") and the index of its unit in byte_units. Whole bytes below 1 KiB,
 * else a binary prefix with three significant digits, which may take the
 * next prefix: 1,048,000 B is "1.00 MiB", not "1023 KiB". Every size
 * formatter and dp_units_round_bytes() start from here. */
static int bytes_shown(double bytes, char *num, size_t size)
{
	double v = fabs(bytes);
	if (v < 1024) {
		snprintf(num, size, "%.0f", v);
		return 0;
	}
	int i = 0;
	while (v >= 1024 && i < 6) {
		v /= 1024;
		i++;
	}
	if (v >= 999.5 && i < 6) {
		v /= 1024;
		i++;
	}
	num3(num, size, v);
	return i;
}

/* A size as dp_units_fmt_bytes() shows it ("1.50 KiB"), or as a person
 * types it when typed: no space and no trailing zeros ("1.5KiB"). */
static char *fmt_size(int64_t bytes, bool typed, char *buf, size_t size)
{
	if (size == 0)
		return buf;
	char num[32];
	int u = bytes_shown((double)bytes, num, sizeof num);
	if (typed && strchr(num, '.')) {
		size_t n = strlen(num);
		while (num[n - 1] == '0')
			num[--n] = '\0';
		if (num[n - 1] == '.')
			num[--n] = '\0';
	}
	snprintf(buf, size, "%s%s%s%s", bytes < 0 ? "-" : "", num,
		 typed ? "" : " ", byte_units[u]);
	return buf;
}

char *dp_units_fmt_bytes(int64_t bytes, char *buf, size_t size)
{
	return fmt_size(bytes, false, buf, size);
}

char *dp_units_fmt_bytes_input(int64_t bytes, char *buf, size_t size)
{
	return fmt_size(bytes, true, buf, size);
}

int64_t dp_units_round_bytes(double bytes)
{
	if (isnan(bytes))
		return 0;
	if (fabs(bytes) >= MAX_BYTES)
		return bytes < 0 ? -(int64_t)MAX_BYTES : (int64_t)MAX_BYTES;
	/* read back the text dp_units_fmt_bytes shows, so that the two agree
	 * to the byte (printf's rounding of ties included) */
	char num[32];
	int u = bytes_shown(bytes, num, sizeof num);
	double v = 0;
	dp_units_scan_number(num, &v);
	double r = round(v * pow(1024, u));
	if (r > MAX_BYTES)
		r = MAX_BYTES;
	return bytes < 0 ? -(int64_t)r : (int64_t)r;
}

char *dp_units_fmt_bytes_exact(int64_t bytes, char *buf, size_t size)
{
	if (size == 0)
		return buf;
	for (int i = 4; i > 0; i--) {
		int64_t m = (int64_t)1 << (10 * i);
		if (bytes >= m && bytes % m == 0) {
			snprintf(buf, size, "%lld%s", (long long)(bytes / m),
				 byte_units[i]);
			return buf;
		}
	}
	snprintf(buf, size, "%lld", (long long)bytes);
	return buf;
}

char *dp_units_fmt_time(double us, char *buf, size_t size)
{
	if (size == 0)
		return buf;
	if (!isfinite(us)) {
		snprintf(buf, size, "%s", us > 0 ? "inf" : "-");
		return buf;
	}
	const char *sign = us < 0 ? "-" : "";
	double v = fabs(us);
	char tmp[96];
	if (v < 999.5)
		fmt3(tmp, sizeof tmp, v, "us");
	else if (v < 999.5e3)
		fmt3(tmp, sizeof tmp, v / 1e3, "ms");
	else
		fmt3(tmp, sizeof tmp, v / 1e6, "s");
	/* whole microseconds read better without decimals: "850 us" */
	if (v < 999.5 && v == floor(v))
		snprintf(tmp, sizeof tmp, "%.0f us", v);
	snprintf(buf, size, "%s%s", sign, tmp);
	return buf;
}

char *dp_units_fmt_bandwidth(double bytes_per_us, char *buf, size_t size)
{
	static const char *const names[] = {"B/s",  "kB/s", "MB/s",
					    "GB/s", "TB/s", "PB/s"};
	if (size == 0)
		return buf;
	double v = bytes_per_us * 1e6;
	int i = 0;
	while (v >= 999.5 && i < 5) {
		v /= 1000;
		i++;
	}
	char num[32];
	snprintf(num, sizeof num, "%.3g", v);
	fix_decimal_point(num);
	snprintf(buf, size, "%s %s", num, names[i]);
	return buf;
}
