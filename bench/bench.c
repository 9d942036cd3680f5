/* bench.c - main() of the benchmark driver (make bench, make bench-quick).
 *
 *   build/bench/dnnpart-bench [--quick] [--only SECTIONS] [--tight F]
 *                             [--limit S] [--results DIR] [--graphs DIR]
 *                             [--data DIR] [--shared DIR] [--samples DIR]
 *
 * Runs the scale, quality, interactive and strategies sections (bench.h),
 * printing their tables and writing bench/results/[quick-]SECTION.json. Run
 * it from the repository root. Exit status: 0, 1 when a measurement failed,
 * 2 on a bad option.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: dnnpart-bench [--quick] [--only scale,quality,"
		"interactive,strategies]\n"
		"                     [--placement] [--tight F] [--limit S]\n"
		"                     [--results DIR] [--graphs DIR]\n"
		"                     [--data DIR] [--shared DIR] "
		"[--samples DIR]\n"
		"\n"
		"Speed and memory against graph size, quality against lower "
		"bounds and peers,\n"
		"and the explorer's rerun latency (docs/benchmarks.md). Run "
		"from the repository\n"
		"root; results go to bench/results/.\n"
		"\n"
		"  --quick        about a minute: fewer sizes, K values and "
		"runs\n"
		"  --only LIST    sections to run (default: all; strategies: "
		"strategize, lower\n"
		"                 and simulate sample graphs)\n"
		"  --placement    quality: only the placement algorithms "
		"and best (no\n"
		"                 strategies; results in "
		"quality-placement.json)\n"
		"  --tight F      tight caps = F x one-device peak / K "
		"(default 1.1)\n"
		"  --limit S      skip an algorithm at a size when it is "
		"predicted to take more\n"
		"                 than S seconds per run (default 60; quick "
		"20)\n"
		"  --results DIR  where result files go (bench/results)\n"
		"  --graphs DIR   where generated graphs go "
		"(build/bench/graphs)\n"
		"  --data DIR     the real msr-fiddle and PipeDream inputs "
		"(tests/data)\n"
		"  --shared DIR   where the ParDNN authors' ResNet is, "
		"pardnn-resnet/, if\n"
		"                 anywhere: not in the repository "
		"(../shared/benchmarks)\n"
		"  --samples DIR  the sample graphs (sample_graphs)\n");
}

static bool has_section(const char *only, const char *name)
{
	if (!only)
		return true;
	size_t n = strlen(name);
	for (const char *p = only; (p = strstr(p, name)); p += n)
		if ((p == only || p[-1] == ',') &&
		    (p[n] == '\0' || p[n] == ','))
			return true;
	return false;
}

/* Whether every item of the comma list names a section. */
static bool valid_sections(const char *only)
{
	static const char *names[] = {"scale", "quality", "interactive",
				      "strategies"};
	const char *p = only;
	for (;;) {
		size_t n = strcspn(p, ",");
		bool ok = false;
		for (int s = 0; s < 4; s++)
			ok |= strlen(names[s]) == n &&
			      strncmp(p, names[s], n) == 0;
		if (!ok)
			return false;
		if (!p[n])
			return true;
		p += n + 1;
	}
}

/* Reads the number after OPT; a value that is not a number > 0 (text,
 * trailing junk, 0, negative, inf, nan) is an error naming the option, since
 * atof() would silently turn it into 0 and the default would run instead. */
static bool parse_positive(const char *opt, const char *v, double *out)
{
	char *end = NULL;
	errno = 0;
	double x = strtod(v, &end);
	if (end == v || *end != '\0' || errno || !(x > 0) || !isfinite(x)) {
		fprintf(stderr,
			"dnnpart-bench: %s: expected a number > 0, got '%s'\n",
			opt, v);
		return false;
	}
	*out = x;
	return true;
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "--child") == 0 &&
	    strcmp(argv[2], "strategy") == 0)
		return bench_strategy_child(argc - 2, argv + 2);
	if (argc > 1 && strcmp(argv[1], "--child") == 0)
		return bench_scale_child(argc - 2, argv + 2);
	static char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0) {
		fprintf(stderr, "bench: cannot find this program's path\n");
		return 2;
	}
	self[n] = '\0';
	bench_cfg cfg = {
		.quick = false,
		.results_dir = "bench/results",
		.graphs_dir = "build/bench/graphs",
		.data_dir = "tests/data",
		.shared_dir = "../shared/benchmarks", /* pardnn-resnet */
		.samples_dir = "sample_graphs",
		.self = self,
		.tight = 1.1,
		.limit_s = 0,
	};
	const char *only = NULL;
	/* the options that name a folder or a list */
	static const char *const text_opts[] = {
		"--only",   "--results", "--graphs",
		"--data",   "--shared",	 "--samples"};
	const char **text_vals[] = {&only,	      &cfg.results_dir,
				    &cfg.graphs_dir,  &cfg.data_dir,
				    &cfg.shared_dir, &cfg.samples_dir};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		size_t t = 0;
		while (t < sizeof text_opts / sizeof text_opts[0] &&
		       strcmp(a, text_opts[t]))
			t++;
		if (v && t < sizeof text_opts / sizeof text_opts[0]) {
			*text_vals[t] = v;
			i++;
		} else if (!strcmp(a, "--quick")) {
			cfg.quick = true;
		} else if (!strcmp(a, "--placement")) {
			cfg.placement = true;
		} else if (!strcmp(a, "--full")) {
			cfg.quick = false;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (v && !strcmp(a, "--tight")) {
			if (!parse_positive(a, v, &cfg.tight))
				return 2;
			i++;
		} else if (v && !strcmp(a, "--limit")) {
			if (!parse_positive(a, v, &cfg.limit_s))
				return 2;
			i++;
		} else {
			fprintf(stderr,
				"dnnpart-bench: unknown or incomplete "
				"option '%s'\n",
				a);
			usage(stderr);
			return 2;
		}
	}
	if (cfg.limit_s <= 0) /* not given */
		cfg.limit_s = cfg.quick ? 20 : 60;
	if (only && !valid_sections(only)) {
		fprintf(stderr,
			"dnnpart-bench: --only: expected a comma list of "
			"scale, quality, interactive, strategies; got '%s'\n",
			only);
		return 2;
	}
	bench_print_env(&cfg);
	double t0 = bench_now();
	int rc = 0;
	if (has_section(only, "scale"))
		rc |= bench_scale(&cfg);
	if (has_section(only, "quality"))
		rc |= bench_quality(&cfg);
	if (has_section(only, "interactive"))
		rc |= bench_interactive(&cfg);
	if (has_section(only, "strategies"))
		rc |= bench_strategies(&cfg);
	printf("dnnpart-bench: %s run done in %.0f s%s\n",
	       cfg.quick ? "quick" : "full", bench_now() - t0,
	       rc ? " (some measurements failed, see above)" : "");
	return rc;
}
