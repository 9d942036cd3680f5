/* tui_load.h - the explorer's first load (tui_load.c). */
#ifndef DNNPART_TUI_LOAD_H
#define DNNPART_TUI_LOAD_H

#include "cli.h"

/* cli_load_graph_machine() with a line on stderr, when it is a terminal,
 * while the graph loads: "dnnpart: loading PATH (SIZE) ... 45 % read,
 * 2.1 s", erased at the end. Returns 0 with *g and *m to free, or the exit
 * code after printing the error. *plain: the graph before the levers (at
 * the --batch size) when levers made *g from it, else NULL (to free). */
int tui_load_graph_machine(const cli_opts *o, dp_graph **g, dp_graph **plain,
			   dp_machine *m);

#endif
