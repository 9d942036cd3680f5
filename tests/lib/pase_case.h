/* pase_case.h - what the pase tests share (tests/lib/pase_case.c). */
#ifndef TESTS_LIB_PASE_CASE_H
#define TESTS_LIB_PASE_CASE_H

#include <stdbool.h>

#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "internal/pase.h"

/* x -> mm1 {b,k,n} (weights w1 {k,n}) -> mm2 {b,n,o} -> y, as JSON. */
extern const char *const test_pase_mlp;

/* A machine of k devices with caps (NULL: none); false on failure. */
bool test_pase_machine(dp_machine *m, int k, const char *caps);

/* The graph of text, a machine of k devices with caps, and pase's model
 * of the two; false (and nothing to free) on failure. */
bool test_pase_model_of(const char *text, int k, const char *caps, dp_graph **g,
			dp_machine *m, dpi_pase_model *pm);

#endif
