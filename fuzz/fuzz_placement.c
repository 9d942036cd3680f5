/* fuzz_placement.c - libFuzzer target: placement files (native JSON and
 * ParDNN .place, told apart by content) read against a fixed small graph,
 * then simulated as `dnnpart eval` does.
 */
#include "fuzz_util.h"
#include "dnnpart/placement.h"

/* Six ops with names the seeds use (a, b, c, d, "x y", "\u00e9") and one
 * colocation group, so that valid placements get far. */
static const char graph_text[] =
	"{\"format\":\"dnnpart-graph\",\"version\":1,\"name\":\"fz\","
	"\"ops\":[{\"name\":\"a\",\"time_us\":3,\"output_bytes\":100},"
	"{\"name\":\"b\",\"time_us\":2,\"output_bytes\":50,"
	"\"param_bytes\":10,\"colocate\":\"g\"},"
	"{\"name\":\"c\",\"time_us\":4,\"output_bytes\":70,\"colocate\":\"g\"},"
	"{\"name\":\"d\",\"time_us\":1,\"temp_bytes\":5},"
	"{\"name\":\"x "
	"y\",\"time_us\":1},{\"name\":\"\\u00e9\",\"time_us\":2}],"
	"\"edges\":[{\"from\":\"a\",\"to\":\"b\"},{\"from\":\"a\",\"to\":\"c\"}"
	","
	"{\"from\":\"b\",\"to\":\"d\"},{\"from\":\"c\",\"to\":\"d\"},"
	"{\"from\":\"d\",\"to\":\"x y\",\"control\":true},"
	"{\"from\":\"x y\",\"to\":\"\\u00e9\"}]}";

static int read_and_eval(const dp_graph *g, const char *path)
{
	int32_t pl[16];
	dp_placement_info info;
	dp_err err;
	dp_err_clear(&err);
	dp_status s = dp_placement_read(path, g, pl, &info, &err);
	fuzz_check_error(s, &err);
	if (s != DP_OK)
		return 0;
	int k = info.devices < 1 ? 1 : info.devices;
	if (k > DP_MAX_DEVICES)
		fuzz_fail("dp_placement_read accepted more devices than "
			  "DP_MAX_DEVICES",
			  NULL);
	for (uint32_t u = 0; u < g->nops; u++)
		if (pl[u] < 0 || pl[u] >= DP_MAX_DEVICES)
			fuzz_fail("dp_placement_read left an op without a device",
				  NULL);
	dp_machine m;
	if (dp_machine_init(&m, k, &err))
		fuzz_fail("dp_machine_init failed", &err);
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	s = dp_plan_evaluate(g, &m, pl, DP_CONT_PORT, &plan, &err);
	fuzz_check_error(s, &err);
	if (s == DP_OK)
		dp_plan_free(&plan);
	dp_machine_free(&m);
	return 0;
}

FUZZ_FILE_TARGET("placement", graph_text, read_and_eval)
