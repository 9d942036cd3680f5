/* poll.h - the periodic check of a long computation (an algorithm, a
 * lowering): is it cancelled, and how far has it got. One message for a
 * cancelled run everywhere: "NAME: canceled". Defined in
 * engine/core/poll.c, below every floor that runs long loops. */
#ifndef DNNPART_POLL_H
#define DNNPART_POLL_H

#include "dnnpart/algo.h"

/* DP_ECANCELED with "NAME: canceled" in err. */
dp_status dpi_canceled(dp_err *err, const char *name);

/* dpi_canceled when p's flag is raised, else reports phase at fraction
 * (0..1) and returns DP_OK. p may be NULL. */
dp_status dpi_poll(const dp_progress *p, const char *name, const char *phase,
		   double fraction, dp_err *err);

#endif
