/* algo.c - the algorithm registry (see algo.h).
 *
 * To add an algorithm: define `const dp_algo algo_NAME` in algo_NAME.c,
 * declare it below and add it to the table. dp_algo_default() is best.
 */
#include "dnnpart/algo.h"

#include <pthread.h>
#include <string.h>

#include "internal/algo_int.h"

extern const dp_algo dpi_algo_pardnn;
extern const dp_algo dpi_algo_single;
extern const dp_algo dpi_algo_mtopo;
extern const dp_algo dpi_algo_metf;
extern const dp_algo dpi_algo_heft;
extern const dp_algo dpi_algo_metis;
extern const dp_algo dpi_algo_contig;
extern const dp_algo dpi_algo_mincut;
extern const dp_algo dpi_algo_dp;
extern const dp_algo dpi_algo_zero;
extern const dp_algo dpi_algo_gpipe;
extern const dp_algo dpi_algo_1f1b;
extern const dp_algo dpi_algo_pipedream;
extern const dp_algo dpi_algo_hybrid;
extern const dp_algo dpi_algo_ilp;
extern const dp_algo dpi_algo_msr_dp;
extern const dp_algo dpi_algo_pase;
extern const dp_algo dpi_algo_tofu;
extern const dp_algo dpi_algo_megatron;

extern const dp_algo dpi_algo_best;

/* placements first, then the strategies (docs/algorithms.md), then those run
 * only on request (dp_algo_compared() is a prefix of this table); best, which
 * runs the placements, last, so that the explorer's `a` goes from best (the
 * default) to pardnn in one key */
static const dp_algo *const registry[] = {
	&dpi_algo_pardnn,   &dpi_algo_single,	 &dpi_algo_mtopo,
	&dpi_algo_metf,	    &dpi_algo_heft,	 &dpi_algo_metis,
	&dpi_algo_contig,   &dpi_algo_mincut,	 &dpi_algo_msr_dp,
	&dpi_algo_dp,	    &dpi_algo_zero,	 &dpi_algo_gpipe,
	&dpi_algo_1f1b,	    &dpi_algo_pase,	 &dpi_algo_tofu,
	&dpi_algo_megatron, &dpi_algo_pipedream, &dpi_algo_hybrid,
	&dpi_algo_ilp,	    &dpi_algo_best,
};

#define NREG (sizeof registry / sizeof registry[0])

size_t dp_algo_count(void)
{
	return NREG;
}

const dp_algo *dp_algo_at(size_t i)
{
	return i < NREG ? registry[i] : NULL;
}

const dp_algo *dp_algo_find(const char *name)
{
	for (size_t i = 0; i < NREG; i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

const dp_algo *dp_algo_default(void)
{
	return &dpi_algo_best;
}

static char names_buf[512];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

/* The list is built once (pthread_once: dp_algo_names may first be called
 * from the worker and the front end at the same time); a name that would
 * not fit ends it with "..." rather than being cut in the middle. */
static void names_fill(void)
{
	size_t pos = 0;
	for (size_t i = 0; i < NREG; i++) {
		size_t n = strlen(registry[i]->name);
		if (pos + n + 2 + 4 >= sizeof names_buf) {
			memcpy(names_buf + pos, i ? ", ..." : "...", i ? 5 : 3);
			pos += i ? 5 : 3;
			break;
		}
		if (i) {
			memcpy(names_buf + pos, ", ", 2);
			pos += 2;
		}
		memcpy(names_buf + pos, registry[i]->name, n);
		pos += n;
	}
	names_buf[pos] = '\0';
}

const char *dp_algo_names(void)
{
	pthread_once(&names_once, names_fill);
	return names_buf;
}

const dp_algo *const *dp_algo_all(void)
{
	return registry;
}

static const dp_algo *compared[NREG];
static size_t ncompared;
static pthread_once_t compared_once = PTHREAD_ONCE_INIT;

static void compared_fill(void)
{
	for (size_t i = 0; i < NREG; i++)
		if (!registry[i]->on_request)
			compared[ncompared++] = registry[i];
}

const dp_algo *const *dp_algo_compared(size_t *n)
{
	pthread_once(&compared_once, compared_fill);
	*n = ncompared;
	return compared;
}

dp_status dp_algo_lookup(const char *name, const dp_algo **out, dp_err *err)
{
	const dp_algo *a = dp_algo_find(name);
	if (!a)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "unknown algorithm '%s' (known: %s)", name,
				  dp_algo_names());
	*out = a;
	return DP_OK;
}

dp_status dp_algo_parse_list(const char *spec, const dp_algo **out, size_t cap,
			     size_t *n, dp_err *err)
{
	size_t got = 0;
	const char *p = spec;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char name[64];
		if (len == 0 || len >= sizeof name)
			return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
					  "expected a comma list of algorithm "
					  "names (%s), got '%s'",
					  dp_algo_names(), spec);
		memcpy(name, p, len);
		name[len] = '\0';
		const dp_algo *a = NULL;
		dp_status st = dp_algo_lookup(name, &a, err);
		if (st)
			return st;
		for (size_t i = 0; i < got; i++)
			if (out[i] == a)
				return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
						  "'%s' is listed twice", name);
		if (got == cap)
			return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
					  "more than %zu algorithms in '%s'",
					  cap, spec);
		out[got++] = a;
		if (!comma)
			break;
		p = comma + 1;
	}
	*n = got;
	return DP_OK;
}

dp_status dp_algo_place(const dp_algo *algo, const dp_graph *g,
			const dp_machine *m, const dp_algo_opts *o,
			const dp_progress *p, int32_t *placement, dp_err *err)
{
	dp_algo_opts def;
	o = dpi_algo_opts_or_default(o, &def);
	if (!algo->run)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "'%s' splits ops or micro-batches: it makes "
				  "a strategy, not a placement of the graph's "
				  "ops",
				  algo->name);
	dp_status st = dp_algo_check_pins(g, m, err);
	if (st)
		return st;
	return algo->run(g, m, o, p, placement, err);
}
