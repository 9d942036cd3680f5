/* cmd_gen.c - `dnnpart gen --ops N -o FILE.json`: write a deterministic
 * synthetic training graph (include/dnnpart/gen.h) for tests and benchmarks.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dnnpart/gen.h"
#include "dnnpart/units.h"

void cmd_gen_help(FILE *out)
{
	fprintf(out,
		"usage: dnnpart gen --ops N [--seed S] [-k K] [--mem CAP] "
		"[--name NAME]\n"
		"                   [--towers T] [--width W] [--batch B] "
		"[--image I]\n"
		"                   -o FILE.json [--force]\n"
		"\n"
		"Writes a synthetic training graph of exactly N ops as native "
		"dnnpart JSON: a\n"
		"multi-tower ResNet/Inception-like CNN (stem; T towers of four "
		"stages of residual\n"
		"and branch-and-join blocks that exchange features where a "
		"stage begins; a\n"
		"classifier over the towers; loss), its mirrored backward pass "
		"with\n"
		"forward->backward edges for saved activations, and an Adam "
		"update per weight\n"
		"tensor colocated with its variable. Times are FLOP- and "
		"bandwidth-based for a\n"
		"V100-class GPU; sizes are fp32 tensor sizes. The same options "
		"give the same\n"
		"file on every machine.\n"
		"\n"
		"Scale rule: depth grows with N; towers grow too (1 below 4k "
		"ops, +1 each time N\n"
		"quadruples, at most 8), and width, image size and batch are "
		"chosen so that the\n"
		"step's peak memory on one device is about %lld GiB, whatever "
		"N. Any of them\n"
		"can be fixed; the rule fills in the others. The model chosen "
		"is printed.\n"
		"\n"
		"options:\n"
		"  --ops N            op count, %u..%u; k and M suffixes "
		"(10k, 1M) are\n"
		"                     thousands and millions\n"
		"  --seed S           PRNG seed, 0..2^64-1 (default 1)\n"
		"  --towers T         parallel towers, 1..%u\n"
		"  --width W          stage-1 channels per tower, 4..%u\n"
		"  --batch B          samples per step, 1..%u\n"
		"  --image I          image side in pixels, a multiple of 32 "
		"up to %u\n"
		"  -k, --k, --devices K\n"
		"                     write a machine block with K devices\n"
		"  --mem CAP          ... and this memory cap per device "
		"(16GiB)\n"
		"  --name NAME        graph name (default synthetic-N)\n"
		"  -o FILE            output file (written to a temporary name "
		"and renamed)\n"
		"  --force            replace FILE if it exists\n"
		"  -h, --help         this text\n",
		(long long)(DP_GEN_MEMORY_TARGET >> 30), DP_GEN_MIN_OPS,
		DP_GEN_MAX_OPS, DP_GEN_MAX_TOWERS, DP_GEN_MAX_WIDTH,
		DP_GEN_MAX_BATCH, DP_GEN_MAX_IMAGE);
}

/* "10000", "10k", "1M" (decimal thousands and millions). */
static int parse_ops(const char *s, uint32_t *ops)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned long long mult = 1;
	if (end != s && (*end == 'k' || *end == 'K')) {
		mult = 1000;
		end++;
	} else if (end != s && *end == 'M') {
		mult = 1000000;
		end++;
	}
	if (end == s || *end || s[0] == '-' || v > DP_GEN_MAX_OPS ||
	    v * mult > DP_GEN_MAX_OPS || v * mult < DP_GEN_MIN_OPS)
		return cli_usage_error("gen",
				       "bad --ops '%s': expected an op count "
				       "from %u to %u (10k and 1M work too)",
				       s, DP_GEN_MIN_OPS, DP_GEN_MAX_OPS);
	*ops = (uint32_t)(v * mult);
	return 0;
}

/* Value of "--opt V" or "--opt=V"; NULL (with *rc = 2) when missing. */
static const char *value(int argc, char **argv, int *i, size_t namelen, int *rc)
{
	const char *a = argv[*i];
	if (a[namelen] == '=')
		return a + namelen + 1;
	if (*i + 1 < argc)
		return argv[++*i];
	*rc = cli_usage_error("gen", "option %s needs a value", a);
	return NULL;
}

static bool is_opt(const char *a, const char *name)
{
	size_t l = strlen(name);
	return !strncmp(a, name, l) && (a[l] == '\0' || a[l] == '=');
}

/* --towers, --width, --batch, --image: a whole number in the field's
 * range (dp_gen_compute_scale() checks the image's multiple of 32). */
static int parse_scale(int argc, char **argv, int *i, dp_gen_opts *go)
{
	static const struct {
		const char *name;
		long max;
	} f[] = {{"--towers", DP_GEN_MAX_TOWERS},
		 {"--width", DP_GEN_MAX_WIDTH},
		 {"--batch", DP_GEN_MAX_BATCH},
		 {"--image", DP_GEN_MAX_IMAGE}};
	uint32_t *dst[] = {&go->towers, &go->width, &go->batch, &go->image};
	int rc = 0;
	for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
		if (!is_opt(argv[*i], f[k].name))
			continue;
		long v;
		const char *s = value(argc, argv, i, strlen(f[k].name), &rc);
		if (!s)
			return rc;
		long lo = k == 1 ? 4 : k == 3 ? 32 : 1;
		if ((rc = cli_parse_int("gen", f[k].name, s, lo, f[k].max, &v)))
			return rc;
		*dst[k] = (uint32_t)v;
		return 0;
	}
	return cli_usage_error("gen", "unexpected argument '%s'", argv[*i]);
}

int cmd_gen_run(int argc, char **argv)
{
	dp_gen_opts go;
	dp_gen_opts_default(&go);
	bool have_ops = false;
	const char *out = NULL, *v;
	bool force = false;
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (is_opt(a, "--ops")) {
			if (!(v = value(argc, argv, &i, 5, &rc)) ||
			    (rc = parse_ops(v, &go.ops)))
				return rc;
			have_ops = true;
		} else if (is_opt(a, "--seed")) {
			if (!(v = value(argc, argv, &i, 6, &rc)))
				return rc;
			char *end;
			go.seed = strtoull(v, &end, 10);
			if (!v[0] || *end || v[0] == '-')
				return cli_usage_error(
					"gen",
					"bad --seed '%s': expected a whole "
					"number >= 0",
					v);
		} else if (!strncmp(a, "-k", 2) && a[2] >= '0' && a[2] <= '9') {
			long k; /* -k4 */
			if ((rc = cli_parse_int("gen", "-k", a + 2, 1,
						DP_MAX_DEVICES, &k)))
				return rc;
			go.devices = (int)k;
		} else if (is_opt(a, "-k") || is_opt(a, "--k") ||
			   is_opt(a, "--devices")) {
			long k;
			size_t len = is_opt(a, "--devices") ? 9
				     : is_opt(a, "--k")	    ? 3
							    : 2;
			if (!(v = value(argc, argv, &i, len, &rc)) ||
			    (rc = cli_parse_int("gen", "-k", v, 1,
						DP_MAX_DEVICES, &k)))
				return rc;
			go.devices = (int)k;
		} else if (is_opt(a, "--mem")) {
			dp_err err;
			if (!(v = value(argc, argv, &i, 5, &rc)))
				return rc;
			if (dp_machine_parse_cap(v, &go.memory_bytes, &err))
				return cli_usage_error("gen", "--mem %s: %s", v,
						       err.msg);
			if (go.memory_bytes == DP_CAP_UNLIMITED)
				go.memory_bytes = 0; /* no cap in the file */
		} else if (is_opt(a, "--towers") || is_opt(a, "--width") ||
			   is_opt(a, "--batch") || is_opt(a, "--image")) {
			if ((rc = parse_scale(argc, argv, &i, &go)))
				return rc;
		} else if (is_opt(a, "--name")) {
			if (!(v = value(argc, argv, &i, 6, &rc)))
				return rc;
			go.name = v;
		} else if (!strcmp(a, "--force")) {
			force = true;
		} else if (is_opt(a, "-o")) {
			if (!(v = value(argc, argv, &i, 2, &rc)))
				return rc;
			out = v;
		} else {
			return cli_usage_error("gen",
					       "unexpected argument '%s'", a);
		}
	}
	if (!have_ops)
		return cli_usage_error("gen", "missing --ops N");
	if (!out)
		return cli_usage_error("gen", "missing -o FILE.json");
	cli_out_rule rule = {{NULL, NULL}, force};
	if ((rc = cli_check_output(out, &rule)))
		return rc;
	dp_graph *g;
	dp_err err;
	dp_err_clear(&err);
	dp_gen_scale sc;
	if (dp_gen_compute_scale(&go, &sc, &err))
		return cli_error(&err);
	/* the rule's choice, so that dp_gen_graph() need not search again */
	go.towers = sc.towers;
	go.width = sc.width;
	go.batch = sc.batch;
	go.image = sc.image;
	if (dp_gen_graph(&go, &g, &err))
		return cli_error(&err);
	if ((rc = cli_check_output(out, &rule))) {
		dp_graph_free(g);
		return rc;
	}
	if (dp_gen_write_json(out, g, &err)) {
		dp_graph_free(g);
		return cli_error(&err);
	}
	char wb[32], ab[32], eb[32];
	printf("wrote %s: graph %s, %u ops, %u edges, seed %llu\n", out,
	       g->name, g->nops, g->nedges, (unsigned long long)go.seed);
	printf("model: %u tower%s of width %u, batch %u, %ux%u images; "
	       "weights %s, activations %s, estimated one-device peak %s\n",
	       sc.towers, sc.towers == 1 ? "" : "s", sc.width, sc.batch,
	       sc.image, sc.image,
	       dp_units_fmt_bytes(sc.weight_bytes, wb, sizeof wb),
	       dp_units_fmt_bytes(sc.act_bytes, ab, sizeof ab),
	       dp_units_fmt_bytes(sc.estimate_bytes, eb, sizeof eb));
	dp_graph_free(g);
	return 0;
}
