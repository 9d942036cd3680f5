/* tui.h - the interactive explorer's entry point.
 *
 * `dnnpart GRAPH [-k K] [--mem CAPS] [--algo A] [--link L] [--color=WHEN]
 * [--no-mouse]` opens the explorer on GRAPH (docs/tui.md). main() calls
 * tui_main() when its first argument is not a subcommand.
 */
#ifndef DNNPART_TUI_H
#define DNNPART_TUI_H

#include <stdio.h>

/* argv[0] is the program, argv[1] the graph (options may come anywhere).
 * Returns the exit code: 0 after q, 2 on bad usage or input (printed to
 * stderr before the screen is taken), 3 on an internal error. */
int tui_main(int argc, char **argv);

/* Usage text of the explorer, for `dnnpart --help`. */
void tui_help(FILE *out);

#endif
