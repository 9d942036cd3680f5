/* fuzz_dot.c - libFuzzer target: the Graphviz DOT loader (dp_load_dot) on
 * arbitrary bytes, then what a loaded graph goes through (fuzz_util.h).
 */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	dp_graph *g = NULL;
	dp_err err;
	dp_err_clear(&err);
	dp_status s = dp_load_dot("fuzz.in", text, size, &g, &err);
	free(text);
	fuzz_after_load(s, g, &err);
	return 0;
}
