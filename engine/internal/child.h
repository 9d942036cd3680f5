/* child.h - the start of a child process the engine forks to run a
 * library it cannot stop (internal): CBC's solver (ilp), Graphviz's
 * layout (export). */
#ifndef DNNPART_INTERNAL_CHILD_H
#define DNNPART_INTERNAL_CHILD_H

#include <signal.h>

/* Called first in the child. It inherits the signal mask of the thread
 * that forked it (a front end's worker thread may block everything):
 * unblock all, or a SIGTERM sent to it would stay pending forever. Ctrl-C
 * reaches the whole process group: the parent decides and kills the child
 * itself, after cleaning up, so SIGINT and SIGQUIT are ignored. A handler
 * inherited from the front end (e.g. one that removes pending temporary
 * files) must not run here: SIGTERM, SIGHUP and SIGPIPE get their
 * defaults. */
static inline void dpi_child_signals(void)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
}

#endif
