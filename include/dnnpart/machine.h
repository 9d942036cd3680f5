/* machine.h - the machine a graph is partitioned onto.
 *
 * K devices, each with a memory cap (bytes) and a speed factor (op time =
 * time_us / speed); uniform links with a bandwidth (bytes per µs) and a
 * latency (µs). Presets name the link settings used in the literature.
 * A dp_machine owns its arrays; dp_machine_free() releases them.
 */
#ifndef DNNPART_MACHINE_H
#define DNNPART_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "graph.h"

#define DP_MAX_DEVICES 1024
#define DP_CAP_UNLIMITED INT64_MAX

typedef struct dp_machine {
	int k;		    /* number of devices, 1..DP_MAX_DEVICES */
	int64_t *cap;	    /* k caps in bytes; DP_CAP_UNLIMITED = no cap */
	double *speed;	    /* k speed factors, > 0 (default 1.0) */
	double bw;	    /* bytes per µs, > 0 */
	double lat;	    /* µs, >= 0 */
	char link_name[32]; /* preset name, "custom", or "file" */
	/* link "file": an edge with a transfer time of its own (dp_graph
	 * .xfer_us, msr-fiddle's cost) takes that time instead of lat +
	 * bytes/bw (bw and lat still price the edges without one) */
	bool link_file;
} dp_machine;

typedef struct dp_link_preset {
	const char *name;
	double bw;  /* bytes per µs */
	double lat; /* µs */
	const char *desc;
} dp_link_preset;

/* The presets: pardnn (130 GB/s, 25 us), baechi (5.7 GB/s, 134 us), pcie4
 * (25 GB/s, 10 us), nvlink (300 GB/s, 5 us). Terminated by a NULL name. */
extern const dp_link_preset dp_machine_link_presets[];
/* Finds a preset by name; NULL if unknown. */
const dp_link_preset *dp_machine_find_link(const char *name);
/* Comma-separated preset names, for messages and help. */
const char *dp_machine_link_names(void);

/* Initialises m with k devices (1..DP_MAX_DEVICES), unlimited caps, speed 1,
 * and the default link (pardnn). Errors: k out of range, no memory. */
dp_status dp_machine_init(dp_machine *m, int k, dp_err *err);
void dp_machine_free(dp_machine *m);
/* Deep copy; dst is overwritten (not freed first). */
dp_status dp_machine_copy(dp_machine *dst, const dp_machine *src, dp_err *err);
/* Changes the device count, keeping existing caps/speeds; new devices copy
 * the last device's cap and speed. */
dp_status dp_machine_resize(dp_machine *m, int k, dp_err *err);

/* Sets caps from "16GiB" (all devices) or "16GiB,8GiB,..." (exactly k
 * entries; "inf" or "none" = unlimited). Errors name the bad entry. */
dp_status dp_machine_set_caps(dp_machine *m, const char *spec, dp_err *err);
/* Sets speeds from "1" or "1,1,0.5,..." (exactly k entries, each > 0). */
dp_status dp_machine_set_speeds(dp_machine *m, const char *spec, dp_err *err);
/* Sets the link from a preset name. */
dp_status dp_machine_set_link(dp_machine *m, const char *preset, dp_err *err);
/* Sets the link "file" (link_file, see above): edges priced by the graph's
 * own transfer times, the other edges by the current bw and lat. */
void dp_machine_set_link_file(dp_machine *m);

/* Initialises m from a graph's machine hint: k = hint devices (else 1), caps,
 * bandwidth and latency where the hint has them, else the defaults of
 * dp_machine_init. Command-line settings are applied on top by the caller. */
dp_status dp_machine_init_from_hint(dp_machine *m, const dp_machine_hint *h,
				    dp_err *err);

/* Communication time in µs of bytes from device a to b (0 when a == b):
 * lat + bytes / bw. For a control edge pass bytes = 0. */
static inline double dp_machine_comm(const dp_machine *m, int a, int b,
				     int64_t bytes)
{
	return a == b ? 0.0 : m->lat + (double)bytes / m->bw;
}

double dp_machine_sum_speed(const dp_machine *m);
double dp_machine_max_speed(const dp_machine *m);

#endif
