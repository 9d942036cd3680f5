/* fuzz_strategy.c - libFuzzer target: strategy files read against a fixed
 * small graph with dims and roles, then lowered and simulated as eval does
 * with a strategy (every kind the build can lower).
 */
#include "dnnpart/sim.h"
#include "dnnpart/strategy.h"
#include "fuzz_util.h"

/* x -> fc (with w) -> loss; fc -> grad -> update: names and dims the
 * seeds use (b 8, k 4, n 8). */
static const char graph_text[] =
	"{\"name\":\"fz\",\"batch_dim\":\"b\",\"ops\":["
	"{\"name\":\"x\",\"role\":\"input\",\"time_us\":1,\"dims\":{\"b\":8,"
	"\"k\":4},\"out\":[\"b\",\"k\"],\"output_bytes\":128},"
	"{\"name\":\"w\",\"role\":\"param\",\"time_us\":1,\"dims\":{\"k\":4,"
	"\"n\":8},\"out\":[\"k\",\"n\"],\"param\":[\"k\",\"n\"],"
	"\"output_bytes\":128,\"param_bytes\":384},"
	"{\"name\":\"fc\",\"role\":\"forward\",\"time_us\":16,\"dims\":{"
	"\"b\":8,\"k\":4,\"n\":8},\"out\":[\"b\",\"n\"],\"output_bytes\":256},"
	"{\"name\":\"loss\",\"role\":\"loss\",\"time_us\":2,\"dims\":{\"b\":8,"
	"\"n\":8},\"out\":[],\"output_bytes\":4},"
	"{\"name\":\"grad\",\"role\":\"grad\",\"time_us\":16,\"dims\":{"
	"\"b\":8,\"k\":4,\"n\":8},\"out\":[\"k\",\"n\"],\"output_bytes\":128},"
	"{\"name\":\"update\",\"role\":\"update\",\"time_us\":4,\"dims\":{"
	"\"k\":4,\"n\":8},\"param\":[\"k\",\"n\"],\"param_bytes\":256},"
	"{\"name\":\"tail\",\"role\":\"forward\",\"time_us\":1,\"pin\":1}],"
	"\"edges\":[{\"from\":\"x\",\"to\":\"fc\",\"dims\":[\"b\",\"k\"]},"
	"{\"from\":\"w\",\"to\":\"fc\",\"dims\":[\"k\",\"n\"]},"
	"{\"from\":\"fc\",\"to\":\"loss\",\"dims\":[\"b\",\"n\"]},"
	"{\"from\":\"fc\",\"to\":\"tail\"},"
	"{\"from\":\"loss\",\"to\":\"grad\",\"dims\":[]},"
	"{\"from\":\"x\",\"to\":\"grad\",\"dims\":[\"b\",\"k\"]},"
	"{\"from\":\"grad\",\"to\":\"update\",\"dims\":[\"k\",\"n\"]},"
	"{\"from\":\"w\",\"to\":\"update\",\"control\":true}]}";

static int read_lower_and_run(const dp_graph *g, const char *path)
{
	dp_machine m;
	dp_err err;
	if (dp_machine_init(&m, 16, &err))
		fuzz_fail("dp_machine_init failed", &err);
	dp_strategy s;
	dp_strategy_init(&s);
	dp_err_clear(&err);
	dp_status st = dp_strategy_read(path, g, &m, &s, &err);
	fuzz_check_error(st, &err);
	if (st == DP_OK) {
		dp_lowered l = {0};
		st = dp_strategy_lower(g, &m, &s, NULL, &l, &err);
		fuzz_check_error(st, &err);
		if (st == DP_OK) {
			dp_sim *sim = dp_sim_new(l.g, &m, &err);
			if (!sim)
				fuzz_fail("dp_sim_new failed", &err);
			dp_sim_result r;
			memset(&r, 0, sizeof r);
			st = dp_sim_run(sim, l.placement, NULL, &r, &err);
			fuzz_check_error(st, &err);
			dp_sim_result_free(&r);
			dp_sim_free(sim);
			dp_lowered_free(&l);
		}
		dp_strategy_free(&s);
	}
	dp_machine_free(&m);
	return 0;
}

FUZZ_FILE_TARGET("strategy", graph_text, read_lower_and_run)
