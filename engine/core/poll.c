/* poll.c - the periodic cancel check and progress report (internal/poll.h). */
#include "internal/poll.h"

dp_status dpi_canceled(dp_err *err, const char *name)
{
	return dp_err_set(err, DP_ECANCELED, NULL, 0, 0, "%s: canceled", name);
}

dp_status dpi_poll(const dp_progress *p, const char *name, const char *phase,
		   double fraction, dp_err *err)
{
	if (dp_progress_canceled(p))
		return dpi_canceled(err, name);
	dp_progress_report(p, phase, fraction);
	return DP_OK;
}
