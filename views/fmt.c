/* fmt.c - short number formats (see fmt.h). */
#include "fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dnnpart/machine.h"
#include "dnnpart/units.h"

char *fmt_count(uint64_t n, char *buf, size_t size)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)n);
	char out[48];
	int o = 0;
	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = tmp[i];
	}
	out[o] = '\0';
	snprintf(buf, size, "%s", out);
	return buf;
}

char *fmt_cap(int64_t cap, char *buf, size_t size)
{
	if (cap == DP_CAP_UNLIMITED) {
		snprintf(buf, size, "none");
		return buf;
	}
	return dp_units_fmt_bytes(cap, buf, size);
}

static const char *const bin_units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};

/* The binary unit index that shows bytes as 1 <= v < 1024. */
static int unit_of(double bytes, double *v)
{
	int u = 0;
	*v = bytes;
	while (*v >= 1024 && u < 5) {
		*v /= 1024;
		u++;
	}
	return u;
}

int64_t fmt_round_bytes(double bytes)
{
	if (!(bytes > 0))
		return 0;
	double v;
	int u = unit_of(bytes, &v);
	double scale = u == 0 || v >= 100 ? 1 : v >= 10 ? 10 : 100;
	v = round(v * scale) / scale;
	double r = v * pow(1024, u);
	if (r >= (double)INT64_MAX)
		return INT64_MAX - 1;
	return (int64_t)r;
}

char *fmt_size_input(int64_t bytes, char *buf, size_t size)
{
	if (bytes == DP_CAP_UNLIMITED) {
		snprintf(buf, size, "inf");
		return buf;
	}
	double v;
	int u = unit_of((double)bytes, &v);
	if (u == 0)
		snprintf(buf, size, "%lldB", (long long)bytes);
	else if (v >= 100)
		snprintf(buf, size, "%.0f%s", v, bin_units[u]);
	else
		snprintf(buf, size, "%.3g%s", v, bin_units[u]);
	return buf;
}

char *fmt_pct(double a, double b, char *buf, size_t size)
{
	if (!(b > 0))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.0f%%", 100.0 * a / b);
	return buf;
}
