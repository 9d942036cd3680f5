/* names.h - parsing a name out of a table of names, with the engine's one
 * message for a name it does not know (engine/core/names.c). */
#ifndef DNNPART_NAMES_H
#define DNNPART_NAMES_H

#include "dnnpart/err.h"

/* *out = the index of s in names[0..n); else DP_EINPUT "unknown WHAT 'S':
 * expected EXPECTED" (*out unchanged). */
dp_status dpi_parse_name(const char *s, const char *const *names, int n,
			 const char *what, const char *expected, int *out,
			 dp_err *err);

#endif
