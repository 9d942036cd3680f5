/* fuzz_pipedream.c - libFuzzer target: the PipeDream graph.txt loader (dp_load_pipedream) on
 * arbitrary bytes, then what a loaded graph goes through (fuzz_util.h).
 */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_text_target(dp_load_pipedream, data, size);
}
