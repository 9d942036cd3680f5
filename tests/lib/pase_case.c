/* pase_case.c - what the pase tests share (tests/test_pase.c,
 * tests/test_pase_model.c): a small MLP graph, a machine, and pase's model
 * of the two. */
#include "lib/pase_case.h"

#include "lib/testlib.h"

/* x -> mm1 {b,k,n} (weights w1 {k,n}) -> mm2 {b,n,o} -> y. */
const char *const test_pase_mlp =
	"{\"name\":\"mlp\",\"batch_dim\":\"b\",\"ops\":[\n"
	"{\"name\":\"x\",\"role\":\"input\",\"time_us\":1,\"dims\":{\"b\":8,"
	"\"k\":16},\"out\":[\"b\",\"k\"],\"output_bytes\":512},\n"
	"{\"name\":\"w1\",\"role\":\"param\",\"time_us\":0,\"dims\":{\"k\":16,"
	"\"n\":32},\"out\":[\"k\",\"n\"],\"param\":[\"k\",\"n\"],"
	"\"param_bytes\":4096,\"output_bytes\":0},\n"
	"{\"name\":\"mm1\",\"role\":\"forward\",\"time_us\":40,\"dims\":{"
	"\"b\":8,\"k\":16,\"n\":32},\"out\":[\"b\",\"n\"],\"output_bytes\":"
	"1024,\"temp_bytes\":100},\n"
	"{\"name\":\"mm2\",\"role\":\"forward\",\"time_us\":40,\"dims\":{"
	"\"b\":8,\"n\":32,\"o\":16},\"out\":[\"b\",\"o\"],\"output_bytes\":"
	"512},\n"
	"{\"name\":\"y\",\"role\":\"loss\",\"time_us\":2,\"dims\":{\"b\":8,"
	"\"o\":16},\"out\":[],\"output_bytes\":4}\n"
	"],\"edges\":[\n"
	"{\"from\":\"x\",\"to\":\"mm1\",\"dims\":[\"b\",\"k\"]},\n"
	"{\"from\":\"w1\",\"to\":\"mm1\",\"dims\":[\"k\",\"n\"],\"bytes\":2048}"
	",\n"
	"{\"from\":\"mm1\",\"to\":\"mm2\",\"dims\":[\"b\",\"n\"]},\n"
	"{\"from\":\"mm2\",\"to\":\"y\",\"dims\":[\"b\",\"o\"]}\n"
	"]}\n";

bool test_pase_machine(dp_machine *m, int k, const char *caps)
{
	dp_err err;
	if (dp_machine_init(m, k, &err))
		return false;
	m->kernel_us = 0; /* pase's model prices shares without it */
	if (caps && dp_machine_set_caps(m, caps, &err)) {
		dp_machine_free(m);
		return false;
	}
	return true;
}

/* The graph of text, a machine of k devices with caps, and pase's model
 * of the two; false (and nothing to free) on failure. */
bool test_pase_model_of(const char *text, int k, const char *caps, dp_graph **g,
			dp_machine *m, dpi_pase_model *pm)
{
	dp_err err;
	*g = test_json_text(text);
	if (!*g)
		return false;
	if (!test_pase_machine(m, k, caps)) {
		dp_graph_free(*g);
		return false;
	}
	if (dpi_pase_model_build(pm, *g, m, NULL, &err)) {
		dp_machine_free(m);
		dp_graph_free(*g);
		return false;
	}
	return true;
}
