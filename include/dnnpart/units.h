/* units.h - human units for sizes, bandwidths and times.
 *
 * Sizes: "16GiB", "16g", "512MB", "1.5TB", "4096", "4096B". Decimal prefixes
 * (kB, MB, GB, TB) are powers of 1000, binary ones (KiB, MiB, GiB, TiB) powers
 * of 1024, a bare letter (k, m, g, t, case-insensitive) means the binary one.
 * Bandwidths: a size per second, "130GB/s", "5.7GB/s", "900GiB/s", "1e9" (plain
 * number = bytes/s). Times: "25us", "25µs", "2ms", "1.5s", "100ns", "25" (plain
 * number = µs).
 *
 * Parse errors fill err (DP_EINPUT) with a message that quotes the text and
 * says what was expected; the caller adds where the text came from.
 */
#ifndef DNNPART_UNITS_H
#define DNNPART_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Parses a size into bytes (>= 0, rounded to the nearest byte); a plain
 * number is bytes (for fields whose name says bytes). A lower-case b after
 * the number ("16Gb", "16gb", "512mb", "4096b") is bits: an error that says
 * so, never read as bytes. */
dp_status dp_units_parse_bytes(const char *s, int64_t *bytes, dp_err *err);
/* The same, but the size must have a unit ("16GiB", "16GB", "16g",
 * "17179869184B"): a plain number is an error that suggests one ("a size
 * needs a unit, e.g. 16GiB or 16GB (16B for bytes)"), because "--mem 16"
 * means 16 GiB to a person and 16 bytes to a parser. For memory sizes a
 * person types: caps (--mem, the explorer's prompts, a machine block's
 * "memory" string). */
dp_status dp_units_parse_size(const char *s, int64_t *bytes, dp_err *err);
/* Parses a bandwidth into bytes per microsecond (> 0). */
dp_status dp_units_parse_bandwidth(const char *s, double *bytes_per_us,
				   dp_err *err);
/* Parses a duration into microseconds (>= 0). */
dp_status dp_units_parse_time(const char *s, double *us, dp_err *err);

/* Scans a decimal number ([+-]digits[.digits][(e|E)[+-]digits]) at the
 * start of s, whatever the locale (no hex, no "nan" or "inf"); stores it in
 * *v and returns the number of characters used, 0 when s does not start with
 * a number. */
size_t dp_units_scan_number(const char *s, double *v);
/* Formats v with the fewest digits that read back exactly (up to 17), '.'
 * as decimal point whatever the locale, "null" when not finite; for JSON and
 * other machine-readable output. Returns buf. */
char *dp_units_fmt_num(double v, char *buf, size_t size);

/* printf for numbers: fmt's output with '.' as the decimal point whatever
 * the locale. fmt must format numbers only (a %s argument holding the
 * locale's decimal point would be rewritten too). Returns buf. */
char *dp_units_fmt_c(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The one formatter of sizes and times for people: the explorer, the
 * command line and the labels of DOT/SVG pictures all print with these, so
 * a number reads the same everywhere.
 *
 * Formats bytes with a binary prefix and 3 significant digits: "0 B",
 * "512 B", "1.50 KiB", "1.00 MiB" (for 1,048,000 B, not "1023 KiB"),
 * "16.0 GiB"; negative sizes keep their sign ("-5 B"). Returns buf. */
char *dp_units_fmt_bytes(int64_t bytes, char *buf, size_t size);
/* The same size as a person types it, for a prompt to start from: the
 * number and prefix dp_units_fmt_bytes() shows, without the space and the
 * trailing zeros: "512B", "1.5KiB", "1MiB", "16GiB". dp_units_parse_bytes()
 * reads it back as dp_units_round_bytes(bytes), below 999.5 TiB (larger
 * sizes show in PiB, a unit the parser does not take). Returns buf. */
char *dp_units_fmt_bytes_input(int64_t bytes, char *buf, size_t size);
/* Rounds bytes to the size dp_units_fmt_bytes() shows for it ("1.00 MiB" is
 * 1048576), so that a size a person steps up or down reads exactly as it
 * is; NaN is 0, the result at most 2^62 either way. */
int64_t dp_units_round_bytes(double bytes);
/* Formats bytes exactly, for files: in the largest binary unit (KiB to TiB)
 * that holds it a whole number of times ("16GiB", "512MiB"), else as a plain
 * number ("1000"). Returns buf. */
char *dp_units_fmt_bytes_exact(int64_t bytes, char *buf, size_t size);
/* Formats microseconds: "850 us", "12.5 ms", "3.20 s"; negative times keep
 * their sign. Returns buf. */
char *dp_units_fmt_time(double us, char *buf, size_t size);
/* Formats bytes/µs as a decimal rate: "130 GB/s", "5.7 GB/s". Returns buf. */
char *dp_units_fmt_bandwidth(double bytes_per_us, char *buf, size_t size);

#endif
