/* fuzz_detect.c - libFuzzer target: dp_graph_load() on a file of arbitrary
 * bytes with the format left to detection, the path `dnnpart info FILE`
 * takes (read the file, detect by content, load, finalize).
 */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_write("graph", data, size);
	dp_graph *g = NULL;
	dp_err err;
	dp_err_clear(&err);
	dp_status s = dp_graph_load(path, DP_FMT_AUTO, &g, &err);
	fuzz_check_error(s, &err);
	if (s == DP_OK) {
		if (!g || !g->finalized)
			fuzz_fail("dp_graph_load succeeded without a finalized "
				  "graph",
				  NULL);
		dp_graph_free(g);
	} else if (g) {
		fuzz_fail("a failed dp_graph_load returned a graph", &err);
	}
	return 0;
}
