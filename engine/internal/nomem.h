/* nomem.h - the one "out of memory" error of the engine (engine/core/err.c). */
#ifndef DNNPART_NOMEM_H
#define DNNPART_NOMEM_H

#include "dnnpart/err.h"

/* Fills err with DP_ENOMEM and "out of memory while " followed by the
 * printf-style doing ("loading a PipeDream graph", "allocating %s for the
 * simulator"); returns DP_ENOMEM. */
dp_status dpi_nomem(dp_err *err, const char *doing, ...)
	__attribute__((format(printf, 2, 3)));

#endif
