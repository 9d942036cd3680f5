/* pipe_case.h - the pipeline plans of gpipe and 1f1b that the tests of
 * the lowering and its closed forms need (tests/lib).
 */
#ifndef DNNPART_TEST_PIPE_CASE_H
#define DNNPART_TEST_PIPE_CASE_H

#include "dnnpart/algo.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/strategy.h"

/* algo's strategy for o into s; for gpipe and 1f1b with o->microbatches
 * M > 0 the plan of S = K stages cut where forward time balances, with M
 * micro-batches (what they made for a given M before they searched S and
 * V with it fixed): the tests of the lowering and its closed forms that
 * need every device a stage. */
dp_status test_pipe_strategize(const char *algo, const dp_graph *g,
			       const dp_machine *m, const dp_algo_opts *o,
			       dp_strategy *s, dp_err *err);
#endif
