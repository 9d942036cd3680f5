/* fmt.c - short number formats (see fmt.h). */
#include "fmt.h"

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

char *fmt_size_input(int64_t bytes, char *buf, size_t size)
{
	if (bytes == DP_CAP_UNLIMITED) {
		snprintf(buf, size, "inf");
		return buf;
	}
	return dp_units_fmt_bytes_input(bytes, buf, size);
}

char *fmt_pct(double a, double b, char *buf, size_t size)
{
	if (!(b > 0))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.0f%%", 100.0 * a / b);
	return buf;
}
