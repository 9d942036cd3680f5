/* strategy_detect.c - telling a strategy file from a placement file
 * (strategy.h: dp_strategy_file_detect). Both are JSON objects whose
 * "format" member names them; writers put it first, so the first few KiB
 * are enough to decide without reading a large placement. */
#include "dnnpart/strategy.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define DETECT_BYTES 4096

dp_status dp_strategy_file_detect(const char *path, bool *is_strategy,
				  dp_err *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return dp_err_set(err, DP_EIO, path, 0, 0, "cannot open: %s",
				  strerror(errno));
	char buf[DETECT_BYTES + 1];
	size_t n = fread(buf, 1, DETECT_BYTES, f);
	fclose(f);
	buf[n] = '\0';
	*is_strategy = false;
	const char *p = buf;
	while ((p = strstr(p, "\"format\"")) != NULL) {
		p += strlen("\"format\"");
		while (isspace((unsigned char)*p))
			p++;
		if (*p != ':')
			continue;
		p++;
		while (isspace((unsigned char)*p))
			p++;
		if (!strncmp(p, "\"dnnpart-strategy\"",
			     strlen("\"dnnpart-strategy\""))) {
			*is_strategy = true;
			break;
		}
	}
	return DP_OK;
}
