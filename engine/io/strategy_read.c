/* strategy_read.c - a strategy file's top level, its placement and pipeline
 * parts, and dp_strategy_read() (strategy_file.c reads the spmd parts;
 * docs/formats.md).
 *
 * A pipeline's ops that "stage" does not list follow their forward op
 * ("default_stage": "follow", the default): in topological order, an op
 * takes the largest stage of its forward (or input, loss) predecessors,
 * else of any predecessor; ops with no predecessor that has a stage (the
 * weights, the inputs) then take, in reverse order, the smallest stage of
 * their consumers, else stage 0. "default_stage": S puts them all on S.
 */
#include "internal/strategy_file.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/levers.h"
#include "dnnpart/load.h"
#include "internal/spmd.h"

#define TOP_KEYS                                                               \
	"format, version, graph, kind, devices, label, algorithm, "            \
	"placement, mesh, ops, default, stages, microbatches, schedule, "      \
	"virtual_stages, stage, default_stage, groups, spmd, "                 \
	"sequence_parallel, bucket, zero_stage, levers"

/* Scans the top-level object, reading the scalars and noting where the
 * other values are. */
static dp_status rd_top(dpi_sread *R, dpi_sread_top *t, dp_strategy *s,
			bool *seen_format)
{
	jscan *js = &R->js;
	const jscan_slot slots[] = {
		{"kind", &t->kind},	    {"devices", &t->devices},
		{"mesh", &t->mesh},	    {"ops", &t->ops},
		{"default", &t->def},	    {"placement", &t->placement},
		{"stages", &t->stages},	    {"microbatches", &t->micro},
		{"schedule", &t->schedule}, {"virtual_stages", &t->virt},
		{"stage", &t->stage},	    {"default_stage", &t->def_stage},
		{"groups", &t->groups},	    {"spmd", &t->spmd},
		{"bucket", &t->bucket},	    {"zero_stage", &t->zero_stage}};
	jscan_iter it;
	dp_status st = dpi_jscan_object_begin(js, &it, "the top-level object");
	size_t k_off;
	while (dpi_jscan_member(js, &it, &k_off, &st)) {
		char key[20];
		bool ok = js->slen < sizeof key;
		snprintf(key, sizeof key, "%s", js->sbuf);
		dpi_jscan_peek(js);
		size_t at = js->pos;
		size_t *slot = NULL;
		long v;
		if (!ok) {
		} else if (strcmp(key, "format") == 0) {
			*seen_format = true;
			if ((st = dpi_sread_str(R, at, "format")))
				break;
			if (strcmp(js->sbuf, "dnnpart-strategy") != 0)
				return dpi_jscan_error_at(
					js, at,
					"format: expected "
					"\"dnnpart-strategy\", "
					"got \"%.60s\"%s",
					js->sbuf,
					strcmp(js->sbuf, "dnnpart-placement") ==
							0
						? " (a placement file: give it "
						  "to eval as a placement)"
						: "");
			continue;
		} else if (strcmp(key, "version") == 0) {
			st = dpi_sread_int(R, at, "version", 1, 1, &v);
			continue;
		} else if (strcmp(key, "graph") == 0) {
			if (!(st = dpi_sread_str(R, at, "graph")))
				snprintf(R->made_for, sizeof R->made_for,
					 "%s", js->sbuf);
			continue;
		} else if (strcmp(key, "levers") == 0) {
			if ((st = dpi_sread_str(R, at, "levers")))
				break;
			dp_err e;
			if (dp_levers_check_file(R->g, js->sbuf, &e))
				return dpi_jscan_error_at(js, at, "%s", e.msg);
			continue;
		} else if (strcmp(key, "sequence_parallel") == 0) {
			bool t = !strncmp(js->text + at, "true", 4),
			     f = !strncmp(js->text + at, "false", 5);
			if (!t && !f)
				return dpi_jscan_error_at(
					js, at,
					"sequence_parallel: expected true or "
					"false, got %s",
					dpi_jscan_kind(js));
			s->sp = t;
			st = dpi_jscan_value(js, NULL, NULL);
			continue;
		} else if (strcmp(key, "label") == 0 ||
			   strcmp(key, "algorithm") == 0) {
			if ((st = dpi_sread_str(R, at, key)))
				break;
			if (key[0] == 'l')
				snprintf(s->label, sizeof s->label, "%s",
					 js->sbuf);
			else
				snprintf(s->algo, sizeof s->algo, "%s",
					 js->sbuf);
			continue;
		} else {
			slot = dpi_jscan_slot(js, slots,
					      sizeof slots / sizeof slots[0]);
		}
		if (!slot)
			return dpi_jscan_error_at(
				js, k_off,
				"unknown key '%.60s': expected "
				"one of " TOP_KEYS,
				js->sbuf);
		*slot = at;
		st = dpi_jscan_value(js, NULL, NULL);
	}
	if (!st)
		st = dpi_jscan_end(js);
	return st;
}

/* Keys that do not belong to the kind. */
static dp_status check_keys(dpi_sread *R, const dpi_sread_top *t,
			    dp_strategy_kind kind)
{
	struct {
		size_t at;
		const char *name;
		unsigned kinds; /* bit per dp_strategy_kind */
	} keys[] = {
		{t->placement, "placement", 1u << DP_STRAT_PLACEMENT},
		{t->mesh, "mesh", 1u << DP_STRAT_SPMD},
		{t->ops, "ops", 1u << DP_STRAT_SPMD},
		{t->def, "default", 1u << DP_STRAT_SPMD},
		{t->stages, "stages", 1u << DP_STRAT_PIPELINE},
		{t->micro, "microbatches", 1u << DP_STRAT_PIPELINE},
		{t->schedule, "schedule", 1u << DP_STRAT_PIPELINE},
		{t->virt, "virtual_stages", 1u << DP_STRAT_PIPELINE},
		{t->stage, "stage", 1u << DP_STRAT_PIPELINE},
		{t->def_stage, "default_stage", 1u << DP_STRAT_PIPELINE},
		{t->groups, "groups", 1u << DP_STRAT_PIPELINE},
		{t->spmd, "spmd", 1u << DP_STRAT_PIPELINE},
		{t->bucket, "bucket",
		 1u << DP_STRAT_SPMD | 1u << DP_STRAT_PIPELINE},
		{t->zero_stage, "zero_stage", 1u << DP_STRAT_SPMD},
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (keys[i].at && !(keys[i].kinds & (1u << kind)))
			return dpi_jscan_error_at(&R->js, keys[i].at,
						  "%s: not part of a %s "
						  "strategy (see "
						  "docs/formats.md)",
						  keys[i].name,
						  dp_strategy_kind_name(kind));
	return DP_OK;
}

static dp_status rd_placement(dpi_sread *R, const dpi_sread_top *t,
			      dp_strategy *s)
{
	jscan *js = &R->js;
	const dp_graph *g = R->g;
	if (!t->placement)
		return dpi_jscan_error_at(
			js, 0,
			"missing \"placement\": the device of "
			"every op, {\"op\": 0, ...}");
	for (uint32_t u = 0; u < g->nops; u++)
		s->placement[u] = -1;
	jscan_iter it;
	dp_status st = dpi_jscan_object_at(js, t->placement, &it, "placement");
	int maxd = 0;
	size_t k_off;
	while (dpi_jscan_member(js, &it, &k_off, &st)) {
		uint32_t u;
		if ((st = dpi_sread_op(R, k_off, "placement", NULL, &u)))
			return st;
		if (s->placement[u] >= 0)
			return dpi_sread_op_twice(R, k_off, "placement");
		snprintf(R->path, sizeof R->path, "placement.%.200s", js->sbuf);
		dpi_jscan_peek(js);
		long d;
		if ((st = dpi_sread_int(R, js->pos, R->path, 0,
					DP_MAX_DEVICES - 1, &d)))
			break;
		s->placement[u] = (int32_t)d;
		maxd = d > maxd ? (int)d : maxd;
	}
	for (uint32_t u = 0; !st && u < g->nops; u++)
		if (s->placement[u] < 0)
			return dpi_jscan_error_at(
				js, t->placement,
				"placement: op '%.200s' has no "
				"device (a placement strategy "
				"lists every op)",
				dp_graph_op_name(g, u));
	if (!st && !s->k)
		s->k = maxd + 1;
	return st;
}

static void spmd_label(dp_strategy *s)
{
	size_t pos = (size_t)snprintf(s->label, sizeof s->label, "spmd ");
	for (int a = 0; a < s->spmd.naxes && pos + 12 < sizeof s->label; a++)
		pos += (size_t)snprintf(s->label + pos, sizeof s->label - pos,
					"%s%d", a ? "x" : "", s->spmd.mesh[a]);
}

/* The "groups" array at off: S groups of gsize devices each. */
static dp_status rd_groups(dpi_sread *R, size_t off, dp_pipeline *pp, int gsize)
{
	jscan *js = &R->js;
	jscan_iter it, ig;
	int16_t *owner = malloc(DP_MAX_DEVICES * sizeof *owner);
	if (!owner)
		return dpi_sread_nomem(R);
	for (int d = 0; d < DP_MAX_DEVICES; d++)
		owner[d] = -1;
	dp_status st = dpi_jscan_array_at(js, off, &it, "groups");
	int ng = 0;
	while (dpi_jscan_element(js, &it, &st)) {
		dpi_jscan_peek(js);
		size_t g_at = js->pos;
		if (ng == pp->nstages) {
			st = dpi_jscan_error_at(
				js, g_at,
				"groups: expected %d groups, one "
				"per stage, got more",
				pp->nstages);
			break;
		}
		snprintf(R->path, sizeof R->path, "groups[%d]", ng);
		if ((st = dpi_jscan_array_begin(js, &ig, R->path)))
			break;
		int n = 0;
		while (dpi_jscan_element(js, &ig, &st)) {
			dpi_jscan_peek(js);
			size_t at = js->pos;
			snprintf(R->path, sizeof R->path, "groups[%d][%d]", ng,
				 n);
			long d;
			if ((st = dpi_sread_int(R, at, R->path, 0,
						DP_MAX_DEVICES - 1, &d)))
				break;
			if (n < gsize && owner[d] >= 0 &&
			    pp->virtual_stages <= 1) {
				st = dpi_jscan_error_at(js, at,
							"%s: device %ld is "
							"already in groups[%d]",
							R->path, d, owner[d]);
				break;
			}
			if (n < gsize) {
				owner[d] = (int16_t)ng;
				pp->group[ng * gsize + n] = (int32_t)d;
			}
			n++;
		}
		if (!st && n != gsize)
			st = dpi_jscan_error_at(js, g_at,
						"groups[%d]: expected %d "
						"device%s (the size of the "
						"spmd mesh), got %d",
						ng, gsize,
						gsize == 1 ? "" : "s", n);
		ng++;
	}
	if (!st && ng != pp->nstages)
		st = dpi_jscan_error_at(js, off,
					"groups: expected %d groups, one per "
					"stage, got %d",
					pp->nstages, ng);
	free(owner);
	return st;
}

/* Stages of the ops "stage" does not list (see the top of the file). */
static void follow_forward(const dp_graph *g, int32_t *stage, uint8_t *known)
{
	uint32_t n = g->nops;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t u = g->topo[k];
		if (known[u])
			continue;
		int32_t bf = -1, ba = -1;
		for (uint32_t i = g->pred_off[u]; i < g->pred_off[u + 1]; i++) {
			uint32_t p = g->edges[g->pred_edge[i]].from;
			if (!known[p])
				continue;
			dp_role r = dp_op_role(g, p);
			if ((r == DP_ROLE_FORWARD || r == DP_ROLE_INPUT ||
			     r == DP_ROLE_LOSS) &&
			    stage[p] > bf)
				bf = stage[p];
			if (stage[p] > ba)
				ba = stage[p];
		}
		if (bf >= 0 || ba >= 0) {
			stage[u] = bf >= 0 ? bf : ba;
			known[u] = 1;
		}
	}
	for (uint32_t k = n; k-- > 0;) {
		uint32_t u = g->topo[k];
		if (known[u])
			continue;
		int32_t best = -1;
		for (uint32_t i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
			uint32_t v = g->edges[g->succ_edge[i]].to;
			if (known[v] && (best < 0 || stage[v] < best))
				best = stage[v];
		}
		stage[u] = best >= 0 ? best : 0;
		known[u] = 1;
	}
}

/* The "stage" object and the default stage. */
static dp_status rd_stages(dpi_sread *R, const dpi_sread_top *t,
			   dp_pipeline *pp)
{
	jscan *js = &R->js;
	const dp_graph *g = R->g;
	uint8_t *known = calloc(g->nops ? g->nops : 1, 1);
	if (!known)
		return dpi_sread_nomem(R);
	dp_status st = DP_OK;
	if (t->stage) {
		jscan_iter it;
		st = dpi_jscan_object_at(js, t->stage, &it, "stage");
		size_t k_off;
		while (dpi_jscan_member(js, &it, &k_off, &st)) {
			uint32_t u;
			if ((st = dpi_sread_op(R, k_off, "stage", known, &u)))
				break;
			snprintf(R->path, sizeof R->path, "stage.%.200s",
				 js->sbuf);
			dpi_jscan_peek(js);
			long v;
			if ((st = dpi_sread_int(R, js->pos, R->path, 0,
						pp->nstages - 1, &v)))
				break;
			pp->stage[u] = (int32_t)v;
			known[u] = 1;
		}
	}
	if (!st && t->def_stage) {
		js->pos = t->def_stage;
		if (dpi_jscan_peek(js) == '"') {
			if (!(st = dpi_sread_str(R, t->def_stage,
						 "default_stage")) &&
			    strcmp(js->sbuf, "follow") != 0)
				st = dpi_jscan_error_at(
					js, t->def_stage,
					"default_stage: expected \"follow\" "
					"or a stage from 0 to %d, got "
					"\"%.60s\"",
					pp->nstages - 1, js->sbuf);
		} else {
			long v;
			st = dpi_sread_int(R, t->def_stage, "default_stage", 0,
					   pp->nstages - 1, &v);
			for (uint32_t u = 0; !st && u < g->nops; u++)
				if (!known[u]) {
					pp->stage[u] = (int32_t)v;
					known[u] = 1;
				}
		}
	}
	if (!st)
		follow_forward(g, pp->stage, known);
	free(known);
	return st;
}

static dp_status rd_pipeline(dpi_sread *R, const dpi_sread_top *t,
			     dp_strategy *s)
{
	jscan *js = &R->js;
	long S, M = 1;
	if (!t->stages)
		return dpi_jscan_error_at(js, 0,
					  "missing \"stages\": the number of "
					  "pipeline stages");
	dp_status st =
		dpi_sread_int(R, t->stages, "stages", 1, DP_MAX_DEVICES, &S);
	if (!st && t->micro)
		st = dpi_sread_int(R, t->micro, "microbatches", 1,
				   DP_MAX_MICROBATCHES, &M);
	long V = 1;
	if (!st && t->virt)
		st = dpi_sread_int(R, t->virt, "virtual_stages", 1,
				   DP_MAX_VIRTUAL_STAGES, &V);
	dp_schedule sched = DP_SCHED_GPIPE;
	if (!st && t->schedule &&
	    !(st = dpi_sread_str(R, t->schedule, "schedule"))) {
		if (dp_schedule_parse(js->sbuf, &sched, NULL))
			st = dpi_jscan_error_at(
				js, t->schedule,
				"schedule: expected \"gpipe\", \"1f1b\", "
				"\"zb-h1\", \"stash\" or \"2bw\", got "
				"\"%.60s\"",
				js->sbuf);
	}
	if (st)
		return st;
	if ((st = dp_strategy_alloc(s, DP_STRAT_PIPELINE, R->g, (int)S,
				    js->err)))
		return st;
	dp_pipeline *pp = &s->pipe;
	pp->microbatches = (int)M;
	pp->schedule = sched;
	pp->virtual_stages = V > 1 ? (int)V : 0;
	dpi_sread_top in;
	memset(&in, 0, sizeof in);
	const jscan_slot spmd_keys[] = {
		{"mesh", &in.mesh}, {"ops", &in.ops}, {"default", &in.def}};
	if (t->spmd) {
		jscan_iter it;
		st = dpi_jscan_object_at(js, t->spmd, &it, "spmd");
		size_t k_off;
		while (dpi_jscan_member(js, &it, &k_off, &st)) {
			size_t *slot = dpi_jscan_slot(js, spmd_keys, 3);
			if (!slot)
				return dpi_jscan_error_at(
					js, k_off,
					"spmd: unknown key '%.60s': expected "
					"mesh, ops or default",
					js->sbuf);
			dpi_jscan_peek(js);
			*slot = js->pos;
			st = dpi_jscan_value(js, NULL, NULL);
		}
		if (!st)
			st = dpi_sread_spmd(R, in.mesh, in.ops, in.def, "spmd.",
					    &s->spmd);
	}
	int gsize = dp_spmd_size(&s->spmd);
	if (!st && gsize > 1) {
		int32_t *grp = realloc(pp->group,
				       (size_t)S * (size_t)gsize * sizeof *grp);
		if (!grp)
			return dpi_sread_nomem(R);
		pp->group = grp;
		for (long i = 0; i < S * gsize; i++)
			grp[i] = (int32_t)i;
		for (long i = 0; i <= S; i++)
			pp->group_off[i] = (int32_t)(i * gsize);
	}
	if (!st && t->groups)
		st = rd_groups(R, t->groups, pp, gsize);
	int maxd = 0;
	for (long i = 0; !st && i < S * gsize; i++)
		maxd = pp->group[i] > maxd ? pp->group[i] : maxd;
	s->k = maxd + 1;
	if (!st)
		st = rd_stages(R, t, pp);
	if (!st)
		snprintf(s->label, sizeof s->label, "%s S=%ld M=%ld",
			 dp_schedule_name(sched), S, M);
	return st;
}

/* An error in a file made for another graph (its "graph" names another):
 * most likely the wrong file, so the message says which graph it was for. */
static void name_the_graph(const char *made_for, const dp_graph *g,
			   dp_status st, dp_err *err)
{
	if (st != DP_EINPUT || !err || !made_for[0] ||
	    (g->name && strcmp(made_for, g->name) == 0))
		return;
	size_t n = strlen(err->msg);
	snprintf(err->msg + n, sizeof err->msg - n,
		 " (this strategy file was made for the graph '%.100s', not "
		 "'%.100s')",
		 made_for, g->name ? g->name : "");
}

/* dpi_strategy_parse; made_for (128 bytes) gets the file's "graph". */
static dp_status parse(const char *path, const char *text, size_t len,
		       const dp_graph *g, dp_strategy *out, char *made_for,
		       dp_err *err)
{
	dpi_sread R;
	memset(&R, 0, sizeof R);
	R.g = g;
	dpi_jscan_init(&R.js, path, text, len, err);
	dpi_sread_top t;
	memset(&t, 0, sizeof t);
	dp_strategy hdr, s;
	dp_strategy_init(&hdr);
	dp_strategy_init(&s);
	bool seen_format = false;
	dp_status st = rd_top(&R, &t, &hdr, &seen_format);
	if (!st && !seen_format)
		st = dpi_jscan_error_at(
			&R.js, 0, "missing \"format\": \"dnnpart-strategy\"");
	if (!st && !t.kind)
		st = dpi_jscan_error_at(&R.js, 0,
					"missing \"kind\": expected "
					"\"placement\", \"spmd\" or "
					"\"pipeline\"");
	dp_strategy_kind kind = DP_STRAT_PLACEMENT;
	if (!st && !(st = dpi_sread_str(&R, t.kind, "kind"))) {
		if (strcmp(R.js.sbuf, "spmd") == 0)
			kind = DP_STRAT_SPMD;
		else if (strcmp(R.js.sbuf, "pipeline") == 0)
			kind = DP_STRAT_PIPELINE;
		else if (strcmp(R.js.sbuf, "placement") != 0)
			st = dpi_jscan_error_at(&R.js, t.kind,
						"kind: expected \"placement\", "
						"\"spmd\" or \"pipeline\", got "
						"\"%.60s\"",
						R.js.sbuf);
	}
	if (!st)
		st = check_keys(&R, &t, kind);
	long devices = 0;
	if (!st && t.devices)
		st = dpi_sread_int(&R, t.devices, "devices", 1, DP_MAX_DEVICES,
				   &devices);
	if (!st && kind == DP_STRAT_PIPELINE) {
		st = rd_pipeline(&R, &t, &s);
	} else if (!st) {
		st = dp_strategy_alloc(&s, kind, g, 0, err);
		s.k = (int)devices;
		if (!st && kind == DP_STRAT_PLACEMENT)
			st = rd_placement(&R, &t, &s);
		if (!st && kind == DP_STRAT_SPMD)
			st = dpi_sread_spmd(&R, t.mesh, t.ops, t.def, "",
					    &s.spmd);
		int size = dp_spmd_size(&s.spmd);
		char mt[64];
		if (!st && kind == DP_STRAT_SPMD && devices && devices != size)
			st = dpi_jscan_error_at(
				&R.js, t.mesh,
				"mesh: %s has %d devices, but \"devices\" "
				"says %ld; the mesh's product must be the "
				"number of devices",
				dpi_spmd_mesh_text(&s.spmd, mt, sizeof mt),
				size, devices);
		if (!st && kind == DP_STRAT_SPMD)
			s.k = size;
	}
	if (!st && devices && s.k > devices)
		st = dpi_jscan_error_at(&R.js, t.devices,
					"devices: %ld, but the strategy uses "
					"device %d",
					devices, s.k - 1);
	if (!st && devices)
		s.k = (int)devices;
	/* absent in files written before buckets and stages: the defaults */
	long v;
	if (!st && t.bucket &&
	    !(st = dpi_sread_int(&R, t.bucket, "bucket", 0, LONG_MAX, &v)))
		s.bucket = v;
	if (!st && t.zero_stage &&
	    !(st = dpi_sread_int(&R, t.zero_stage, "zero_stage", 1, 3, &v)))
		s.zero_stage = (int)v;
	dpi_jscan_free(&R.js);
	memcpy(made_for, R.made_for, sizeof R.made_for);
	if (st) {
		name_the_graph(R.made_for, g, st, err);
		dp_strategy_free(&s);
		return st;
	}
	s.kind = kind;
	if (hdr.label[0])
		memcpy(s.label, hdr.label, sizeof s.label);
	else if (kind == DP_STRAT_SPMD)
		spmd_label(&s);
	memcpy(s.algo, hdr.algo, sizeof s.algo);
	s.sp = hdr.sp;
	*out = s;
	return DP_OK;
}

dp_status dpi_strategy_parse(const char *path, const char *text, size_t len,
			     const dp_graph *g, dp_strategy *out, dp_err *err)
{
	char made_for[128];
	return parse(path, text, len, g, out, made_for, err);
}

dp_status dp_strategy_read(const char *path, const dp_graph *g,
			   const dp_machine *m, dp_strategy *s, dp_err *err)
{
	char *text;
	size_t len;
	dp_status st = dp_load_read_file(path, 0, &text, &len, err);
	if (st)
		return st;
	dp_strategy t;
	char made_for[128] = "";
	st = parse(path, text, len, g, &t, made_for, err);
	free(text);
	if (st)
		return st;
	/* without a machine, check all but the number of devices against
	 * one of the strategy's own size (the lowering checks that) */
	dp_machine own;
	bool own_made = false;
	if (!m) {
		st = dp_machine_init(&own, t.k < 1 ? 1 : t.k, err);
		own_made = st == DP_OK;
		m = &own;
	}
	if (!st)
		st = dp_strategy_check(g, m, &t, err);
	if (own_made)
		dp_machine_free(&own);
	if (st) {
		/* the check's messages name the op and what was wrong; the
		 * fault is in this file, not in the graph's */
		if (err) {
			snprintf(err->file, sizeof err->file, "%s", path);
			err->line = err->col = 0;
		}
		name_the_graph(made_for, g, st, err);
		dp_strategy_free(&t);
		return st;
	}
	*s = t;
	return DP_OK;
}
