/* strategy_file.h - strategy files inside the engine (engine/io/
 * strategy_file.c reads, strategy_write.c writes; docs/formats.md).
 */
#ifndef DNNPART_STRATEGY_FILE_H
#define DNNPART_STRATEGY_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "dnnpart/strategy.h"
#include "internal/json_scan.h"

/* Parses a strategy file's text for g (names resolved, numeric parts
 * turned into mesh axes, defaults applied, positions in every message) but
 * does not run dp_strategy_check: dp_strategy_read() does both. On
 * failure *s is untouched. */
dp_status dpi_strategy_parse(const char *path, const char *text, size_t len,
			     const dp_graph *g, dp_strategy *s, dp_err *err);

/* The name an op without dims gives its one (batch) split in a file: the
 * graph's batch_dim, or "batch" when it has none. */
const char *dpi_strategy_batch_key(const dp_graph *g);

/* ---- shared by the readers (strategy_file.c: spmd parts and helpers;
 * strategy_read.c: the top level, placements and pipelines) ---- */

/* Where each top-level value starts (0: absent; offset 0 is the '{'). */
typedef struct dpi_sread_top {
	size_t kind, devices, mesh, ops, def, placement, stages, micro, virt,
		schedule, stage, def_stage, groups, spmd, bucket, zero_stage;
} dpi_sread_top;

typedef struct dpi_sread {
	jscan js;
	const dp_graph *g;
	char path[512]; /* the path of the value being read, for messages */
	char made_for[128]; /* the file's "graph": the graph it was made for */
} dpi_sread;

dp_status dpi_sread_nomem(dpi_sread *R);
/* The integer at off, lo..hi; what names it in the error. */
dp_status dpi_sread_int(dpi_sread *R, size_t off, const char *what, long lo,
			long hi, long *v);
/* The op named by the member key just read (R->js.sbuf, at key_off) of the
 * map what: an error when the graph has no op of that name, or when
 * listed (may be NULL) marks it already. */
dp_status dpi_sread_op(dpi_sread *R, size_t key_off, const char *what,
		       const uint8_t *listed, uint32_t *u);
/* The error for a key of the map what that names an op listed before. */
dp_status dpi_sread_op_twice(dpi_sread *R, size_t key_off, const char *what);
/* The string at off, into R->js.sbuf. */
dp_status dpi_sread_str(dpi_sread *R, size_t off, const char *what);
/* An spmd split: the mesh, ops and default values at their offsets (0:
 * absent; the mesh is required), pre "" or "spmd." for messages. sp's
 * arrays are allocated (dp_strategy_alloc). */
dp_status dpi_sread_spmd(dpi_sread *R, size_t mesh, size_t ops, size_t def,
			 const char *pre, dp_spmd *sp);

#endif
