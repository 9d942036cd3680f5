/* pipeline_check.c - the kinds of ops in a pipeline and the checks a
 * pipeline strategy must pass before it is lowered (internal/pipeline.h,
 * lower.h; docs/pipeline.md). */
#include "internal/lower.h"
#include "internal/pipeline.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static dpi_pipe_kind role_kind(const dp_graph *g, uint32_t u)
{
	switch (dp_op_role(g, u)) {
	case DP_ROLE_PARAM:
	case DP_ROLE_UPDATE:
		return DPI_PIPE_ONCE;
	case DP_ROLE_BACKWARD:
	case DP_ROLE_GRAD:
		return DPI_PIPE_BWD;
	default:
		return DPI_PIPE_FWD;
	}
}

uint8_t *dpi_pipe_kinds(const dp_graph *g)
{
	uint8_t *kd = malloc(g->nops ? g->nops : 1);
	if (!kd)
		return NULL;
	for (uint32_t i = 0; i < g->nops; i++) {
		uint32_t u = g->topo[i];
		dpi_pipe_kind k = role_kind(g, u);
		for (uint32_t j = g->pred_off[u];
		     k == DPI_PIPE_FWD && j < g->pred_off[u + 1]; j++)
			if (kd[g->edges[g->pred_edge[j]].from] == DPI_PIPE_BWD)
				k = DPI_PIPE_BWD;
		kd[u] = (uint8_t)k;
	}
	return kd;
}

/* Index of the graph's batch dim among u's dims; -1 when the graph has no
 * batch dim, -2 when u has no dims, -3 when u has dims without it. */
static int batch_index(const dp_graph *g, uint32_t u)
{
	const char *bd = dp_graph_batch_dim(g);
	if (!bd[0])
		return -1;
	if (!g->ops[u].dims)
		return -2;
	int i = dp_op_find_dim(g, u, bd);
	return i >= 0 ? i : -3;
}

bool dpi_pipe_batch_unknown(const dp_graph *g, uint32_t u)
{
	return dp_op_role(g, u) == DP_ROLE_NONE &&
	       (!g->ops[u].dims || !dp_graph_batch_dim(g)[0]);
}

/* Why op u's batch is unknown, for messages. */
static const char *unknown_why(const dp_graph *g, uint32_t u)
{
	return g->ops[u].dims ? "no role, and dims in a graph without a "
				"batch_dim"
			      : "neither dims nor a role";
}

dp_status dpi_pipe_check_batch_known(const dp_graph *g, const dp_algo_opts *o,
				     const char *name, dp_err *err)
{
	dp_status st = dpi_pipe_check_zb_roles(g, o, name, err);
	if (st || (o && o->microbatches == 1))
		return st;
	for (uint32_t u = 0; u < g->nops; u++)
		if (dpi_pipe_batch_unknown(g, u))
			return dp_err_set(
				err, DP_EINPUT, g->source, 0, 0,
				"%s: op '%s' has %s, so its batch is unknown "
				"and it cannot be split into micro-batches; "
				"a pipeline needs dims with the graph's "
				"batch_dim or a role on every op (see "
				"docs/formats.md), or -M 1",
				name, dp_graph_op_name(g, u),
				unknown_why(g, u));
	return DP_OK;
}

void dpi_pipe_scaling(const dp_graph *g, uint32_t u, bool *time_split,
		      bool *out_split)
{
	bool grad = dp_op_role(g, u) == DP_ROLE_GRAD;
	int bi = batch_index(g, u);
	if (bi == -3) {
		*time_split = false;
		*out_split = false;
		return;
	}
	*time_split = true;
	*out_split = !grad;
	if (bi >= 0) {
		dp_dims d;
		dp_op_dims(g, u, &d);
		if (d.nout >= 0) {
			*out_split = false;
			for (int32_t j = 0; j < d.nout; j++)
				if (d.out[j] == bi)
					*out_split = true;
		}
	}
}

static uint32_t find_prefix(const dp_graph *g, char *buf, size_t len,
			    bool update)
{
	for (;;) {
		/* "conv1/Conv2D_grad" names conv1/Conv2D (TensorFlow) */
		for (int cut = 0; cut < 2; cut++) {
			size_t n = len;
			if (cut && (n <= 5 || memcmp(buf + n - 5, "_grad", 5)))
				break;
			n -= cut ? 5 : 0;
			char keep = buf[n];
			buf[n] = '\0';
			uint32_t v = dp_graph_find(g, buf);
			buf[n] = keep;
			if (v == UINT32_MAX)
				continue;
			dpi_pipe_kind k = role_kind(g, v);
			dp_role r = dp_op_role(g, v);
			if (update ? r == DP_ROLE_PARAM
				   : k == DPI_PIPE_FWD || r == DP_ROLE_PARAM)
				return v;
		}
		while (len > 0 && buf[len - 1] != '/')
			len--;
		if (len <= 1)
			return UINT32_MAX;
		len--;
	}
}

uint32_t dpi_pipe_mirror(const dp_graph *g, uint32_t u)
{
	char buf[512];
	const char *name = dp_graph_op_name(g, u);
	size_t n = strlen(name);
	if (n >= sizeof buf)
		return UINT32_MAX;
	bool update = dp_op_role(g, u) == DP_ROLE_UPDATE;
	/* "fc1/grad_w" -> "fc1": path components off the end */
	const char *cut = strrchr(name, '/');
	if (cut) {
		memcpy(buf, name, n + 1);
		uint32_t v = find_prefix(g, buf, (size_t)(cut - name), update);
		if (v != UINT32_MAX)
			return v;
	}
	/* "grad/fc1" -> "fc1": the first component off, then as above */
	const char *rest = strchr(name, '/');
	if (!rest || !rest[1])
		return UINT32_MAX;
	rest++;
	n = strlen(rest);
	memcpy(buf, rest, n + 1);
	return find_prefix(g, buf, n, update);
}

static dp_status bad(const dp_graph *g, dp_err *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static dp_status bad(const dp_graph *g, dp_err *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	dp_status st = dp_err_setv(err, DP_EINPUT, g->source, 0, 0, fmt, ap);
	va_end(ap);
	return st;
}

static dp_status check_groups(const dp_graph *g, const dp_machine *m,
			      const dp_pipeline *pp, int D, int *used,
			      dp_err *err)
{
	int S = pp->nstages;
	if (pp->group_off[0] != 0)
		return bad(g, err,
			   "pipeline groups: the first group starts at %d; "
			   "expected 0",
			   (int)pp->group_off[0]);
	bool *taken = calloc((size_t)m->k, sizeof *taken);
	if (!taken)
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory while checking a pipeline");
	dp_status st = DP_OK;
	*used = 0;
	int V = pp->virtual_stages > 1 ? pp->virtual_stages : 1;
	int P = S / V; /* the groups; chunk s >= P reuses group s mod P */
	if (S % V)
		st = bad(g, err,
			 "an interleaved pipeline of %d virtual stages needs a "
			 "number of chunks (stages) that %d divides, got %d",
			 V, V, S);
	for (int s = 0; !st && s < S; s++) {
		int32_t a = pp->group_off[s], b = pp->group_off[s + 1];
		if (s >= P) {
			int32_t a0 = pp->group_off[s % P];
			for (int32_t i = a; !st && i < b; i++)
				if (b - a != D ||
				    pp->group[i] != pp->group[a0 + i - a])
					st = bad(g, err,
						 "interleaved pipeline: chunk "
						 "%d "
						 "must run on the devices of "
						 "chunk "
						 "%d (chunk c on the group of "
						 "c mod "
						 "%d)",
						 s, s % P, P);
			continue;
		}
		if (b - a != D) {
			st = D == 1 ? bad(g, err,
					  "pipeline stage %d has a group of %d "
					  "devices; expected 1 (a stage runs "
					  "on one device unless an spmd split "
					  "is given inside stages)",
					  s, (int)(b - a))
				    : bad(g, err,
					  "pipeline stage %d has a group of %d "
					  "devices; expected %d, the size of "
					  "the spmd mesh inside stages",
					  s, (int)(b - a), D);
			break;
		}
		for (int32_t i = a; !st && i < b; i++) {
			int32_t d = pp->group[i];
			if (d < 0 || d >= m->k)
				st = bad(g, err,
					 "pipeline stage %d runs on device "
					 "%d; expected a device in 0..%d",
					 s, (int)d, m->k - 1);
			else if (taken[d])
				st = bad(g, err,
					 "pipeline stage %d runs on device "
					 "%d, which another stage uses "
					 "already; each device "
					 "belongs to one stage",
					 s, (int)d);
			else {
				taken[d] = true;
				++*used;
			}
		}
	}
	free(taken);
	return st;
}

static const char *kind_word(dpi_pipe_kind k)
{
	return k == DPI_PIPE_BWD ? "backward" : "forward";
}

/* The edges: forward data goes to the same or a later stage, backward data
 * to the same or an earlier one (a backward op never feeds a forward one:
 * dpi_pipe_kinds), and an op that runs once and depends on micro-batches feeds no micro-batch
 * (late[u]: u runs once and has a micro-batched ancestor). */
static dp_status check_edges(const dp_graph *g, const dp_pipeline *pp,
			     const uint8_t *kd, dp_err *err)
{
	uint8_t *late = calloc(g->nops ? g->nops : 1, 1);
	if (!late)
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory while checking a pipeline");
	for (uint32_t i = 0; i < g->nops; i++) {
		uint32_t v = g->topo[i];
		if (kd[v] != DPI_PIPE_ONCE)
			continue;
		for (uint32_t j = g->pred_off[v]; j < g->pred_off[v + 1]; j++) {
			uint32_t u = g->edges[g->pred_edge[j]].from;
			if (late[u] || kd[u] != DPI_PIPE_ONCE)
				late[v] = 1;
		}
	}
	dp_status st = DP_OK;
	for (uint32_t e = 0; !st && e < g->nedges; e++) {
		uint32_t u = g->edges[e].from, v = g->edges[e].to;
		dpi_pipe_kind ku = (dpi_pipe_kind)kd[u];
		dpi_pipe_kind kv = (dpi_pipe_kind)kd[v];
		int su = pp->stage[u], sv = pp->stage[v];
		const char *nu = dp_graph_op_name(g, u);
		const char *nv = dp_graph_op_name(g, v);
		if (ku == DPI_PIPE_ONCE) {
			if (kv != DPI_PIPE_ONCE && late[u])
				st = bad(g, err,
					 "op '%s' runs once per step after "
					 "micro-batches (it depends on them) "
					 "but feeds '%s', which runs per "
					 "micro-batch; a pipeline cannot "
					 "order that",
					 nu, nv);
		} else if (kv == DPI_PIPE_ONCE) {
			continue;
		} else if (ku == kv &&
			   (ku == DPI_PIPE_FWD ? su > sv : su < sv)) {
			st = bad(g, err,
				 "%s op '%s' is in stage %d but feeds %s op "
				 "'%s' in stage %d: %s",
				 kind_word(ku), nu, su, kind_word(kv), nv, sv,
				 ku == DPI_PIPE_FWD
					 ? "forward data must go to the same "
					   "or a later stage"
					 : "backward data must go to the "
					   "same or an earlier stage");
		}
	}
	free(late);
	return st;
}

/* Every op: its stage, its pin, and M dividing its batch dim (M x D, D
 * the data-parallel parts of its batch inside its stage: the group's size
 * for a data-parallel split, else the parts of its batch dim). */
static dp_status check_ops(const dp_graph *g, const dp_strategy *s,
			   const uint8_t *kd, int M, int Dg, dp_err *err)
{
	const dp_pipeline *pp = &s->pipe;
	bool tp = dpi_pipe_is_tp(g, s);
	const char *bd = dp_graph_batch_dim(g);
	for (uint32_t u = 0; u < g->nops; u++) {
		int32_t st_u = pp->stage[u];
		const char *nu = dp_graph_op_name(g, u);
		if (st_u < 0 || st_u >= pp->nstages)
			return bad(g, err,
				   "op '%s' is in stage %d; expected a stage "
				   "in 0..%d",
				   nu, (int)st_u, pp->nstages - 1);
		int32_t dev = pp->group[pp->group_off[st_u]];
		int32_t pin = g->ops[u].pin;
		if (pin >= 0 && pin != dev)
			return bad(g, err,
				   "op '%s' is pinned to device %d, but its "
				   "stage %d runs on device %d",
				   nu, (int)pin, (int)st_u, (int)dev);
		if (kd[u] == DPI_PIPE_ONCE)
			continue;
		if (M > 1 && dpi_pipe_batch_unknown(g, u))
			return bad(g, err,
				   "op '%s' has %s, so its batch is unknown "
				   "and it cannot be split into %d "
				   "micro-batches; give it dims with the "
				   "graph's batch_dim or a role, or use one "
				   "micro-batch",
				   nu, unknown_why(g, u), M);
		int bi = batch_index(g, u);
		if (bi < 0)
			continue;
		dp_dims d;
		dp_op_dims(g, u, &d);
		int D = tp ? dp_spmd_parts(&s->spmd, u, (uint32_t)bi) : Dg;
		if (D > 1 && d.sizes[bi] % ((int64_t)M * D))
			return bad(g, err,
				   "op '%s': its batch dim '%s' has size "
				   "%lld, which %d micro-batches of %d "
				   "data-parallel parts do not divide; choose "
				   "M x D that divides it",
				   nu, bd, (long long)d.sizes[bi], M, D);
		if (d.sizes[bi] % M)
			return bad(g, err,
				   "op '%s': its batch dim '%s' has size "
				   "%lld, which %d micro-batches do not "
				   "divide; choose a number of micro-batches "
				   "that divides it",
				   nu, bd, (long long)d.sizes[bi], M);
	}
	return DP_OK;
}

dp_status dpi_strategy_check_pipeline(const dp_graph *g, const dp_machine *m,
				      const dp_strategy *s, dp_err *err)
{
	const dp_pipeline *pp = &s->pipe;
	int D = s->spmd.naxes > 0 ? dp_spmd_size(&s->spmd) : 1;
	if (s->spmd.naxes > 0) {
		dp_status st3 = dpi_strategy_check_pipe3d(g, s, err);
		if (st3)
			return st3;
	}
	if (pp->nstages < 1 || !pp->stage || !pp->group_off || !pp->group)
		return bad(g, err,
			   "a pipeline needs at least one stage, got %d",
			   pp->nstages);
	int M = pp->microbatches;
	if (M < 1 || M > DP_MAX_MICROBATCHES)
		return bad(g, err,
			   "a pipeline needs 1 to %d micro-batches, got %d",
			   DP_MAX_MICROBATCHES, M);
	if (pp->schedule < DP_SCHED_GPIPE || pp->schedule > DP_SCHED_LAST)
		return bad(g, err,
			   "unknown pipeline schedule %d: expected gpipe, "
			   "1f1b, zb-h1, stash or 2bw",
			   (int)pp->schedule);
	int V = pp->virtual_stages;
	if (V < 0 || V > DP_MAX_VIRTUAL_STAGES)
		return bad(g, err,
			   "a pipeline's virtual stages are 1 to %d, got %d",
			   DP_MAX_VIRTUAL_STAGES, V);
	/* both asynchronous schedules need M >= S, each for its reason */
	if (dp_schedule_is_async(pp->schedule) && M < pp->nstages)
		return bad(g, err, "%s got M = %d for %d stages",
			   pp->schedule == DP_SCHED_2BW
				   ? "schedule 2bw needs at least as many "
				     "micro-batches as stages (PipeDream-2BW's "
				     "rule: two weight versions cover the "
				     "micro-batches in flight only when an "
				     "update spans M >= S of them),"
				   : "schedule stash needs at least as many "
				     "micro-batches as stages: without a flush "
				     "stage s holds S - s micro-batches in "
				     "flight, and one simulated step holds them "
				     "(and prices their activations and weight "
				     "versions) only when M >= S;",
			   M, pp->nstages);
	if (V > 1 && dp_schedule_is_async(pp->schedule))
		return bad(g, err,
			   "an interleaved pipeline (%d virtual stages) has "
			   "no asynchronous schedule: %s runs one stage per "
			   "device (PipeDream's weight versions are per "
			   "stage)",
			   V, dp_schedule_name(pp->schedule));
	if (V > 1 && pp->schedule != DP_SCHED_1F1B)
		return bad(g, err,
			   "an interleaved pipeline (%d virtual stages) runs "
			   "the 1f1b schedule, not %s",
			   V, dp_schedule_name(pp->schedule));
	if (V > 1 && M % (pp->nstages / V))
		return bad(g, err,
			   "an interleaved pipeline needs micro-batches that "
			   "its %d devices' stages divide (Megatron-LM's "
			   "rule), got M = %d",
			   pp->nstages / V, M);
	int used = 0;
	dp_status st = check_groups(g, m, pp, D, &used, err);
	if (st)
		return st;
	if (s->k != used)
		return bad(g, err,
			   "the pipeline's stages use %d devices, but the "
			   "strategy says %d",
			   used, s->k);
	uint8_t *kd = dpi_pipe_kinds(g);
	if (!kd)
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory while checking a pipeline");
	st = check_ops(g, s, kd, M, D, err);
	if (!st)
		st = check_edges(g, pp, kd, err);
	if (!st && pp->schedule == DP_SCHED_ZBH1)
		st = dpi_pipe_check_zb(g, s, kd, err);
	free(kd);
	return st;
}

bool dpi_pipe_is_tp(const dp_graph *g, const dp_strategy *s)
{
	const dp_spmd *sp = &s->spmd;
	const char *bd = dp_graph_batch_dim(g);
	if (s->kind != DP_STRAT_PIPELINE || sp->naxes < 1 || !sp->axes)
		return false;
	for (uint32_t u = 0; u < g->nops; u++) {
		int bi = g->ops[u].dims
				 ? (bd[0] ? dp_op_find_dim(g, u, bd) : -1)
				 : 0;
		for (int i = 0; i < DP_MAX_OP_DIMS; i++)
			if (i != bi && sp->axes[(size_t)u * DP_MAX_OP_DIMS + i])
				return true;
	}
	return false;
}

/* A tensor-parallel split inside the stages: what an spmd strategy on one
 * group's mesh must be (lower_pipe_tp.c lowers it so), without pins. */
static dp_status check_tp(const dp_graph *g, const dp_strategy *s, dp_err *err)
{
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].pin >= 0)
			return bad(g, err,
				   "op '%s' is pinned to device %d; pipeline "
				   "stages that are tensor parallel do not "
				   "take pinned ops",
				   dp_graph_op_name(g, u), (int)g->ops[u].pin);
	dp_strategy s0 = *s;
	s0.kind = DP_STRAT_SPMD;
	s0.k = dp_spmd_size(&s->spmd);
	return dpi_strategy_check_spmd(g, NULL, &s0, err);
}

/* The 3D case: every op on all the devices of its group; a split of only
 * the batch dim (or a whole op's implicit batch) is data parallel
 * (lower_pipe3d.c), any other is tensor parallel (check_tp). */
dp_status dpi_strategy_check_pipe3d(const dp_graph *g, const dp_strategy *s,
				    dp_err *err)
{
	const dp_spmd *sp = &s->spmd;
	const char *bd = dp_graph_batch_dim(g);
	bool tp = dpi_pipe_is_tp(g, s);
	for (uint32_t u = 0; u < g->nops; u++) {
		const char *nu = dp_graph_op_name(g, u);
		if (sp->device && sp->device[u] >= 0)
			return bad(g, err,
				   "op '%s' is placed on one device of its "
				   "pipeline stage's group; inside stages "
				   "every op runs on the whole group (data "
				   "parallel)",
				   nu);
		if (!sp->axes || tp)
			continue;
		dp_dims d;
		dp_op_dims(g, u, &d);
		int bi = d.n ? (bd[0] ? dp_op_find_dim(g, u, bd) : -1) : 0;
		uint32_t nd = d.n ? d.n : 1;
		for (uint32_t i = 0; i < nd; i++) {
			if (!sp->axes[(size_t)u * DP_MAX_OP_DIMS + i] ||
			    (int)i == bi)
				continue;
			return bad(g, err,
				   "op '%s': dim '%s' is split inside a "
				   "pipeline stage; stages split only the "
				   "batch dim '%s' (data parallel): tensor "
				   "parallel stages are not supported yet",
				   nu,
				   d.n ? dp_graph_str(g, d.name_off[i]) : "?",
				   bd[0] ? bd : "(none)");
		}
	}
	return tp ? check_tp(g, s, err) : DP_OK;
}
