/* settings.h - changes of the session's settings: devices, caps, link
 * bandwidth, algorithm, contention. Each checks its input, changes the
 * state's machine or algorithm, says so on the status line and returns the
 * AR_* bits that start the rerun (and, where the view on screen shows a
 * comparison, a new one: its class's rerun hook). On bad input the
 * settings stay as they were and the status line says why.
 */
#ifndef DNNPART_VIEWS_SETTINGS_H
#define DNNPART_VIEWS_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "action_result.h"
#include "state.h"

/* Records a change of the settings made by the caller: a plan job, and
 * what the view on screen reruns with it. Returns AR_* bits. */
unsigned settings_changed(vstate *st);

/* Adds (delta 1) or removes (-1) a device. */
unsigned settings_devices(vstate *st, int delta);
/* Lowers (m) or raises (M) the selected device's cap a step. */
unsigned settings_cap_step(vstate *st, bool raise);
/* Sets device d's cap to bytes (DP_CAP_UNLIMITED for none). */
unsigned settings_cap(vstate *st, int d, int64_t bytes);
/* Sets every cap from text: "16GiB" or one per device "16GiB,8GiB,...". */
unsigned settings_caps(vstate *st, const char *text);
/* Halves or doubles the link bandwidth. */
/* Sets the memory reserve of every device from "1GiB", "5%" or "none"
 * (dp_machine_set_reserve); an error goes to the status line. */
unsigned settings_reserve(vstate *st, const char *text);
unsigned settings_bandwidth(vstate *st, bool raise);
/* The next (dir 1) or previous (-1) algorithm of the registry. */
unsigned settings_algo(vstate *st, int dir);
/* Toggles the contention model (port / none). */
unsigned settings_contention(vstate *st);
/* Halves or doubles the micro-batches strategies use (from the current
 * plan's, else 4), within 1..DP_MAX_MICROBATCHES. */
unsigned settings_microbatches(vstate *st, bool raise);
/* S: the next schedule (gpipe, 1f1b) of the pipeline on screen, rerun;
 * says why not when the plan is no pipeline. */
unsigned settings_schedule(vstate *st);
/* Halves or doubles the batch size: sets st->batch and asks the front end
 * to rebuild the graph (AR_REBATCH); an error in the status line when the
 * graph has no batch dim or a file job runs on the graph. */
unsigned settings_batch(vstate *st, bool raise);
/* F (precision) or K (recompute): the next value into st->lv_next, for
 * the front end to apply (AR_RELEVER). */
unsigned settings_lever(vstate *st, bool recompute);

/* The cap n steps of m (n < 0) or M (n > 0) away from base: four steps
 * an octave, base x 2^q x (1, 1.25, 1.5 or 1.75), shown exactly (16 GiB:
 * 14, 12, 10, 8 GiB down, 20, 24, 28, 32 up), so that steps undo each
 * other; at least 1 byte. Exposed for tests. */
int64_t settings_cap_at(int64_t base, int n);

#endif
