/* pins.h - pinning ops to devices by hand from the Ops and Op detail views
 * (p, P, y, Y): a pin is a setting like a cap. It changes st->pins, which
 * the views show at once; the rerun sees it once the front end has
 * written it into the graph (AR_REPIN: it stops the jobs that read the
 * graph first, state_apply_pins). A colocation group moves as one: pinning
 * or freeing a member pins or frees the whole group, since the engine
 * requires a group's pins to agree.
 */
#ifndef DNNPART_VIEWS_PINS_H
#define DNNPART_VIEWS_PINS_H

#include <stdbool.h>
#include <stdint.h>

#include "action_result.h"
#include "state.h"

/* The user's op under the cursor of Ops or Op detail (a strategy's shard
 * names the op it came from), or UINT32_MAX in other views or on an empty
 * list. Call after state_prepare. */
uint32_t pins_selected_op(const vstate *st);

/* Pins op u and its colocation group to device d (-1 frees them). Returns
 * how many ops changed; keeps st->npins and st->pins_dirty. */
uint32_t pins_set_op(vstate *st, uint32_t u, int32_t d);
/* Pins (or frees, d = -1) every op whose layer is op u's, with their
 * groups; op u must have a layer. Returns how many ops changed. */
uint32_t pins_set_layer(vstate *st, uint32_t u, int32_t d);
/* Frees every pin; returns how many there were. */
uint32_t pins_clear_all(vstate *st);

/* p and P: the label of the prompt for the device of the selected op or
 * of its layer (the caller opens it, with st->pin_op the returned op), or
 * UINT32_MAX with an error in the status line when there is none. */
uint32_t pins_prompt_label(vstate *st, bool layer, char *label, int size);
/* The prompt's answer: a device number, "" for the selected device, "-"
 * to free; applies it and reruns. */
unsigned pins_submit(vstate *st, bool layer, const char *text);
/* y: frees the selected op (and its group). Y: frees every op. */
unsigned pins_unpin(vstate *st, bool all);

#endif
