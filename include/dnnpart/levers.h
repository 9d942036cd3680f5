/* levers.h - what practitioners turn to fit a model: mixed precision,
 * activation recomputation, fused attention (docs/memory.md).
 *
 * The levers are applied to a finalized graph when a plan is made, as a
 * transform that returns a new finalized graph; the user's graph keeps its
 * fp32 sizes. The new graph holds the user's ops first, in their order and
 * under their names (so a placement of the user's graph places them too),
 * then the re-run ops recomputation and fusion add (`NAME@rc`, real ops
 * with data edges from what they re-read and control edges from the
 * gradient that gates them), so the simulator prices their time and memory
 * like any op. Every algorithm, strategy and report then works on it
 * unchanged.
 */
#ifndef DNNPART_LEVERS_H
#define DNNPART_LEVERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "graph.h"

typedef enum dp_precision {
	DP_PREC_FP32 = 0, /* everything in 4 bytes (the graphs' own sizes) */
	DP_PREC_BF16,	  /* mixed precision: 2-byte activations, gradients
			     and working weights, fp32 master weights and
			     Adam moments (16 B per parameter) */
	DP_PREC_FP16,	  /* the same bytes as bf16 (loss scaling costs no
			     memory), priced with the device's fp16 rate */
	DP_PREC_COUNT
} dp_precision;

typedef enum dp_recompute {
	DP_RECOMP_NONE = 0,
	DP_RECOMP_SELECTIVE, /* re-run each attention core before its
				backward (Korthikanti et al. 2022) */
	DP_RECOMP_FULL,	     /* keep each layer's input, re-run the layer's
				forward just before its backward */
	DP_RECOMP_AUTO,	     /* full, on the layers of dp_levers.rc_sel only:
				the plan layer chooses them to fit the caps
				(dp_recompute_auto, fit.h) */
	DP_RECOMP_COUNT
} dp_recompute;

typedef enum dp_offload {
	DP_OFFLOAD_NONE = 0,
	DP_OFFLOAD_OPTIMIZER, /* ZeRO-Offload: fp32 master weights, Adam's
				 moments, the fp32 gradient and the update
				 on the host */
	DP_OFFLOAD_PARAMS,    /* also the working weights (ZeRO-Infinity):
				 fetched before the forward and again before
				 the backward */
	DP_OFFLOAD_COUNT
} dp_offload;

/* The host side of --offload (docs/memory.md): a PCIe 4.0 x16 link
 * (bytes per µs per direction, µs), the CPU's Adam rate (parameters per
 * µs) and the host memory when none is given. */
#define DP_HOST_LINK_BW 25000.0
#define DP_HOST_LINK_LAT 10.0
#define DP_CPU_ADAM_RATE 1000.0
#define DP_HOST_MEM_DEFAULT ((int64_t)1 << 40)

/* Layers dp_levers.rc_sel can name (64 per word). */
#define DP_RC_SEL_WORDS 16
#define DP_RC_MAX_LAYERS (64 * DP_RC_SEL_WORDS)

/* dp_levers.fuse bits. */
#define DP_FUSE_ATTENTION 1u /* FlashAttention: no b.a.s^2 scores stored */
#define DP_FUSE_ELEMENTWISE 2u /* fused element-wise chains (GELU,
				  LayerNorm, softmax, bias + activation):
				  their intermediates stay on chip */

typedef struct dp_levers {
	dp_precision precision;
	dp_recompute recompute;
	unsigned fuse; /* DP_FUSE_* bits */
	/* throughput of a GEMM in 2 bytes / in fp32 on this device (tensor
	 * cores); 0: the reference V100's fp16 ratio, 125 / 15.7 TFLOP/s */
	double gemm_ratio;
	/* the device has no bf16 tensor cores (a V100, `--gpu`): the 2-byte
	 * precision is fp16 (the explorer's F and fit skip bf16) */
	bool no_bf16;
	/* DP_RECOMP_AUTO: bit i set = re-run layer i, the layers numbered
	 * from 0 in the order their first forward op appears in the graph
	 * (dp_levers_layers) */
	uint64_t rc_sel[DP_RC_SEL_WORDS];
	bool rc_chosen; /* rc_sel holds a choice (its name says it) */
	dp_offload offload;
	int64_t host_mem; /* host bytes --offload may use; 0: the default */
} dp_levers;

/* Layer i of rc_sel. */
static inline bool dp_levers_rc_has(const dp_levers *lv, uint32_t i)
{
	return i < DP_RC_MAX_LAYERS && (lv->rc_sel[i / 64] >> (i % 64)) & 1u;
}
static inline void dp_levers_rc_set(dp_levers *lv, uint32_t i)
{
	if (i < DP_RC_MAX_LAYERS)
		lv->rc_sel[i / 64] |= (uint64_t)1 << (i % 64);
}

/* The default 2-byte GEMM ratio (V100: 125 TFLOP/s fp16 tensor cores over
 * 15.7 TFLOP/s fp32, the sample graphs' reference device). */
#define DP_LEVERS_DEFAULT_GEMM_RATIO (125.0 / 15.7)

/* True when any lever differs from the default (fp32, none, no fusion). */
bool dp_levers_active(const dp_levers *lv);

/* Names as the command line writes them: "fp32", "bf16", "fp16"; "none",
 * "selective", "full", "auto". */
const char *dp_precision_name(dp_precision p);
const char *dp_recompute_name(dp_recompute r);
/* Parsers; errors (DP_EINPUT) say what was expected. */
dp_status dp_precision_parse(const char *s, dp_precision *out, dp_err *err);
dp_status dp_recompute_parse(const char *s, dp_recompute *out, dp_err *err);
const char *dp_offload_name(dp_offload o); /* "none", "optimizer", "params" */
/* The host memory --offload may use: lv->host_mem, else the default. */
static inline int64_t dp_levers_host_mem(const dp_levers *lv)
{
	return lv->host_mem > 0 ? lv->host_mem : DP_HOST_MEM_DEFAULT;
}
dp_status dp_offload_parse(const char *s, dp_offload *out, dp_err *err);

/* --recompute's value into lv->recompute: a name above, or
 * "auto:LAYERS", auto with its layers given (rc_sel, rc_chosen; LAYERS as
 * dp_levers_set_name writes them: "0-5.9", "-" for none), which is how a
 * plan made with auto is given again (to eval a file it wrote). */
dp_status dp_levers_parse_recompute(const char *s, dp_levers *lv,
				    dp_err *err);
/* --recompute's value for lv: its name, or "auto:LAYERS" when auto's
 * layers are chosen; into buf. */
char *dp_levers_recompute_str(const dp_levers *lv, char *buf, size_t size);
/* A comma list of fusions ("attention", "elementwise"; "none" for none)
 * into DP_FUSE_* bits. Errors name the unknown entry. */
dp_status dp_fuse_parse(const char *s, unsigned *out, dp_err *err);
/* The fusion bits as the command line writes them ("attention",
 * "elementwise", "attention,elementwise", "none"). */
const char *dp_fuse_name(unsigned fuse);

/* A lever set as `compare --levers` and `fit --levers` write it: levers
 * joined by '+' ("bf16+full+attention"; "none" for the default), each one
 * of fp32, bf16, fp16, selective, full, auto, auto:LAYERS, attention,
 * elementwise, offload-optimizer, offload-params, none. Errors name the
 * unknown lever. */
dp_status dp_levers_parse_set(const char *s, dp_levers *out, dp_err *err);
/* The set in that form, into buf: "none" or the non-default levers;
 * auto with its layers, "auto:0-3.7" ("auto:-" for none), which is what
 * strategy and placement files record. */
char *dp_levers_set_name(const dp_levers *lv, char *buf, size_t size);

/* The lever set a graph was made with by dp_levers_apply ("bf16+full"),
 * "" for a graph as loaded. Strategy and placement files record it
 * ("levers") and their readers refuse a file made with other levers. */
static inline const char *dp_graph_levers(const dp_graph *g)
{
	return dp_graph_str(g, g->levers);
}
/* DP_EINPUT when a file made with lever set `file` ("" or NULL: none
 * given, nothing to check) is read for g made with other ones: the
 * message says both and what to give. */
dp_status dp_levers_check_file(const dp_graph *g, const char *file,
			       dp_err *err);

/* Bytes per element an op of this type keeps under precision p: 2 for
 * the ops autocast runs in 2 bytes, 4 for the ones it keeps in fp32
 * (softmax, exp, log, pow, rsqrt, sums and means, the loss: by type, and
 * a backward op `TGrad` of such a type T). */
bool dp_levers_keeps_fp32(const char *type);

/* A GPU from its vendor's data sheet (docs/memory.md cites them). */
typedef struct dp_gpu_preset {
	const char *name;
	int64_t mem_bytes;
	double fp32_tflops; /* dense, no tensor cores */
	double bf16_tflops; /* dense tensor cores; 0: no bf16 */
	double fp16_tflops; /* dense tensor cores */
	double link_bw;	    /* NVLink bytes per µs, per direction */
	double link_lat;    /* µs */
	const char *desc;
} dp_gpu_preset;

/* The preset called name (v100, a100, h100), or NULL. */
const dp_gpu_preset *dp_gpu_find(const char *name);
/* "v100, a100, h100", for messages. */
const char *dp_gpu_names(void);

/* One layer of a graph as recomputation sees it: what re-running it
 * frees and costs, in the step lv makes (its precision and fusion). */
typedef struct dp_lv_layer {
	const char *name; /* its `layer` label (g's string) */
	/* the bytes of its forward outputs the backward reads, held from the
	 * forward to the backward without recomputation */
	int64_t save_bytes;
	double cost_us; /* the time of its re-run: its forward ops' */
	bool eligible;	/* full recomputation re-runs it (not the head, and
			   a backward gates it) */
} dp_lv_layer;

/* The layers of g in rc_sel's numbering, with lv's precision and fusion
 * (its recomputation is ignored): *out (n entries, the caller frees it).
 * DP_EINPUT naming `--recompute auto` when g has no forward op with a
 * `layer` label or more than DP_RC_MAX_LAYERS layers; DP_ENOMEM. */
dp_status dp_levers_layers(const dp_graph *g, const dp_levers *lv,
			   dp_lv_layer **out, uint32_t *n, dp_err *err);

/* Applies lv to g (finalized) and returns a new finalized graph in *out
 * (the caller frees it). Errors (DP_EINPUT, naming the lever): a precision
 * other than fp32 on a graph without roles, recomputation on a graph
 * without `layer` labels or roles, `selective` or fused attention on a
 * graph without an attention core (a forward BatchMatMul whose result
 * reaches another one); DP_ENOMEM. */
dp_status dp_levers_apply(const dp_graph *g, const dp_levers *lv,
			  dp_graph **out, dp_err *err);

#endif
