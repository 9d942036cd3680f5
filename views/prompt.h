/* prompt.h - the status line's editor and what a submitted prompt does
 * (internal to views/; actions.c opens prompts and hands keys over; the
 * prompts change settings through settings.h, never through actions.c).
 *
 * A prompt asks for a cap (c, C), a search or filter text (/, \) or a file
 * name (s, e, o), or whether to overwrite a file (y/N). Enter submits: caps are parsed with units and applied,
 * with a status-line error and no change on bad input; search and filter
 * apply to the Ops view; file names go to the front end (AR_IO).
 */
#ifndef DNNPART_VIEWS_PROMPT_H
#define DNNPART_VIEWS_PROMPT_H

#include <stdbool.h>

#include "action_result.h"
#include "state.h"

/* Opens the editor with a label and an initial text, shown selected: the
 * first character typed replaces it (never "16GiB1MiB"); Backspace and
 * Ctrl-W edit it, Ctrl-U clears it. */
void prompt_open(vstate *st, prompt_kind k, const char *label,
		 const char *init);
/* The export prompt's label, which says the detail Tab picks. */
void prompt_export_label(vstate *st);
/* What detail d draws, for the prompt and the status line: "auto",
 * "groups", "every op". */
const char *prompt_detail_name(dp_export_coarsen d);
/* Asks "PATH exists - overwrite? (y/N)" for a save (PROMPT_SAVE) or an
 * export (PROMPT_EXPORT) to path: y submits it again with io_replace set
 * (AR_IO), any other key keeps the file and says so. */
void prompt_confirm(vstate *st, prompt_kind k, const char *path);
/* Handles one key while a prompt is open; returns AR_* bits. */
unsigned prompt_key(vstate *st, int key);
/* Moves the Ops cursor to the next (dir > 0) or previous match of the
 * search text, from the cursor (include_cursor) or the row after it. */
unsigned prompt_search(vstate *st, int dir, bool include_cursor);

#endif
