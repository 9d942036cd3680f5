/* fmt.h - short number formats for the screen (on top of include/dnnpart/units.h). */
#ifndef DNNPART_VIEWS_FMT_H
#define DNNPART_VIEWS_FMT_H

#include <stddef.h>
#include <stdint.h>

/* 1234567 -> "1,234,567". Returns buf. */
char *fmt_count(uint64_t n, char *buf, size_t size);
/* A cap: "16.0 GiB", or "none" for DP_CAP_UNLIMITED. Returns buf. */
char *fmt_cap(int64_t cap, char *buf, size_t size);
/* A size the unit parser reads back and that shows 3 significant digits:
 * "16GiB", "12.8GiB", "800MiB", "inf". Returns buf. */
char *fmt_size_input(int64_t bytes, char *buf, size_t size);
/* Rounds bytes to the 3 significant digits dp_units_fmt_bytes shows (binary
 * prefixes), so that a cap set by m/M reads exactly as it is. */
int64_t fmt_round_bytes(double bytes);
/* A percentage of a / b, "78%" ("-" when b is 0). Returns buf. */
char *fmt_pct(double a, double b, char *buf, size_t size);

#endif
