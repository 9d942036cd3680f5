/* fuzz_pardnn.c - libFuzzer target: the ParDNN folder loader.
 *
 * A ParDNN input is a folder of files, so the fuzzer's bytes are split into
 * files at lines "--8<--": the parts in order become the edges file, the
 * durations, the tensor sizes, the var, ref and no-op lists, memory.txt,
 * the colocations and a .place file (a part that is absent leaves its file
 * out of the folder, which tests the missing-file errors too). The seed
 * corpus (fuzz/seeds.sh) joins real folders this way.
 */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const part_names[] = {
	"g_src_sink.dot",
	"nodes_average_durations_fixed.txt",
	"tensors_sz_32_low.txt",
	"var_nodes.txt",
	"ref_nodes.txt",
	"no_ops.txt",
	"memory.txt",
	"collocations.txt",
	"vanilla.place",
};
enum { NPARTS = sizeof part_names / sizeof part_names[0] };
#define SEP "\n--8<--\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_dir();
	char path[512];
	for (int i = 0; i < NPARTS; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, part_names[i]);
		unlink(path);
	}
	const uint8_t *p = data, *end = data + size;
	size_t seplen = strlen(SEP);
	for (int i = 0; i < NPARTS && p <= end; i++) {
		const uint8_t *q = p;
		while (q + seplen <= end && memcmp(q, SEP, seplen) != 0)
			q++;
		if (q + seplen > end)
			q = end;
		fuzz_write(part_names[i], p, (size_t)(q - p));
		if (q == end)
			break;
		p = q + seplen;
	}
	dp_graph *g = NULL;
	dp_err err;
	dp_err_clear(&err);
	dp_status s = dp_load_pardnn(dir, &g, &err);
	fuzz_after_load(s, g, &err);
	return 0;
}
