/* test_pipeline.c - pipeline strategies: the gpipe and 1f1b built-ins, their
 * lowering (micro-batch copies, accumulation, the schedule's order) and its
 * check, priced by the one simulator. Hand-computed cases are exact. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/gen.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"
#include "dnnpart/strategy.h"
#include "lib/pipe_case.h"
#include "lib/testlib.h"

/* K devices of no cap, links of latency 0 and bandwidth bw. */
static void machine(dp_machine *m, int k, double bw)
{
	REQUIRE(dp_machine_init(m, k, NULL) == DP_OK);
	m->kernel_us = 0; /* exact shares (the overhead: test_pipe_sched.c) */
	m->lat = 0;
	m->bw = bw;
}

/* A pipeline of S forward ops f<i> (role forward: a pipeline needs to
 * know each op's batch) of t us, each out bytes: with backward,
 * a loss (0 us, 0 bytes) after f<S-1> and backward ops f<i>/grad of t us
 * and 0 bytes, f<i+1>/grad -> f<i>/grad, each reading its forward op's
 * output (the activation it stashes). */
static dp_graph *pipe_graph(int S, double t, int64_t out, bool backward)
{
	dp_graph *g = dp_graph_new("pipe");
	uint32_t f[16], b[16], loss = 0;
	char name[32];
	for (int i = 0; i < S; i++) {
		snprintf(name, sizeof name, "f%d", i);
		f[i] = test_add_role_op(g, name, t, out, DP_ROLE_FORWARD);
		if (i)
			test_add_edge(g, f[i - 1], f[i]);
	}
	if (backward) {
		loss = test_add_role_op(g, "loss", 0, 0, DP_ROLE_LOSS);
		test_add_edge(g, f[S - 1], loss);
		for (int i = S - 1; i >= 0; i--) {
			b[i] = test_add_grad(
				g, f[i], i == S - 1 ? loss : b[i + 1], t, 0);
		}
	}
	return test_finalized(g);
}

/* algo's strategy with M micro-batches (gpipe and 1f1b with M > 0: S = K
 * stages cut by forward time, test_pipe_strategize). */
static dp_status strategize(const char *algo, const dp_graph *g,
			    const dp_machine *m, int M, dp_strategy *s,
			    dp_err *err)
{
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.microbatches = M;
	return test_pipe_strategize(algo, g, m, &o, s, err);
}

typedef struct run {
	dp_strategy s;
	dp_lowered l;
	dp_sim_result r;
} run;

/* Strategize, lower and simulate; false (a test failure) when any fails. */
static bool run_pipe(const char *algo, const dp_graph *g, const dp_machine *m,
		     int M, run *x)
{
	memset(x, 0, sizeof *x);
	dp_err err;
	dp_err_clear(&err);
	if (strategize(algo, g, m, M, &x->s, &err) ||
	    dp_strategy_lower(g, m, &x->s, NULL, &x->l, &err)) {
		test_fail(__FILE__, __LINE__, "%s: %s", algo, err.msg);
		return false;
	}
	dp_sim *sim = dp_sim_new(x->l.g, m, &err);
	if (!sim || dp_sim_run(sim, x->l.placement, NULL, &x->r, &err)) {
		test_fail(__FILE__, __LINE__, "sim: %s", err.msg);
		dp_sim_free(sim);
		return false;
	}
	dp_sim_free(sim);
	return true;
}

static void run_free(run *x)
{
	dp_sim_result_free(&x->r);
	dp_lowered_free(&x->l);
	dp_strategy_free(&x->s);
}

/* S equal stages of t = 8 us, forward only, no communication (0 bytes,
 * latency 0): micro-batch j runs on stage s in [(j+s) t/M, (j+s+1) t/M),
 * so the last one ends at (M + S - 1) t / M: 14 us for M = 4, 11 for 8. */
static void test_gpipe_forward_makespan_is_m_plus_s_minus_1(void)
{
	dp_graph *g = pipe_graph(4, 8, 0, false);
	REQUIRE(g);
	dp_machine m;
	machine(&m, 4, 1e6);
	int Ms[] = {1, 4, 8};
	for (int i = 0; i < 3; i++) {
		run x;
		if (!run_pipe("gpipe", g, &m, Ms[i], &x))
			break;
		char want[32];
		snprintf(want, sizeof want, "gpipe S=4 M=%d", Ms[i]);
		CHECK_STR(x.s.label, want);
		for (uint32_t u = 0; u < 4; u++)
			CHECK_INT(x.s.pipe.stage[u], u);
		CHECK_INT(x.l.g->nops, 4 * Ms[i]);
		CHECK_NEAR(x.r.makespan, (Ms[i] + 4 - 1) * 8.0 / Ms[i], 0);
		run_free(&x);
	}
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* The full step, forward and backward of t = 8 us per stage, S = 4,
 * M = 8 (tau = t/M = 1): the forwards end at (M+S-1) tau = 11 on the last
 * stage; GPipe then runs B0..B(M-1) on each stage, B(j) on stage s ending
 * at (M+S-1) + (j + S - s) tau, so the step ends at 2 (M+S-1) tau = 22.
 * 1F1B does the same work with the same bubble: 22 as well. */
static void test_full_step_makespan_gpipe_and_1f1b(void)
{
	dp_graph *g = pipe_graph(4, 8, 0, true);
	REQUIRE(g);
	dp_machine m;
	machine(&m, 4, 1e6);
	const char *algos[] = {"gpipe", "1f1b"};
	for (int i = 0; i < 2; i++) {
		run x;
		if (!run_pipe(algos[i], g, &m, 8, &x))
			break;
		/* backward ops follow the forward op they mirror */
		for (int s = 0; s < 4; s++) {
			char name[32];
			snprintf(name, sizeof name, "f%d/grad", s);
			CHECK_INT(x.s.pipe.stage[dp_graph_find(g, name)], s);
		}
		CHECK_INT(x.s.pipe.stage[dp_graph_find(g, "loss")], 3);
		CHECK_NEAR(x.r.makespan, 22, 0);
		run_free(&x);
	}
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* The activation stash: f0's output (8 MiB for the batch, 1 MiB per
 * micro-batch) lives on device 0 until f0/grad of the same micro-batch
 * ends. GPipe runs every forward first: all M = 8 are live at once, 8 MiB.
 * 1F1B runs S - 1 = 3 warm-up forwards, then one forward one backward: at
 * most S = 4 live, 4 MiB. Nothing else takes memory on device 0 (the
 * gradients are 0 bytes). Measured by the simulator, not a formula. */
static void test_1f1b_stashes_s_microbatches_gpipe_m(void)
{
	int64_t A = 8 << 20;
	dp_graph *g = pipe_graph(4, 8, A, true);
	REQUIRE(g);
	dp_machine m;
	machine(&m, 4, 1e9);
	run x;
	if (run_pipe("gpipe", g, &m, 8, &x)) {
		CHECK_INT(x.r.dev[0].peak_bytes, A);
		run_free(&x);
	}
	if (run_pipe("1f1b", g, &m, 8, &x)) {
		CHECK_INT(x.r.dev[0].peak_bytes, 4 * A / 8);
		/* the last stage holds one micro-batch in both */
		CHECK_INT(x.r.dev[3].peak_bytes >= A / 8, 1);
		run_free(&x);
	}
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* Weight gradients: one copy per micro-batch, summed by a chain of
 * accumulations before the one update; the param is one op that feeds
 * every copy. */
static void test_grads_accumulate_before_the_update(void)
{
	dp_graph *g = dp_graph_new("acc");
	uint32_t w = test_add_role_op(g, "w", 0, 0, DP_ROLE_PARAM);
	g->ops[w].param_bytes = 4096;
	uint32_t x = test_add_role_op(g, "x", 0, 400, DP_ROLE_INPUT);
	uint32_t f = test_add_role_op(g, "fc", 8, 800, DP_ROLE_FORWARD);
	uint32_t l = test_add_role_op(g, "loss", 4, 4, DP_ROLE_LOSS);
	uint32_t b = test_add_role_op(g, "fc/grad", 8, 400, DP_ROLE_BACKWARD);
	uint32_t gw = test_add_role_op(g, "fc/grad_w", 8, 4096, DP_ROLE_GRAD);
	uint32_t up = test_add_role_op(g, "w/adam", 2, 0, DP_ROLE_UPDATE);
	const uint32_t e[][2] = {{w, f},  {x, f},  {f, l},   {l, b},
				 {x, gw}, {l, gw}, {gw, up}, {w, up}};
	test_add_edges(g, e, 8);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	machine(&m, 1, 1e3);
	run r;
	if (run_pipe("1f1b", g, &m, 4, &r)) {
		const dp_graph *lg = r.l.g;
		CHECK_STR(r.s.label, "1f1b S=1 M=4");
		/* w, w/adam once; x, fc, loss, fc/grad, fc/grad_w four times;
		 * fc/grad_w/acc@m1..3 */
		CHECK_INT(lg->nops, 2 + 5 * 4 + 3);
		uint32_t w0 = dp_graph_find(lg, "w");
		uint32_t a3 = dp_graph_find(lg, "fc/grad_w/acc@m3");
		uint32_t u0 = dp_graph_find(lg, "w/adam");
		uint32_t g2 = dp_graph_find(lg, "fc/grad_w@m2");
		uint32_t f2 = dp_graph_find(lg, "fc@m2");
		REQUIRE(w0 != UINT32_MAX && a3 != UINT32_MAX &&
			u0 != UINT32_MAX && g2 != UINT32_MAX &&
			f2 != UINT32_MAX);
		CHECK_INT(r.l.micro[w0], -1);
		CHECK_INT(r.l.micro[g2], 2);
		CHECK_INT(r.l.source[a3], gw);
		CHECK_INT(lg->ops[w0].param_bytes, 4096);
		/* a weight gradient is whole in every copy; its time splits */
		CHECK_INT(lg->ops[g2].output_bytes, 4096);
		CHECK_NEAR(lg->ops[g2].time_us, 2, 0);
		CHECK_INT(lg->ops[f2].output_bytes, 200);
		bool acc_feeds_update = false, w_feeds_f2 = false;
		for (uint32_t e = 0; e < lg->nedges; e++) {
			const dp_edge *ed = &lg->edges[e];
			if (ed->from == a3 && ed->to == u0 && !ed->control)
				acc_feeds_update = true;
			if (ed->from == w0 && ed->to == f2 && !ed->control)
				w_feeds_f2 = true;
			/* only the last sum reaches the update */
			if (ed->to == u0 && r.l.source[ed->from] == gw)
				CHECK_INT(ed->from, a3);
		}
		CHECK(acc_feeds_update);
		/* copy i is summed into acc@m<i> (copy 0 into acc@m1) */
		for (int i = 0; i < 4; i++) {
			char gn[32], an[32];
			snprintf(gn, sizeof gn, "fc/grad_w@m%d", i);
			snprintf(an, sizeof an, "fc/grad_w/acc@m%d", i ? i : 1);
			uint32_t gi = dp_graph_find(lg, gn);
			uint32_t ai = dp_graph_find(lg, an);
			bool found = false;
			for (uint32_t e = 0; e < lg->nedges; e++)
				if (lg->edges[e].from == gi &&
				    lg->edges[e].to == ai &&
				    lg->edges[e].bytes == 4096)
					found = true;
			CHECK(found);
		}
		CHECK(w_feeds_f2);
		/* one device: 4 x (2 + 2 + 1 + 0 + 2) + 2 = 30 us of work */
		CHECK_NEAR(r.r.makespan, 30, 1e-9);
		run_free(&r);
	}
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* How the copies of u share its cost (docs/pipeline.md): the time
 * splits unless u has dims without the graph's batch dim; the output
 * splits too, unless u is a weight gradient or its out does not contain
 * the batch dim. */
static void scaling(const dp_graph *g, uint32_t u, bool *tsplit, bool *osplit)
{
	const char *bd = dp_graph_batch_dim(g);
	*tsplit = true;
	*osplit = dp_op_role(g, u) != DP_ROLE_GRAD;
	dp_dims d;
	if (!bd[0] || !dp_op_dims(g, u, &d))
		return;
	int bi = dp_op_find_dim(g, u, bd);
	if (bi < 0) {
		*tsplit = *osplit = false;
		return;
	}
	if (d.nout < 0)
		return;
	*osplit = false;
	for (int32_t j = 0; j < d.nout; j++)
		if (d.out[j] == bi)
			*osplit = true;
}

/* Invariants of a lowered pipeline: every op placed on its stage's device,
 * sources recoverable from names, M copies per micro-batched op whose
 * times add up to the op's, bytes conserved. */
static void check_invariants(const dp_graph *g, const run *x)
{
	const dp_lowered *l = &x->l;
	const dp_graph *lg = l->g;
	int M = x->s.pipe.microbatches;
	uint32_t *copies = calloc(g->nops, sizeof *copies);
	double *time = calloc(g->nops, sizeof *time);
	int64_t *bytes = calloc(g->nops, sizeof *bytes);
	REQUIRE(copies && time && bytes);
	int bad = 0;
	for (uint32_t v = 0; v < lg->nops && bad < 5; v++) {
		uint32_t u = l->source[v];
		if (u >= g->nops) {
			bad++;
			continue;
		}
		int32_t st = x->s.pipe.stage[u];
		int32_t dev = x->s.pipe.group[x->s.pipe.group_off[st]];
		if (l->placement[v] != dev)
			bad++;
		const char *un = dp_graph_op_name(g, u);
		const char *vn = dp_graph_op_name(lg, v);
		size_t n = strlen(un);
		char want[64];
		snprintf(want, sizeof want, "@m%d", l->micro[v]);
		bool prefix = strncmp(vn, un, n) == 0;
		/* the accumulations and the sends of a backward block */
		size_t tag = prefix && !strncmp(vn + n, "/acc@m", 6) ? 4 : 0;
		tag = prefix && !strncmp(vn + n, "/send@m", 7) ? 5 : tag;
		if (!prefix || (l->micro[v] < 0 ? vn[n] != '\0'
						: strcmp(vn + n + tag, want)))
			bad++;
		if (!tag) {
			copies[u]++;
			time[u] += lg->ops[v].time_us;
			bytes[u] += lg->ops[v].output_bytes;
		}
	}
	CHECK_INT(bad, 0);
	int wrong = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		dp_role r = dp_op_role(g, u);
		bool once = r == DP_ROLE_PARAM || r == DP_ROLE_UPDATE;
		if (copies[u] != (once ? 1u : (uint32_t)M))
			wrong++;
		bool tsplit, osplit;
		scaling(g, u, &tsplit, &osplit);
		int k = once ? 1 : M;
		double t = g->ops[u].time_us * (tsplit ? 1 : k);
		if (time[u] - t > 1e-9 * (t + 1) ||
		    t - time[u] > 1e-9 * (t + 1))
			wrong++;
		int64_t o = g->ops[u].output_bytes * (osplit ? 1 : k);
		if (bytes[u] != o)
			wrong++;
	}
	CHECK_INT(wrong, 0);
	CHECK_INT(x->r.nops, lg->nops);
	free(copies);
	free(time);
	free(bytes);
}

/* Generated training graphs (dims, roles, batch dim "b") and random DAGs
 * of forward ops without dims, on 2..4 devices, both schedules, the default M and M = 2:
 * every lowering finalizes (so it is acyclic: a cycle is an error there)
 * and keeps the invariants. */
static void test_invariants_on_random_graphs(void)
{
	const char *algos[] = {"gpipe", "1f1b"};
	for (uint64_t seed = 1; seed <= 4; seed++) {
		dp_gen_opts go;
		dp_gen_opts_default(&go);
		go.ops = 150 + (uint32_t)seed * 70;
		go.seed = seed;
		dp_graph *gen = NULL;
		REQUIRE(dp_gen_graph(&go, &gen, NULL) == DP_OK);
		uint64_t st = seed;
		dp_graph *dag = test_random_dag(&st, 120, "dag");
		REQUIRE(dag);
		for (uint32_t u = 0; u < dag->nops; u++)
			REQUIRE(dp_graph_set_role(dag, u, DP_ROLE_FORWARD,
						  NULL) == DP_OK);
		dp_graph *gs[] = {gen, dag};
		for (int gi = 0; gi < 2; gi++) {
			for (int k = 2; k <= 4; k++) {
				dp_machine m;
				machine(&m, k, 1e4);
				m.lat = 5;
				for (int a = 0; a < 2; a++) {
					int M = (int)(seed % 2) ? 0 : 2;
					run x;
					if (!run_pipe(algos[a], gs[gi], &m, M,
						      &x))
						continue;
					/* searched without M: S | k */
					if (M)
						CHECK_INT(x.s.k, k);
					else
						CHECK(x.s.k >= 1 &&
						      k % x.s.k == 0);
					check_invariants(gs[gi], &x);
					run_free(&x);
				}
				dp_machine_free(&m);
			}
		}
		dp_graph_free(gen);
		dp_graph_free(dag);
	}
}

static void check_refused(const dp_graph *g, const dp_machine *m,
			  const dp_strategy *s, const char *want)
{
	dp_err err;
	dp_err_clear(&err);
	CHECK_INT(dp_strategy_check(g, m, s, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, want);
	dp_lowered l;
	memset(&l, 0, sizeof l);
	CHECK_INT(dp_strategy_lower(g, m, s, NULL, &l, &err), DP_EINPUT);
	CHECK(l.g == NULL);
}

static void test_check_names_what_is_wrong(void)
{
	dp_graph *g = pipe_graph(3, 8, 64, true);
	REQUIRE(g);
	dp_machine m;
	machine(&m, 3, 1e3);
	dp_strategy s;
	dp_strategy_init(&s);
	REQUIRE(dp_strategy_alloc(&s, DP_STRAT_PIPELINE, g, 3, NULL) == DP_OK);
	const char *order[] = {"f0",	  "f1",	     "f2",     "loss",
			       "f2/grad", "f1/grad", "f0/grad"};
	int good[] = {0, 1, 2, 2, 2, 1, 0};
	for (int i = 0; i < 7; i++)
		s.pipe.stage[dp_graph_find(g, order[i])] = good[i];
	s.pipe.microbatches = 4;
	dp_err err;
	CHECK_INT(dp_strategy_check(g, &m, &s, &err), DP_OK);

	uint32_t f1 = dp_graph_find(g, "f1");
	s.pipe.stage[f1] = 0;
	s.pipe.stage[dp_graph_find(g, "f0")] = 1;
	check_refused(g, &m, &s,
		      "forward op 'f0' is in stage 1 but feeds forward op "
		      "'f1' in stage 0");
	s.pipe.stage[dp_graph_find(g, "f0")] = 0;
	s.pipe.stage[f1] = 1;
	s.pipe.stage[dp_graph_find(g, "f0/grad")] = 2;
	check_refused(g, &m, &s,
		      "backward op 'f1/grad' is in stage 1 but feeds backward "
		      "op 'f0/grad' in stage 2: backward data must go to the "
		      "same or an earlier stage");
	s.pipe.stage[dp_graph_find(g, "f0/grad")] = 0;

	s.pipe.microbatches = 0;
	check_refused(g, &m, &s,
		      "a pipeline needs 1 to 4096 micro-batches, "
		      "got 0");
	s.pipe.microbatches = 4;
	s.pipe.group[2] = 1;
	check_refused(g, &m, &s,
		      "pipeline stage 2 runs on device 1, which another stage "
		      "uses already");
	s.pipe.group[2] = 7;
	check_refused(g, &m, &s,
		      "pipeline stage 2 runs on device 7; expected a device "
		      "in 0..2");
	s.pipe.group[2] = 2;
	s.pipe.stage[f1] = 3;
	check_refused(g, &m, &s,
		      "op 'f1' is in stage 3; expected a stage in 0..2");
	s.pipe.stage[f1] = 1;
	s.spmd.naxes = 1;
	s.spmd.mesh[0] = 2;
	check_refused(g, &m, &s,
		      "pipeline stage 0 has a group of 1 devices; expected 2, "
		      "the size of the spmd mesh inside stages");
	s.spmd.naxes = 0;
	CHECK_INT(dp_strategy_check(g, &m, &s, &err), DP_OK);
	dp_strategy_free(&s);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* An op with neither dims nor a role (f2 of a forward chain f0..f3 of
 * 8 us): nothing says whether its work scales with the batch, so it
 * cannot be split into micro-batches. The built-ins refuse, naming it,
 * whether M is given or searched; so does the check of a strategy with
 * M > 1. With M = 1 nothing is split: stages f0 f1 | f2 f3 on two devices
 * (0 bytes, latency 0) run one after the other, 4 x 8 = 32 us, no faster
 * than one device (M = 4 used to claim (M+S-1) 16/M = 20 us). */
static void test_unknown_batch_is_not_micro_batched(void)
{
	dp_graph *g = pipe_graph(4, 8, 0, false);
	REQUIRE(g);
	REQUIRE(dp_graph_set_role(g, dp_graph_find(g, "f2"), DP_ROLE_NONE,
				  NULL) == DP_OK);
	dp_machine m;
	machine(&m, 2, 1e6);
	const char *algos[] = {"gpipe", "1f1b", "pipedream", "hybrid"};
	dp_strategy s;
	dp_err err;
	for (int a = 0; a < 4; a++)
		for (int M = 0; M <= 4; M += 4) {
			CHECK_INT(strategize(algos[a], g, &m, M, &s, &err),
				  DP_EINPUT);
			CHECK_CONTAINS(err.msg,
				       "op 'f2' has neither dims nor a "
				       "role, so its batch is unknown");
			CHECK(!strncmp(err.msg, algos[a], strlen(algos[a])));
		}
	run x;
	if (run_pipe("gpipe", g, &m, 1, &x)) {
		CHECK_STR(x.s.label, "gpipe S=2 M=1");
		CHECK_NEAR(x.r.makespan, 32, 0);
		x.s.pipe.microbatches = 4;
		check_refused(g, &m, &x.s,
			      "op 'f2' has neither dims nor a role, so its "
			      "batch is unknown and it cannot be split into 4 "
			      "micro-batches");
		run_free(&x);
	}
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* A batch dim of 6 takes 1, 2, 3 or 6 micro-batches, not 4: the check and
 * the built-ins say which op. */
static void test_microbatches_must_divide_the_batch(void)
{
	dp_graph *g = dp_graph_new("b6");
	uint32_t x = test_add_role_op(g, "x", 1, 6 * 4 * 4, DP_ROLE_INPUT);
	uint32_t h = test_add_role_op(g, "h", 3, 6 * 4 * 4, DP_ROLE_FORWARD);
	test_add_edge(g, x, h);
	const char *names[] = {"b", "k"};
	int64_t sizes[] = {6, 4};
	dp_dims_spec spec = {2, names, sizes, 2, names, -1, NULL, 0};
	REQUIRE(dp_graph_set_op_dims(g, x, &spec, NULL) == DP_OK);
	REQUIRE(dp_graph_set_op_dims(g, h, &spec, NULL) == DP_OK);
	REQUIRE(dp_graph_set_batch_dim(g, "b", NULL) == DP_OK);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	machine(&m, 2, 1e3);
	dp_strategy s;
	dp_err err;
	CHECK_INT(strategize("gpipe", g, &m, 4, &s, &err), DP_EINPUT);
	CHECK_STR(err.msg, "gpipe: op 'x': its batch dim 'b' has size 6, "
			   "which 4 micro-batches do not divide; choose a "
			   "number of micro-batches that divides it");
	dp_strategy_free(&s);
	run r;
	if (run_pipe("1f1b", g, &m, 3, &r)) {
		/* exact: 96 bytes / 3 */
		uint32_t h1 = dp_graph_find(r.l.g, "h@m1");
		REQUIRE(h1 != UINT32_MAX);
		CHECK_INT(r.l.g->ops[h1].output_bytes, 32);
		run_free(&r);
	}
	/* without M the search tries the largest divisor of 6 up to 4 S =
	 * 8, and the powers of two that divide 6 */
	if (run_pipe("gpipe", g, &m, 0, &r)) {
		int M = r.s.pipe.microbatches;
		CHECK(M == 6 || M == 2 || M == 1);
		run_free(&r);
	}
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* An op marked forward that depends on a backward op (a loader that marks
 * ops by name can leave one so) runs in the backward pass: the pipeline
 * takes it as backward, so nothing backward ever feeds a forward op. */
static void test_forward_after_backward_is_backward(void)
{
	dp_graph *g = dp_graph_new("late");
	uint32_t f0 = test_add_role_op(g, "f0", 8, 0, DP_ROLE_FORWARD);
	uint32_t f1 = test_add_role_op(g, "f1", 8, 0, DP_ROLE_FORWARD);
	uint32_t b1 = test_add_role_op(g, "f1/grad", 8, 0, DP_ROLE_BACKWARD);
	uint32_t t =
		test_add_role_op(g, "gradients/tuple", 0, 0, DP_ROLE_FORWARD);
	uint32_t b0 = test_add_role_op(g, "f0/grad", 8, 0, DP_ROLE_BACKWARD);
	const uint32_t e[][2] = {
		{f0, f1}, {f1, b1}, {b1, t}, {t, b0}, {f0, b0}};
	test_add_edges(g, e, 5);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	machine(&m, 2, 1e6);
	run x;
	if (run_pipe("gpipe", g, &m, 2, &x)) {
		/* the cut sees f0 and f1 only: one each */
		CHECK_INT(x.s.pipe.stage[f0], 0);
		CHECK_INT(x.s.pipe.stage[f1], 1);
		/* the tuple is backward: at most its input's stage */
		CHECK(x.s.pipe.stage[t] <= 1);
		/* per stage: F0 F1 B0 B1 of 4 us, the backward of stage 0
		 * after stage 1's: 4 (forward bubble) + 8 + 8 + 4 */
		CHECK_NEAR(x.r.makespan, 2 * (2 + 2 - 1) * 4.0, 0);
		run_free(&x);
	}
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* Pins: stage s runs on device s, so a pinned op goes to its pin's stage
 * and the ops around it move as the stage order needs; pins against that
 * order are refused, named. */
static void test_builtins_honour_pins_or_say_why_not(void)
{
	dp_graph *g = pipe_graph(4, 8, 0, false);
	REQUIRE(g);
	uint32_t f1 = dp_graph_find(g, "f1"), f2 = dp_graph_find(g, "f2");
	g->ops[f1].pin = 2;
	dp_machine m;
	machine(&m, 4, 1e6);
	run x;
	if (run_pipe("gpipe", g, &m, 4, &x)) {
		int want[] = {0, 2, 2, 3};
		for (uint32_t u = 0; u < 4; u++)
			CHECK_INT(x.s.pipe.stage[u], want[u]);
		run_free(&x);
	}
	g->ops[f2].pin = 1;
	dp_strategy s;
	dp_err err;
	CHECK_INT(strategize("1f1b", g, &m, 4, &s, &err), DP_EINPUT);
	CHECK_STR(err.msg, "1f1b: op 'f1' is pinned to device 2, but a forward "
			   "op that depends on it is pinned to device 1; a "
			   "pipeline runs forward ops in stage order, so those "
			   "pins cannot be honoured");
	dp_strategy_free(&s);
	dp_graph_free(g);

	/* a backward op pinned later than its mirror: the backward ops
	 * before it (in the backward order) follow */
	g = pipe_graph(4, 8, 0, true);
	REQUIRE(g);
	g->ops[dp_graph_find(g, "f1/grad")].pin = 3;
	if (run_pipe("1f1b", g, &m, 4, &x)) {
		CHECK_INT(x.s.pipe.stage[dp_graph_find(g, "f1/grad")], 3);
		CHECK_INT(x.s.pipe.stage[dp_graph_find(g, "f2/grad")], 3);
		CHECK_INT(x.s.pipe.stage[dp_graph_find(g, "f0/grad")], 0);
		run_free(&x);
	}
	g->ops[dp_graph_find(g, "f2/grad")].pin = 2;
	CHECK_INT(strategize("gpipe", g, &m, 4, &s, &err), DP_EINPUT);
	CHECK_STR(err.msg, "gpipe: op 'f2/grad' is pinned to device 2, but a "
			   "backward op that depends on it is pinned to device "
			   "3; a pipeline runs backward ops in stage order, so "
			   "those pins cannot be honoured");
	dp_strategy_free(&s);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* A raised cancel flag stops the lowering with "lowering: canceled" and
 * leaves the output untouched; the same strategy lowers twice to the same
 * graph (deterministic). */
static void test_lowering_cancels_and_repeats(void)
{
	dp_graph *g = pipe_graph(4, 8, 64, true);
	REQUIRE(g);
	dp_machine m;
	machine(&m, 4, 1e3);
	dp_strategy s;
	dp_err err;
	REQUIRE(strategize("1f1b", g, &m, 4, &s, &err) == DP_OK);
	atomic_int flag = 1;
	dp_progress p = {NULL, NULL, &flag};
	dp_lowered l, l2;
	memset(&l, 0, sizeof l);
	CHECK_INT(dp_strategy_lower(g, &m, &s, &p, &l, &err), DP_ECANCELED);
	CHECK_STR(err.msg, "lowering: canceled");
	CHECK(l.g == NULL);
	flag = 0;
	REQUIRE(dp_strategy_lower(g, &m, &s, &p, &l, &err) == DP_OK);
	REQUIRE(dp_strategy_lower(g, &m, &s, NULL, &l2, &err) == DP_OK);
	CHECK_INT(l.g->nops, l2.g->nops);
	CHECK_INT(l.g->nedges, l2.g->nedges);
	int diff = 0;
	for (uint32_t e = 0; e < l.g->nedges && e < l2.g->nedges; e++)
		diff += l.g->edges[e].from != l2.g->edges[e].from ||
			l.g->edges[e].to != l2.g->edges[e].to ||
			l.g->edges[e].bytes != l2.g->edges[e].bytes;
	CHECK_INT(diff, 0);
	dp_lowered_free(&l);
	dp_lowered_free(&l2);
	dp_strategy_free(&s);
	dp_machine_free(&m);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_gpipe_forward_makespan_is_m_plus_s_minus_1),
	  TEST(test_full_step_makespan_gpipe_and_1f1b),
	  TEST(test_1f1b_stashes_s_microbatches_gpipe_m),
	  TEST(test_grads_accumulate_before_the_update),
	  TEST(test_invariants_on_random_graphs),
	  TEST(test_check_names_what_is_wrong),
	  TEST(test_microbatches_must_divide_the_batch),
	  TEST(test_unknown_batch_is_not_micro_batched),
	  TEST(test_forward_after_backward_is_backward),
	  TEST(test_builtins_honour_pins_or_say_why_not),
	  TEST(test_lowering_cancels_and_repeats))
