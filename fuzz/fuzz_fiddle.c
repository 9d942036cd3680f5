/* fuzz_fiddle.c - libFuzzer target: the msr-fiddle JSON loader (dp_load_fiddle) on
 * arbitrary bytes, then what a loaded graph goes through (fuzz_util.h).
 */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_text_target(dp_load_fiddle, data, size);
}
