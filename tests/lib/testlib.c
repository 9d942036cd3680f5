/* testlib.c - see testlib.h (its text and edit-case readers are in
 * testlib_text.c). */
#include "testlib.h"

#include <cgraph.h>
#include <dirent.h>
#include <locale.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dnnpart/load.h"

static bool cur_failed, cur_skipped;
static char cur_msg[2048], cur_skip[512];

void test_fail(const char *file, int line, const char *fmt, ...)
{
	size_t pos = strlen(cur_msg);
	if (pos < sizeof cur_msg - 1)
		pos += (size_t)snprintf(cur_msg + pos, sizeof cur_msg - pos,
					"%s%s:%d: ", cur_failed ? "; " : "",
					file, line);
	if (pos < sizeof cur_msg - 1) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(cur_msg + pos, sizeof cur_msg - pos, fmt, ap);
		va_end(ap);
	}
	cur_failed = true;
}

bool test_failed(void)
{
	return cur_failed;
}

void test_skip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cur_skip, sizeof cur_skip, fmt, ap);
	va_end(ap);
	cur_skipped = true;
}

const char *test_data_dir(void)
{
	return "tests/data";
}

const char *test_pardnn_resnet(void)
{
	static char dir[1024];
	const char *e = getenv("DNNPART_SHARED");
	snprintf(dir, sizeof dir, "%s/pardnn-resnet",
		 e && e[0] ? e : "../shared/benchmarks");
	struct stat sb;
	if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
		return dir;
	test_skip("%s not present", dir);
	return NULL;
}

/* With arguments, runs only the tests whose names contain one of them. */
int test_main(const struct test_case *cases, int n, int argc, char **argv)
{
	int failed = 0;
	for (int i = 0; i < n; i++) {
		if (argc > 1) {
			bool want = false;
			for (int a = 1; a < argc; a++)
				if (strstr(cases[i].name, argv[a]))
					want = true;
			if (!want)
				continue;
		}
		cur_failed = cur_skipped = false;
		cur_msg[0] = '\0';
		cases[i].fn();
		if (cur_failed) {
			failed++;
			printf("not ok - %s: %s\n", cases[i].name, cur_msg);
		} else if (cur_skipped) {
			printf("skip - %s: %s\n", cases[i].name, cur_skip);
		} else {
			printf("ok - %s\n", cases[i].name);
		}
		fflush(stdout);
	}
	test_tmp_cleanup(); /* a test that wrote files need not remove them */
	return failed ? 1 : 0;
}

uint64_t test_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t test_randn(uint64_t *state, uint32_t n)
{
	return (uint32_t)(test_rand(state) % n);
}

dp_graph *test_random_dag(uint64_t *state, uint32_t n, const char *name)
{
	dp_graph *g = dp_graph_new(name);
	uint32_t *perm = malloc((n ? n : 1) * sizeof *perm);
	if (!g || !perm) {
		dp_graph_free(g);
		free(perm);
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		perm[i] = i;
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = test_randn(state, i), t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	char nm[32];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id;
		snprintf(nm, sizeof nm, "op%u", i);
		dp_graph_add_op(g, nm, &id, NULL);
		dp_op *o = &g->ops[id];
		uint32_t r = test_randn(state, 10);
		o->time_us =
			r < 2	? 0
			: r < 6 ? (double)(1 + test_randn(state, 20))
				: (double)test_randn(state, 100000) / 1000.0;
		o->output_bytes = test_randn(state, 5)
					  ? (int64_t)test_randn(state, 5000)
					  : 0;
		o->param_bytes = test_randn(state, 3) == 0
					 ? (int64_t)test_randn(state, 3000)
					 : 0;
		o->temp_bytes = test_randn(state, 3) == 0
					? (int64_t)test_randn(state, 4000)
					: 0;
	}
	/* position p holds op perm[p]; edges go from lower to higher positions */
	for (uint32_t p = 1; p < n; p++) {
		uint32_t nin = test_randn(state, 5);
		for (uint32_t j = 0; j < nin; j++) {
			uint32_t q = test_randn(state, p);
			bool ctrl = test_randn(state, 8) == 0;
			int64_t bytes =
				test_randn(state, 3) == 0
					? (int64_t)test_randn(state, 6000)
					: -1;
			dp_graph_add_edge(g, perm[q], perm[p], bytes, ctrl,
					  NULL);
		}
	}
	free(perm);
	return test_finalized(g);
}

/* 1 in every: true with that chance (every 0: never). */
static bool one_in(uint64_t *s, uint32_t every)
{
	return every && test_randn(s, every) == 0;
}

static int64_t between(uint64_t *s, int64_t lo, int64_t hi)
{
	return hi > lo ? lo + (int64_t)(test_rand(s) % (uint64_t)(hi - lo + 1))
		       : lo;
}

/* A number of a test_dag_spec word, with an optional K, M or G after it;
 * *end is set after it. */
static long long spec_num(const char *s, char **end)
{
	long long v = strtoll(s, end, 10);
	const char *units = "KMG", *u = **end ? strchr(units, **end) : NULL;
	if (u) {
		v <<= 10 * (int)(u - units + 1);
		(*end)++;
	}
	return v;
}

test_dag_opts test_dag_spec(uint32_t n, const char *spec)
{
	test_dag_opts d = {.n = n};
	/* KEY=A or KEY=A..B or KEY=A:B: A goes to *a or *lo, B to *b */
	const struct {
		const char *key;
		uint32_t *a;
		int64_t *lo, *b;
	} keys[] = {
		{"window", &d.window, NULL, NULL},
		{"inputs", &d.max_inputs, NULL, NULL},
		{"zero_time", &d.zero_time_every, NULL, NULL},
		{"control", &d.control_every, NULL, NULL},
		{"parallel", &d.parallel_every, NULL, NULL},
		{"groups", &d.group_every, NULL, NULL},
		{"out", NULL, &d.out_min, &d.out_max},
		{"params", &d.param_every, NULL, &d.param_max},
		{"temps", &d.temp_every, NULL, &d.temp_max},
		{"bytes", &d.bytes_every, NULL, &d.bytes_max},
	};
	const size_t nkeys = sizeof keys / sizeof keys[0];
	char *copy = strdup(spec), *save = NULL;
	for (char *w = copy ? strtok_r(copy, " ", &save) : NULL; w;
	     w = strtok_r(NULL, " ", &save)) {
		char *v = strchr(w, '='), *end = NULL;
		if (v)
			*v++ = '\0';
		long long a = v ? spec_num(v, &end) : 0, b = 0;
		bool ok = v && end != v;
		if (ok && (*end == '.' || *end == ':')) {
			char *at = end + strspn(end, ".:");
			b = spec_num(at, &end);
			ok = end != at;
		}
		ok = ok && !*end;
		size_t i = 0;
		while (i < nkeys && strcmp(w, keys[i].key))
			i++;
		if (ok && !strcmp(w, "time")) {
			d.time_min = (double)a;
			d.time_max = (double)b;
		} else if (ok && !strcmp(w, "pins")) {
			d.pin_every = (uint32_t)a;
			d.pin_k = (int)b;
		} else if (ok && i < nkeys) {
			if (keys[i].a)
				*keys[i].a = (uint32_t)a;
			if (keys[i].lo)
				*keys[i].lo = a;
			if (keys[i].b)
				*keys[i].b = b;
		} else {
			test_fail(__FILE__, __LINE__,
				  "random DAG shape '%s': cannot read '%s%s%s'",
				  spec, w, v ? "=" : "", v ? v : "");
		}
	}
	free(copy);
	return d;
}

test_dag_opts test_dag_mixed(uint32_t n, bool constraints)
{
	test_dag_opts d = test_dag_spec(
		n,
		"window=40 inputs=3 time=0..199 zero_time=8 out=0..1048575 "
		"params=4:4M temps=5:512K control=10 bytes=6:2M parallel=30");
	d.group_every = constraints ? 20 : 0;
	d.pin_every = constraints ? 30 : 0;
	d.pin_k = 2;
	return d;
}

dp_graph *test_random_dag_with(uint64_t seed, const test_dag_opts *o,
			       const char *name)
{
	uint64_t s = seed * 2654435761u + 17;
	dp_graph *g = dp_graph_new(name);
	char nm[32];
	uint32_t ngroups = o->n / 50 + 1;
	for (uint32_t i = 0; g && i < o->n; i++) {
		uint32_t id;
		snprintf(nm, sizeof nm, "op%u", i);
		if (dp_graph_add_op(g, nm, &id, NULL)) {
			dp_graph_free(g);
			return NULL;
		}
		dp_op *op = &g->ops[id];
		op->time_us =
			one_in(&s, o->zero_time_every)
				? 0
				: (double)between(&s, (int64_t)o->time_min,
						  (int64_t)o->time_max);
		op->output_bytes = between(&s, o->out_min, o->out_max);
		if (one_in(&s, o->param_every))
			op->param_bytes = between(&s, 0, o->param_max);
		if (one_in(&s, o->temp_every))
			op->temp_bytes = between(&s, 0, o->temp_max);
		if (one_in(&s, o->group_every)) {
			snprintf(nm, sizeof nm, "grp%u",
				 test_randn(&s, ngroups));
			dp_graph_set_colocate(g, id, nm, NULL);
		} else if (o->pin_k > 0 && one_in(&s, o->pin_every)) {
			op->pin = (int32_t)test_randn(&s, (uint32_t)o->pin_k);
		}
		uint32_t span = o->window && o->window < i ? o->window : i;
		uint32_t nin =
			i ? 1 + test_randn(&s,
					   o->max_inputs ? o->max_inputs : 1)
			  : 0;
		for (uint32_t j = 0; j < nin; j++) {
			uint32_t from = i - 1 - test_randn(&s, span);
			bool ctl = one_in(&s, o->control_every);
			int64_t bytes = !ctl && one_in(&s, o->bytes_every)
						? between(&s, 0, o->bytes_max)
						: -1;
			dp_graph_add_edge(g, from, id, bytes, ctl, NULL);
			if (one_in(&s, o->parallel_every))
				dp_graph_add_edge(g, from, id, -1, false, NULL);
		}
	}
	if (!g || dp_graph_finalize(g, NULL) != DP_OK) {
		dp_graph_free(g);
		return NULL;
	}
	return g;
}

char *test_read_file(const char *path, size_t *len)
{
	char *text = NULL;
	size_t n = 0;
	if (dp_load_read_file(path, 0, &text, &n, NULL) != DP_OK)
		return NULL;
	if (len)
		*len = n;
	return text;
}

dp_graph *test_load_ok(const char *path)
{
	dp_graph *g = NULL;
	dp_err err;
	if (dp_graph_load(path, DP_FMT_AUTO, &g, &err) != DP_OK) {
		char what[1100];
		snprintf(what, sizeof what, "loading %s", path);
		FAIL_ERR(what, &err);
		return NULL;
	}
	return g;
}

static char tmp_dir[64];

const char *test_tmp_path(const char *name)
{
	static char buf[512];
	if (!tmp_dir[0]) {
		snprintf(tmp_dir, sizeof tmp_dir, "/tmp/dnnpart-test-XXXXXX");
		if (!mkdtemp(tmp_dir)) {
			tmp_dir[0] = '\0';
			return NULL;
		}
	}
	snprintf(buf, sizeof buf, "%s/%s", tmp_dir, name);
	return buf;
}

const char *test_tmp_dir(void)
{
	if (!tmp_dir[0] && !test_tmp_path(""))
		return NULL;
	return tmp_dir;
}

bool test_tmp_cleanup(void)
{
	if (!tmp_dir[0] || getenv("KEEP"))
		return true;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
	bool gone = system(cmd) == 0 && access(tmp_dir, F_OK) != 0;
	if (gone)
		tmp_dir[0] = '\0'; /* the next use makes a fresh one */
	return gone;
}

int test_count_files(const char *prefix)
{
	if (!tmp_dir[0] && !test_tmp_path(""))
		return -1;
	DIR *d = opendir(tmp_dir);
	if (!d)
		return -1;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    strncmp(e->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(d);
	return n;
}

int test_list_files(const char *dir, const char *suffix, char names[][512],
		    int max)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t ls = strlen(suffix);
	int n = 0;
	for (struct dirent *e; n < max && (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (l > ls && !strcmp(e->d_name + l - ls, suffix))
			snprintf(names[n++], 512, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof names[0],
	      (int (*)(const void *, const void *))strcmp);
	return n;
}

uint32_t test_add_opf(dp_graph *g, double t, int64_t out, const char *fmt, ...)
{
	char name[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	return test_add_op(g, name, t, out, NULL);
}

void test_fail_err(const char *file, int line, const char *what,
		   const dp_err *err)
{
	char buf[1600];
	dp_err_format(err, buf, sizeof buf);
	if (what)
		test_fail(file, line, "%s: %s", what, buf);
	else
		test_fail(file, line, "%s", buf);
}

void test_check_file(const char *file, int line, const char *path,
		     const char *want)
{
	char *got = test_read_file(path, NULL);
	if (!got)
		test_fail(file, line, "%s: cannot read it", path);
	else if (strcmp(got, want) != 0)
		test_fail(file, line, "%s holds \"%s\", want \"%s\"", path, got,
			  want);
	free(got);
}

bool test_write_file(const char *path, const char *text)
{
	FILE *f = path ? fopen(path, "w") : NULL;
	if (!f)
		return false;
	bool ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok;
}

dp_graph *test_finalized(dp_graph *g)
{
	if (g && dp_graph_finalize(g, NULL) == DP_OK)
		return g;
	dp_graph_free(g);
	return NULL;
}

uint32_t test_add_op(dp_graph *g, const char *name, double t, int64_t out,
		     const char *layer)
{
	uint32_t id = 0;
	dp_err err;
	if (dp_graph_add_op(g, name, &id, &err) != DP_OK) {
		test_fail(__FILE__, __LINE__, "adding op '%s': %s", name,
			  err.msg);
		return 0;
	}
	g->ops[id].time_us = t;
	g->ops[id].output_bytes = out;
	if (layer)
		dp_graph_set_layer(g, id, layer, NULL);
	return id;
}

uint32_t test_add_role_op(dp_graph *g, const char *name, double t, int64_t out,
			  dp_role role)
{
	uint32_t id = test_add_op(g, name, t, out, NULL);
	if (role != DP_ROLE_NONE && dp_graph_set_role(g, id, role, NULL))
		test_fail(__FILE__, __LINE__, "set_role %s", name);
	return id;
}

void test_add_edge(dp_graph *g, uint32_t a, uint32_t b)
{
	if (dp_graph_add_edge(g, a, b, -1, false, NULL))
		test_fail(__FILE__, __LINE__, "add_edge");
}

uint32_t test_add_grad(dp_graph *g, uint32_t f, uint32_t from, double t,
		       int64_t out)
{
	char name[256];
	snprintf(name, sizeof name, "%s/grad", dp_graph_op_name(g, f));
	uint32_t b = test_add_role_op(g, name, t, out, DP_ROLE_BACKWARD);
	test_add_edge(g, from, b);
	test_add_edge(g, f, b);
	return b;
}

void test_add_edges(dp_graph *g, const uint32_t (*e)[2], size_t n)
{
	for (size_t i = 0; i < n; i++)
		test_add_edge(g, e[i][0], e[i][1]);
}

bool test_comma_locale(void)
{
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8"))
		return true;
	const char *dir = test_tmp_dir();
	if (!dir)
		return false;
	char cmd[512];
	snprintf(cmd, sizeof cmd,
		 "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1",
		 dir);
	if (system(cmd) != 0)
		return false;
	setenv("LOCPATH", dir, 1);
	return setlocale(LC_NUMERIC, "de_DE.UTF-8") != NULL;
}

Agraph_t *test_read_dot(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	Agraph_t *G = agread(f, NULL);
	fclose(f);
	return G;
}
