/* dnnpart.h - the dnnpart engine's public API, in one include.
 *
 * libdnnpart.a partitions the computational graph of one DNN training step
 * across K accelerators and prices every plan with one simulator. The data
 * flows through the headers below in this order:
 *
 *   err.h        dp_status and dp_err: how every function reports failure
 *   units.h      parsing and formatting sizes, bandwidths, times (one
 *                formatter: the CLI, the views and the exports all use it)
 *   graph.h      dp_graph: ops, edges, CSR lists, topological order
 *   load.h       reading graphs (native JSON, DOT, ParDNN, msr-fiddle,
 *                PipeDream), format detected by content
 *   machine.h    dp_machine: K devices, caps, speeds, link presets
 *   sim.h        the simulator (docs/simulator.md)
 *   algo.h       the algorithm registry and the partitioner interface
 *   plan.h       a placement with its simulated schedule and metrics
 *   placement.h  placement files (native JSON, ParDNN .place)
 *   strategy.h   strategies that split ops or micro-batches, lowered
 *                to a graph + placement the simulator prices
 *   export.h     DOT/SVG/CSV and framework device maps
 *   gen.h        synthetic training graphs of a given size
 *   afile.h      output files that appear whole or not at all
 *
 * Rules that hold for every function declared in these headers, stated once
 * here (as jq's jv.h does) and not repeated in each header:
 *
 * Names. Every exported function and table is dp_*; types are dp_*; macros
 * are DP_*. Symbols named dpi_* are internal (declared in engine/internal/) and are
 * not exported by libdnnpart.a.
 *
 * Errors. A function that can fail returns a dp_status and, on failure,
 * fills the caller-owned dp_err (which may be NULL) with a message a user can
 * act on: what was wrong, what was expected, and the file, line and column
 * where known. On failure, output parameters are left untouched or freed:
 * nothing is half-built for the caller to clean up. DP_ECANCELED means the
 * caller's cancel flag was raised. Allocation failure is DP_ENOMEM, never a
 * crash. The engine never prints to stdout or stderr, never calls exit() and
 * never touches the terminal; only the front ends (cli/, tui/) decide what
 * to print and which exit code to use (dp_status_exit_code()).
 *
 * Ownership. Whoever creates an object frees it with the matching
 * *_free(): dp_graph_free(), dp_machine_free(), dp_plan_free(),
 * dp_sim_free(), dp_sim_result_free(). Functions borrow their arguments and
 * never keep a pointer to them after returning, unless their header says
 * otherwise. Strings returned as const char * (names, format names) live as
 * long as the object they came from, or for the program's life when they
 * describe a constant (dp_algo_at(), dp_load_format_name()).
 *
 * Threads. The library keeps three pieces of global state, each safe to use
 * from any thread: the temporary files of the atomic files being written
 * (engine/core/afile.c, atomic pointers, so that a signal handler can remove
 * them), the messages Graphviz reports while a DOT file loads
 * (engine/io/load_dot.c: Graphviz's own state is global, so DOT loads take
 * one lock and run one at a time), and the registry's name lists, built once
 * (engine/plan/registry.c, pthread_once). Nothing else is global. A
 * finalized dp_graph and a dp_machine are read-only and may be shared by any
 * number of threads. A dp_sim and the buffers of a dp_sim_result are not
 * thread-safe: use one per thread. Algorithms may run in several threads at once. Long operations
 * take a dp_progress whose cancel flag they poll and whose callback they
 * call from the calling thread.
 *
 * Determinism. The same input gives the same plan and the same output
 * files, byte for byte: budgets are counted, never timed.
 *
 * Units. Sizes are bytes (int64_t), times microseconds (double), link
 * bandwidths bytes per microsecond; op times are on a reference device of
 * speed 1.0.
 */
#ifndef DNNPART_DNNPART_H
#define DNNPART_DNNPART_H

#include "afile.h"
#include "algo.h"
#include "err.h"
#include "explain.h"
#include "export.h"
#include "fit.h"
#include "gen.h"
#include "graph.h"
#include "load.h"
#include "machine.h"
#include "placement.h"
#include "strategy.h"
#include "plan.h"
#include "sim.h"
#include "levers.h"
#include "throughput.h"
#include "units.h"

#endif
