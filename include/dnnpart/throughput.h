/* throughput.h - the throughput objective: the max load over devices.
 *
 * After Tarnawski, Phanishayee, Devanur, Mahajan, Ranjan, "Efficient
 * Algorithms for Device Placement of DNN Graph Operators" (NeurIPS 2020),
 * section 3: when samples (micro-batches) stream through a placed graph, in
 * steady state each device is busy, per sample, for its load, and the time
 * per sample is the largest load. The load of device d under a placement:
 *
 *   load(d) = sum over ops u on d of time_us(u) / speed(d)
 *           + sum over ops u on d that have a data consumer on another
 *             device of xfer(u)                  (u's output sent, once)
 *           + sum over ops u on another device that have a data consumer
 *             on d of xfer(u)                     (u's output received)
 *
 * xfer(u), the time of one transfer of u's output, is the largest over u's
 * data out-edges of: the edge's own transfer time when the machine's link
 * is "file" and the graph gives one (dp_edge_xfer_us), else lat + bytes /
 * bw. Control edges cost nothing here. This is the paper's model, where an
 * output goes once through host memory and each device that needs it reads
 * it once; with one transfer time per op, as in its input files. Units: µs
 * per sample (per micro-batch), or the file's scaled times with link "file".
 */
#ifndef DNNPART_THROUGHPUT_H
#define DNNPART_THROUGHPUT_H

#include <stdint.h>

#include "err.h"
#include "graph.h"
#include "machine.h"

/* xfer(u) above; 0 for an op without data consumers. g finalized. */
double dp_op_xfer_us(const dp_graph *g, const dp_machine *m, uint32_t u);

/* The loads of placement (g->nops devices in 0..m->k-1) on m: load (k
 * entries, may be NULL) and *max_load. Deterministic. DP_EINPUT naming the
 * op when a device is out of range; DP_ENOMEM. */
dp_status dp_max_load(const dp_graph *g, const dp_machine *m,
		      const int32_t *placement, double *load, double *max_load,
		      dp_err *err);

#endif
