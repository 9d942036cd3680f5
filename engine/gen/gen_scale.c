/* gen_scale.c - the generator's scale rule (gen.h states it for users).
 *
 * Depth grows with the op count, so a model of fixed width would need
 * memory proportional to N (at 224x224, batch 16, a 1,000,000-op graph
 * held 3.4 TiB of weights and had a parallelism of 1.1). Real models that
 * deep are thin; the rule keeps one step's memory near DP_GEN_MEMORY_TARGET
 * whatever N is:
 *
 *   towers  from the op count (more ops, more parallel columns);
 *   width   the widest of a ladder whose weights, counted four times
 *           (weights, Adam's two moments, weight gradients), fit a quarter
 *           of the target;
 *   image   the largest of a ladder where the rest holds >= 8 samples;
 *   batch   as many samples as the rest holds there, at most 64.
 *
 * Candidates are measured exactly by a dry run of the network builder
 * (dpi_gen_dry_run: the same PRNG draws, no graph; about 20 ms per 100,000
 * ops). Weights do not depend on batch or image; the per-sample part is
 * exactly proportional to the batch and, for image sides that are
 * multiples of 32, to the image area (every spatial size is then I/2^j
 * exactly), so only widths need their own dry runs.
 *
 * The estimate is the peak of the simulator's single-device schedule, the
 * larger of two moments:
 *   - at the loss: weights x 4 (with Adam's moments and the variables'
 *     outputs, which their gradient ops still read) + every forward output
 *     that a gradient op reads (saved);
 *   - at the end of the backward pass: weights x 3 + every gradient output
 *     of a weighted op (weight gradient and input gradients), because the
 *     updates, whose upward rank is the lowest, run after the whole
 *     backward pass and hold them until then (held).
 * It matches the simulated peak within a few percent (tests/test_gen.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal/gen_impl.h"

static const uint32_t width_ladder[] = {64, 48, 32, 24, 16, 12, 8, 6, 4};
static const uint32_t image_ladder[] = {224, 192, 160, 128, 96, 64, 32};
#define NWIDTHS (sizeof width_ladder / sizeof width_ladder[0])
#define NIMAGES (sizeof image_ladder / sizeof image_ladder[0])
#define REF_IMAGE 224u
#define MIN_AUTO_BATCH 8u
#define MAX_AUTO_BATCH 64u

/* 1 tower below 4,000 ops, one more each time the count quadruples. */
static uint32_t auto_towers(uint32_t ops)
{
	uint32_t t = 1;
	for (uint64_t q = 4000; q <= ops && t < 8; q *= 4)
		t++;
	return t;
}

static int64_t add_sat(int64_t a, int64_t b)
{
	return a > INT64_MAX / 2 - b ? INT64_MAX / 2 : a + b;
}

/* a * b, saturating at INT64_MAX / 2 (a, b >= 0) */
static int64_t mul_sat(int64_t a, int64_t b)
{
	if (a && b > INT64_MAX / 2 / a)
		return INT64_MAX / 2;
	return a * b;
}

/* Activations per sample at image side img, from those at REF_IMAGE. */
static int64_t act_at(int64_t act_ref, uint32_t img)
{
	return mul_sat(act_ref, (int64_t)img * img) /
	       ((int64_t)REF_IMAGE * REF_IMAGE);
}

static dp_status out_of_range(dp_err *err, const char *what, uint32_t v,
			      uint32_t lo, uint32_t hi, const char *extra)
{
	return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
			  "cannot generate with %s %u: expected %s from %u "
			  "to %u%s",
			  what, v, what, lo, hi, extra);
}

static dp_status check_opts(const dp_gen_opts *o, uint32_t towers, dp_err *err)
{
	if (o->ops < DP_GEN_MIN_OPS || o->ops > DP_GEN_MAX_OPS)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "cannot generate %u ops: expected an op "
				  "count from %u to %u",
				  o->ops, DP_GEN_MIN_OPS, DP_GEN_MAX_OPS);
	if (o->towers > DP_GEN_MAX_TOWERS)
		return out_of_range(err, "towers", o->towers, 1,
				    DP_GEN_MAX_TOWERS, "");
	if (o->width && (o->width < 4 || o->width > DP_GEN_MAX_WIDTH))
		return out_of_range(err, "width", o->width, 4, DP_GEN_MAX_WIDTH,
				    "");
	if (o->batch > DP_GEN_MAX_BATCH)
		return out_of_range(err, "batch", o->batch, 1, DP_GEN_MAX_BATCH,
				    "");
	if (o->image &&
	    (o->image < 32 || o->image > DP_GEN_MAX_IMAGE || o->image % 32))
		return out_of_range(err, "image", o->image, 32,
				    DP_GEN_MAX_IMAGE, ", a multiple of 32");
	if (o->ops < gen_fixed_ops(towers))
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "cannot generate %u ops with %u towers: "
				  "expected at least %u ops",
				  o->ops, towers, gen_fixed_ops(towers));
	return DP_OK;
}

/* Whether weights of w bytes at width from, scaled to width to (by the
 * square of the ratio), take at most a quarter of the target counted four
 * times (weights, Adam's two moments, the weight gradient). */
static bool weights_fit(int64_t w, uint32_t from, uint32_t to)
{
	int64_t scaled = mul_sat(w, (int64_t)to * to) / ((int64_t)from * from);
	return mul_sat(scaled, 4) <= DP_GEN_MEMORY_TARGET / 4;
}

/* Bytes per sample of the estimate's batch-dependent part, at REF_IMAGE:
 * the larger of what is live at the loss (saved activations) and at the
 * end of the backward pass (input gradients held with weight gradients). */
static int64_t per_sample(const gen_sizes *z)
{
	int64_t held = z->held - z->weight;
	return z->saved > held ? z->saved : held;
}

/* Image and batch for what the weights leave of the target (room), given
 * the per-sample bytes at REF_IMAGE. */
static void fit_activations(const dp_gen_opts *o, int64_t a_ref, int64_t room,
			    dp_gen_scale *sc)
{
	uint32_t img = o->image, b = o->batch;
	if (!img) {
		img = image_ladder[NIMAGES - 1];
		for (size_t i = 0; i < NIMAGES; i++) {
			int64_t a = act_at(a_ref, image_ladder[i]);
			int64_t want = b ? b : MIN_AUTO_BATCH;
			if (mul_sat(a, want) <= room) {
				img = image_ladder[i];
				break;
			}
		}
	}
	if (!b) {
		int64_t a = act_at(a_ref, img);
		int64_t n = a > 0 ? room / a : MAX_AUTO_BATCH;
		b = n < 1		 ? 1
		    : n > MAX_AUTO_BATCH ? MAX_AUTO_BATCH
					 : (uint32_t)n;
	}
	sc->image = img;
	sc->batch = b;
}

dp_status dp_gen_compute_scale(const dp_gen_opts *o, dp_gen_scale *sc,
			       dp_err *err)
{
	uint32_t towers = o->towers ? o->towers : auto_towers(o->ops);
	dp_status st = check_opts(o, towers, err);
	if (st)
		return st;
	dp_gen_scale m = {towers, o->width, 1, REF_IMAGE, 0, 0, 0};
	gen_scratch d = {malloc((size_t)o->ops * sizeof *d.size),
			 malloc(o->ops)};
	if (!d.size || !d.flags) {
		free(d.size);
		free(d.flags);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory sizing a %u-op model", o->ops);
	}
	gen_sizes z;
	if (o->width) {
		dpi_gen_dry_run(o, &m, &d, &z);
	} else {
		/* weights grow about as width^2: measure the widest, start
		 * the ladder where that predicts a fit, then step down until
		 * a measured width fits */
		size_t i = 0;
		m.width = width_ladder[0];
		dpi_gen_dry_run(o, &m, &d, &z);
		int64_t w0 = z.weight;
		while (i + 1 < NWIDTHS &&
		       !weights_fit(w0, width_ladder[0], width_ladder[i]))
			i++;
		for (; i < NWIDTHS; i++) {
			m.width = width_ladder[i];
			if (i > 0)
				dpi_gen_dry_run(o, &m, &d, &z);
			if (weights_fit(z.weight, 1, 1))
				break;
		}
	}
	int64_t room = DP_GEN_MEMORY_TARGET - mul_sat(z.weight, 4);
	fit_activations(o, per_sample(&z), room > 0 ? room : 0, &m);
	/* the chosen model, measured exactly */
	dpi_gen_dry_run(o, &m, &d, &z);
	free(d.size);
	free(d.flags);
	m.weight_bytes = z.weight;
	m.act_bytes = z.act;
	int64_t at_loss = add_sat(z.weight, z.saved);
	m.estimate_bytes = add_sat(mul_sat(z.weight, 3),
				   at_loss > z.held ? at_loss : z.held);
	*sc = m;
	return DP_OK;
}
