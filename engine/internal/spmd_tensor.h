/* spmd_tensor.h - the block layout of an edge's tensor on a device mesh
 * (engine/strategy/spmd_tensor.c; internal to the engine).
 *
 * One rule, read by the spmd lowering (lower_spmd_edges.c, which moves the
 * bytes) and by pase's cost model (pase_model.c, which prices them), so
 * that the two cannot drift apart. lower_spmd_edges.c's head comment says
 * what the axes of a tensor are for each kind of edge. Only the lowering
 * carries partial sums through linear ops (it adds a producer's carried
 * axes to the tensor's partial mask); pase prices each edge by itself.
 */
#ifndef DNNPART_SPMD_TENSOR_H
#define DNNPART_SPMD_TENSOR_H

#include <stdint.h>

#include "dnnpart/err.h"

#include "dnnpart/graph.h"
#include "dnnpart/strategy.h"

/* A mesh: axis sizes and row-major strides (device d's coordinate on axis
 * a is (d / stride[a]) % size[a]). */
typedef struct dpi_mesh {
	int naxes;
	int ndev; /* the product of the sizes */
	int size[DP_MAX_MESH_AXES];
	int stride[DP_MAX_MESH_AXES];
} dpi_mesh;

/* The mesh of naxes sizes (strides computed). */
void dpi_mesh_init(dpi_mesh *m, int naxes, const int *size);
/* Number of parts of a mask of axes (the product of their sizes). */
int dpi_mesh_parts(const dpi_mesh *m, uint8_t mask);
/* Part index of device d under mask (row-major over its axes). */
int dpi_mesh_part(const dpi_mesh *m, uint8_t mask, int d);

/* The tensor of a data edge: r axes of size[j], split by the producer on
 * the axes pmask[j] and by the consumer on cmask[j]; partial: the
 * producer's mesh axes that hold partial sums (0 when they make one
 * part). Compared and hashed as bytes: always made by dpi_spmd_tensor_make
 * (zeroed first). */
typedef struct dpi_spmd_tensor {
	int r;
	int64_t size[DP_MAX_OP_DIMS];
	uint8_t pmask[DP_MAX_OP_DIMS], cmask[DP_MAX_OP_DIMS];
	uint8_t partial;
	int32_t cwhole; /* the consumer's device when whole-placed, else -1 */
	int64_t total;	/* bytes of the whole tensor */
	int64_t eb;	/* bytes per element when exact, else 0 */
} dpi_spmd_tensor;

/* The tensor of data edge e = u -> v when u's dims are split by umask
 * (DP_MAX_OP_DIMS masks, one per dim; an op without dims: entry 0 is its
 * batch) and v's by vmask, on mesh m; bidx: per op, its batch dim's index
 * in its dims (-1 none, -2 an op without dims). cwhole is left -1. */
void dpi_spmd_tensor_make(const dp_graph *g, uint32_t e, const int8_t *bidx,
			  const uint8_t *umask, const uint8_t *vmask,
			  const dpi_mesh *m, dpi_spmd_tensor *t);

/* Bytes of vol elements of t (a tensor without element sizes: its bytes x
 * vol's share of the whole, rounded down). */
int64_t dpi_spmd_tensor_bytes(const dpi_spmd_tensor *t, int64_t vol);

/* The box [lo, hi) per axis that the consumer instance on device d
 * needs. */
void dpi_spmd_tensor_box(const dpi_spmd_tensor *t, const dpi_mesh *m, int d,
			 int64_t *lo, int64_t *hi);

/* One message of a resharding: bytes from the producer instance on device
 * src (a whole-placed producer: its one instance). A nonzero status stops
 * the walk. */
typedef dp_status (*dpi_spmd_source_fn)(void *arg, int src, int64_t bytes);

/* The messages that fill box [lo, hi): from every producer block that meets
 * it, chunk k of r of the intersection (dpi_spmd_share), once per partial
 * sum; among replicas of a block, the one with ref's coordinates on the
 * producer's other mesh axes. Calls fn for each (src may be ref itself);
 * returns the first nonzero status of fn, else DP_OK. */
dp_status dpi_spmd_tensor_sources(const dpi_spmd_tensor *t, const dpi_mesh *m,
				  int ref, const int64_t *lo, const int64_t *hi,
				  int k, int r, dpi_spmd_source_fn fn,
				  void *arg);

#endif
