/* fmt.h - short number formats for the screen. Sizes, times and
 * bandwidths are dnnpart/units.h's, the one formatter of the CLI, the views
 * and the exported pictures; this adds counts, caps and percentages. */
#ifndef DNNPART_VIEWS_FMT_H
#define DNNPART_VIEWS_FMT_H

#include <stddef.h>
#include <stdint.h>

/* 1234567 -> "1,234,567". Returns buf. */
char *fmt_count(uint64_t n, char *buf, size_t size);
/* A cap: "16.0 GiB", or "none" for DP_CAP_UNLIMITED. Returns buf. */
char *fmt_cap(int64_t cap, char *buf, size_t size);
/* A cap as a prompt starts from: dp_units_fmt_bytes_input() ("16GiB",
 * "12.8GiB", "800MiB"), or "inf" for DP_CAP_UNLIMITED. Returns buf. */
char *fmt_size_input(int64_t bytes, char *buf, size_t size);
/* A percentage of a / b, "78%" ("-" when b is 0). Returns buf. */
char *fmt_pct(double a, double b, char *buf, size_t size);

#endif
