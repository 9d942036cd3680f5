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
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "graph.h"
#include "levers.h"

#define DP_MAX_DEVICES 1024
#define DP_CAP_UNLIMITED INT64_MAX

typedef struct dp_machine {
	int k;		    /* number of devices, 1..DP_MAX_DEVICES */
	int64_t *cap;	    /* k caps in bytes; DP_CAP_UNLIMITED = no cap */
	double *speed;	    /* k speed factors, > 0 (default 1.0) */
	double bw;	    /* bytes per µs, > 0 */
	double lat;	    /* µs, >= 0 */
	char link_name[32]; /* preset name, "custom", or "file" */
	/* Memory the framework itself takes on every device (CUDA context,
	 * allocator fragmentation), counted against each cap: a plan must
	 * fit in cap - reserve. A size, or a fraction of each cap; both 0 by
	 * default. An unlimited cap stays unlimited. */
	int64_t reserve_bytes; /* >= 0 */
	double reserve_frac;   /* 0 <= f < 1 */
	/* link "file": an edge with a transfer time of its own (dp_graph
	 * .xfer_us, msr-fiddle's cost) takes that time instead of lat +
	 * bytes/bw (bw and lat still price the edges without one) */
	bool link_file;
	/* the levers the plan's graph was transformed with (levers.h), for
	 * reports: the transform itself is applied to the graph */
	dp_levers levers;
	/* What a kernel costs however little work it does (launch, setup),
	 * µs >= 0: a lowered op that runs a fraction f of its op's work
	 * (a micro-batch, a data- or tensor-parallel shard) takes
	 * o + (t - o) f of the op's time t, o = min(t, kernel_us)
	 * (dp_strategy_lower; docs/simulator.md). Default
	 * DP_KERNEL_OVERHEAD_US; 0: work divides perfectly. */
	double kernel_us;
} dp_machine;

#define DP_KERNEL_OVERHEAD_US 5.0

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

/* Parses one cap as a person types it, for every front end (--mem, the
 * explorer's prompts): a size with a unit (dp_units_parse_size: "16" is an
 * error that suggests one; "0B" is a cap that nothing fits), or "inf", "none" or
 * "unlimited" (any case) for DP_CAP_UNLIMITED. */
dp_status dp_machine_parse_cap(const char *text, int64_t *cap, dp_err *err);
/* Checks a cap or a comma list of caps as a person typed it, before the
 * device count is known: each entry by dp_machine_parse_cap(). The message
 * is the entry's own for a single cap, "'8': ..." for an entry of a list,
 * so that the command line (--mem) and the explorer (C) say the same. */
dp_status dp_machine_check_caps(const char *spec, dp_err *err);
/* Sets caps from "16GiB" (all devices) or "16GiB,8GiB,..." (exactly k
 * entries, each read by dp_machine_parse_cap). Errors name the bad
 * entry. */
dp_status dp_machine_set_caps(dp_machine *m, const char *spec, dp_err *err);
/* Sets speeds from "1" or "1,1,0.5,..." (exactly k entries, each > 0). */
dp_status dp_machine_set_speeds(dp_machine *m, const char *spec, dp_err *err);
/* Sets the link from a preset name. */
dp_status dp_machine_set_link(dp_machine *m, const char *preset, dp_err *err);
/* Sets the link "file" (link_file, see above): edges priced by the graph's
 * own transfer times, the other edges by the current bw and lat. */
void dp_machine_set_link_file(dp_machine *m);

/* Sets the reserve from "1GiB" (the same size on every device), "5%" (of
 * each device's cap, 0 to <100) or "none"/"0" (no reserve). Errors say
 * what was expected. */
dp_status dp_machine_set_reserve(dp_machine *m, const char *spec, dp_err *err);
/* Bytes reserved on device d: reserve_bytes + reserve_frac x cap, at most
 * the cap; 0 for an unlimited cap. */
int64_t dp_machine_reserve(const dp_machine *m, int d);
/* What a plan may use on device d: cap - reserve (DP_CAP_UNLIMITED for no
 * cap). The simulator's feasibility and the algorithms use this. */
int64_t dp_machine_usable_cap(const dp_machine *m, int d);
static inline bool dp_machine_has_reserve(const dp_machine *m)
{
	return m->reserve_bytes > 0 || m->reserve_frac > 0;
}
/* The reserve as a person reads it: "1.00 GiB", "5%", "none". */
char *dp_machine_reserve_text(const dp_machine *m, char *buf, size_t size);

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
