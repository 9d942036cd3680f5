/* cmd_fit_levers.c - `dnnpart fit GRAPH` searching the levers (the
 * engine's dp_fit_search_run, include/dnnpart/fit.h): the probes of K, the
 * candidates at the answer's K with their step and what made them fit, the
 * answer; -o writes that plan (the set's graph at that K, rerun). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"
#include "dnnpart/fit.h"
#include "dnnpart/json.h"
#include "dnnpart/levers.h"
#include "dnnpart/placement.h"
#include "dnnpart/units.h"
#include "fmt.h"

int cli_fit_write_plan(const cli_opts *o, const dp_algo *algo, int k,
		       int zero_stage, const char *levers)
{
	dp_levers lv;
	dp_err err;
	dp_levers_parse_set(levers, &lv, &err); /* the search's own */
	cli_opts one = *o;
	one.precision = dp_precision_name(lv.precision);
	one.recompute = dp_recompute_name(lv.recompute);
	one.fuse = dp_fuse_name(lv.fuse);
	one.offload = dp_offload_name(lv.offload);
	one.k = k;
	one.zero_stage = zero_stage;
	dp_graph *g;
	dp_machine m;
	int rc = cli_load_graph_machine(&one, &g, &m);
	if (rc)
		return rc;
	cli_run run;
	cli_run_begin(&run, &one, "planning");
	dp_plan plan;
	dp_status st = dp_plan_run(g, &m, algo, &run.ao, &run.cp.p, &plan,
				   &run.err);
	if (!st) {
		st = plan.strat ? dp_strategy_write(o->out, g, plan.strat,
						    o->force, &run.err)
				: dp_placement_write_json(o->out, g, &plan,
							  &run.err);
		dp_plan_free(&plan);
	}
	rc = cli_run_end(&run, st);
	dp_machine_free(&m);
	dp_graph_free(g);
	return rc;
}

/* " --opt value" for each machine option o was given, into buf. */
static void machine_args(const cli_opts *o, char *buf, size_t size)
{
	const char *names[] = {"--batch", "--gpu",  "--mem",   "--speed",
			       "--reserve", "--link", "--bw",  "--lat",
			       "--kernel-overhead"};
	char batch[32] = "";
	if (o->batch)
		snprintf(batch, sizeof batch, "%lld", o->batch);
	const char *vals[] = {o->batch ? batch : NULL, o->gpu, o->mem,
			      o->speeds, o->reserve, o->link, o->bw, o->lat,
			      o->kernel};
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (vals[i] && len < size)
			len += (size_t)snprintf(buf + len, size - len,
						" %s %s", names[i], vals[i]);
}

static const char *skip_why(dp_fit_skip s)
{
	return s == DP_FIT_SKIP_BOUND	  ? "estimate no better than the "
					    "fastest fit"
	       : s == DP_FIT_SKIP_HEAVIER ? "a set saving as much did not "
					    "fit"
					  : "refused";
}

static void print_cand(const dp_fit_cand *c, bool best)
{
	char n[32], t[32], e[32], b[32];
	printf("%c %-9s %-24s %-22s %9s %9s  ", best ? '*' : ' ',
	       dp_fit_cand_strategy(c, n, sizeof n), c->levers,
	       c->skip == DP_FIT_RAN ? c->run.strategy : "-",
	       c->skip == DP_FIT_RAN
		       ? dp_units_fmt_time(c->run.makespan, t, sizeof t)
		       : "-",
	       dp_units_fmt_time(c->bound, e, sizeof e));
	if (c->skip == DP_FIT_SKIP_REFUSED)
		printf("refused: %.48s%s\n", c->note,
		       strlen(c->note) > 48 ? "..." : "");
	else if (c->run.feasible)
		printf("fits%s%s\n", c->made_fit[0] ? "  made by " : "",
		       c->made_fit);
	else
		printf("over by %s\n",
		       dp_units_fmt_bytes(c->run.over, b, sizeof b));
}

static void print_human(const cli_opts *o, const dp_graph *g,
			const dp_machine *m, const dp_fit_search *s)
{
	char a[32], b[32], c[48];
	const dp_fit_result *r = &s->r;
	printf("fit          smallest K for caps %s (device 0's), then the "
	       "fastest plan there\ngraph        %s, %u ops\n",
	       fmt_cap(m->cap[0], a, sizeof a), g->name, g->nops);
	printf("search       %s x %zu lever set%s (docs/memory.md); %zu "
	       "reruns\n",
	       o->algo ? o->algo->name : "7 strategies", s->nsets,
	       s->nsets == 1 ? "" : "s", s->runs);
	if (r->k_step > 1)
		printf("K            multiples of %d only (%s runs on K that "
		       "its --tp %d divides)\n",
		       r->k_step, o->algo ? o->algo->name : "", r->k_step);
	if (s->nrefused)
		printf("left out     %zu lever set%s the graph refuses (%s)\n",
		       s->nrefused, s->nrefused == 1 ? "" : "s", s->refused);
	printf("\nprobe     K  plan                  levers                  "
	       "    makespan  result\n");
	for (size_t i = 0; i < r->nprobes; i++) {
		const dp_fit_probe *p = &r->probes[i];
		printf("%5zu  %4d  %-20s  %-24s  %11s  ", i + 1, p->k,
		       p->strategy[0] ? p->strategy : "-",
		       p->levers[0] ? p->levers : "-",
		       dp_units_fmt_time(p->makespan, b, sizeof b));
		if (p->feasible)
			printf("fits\n");
		else if (p->worst < 0)
			printf("no strategy took this K\n");
		else
			printf("device %d over by %s\n", p->worst,
			       dp_units_fmt_bytes(p->over, c, sizeof c));
	}
	int k = dp_fit_search_k(s);
	size_t skipped[4] = {0};
	printf("\ncandidates at K=%d (run; the fastest fit first)\n"
	       "  strategy  levers                   plan                   "
	       "  makespan  estimate  result\n",
	       k);
	size_t *rows = malloc((s->ncands + 1) * sizeof *rows);
	size_t n = rows ? dp_fit_search_rows(s, k, rows, skipped) : 0;
	for (size_t i = 0; i < n; i++)
		print_cand(&s->cands[rows[i]], (int)rows[i] == s->best);
	free(rows);
	for (int w = DP_FIT_SKIP_BOUND; w <= DP_FIT_SKIP_HEAVIER; w++)
		if (skipped[w])
			printf("  not run: %zu (%s)\n", skipped[w],
			       skip_why((dp_fit_skip)w));
	printf("\n");
	if (s->best < 0) {
		printf("answer       no combination fits with any K tried\n");
		return;
	}
	const dp_fit_cand *x = &s->cands[s->best];
	printf("answer       fits with %d device%s: %s, levers %s "
	       "(makespan %s)\n",
	       x->k, x->k == 1 ? "" : "s", x->run.strategy, x->levers,
	       dp_units_fmt_time(x->run.makespan, b, sizeof b));
	if (x->made_fit[0])
		printf("made fit by  %s (without it %s did not fit at K=%d)\n",
		       x->made_fit, dp_fit_cand_strategy(x, c, sizeof c), x->k);
	cli_fit_print_accumulation(stdout, &x->run);
}

static void json_levers(dp_json *w, const char *set)
{
	dp_levers lv;
	dp_err err;
	dp_levers_parse_set(set, &lv, &err);
	dp_json_str(w, "levers", set);
	dp_json_str(w, "precision", dp_precision_name(lv.precision));
	dp_json_str(w, "recompute", dp_recompute_name(lv.recompute));
	dp_json_str(w, "fuse", dp_fuse_name(lv.fuse));
}

static void json_cand(dp_json *w, const char *key, const dp_fit_cand *x)
{
	char n[32];
	dp_json_begin_line(w, key);
	dp_json_int(w, "k", x->k);
	dp_json_str(w, "algorithm", x->algo->name);
	dp_json_str(w, "name", dp_fit_cand_strategy(x, n, sizeof n));
	if (x->zero_stage)
		dp_json_int(w, "zero_stage", x->zero_stage);
	json_levers(w, x->levers);
	dp_json_num(w, "estimate_us", x->bound);
	dp_json_str(w, "strategy", x->run.strategy);
	dp_json_num(w, "makespan_us", x->run.makespan);
	dp_json_bool(w, "feasible", x->run.feasible);
	if (x->run.microbatches > 0) {
		dp_json_int(w, "stages", x->run.stages);
		dp_json_int(w, "microbatches", x->run.microbatches);
	}
	if (x->run.feasible)
		dp_json_str(w, "made_fit", x->made_fit);
	else
		dp_json_int(w, "over_bytes", x->run.over);
	dp_json_end_object(w);
}

static void print_json(const cli_opts *o, const dp_graph *g,
		       const dp_fit_search *s)
{
	dp_json w;
	cli_json_begin(&w, stdout, g, o->graph_path);
	dp_json_int(&w, "ops", g->nops);
	dp_json_str(&w, "search", "k");
	dp_json_int(&w, "lever_sets", (long long)s->nsets);
	dp_json_int(&w, "reruns", (long long)s->runs);
	dp_json_bool(&w, "found", s->best >= 0);
	if (s->best >= 0) {
		const dp_fit_cand *x = &s->cands[s->best];
		dp_json_int(&w, "k", x->k);
		cli_json_caps(&w, "caps_bytes", s->r.caps, s->r.k);
		dp_json_num(&w, "makespan_us", x->run.makespan);
		json_cand(&w, "plan", x);
	} else {
		dp_json_null(&w, "k");
	}
	dp_json_begin_array(&w, "probes");
	for (size_t i = 0; i < s->r.nprobes; i++) {
		const dp_fit_probe *p = &s->r.probes[i];
		dp_json_begin_line(&w, NULL);
		dp_json_int(&w, "k", p->k);
		dp_json_num(&w, "makespan_us", p->makespan);
		dp_json_bool(&w, "feasible", p->feasible);
		dp_json_str(&w, "strategy", p->strategy);
		dp_json_str(&w, "levers", p->levers);
		dp_json_end_object(&w);
	}
	dp_json_end_array(&w);
	dp_json_begin_array(&w, "candidates");
	for (size_t i = 0; i < s->ncands; i++)
		if (s->cands[i].skip == DP_FIT_RAN)
			json_cand(&w, NULL, &s->cands[i]);
	dp_json_end_array(&w);
	dp_json_end_object(&w);
	fputc('\n', stdout);
}

int cli_fit_levers(const cli_opts *o, const dp_algo *algo,
		   const dp_fit_opts *fo, bool *plain)
{
	int rc = 0;
	*plain = false;
	if (o->out) {
		cli_out_rule rule = {{o->graph_path, NULL}, o->force};
		if ((rc = cli_check_output(o->out, &rule)))
			return rc;
	}
	dp_graph *g;
	dp_machine m;
	if ((rc = cli_load_graph_machine(o, &g, &m)))
		return rc;
	/* the --gpu preset's 2-byte precision and GEMM ratio (cli_levers) */
	dp_fit_search_opts so = {
		.levers = o->levers,
		.fp16 = m.levers.no_bf16,
		.gemm_ratio = m.levers.gemm_ratio,
		.algo = algo,
		.max_k = fo->max_k,
		.stop_without_levers = true};
	cli_run run;
	cli_run_begin(&run, o, "fitting");
	dp_fit_search s;
	rc = cli_run_end(&run, dp_fit_search_run(g, &m, &run.ao, &so,
						 &run.cp.p, &s, &run.err));
	if (rc)
		goto out;
	if (s.nsets == 1 && !s.r.nprobes) {
		*plain = true; /* no lever applies: the plain search */
	} else {
		if (o->json)
			print_json(o, g, &s);
		else
			print_human(o, g, &m, &s);
		if (s.best >= 0 && o->out &&
		    !(rc = cli_fit_write_plan(o, s.cands[s.best].algo,
					      s.cands[s.best].k,
					      s.cands[s.best].zero_stage,
					      s.cands[s.best].levers)) &&
		    !o->json) {
			char args[512];
			machine_args(o, args, sizeof args);
			dp_levers lv;
			dp_err e;
			dp_levers_parse_set(s.cands[s.best].levers, &lv, &e);
			printf("\nplan written to %s; check it with\n  dnnpart "
			       "eval --strict %s %s%s --precision %s "
			       "--recompute %s --fuse %s%s%s\n",
			       o->out, o->graph_path, o->out, args,
			       dp_precision_name(lv.precision),
			       dp_recompute_name(lv.recompute),
			       dp_fuse_name(lv.fuse),
			       lv.offload ? " --offload " : "",
			       lv.offload ? dp_offload_name(lv.offload) : "");
		}
		if (!rc && o->strict && s.best < 0)
			rc = 1;
	}
	dp_fit_search_free(&s);
out:
	dp_machine_free(&m);
	dp_graph_free(g);
	return rc;
}
