/* gen_impl.h - what the generator's files share. Not a public header.
 *
 *   gen_ops.c    the PRNG, the cost model, forward ops and blocks
 *   gen.c        the network (stem, towers, head), backward pass, updates
 *   gen_scale.c  the scale rule (dp_gen_compute_scale)
 *   gen_dims.c   iteration spaces and roles of the ops (docs/formats.md)
 *   gen_json.c   the native JSON writer
 */
#ifndef DNNPART_GEN_IMPL_H
#define DNNPART_GEN_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/err.h"
#include "dnnpart/gen.h"
#include "dnnpart/graph.h"

#define GEN_NONE UINT32_MAX
#define GEN_CLASSES 1000u
#define GEN_MAXBR 4 /* branches of an inception block */
/* Reference GPU: NVIDIA V100 (fp32 peak 15.7 TFLOP/s, HBM2 900 GB/s),
 * assumed to reach 50% of peak FLOP/s and 70% of peak bandwidth; no kernel
 * takes less than 3 us (launch and tail). */
#define GEN_FLOP_PER_NS 7850u
#define GEN_BYTES_PER_NS 630u
#define GEN_MIN_KERNEL_NS 3000u
#define GEN_VAR_READ_NS 1000u
/* The smallest block: a 2-branch inception block of one conv each. */
#define GEN_MIN_BLOCK_OPS 14u

enum gen_kind {
	K_DATA,
	K_CONV,
	K_BN,
	K_RELU,
	K_ADD,
	K_CONCAT,
	K_MAXPOOL,
	K_MEAN,
	K_MATMUL,
	K_LOSS,
	K_DROPOUT,
	K_METRIC,
	GEN_NKINDS
};

typedef struct gen_kind_info {
	const char *type, *grad_type; /* grad_type NULL: no gradient op */
	bool save_in, save_out; /* what the backward op reads from forward */
	unsigned grad_x2;	/* gradient time = forward time * grad_x2 / 2 */
} gen_kind_info;

extern const gen_kind_info dpi_gen_kinds[GEN_NKINDS];

typedef struct gen_shape {
	uint32_t c, h; /* channels, height = width */
} gen_shape;

/* What a forward op's iteration space is made from besides its inputs:
 * its output's shape (c = 0 for the labels' [b]) and kernel side. */
typedef struct gen_geom {
	gen_shape out;
	uint32_t k;
} gen_geom;

static inline bool gen_same_shape(gen_shape a, gen_shape b)
{
	return a.c == b.c && a.h == b.h;
}

/* One forward op, remembered to build its gradient. */
typedef struct gen_fwd_rec {
	uint32_t op, weight; /* weight: its variable op, or GEN_NONE */
	uint32_t grad;	     /* gradient op, or GEN_NONE */
	uint32_t in0;	     /* its inputs: ins[in0 .. in0 + nin) */
	uint32_t e0;	     /* its input edges: e0 .. e0 + nin, then the
				variable's */
	uint8_t nin, kind;
	int64_t wbytes; /* weight tensor bytes (0: none) */
	uint64_t ns;	/* forward time */
	int64_t temp;	/* forward workspace */
} gen_fwd_rec;

/* What a dry run adds up (saturating), in bytes. */
typedef struct gen_sizes {
	int64_t weight; /* every weight tensor once */
	int64_t act;	/* every forward output */
	int64_t saved;	/* forward outputs the backward pass reads, each once */
	int64_t held;	/* outputs of the gradient ops of weighted ops (weight
			 * gradient + input gradients), which their updates
			 * hold */
} gen_sizes;

/* A dry run's per-op memory (made-up ids, fewer than the op count). */
#define GEN_HAS_GRAD 1u
#define GEN_SAVED 2u
typedef struct gen_scratch {
	int64_t *size;	/* output bytes */
	uint8_t *flags; /* GEN_HAS_GRAD, GEN_SAVED */
} gen_scratch;

typedef struct gen {
	dp_graph *g; /* NULL: a dry run */
	dp_err *err;
	uint64_t rs[4]; /* xoshiro256** state */
	gen_fwd_rec *f;
	uint32_t nf, fcap;
	uint32_t *ins; /* inputs of the forward records */
	uint32_t nins, inscap;
	uint32_t *rec_of; /* op id -> index in f, or GEN_NONE */
	uint32_t target;
	uint32_t towers, width, batch, image;
	gen_sizes dry; /* a dry run's sums */
	gen_scratch *scratch;
	uint32_t dry_id; /* a dry run's next made-up op id */
	char scope[64];
	char name[160], buf[192], layer[96];
} gen;

typedef struct gen_incep {
	uint32_t nb;
	uint32_t depth[GEN_MAXBR];
	bool pool[GEN_MAXBR]; /* branch starts with a 3x3 max pool */
} gen_incep;

/* Ops outside the towers' blocks for T towers: data (2), stem (conv 4,
 * BN 4, ReLU 2, pool 2), a mean per tower (2 each), the concat of the
 * towers (2, when T > 1), fully connected (4) and loss (2). Even. */
static inline uint32_t gen_fixed_ops(uint32_t towers)
{
	return 20u + 2u * towers + (towers > 1 ? 2u : 0u);
}

static inline int64_t gen_act_bytes(const gen *s, gen_shape sh)
{
	return (int64_t)s->batch * sh.c * sh.h * sh.h * 4;
}

/* gen_ops.c */
void dpi_gen_seed(gen *s, uint64_t seed);
uint32_t dpi_gen_rng_below(gen *s, uint32_t n);
uint64_t dpi_gen_kernel_ns(gen *s, uint64_t flops, uint64_t bytes);
dp_status dpi_gen_add_op(gen *s, const char *name, const char *type,
			 const char *layer, uint64_t ns, int64_t out,
			 int64_t param, int64_t temp, uint32_t *id);
/* Adds forward op SCOPE/suffix of the given kind reading in[0..nin), its
 * variable when wbytes > 0, and remembers it for the backward pass; a dry
 * run adds up its sizes instead. */
dp_status dpi_gen_fwd(gen *s, const char *suffix, int kind, const uint32_t *in,
		      int nin, int64_t out, uint64_t ns, int64_t temp,
		      int64_t wbytes, gen_geom geo, uint32_t *id);
dp_status dpi_gen_conv(gen *s, const char *suffix, uint32_t x, gen_shape in,
		       gen_shape out, uint32_t k, uint32_t *id);
dp_status dpi_gen_eltwise(gen *s, const char *suffix, int kind, uint32_t x,
			  gen_shape sh, uint32_t *id);
dp_status dpi_gen_join(gen *s, const char *suffix, int kind, const uint32_t *in,
		       int nin, gen_shape out, uint32_t *id);
dp_status dpi_gen_maxpool(gen *s, const char *suffix, uint32_t x, gen_shape in,
			  gen_shape out, uint32_t *id);
dp_status dpi_gen_residual(gen *s, uint32_t x, uint32_t skip_src, gen_shape in,
			   gen_shape out, uint32_t *y);
uint32_t dpi_gen_residual_cost(gen_shape in, gen_shape out);
void dpi_gen_incep_draw(gen *s, gen_incep *ic);
uint32_t dpi_gen_incep_cost(const gen_incep *ic);
dp_status dpi_gen_inception(gen *s, const gen_incep *ic, uint32_t x,
			    gen_shape sh, uint32_t *y);

/* gen_dims.c (see there for the dims of each kind) */
/* Forward op id of the kind, reading in[0..nin) through edges e0.., and its
 * variable w (GEN_NONE: none; its edge follows the inputs'). */
dp_status dpi_gen_fwd_dims(gen *s, uint32_t id, int kind, const uint32_t *in,
			   int nin, uint32_t w, uint32_t e0,
			   const gen_geom *geo);
/* Gradient op gid of forward record r, of whose inputs ngrad_in have a
 * gradient (the last of them is input grad_in). */
dp_status dpi_gen_grad_dims(gen *s, const gen_fwd_rec *r, uint32_t gid,
			    int ngrad_in, int grad_in);
/* Edge e gets the dims of edge model (none when it has none). */
dp_status dpi_gen_edge_like(gen *s, uint32_t e, uint32_t model);
/* Edge e gets op's out names (its consumer has op's dims). */
dp_status dpi_gen_edge_out(gen *s, uint32_t e, uint32_t op);
/* Update uid of variable w, fed by gradient op gid through grad_edge. */
dp_status dpi_gen_update_dims(gen *s, uint32_t uid, uint32_t w,
			      uint32_t grad_edge, uint32_t gid);

/* gen.c: runs the network builder without a graph for o's op count and
 * seed at the complete scale sc (towers, width, batch, image all set) and
 * returns its sums; scratch holds o->ops entries. */
void dpi_gen_dry_run(const dp_gen_opts *o, const dp_gen_scale *sc,
		     gen_scratch *scratch, gen_sizes *sizes);

#endif
