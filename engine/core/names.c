/* names.c - parsing a name out of a table of names (internal/names.h). */
#include <string.h>

#include "internal/names.h"

dp_status dpi_parse_name(const char *s, const char *const *names, int n,
			 const char *what, const char *expected, int *out,
			 dp_err *err)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			return DP_OK;
		}
	return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
			  "unknown %s '%.80s': expected %s", what, s, expected);
}
