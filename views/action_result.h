/* action_result.h - what an action asks the front end to do next: the
 * AR_* bits that actions, prompts, settings changes and the views' hooks
 * return (after htop's Action.c: the main loop acts on the bits, so it
 * stays short). A header of its own so that every module that returns
 * them can include it without including the others.
 */
#ifndef DNNPART_VIEWS_ACTION_RESULT_H
#define DNNPART_VIEWS_ACTION_RESULT_H

enum {
	AR_REDRAW = 1 << 0,  /* the screen changed */
	AR_RERUN = 1 << 1,   /* settings changed: start a plan job */
	AR_COMPARE = 1 << 2, /* start a compare job */
	AR_CANCEL = 1 << 3,  /* cancel the running and queued jobs */
	AR_QUIT = 1 << 4,
	AR_IO = 1 << 5,		 /* st->io / st->io_path need the front end */
	AR_FULL_REDRAW = 1 << 6, /* repaint the terminal from scratch */
	AR_CANCEL_PLAN = 1 << 7, /* cancel the plan job only (adopted plan) */
	AR_CANCEL_FILE = 1 << 8, /* cancel the file job (st->file_job) */
	AR_REBATCH = 1 << 9,	 /* st->batch changed: the front end rebuilds
				st->g at that batch size (state_rebatch) */
	AR_FIT = 1 << 10,	 /* start a fit job for the selected device */
	AR_REPIN = 1 << 11, /* st->pins changed: the front end stops the jobs
			       on st->g, then state_apply_pins */
	AR_RELEVER = 1 << 13, /* st->lv_next: the front end rebuilds st->g
				 with those levers (session_relever) */
	AR_FIT_ADOPT = 1 << 12, /* Enter in the Fit view: the front end
				   adopts the row (session_fit_adopt) */
};

#endif
