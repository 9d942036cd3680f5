/* bench_util.c - clocks, statistics, child processes and result files for
 * the benchmark driver (see bench.h). */
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dnnpart/gen.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"

extern char **environ;

void bench_plan_row_fill(bench_plan_row *r, const dp_plan *p)
{
	r->ok = true;
	r->makespan = p->sim.makespan;
	r->xlb = p->xlb;
	r->speedup = p->speedup;
	r->feasible = p->feasible;
	r->plan_ms = p->plan_ms;
}

double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
	if (n <= 0)
		return NAN;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double bench_growth(double n1, double t1, double n2, double t2)
{
	if (!(t1 > 0) || !(t2 > 0) || !(n1 > 0) || n1 == n2)
		return NAN;
	return log(t2 / t1) / log(n2 / n1);
}

double bench_geomean(const double *v, int n)
{
	if (n <= 0)
		return NAN;
	double s = 0;
	for (int i = 0; i < n; i++)
		s += log(v[i]);
	return exp(s / n);
}

int bench_spawn(char *const argv[], double timeout_s, bench_child *c)
{
	memset(c, 0, sizeof *c);
	int fds[2];
	if (pipe(fds) != 0) {
		fprintf(stderr, "bench: pipe: %s\n", strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	posix_spawn_file_actions_addclose(&fa, fds[1]);
	pid_t pid;
	double t0 = bench_now();
	int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc != 0) {
		fprintf(stderr, "bench: cannot start %s: %s\n", argv[0],
			strerror(rc));
		close(fds[0]);
		return -1;
	}
	/* the child writes a few lines; read them while it runs so that a
	 * long output can never block it on a full pipe */
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	size_t len = 0;
	int status = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	for (;;) {
		ssize_t n;
		char sink[1024];
		while ((n = read(fds[0],
				 len + 1 < sizeof c->out ? c->out + len : sink,
				 len + 1 < sizeof c->out
					 ? sizeof c->out - 1 - len
					 : sizeof sink)) > 0)
			if (len + 1 < sizeof c->out)
				len += (size_t)n;
		pid_t w = wait4(pid, &status, WNOHANG, &ru);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			fprintf(stderr, "bench: wait4: %s\n", strerror(errno));
			close(fds[0]);
			return -1;
		}
		if (!c->timed_out && bench_now() - t0 > timeout_s) {
			c->timed_out = true;
			kill(pid, SIGKILL);
		}
		struct timespec ts = {0, 2000000}; /* 2 ms */
		nanosleep(&ts, NULL);
	}
	c->wall_s = bench_now() - t0;
	ssize_t n;
	while (len + 1 < sizeof c->out &&
	       (n = read(fds[0], c->out + len, sizeof c->out - 1 - len)) > 0)
		len += (size_t)n;
	close(fds[0]);
	c->out[len] = '\0';
	c->maxrss_kb = ru.ru_maxrss;
	c->exit_code = WIFEXITED(status)     ? WEXITSTATUS(status)
		       : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
					     : 255;
	return 0;
}

/* ---- the machine and the run ---- */

static void cpu_model(char *buf, size_t size)
{
	snprintf(buf, size, "unknown");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "model name", 10) == 0) {
			const char *v = strchr(line, ':');
			if (v) {
				v++;
				while (*v == ' ' || *v == '\t')
					v++;
				snprintf(buf, size, "%s", v);
				buf[strcspn(buf, "\n")] = '\0';
			}
			break;
		}
	}
	fclose(f);
}

static void git_commit(char *buf, size_t size)
{
	snprintf(buf, size, "unknown");
	FILE *p = popen("git rev-parse --short HEAD 2>/dev/null", "r");
	if (!p)
		return;
	if (fgets(buf, (int)size, p))
		buf[strcspn(buf, "\n")] = '\0';
	else
		snprintf(buf, size, "unknown");
	pclose(p);
}

static double mem_total_gib(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	return pages > 0 && psz > 0
		       ? (double)pages * (double)psz / (1024.0 * 1024 * 1024)
		       : NAN;
}

static void utc_now(char *buf, size_t size)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

cJSON *bench_env_json(const bench_cfg *cfg, const char *section)
{
	cJSON *o = cJSON_CreateObject();
	char buf[256];
	cJSON_AddStringToObject(o, "format", "dnnpart-bench");
	cJSON_AddStringToObject(o, "section", section);
	cJSON_AddStringToObject(o, "mode", cfg->quick ? "quick" : "full");
	utc_now(buf, sizeof buf);
	cJSON_AddStringToObject(o, "date", buf);
	git_commit(buf, sizeof buf);
	cJSON_AddStringToObject(o, "commit", buf);
	cpu_model(buf, sizeof buf);
	cJSON_AddStringToObject(o, "cpu", buf);
	cJSON_AddNumberToObject(o, "nproc",
				(double)sysconf(_SC_NPROCESSORS_ONLN));
	bench_json_num(o, "memory_gib", mem_total_gib());
	double la[3] = {NAN, NAN, NAN};
	getloadavg(la, 3);
	bench_json_num(o, "loadavg_1min", la[0]);
	return o;
}

void bench_print_env(const bench_cfg *cfg)
{
	char cpu[256], commit[64], date[64];
	cpu_model(cpu, sizeof cpu);
	git_commit(commit, sizeof commit);
	utc_now(date, sizeof date);
	double la[3] = {NAN, NAN, NAN};
	getloadavg(la, 3);
	printf("dnnpart-bench %s run, %s, commit %s\n",
	       cfg->quick ? "quick" : "full", date, commit);
	printf("machine: %s, %ld cores online, %.1f GiB memory, load average "
	       "%.2f at the start\n\n",
	       cpu, sysconf(_SC_NPROCESSORS_ONLN), mem_total_gib(), la[0]);
}

/* ---- result files ---- */

const char *bench_result_path(const bench_cfg *cfg, const char *name, char *buf,
			      size_t size)
{
	snprintf(buf, size, "%s/%s%s", cfg->results_dir,
		 cfg->quick ? "quick-" : "", name);
	return buf;
}

int bench_open_result(const bench_cfg *cfg, const char *name, dp_afile *af)
{
	char path[1024];
	bench_result_path(cfg, name, path, sizeof path);
	mkdir(cfg->results_dir, 0777);
	dp_err err;
	if (dp_afile_open(af, path, &err) != DP_OK) {
		char msg[1200];
		fprintf(stderr, "bench: %s\n",
			dp_err_format(&err, msg, sizeof msg));
		return -1;
	}
	return 0;
}

int bench_commit_result(dp_afile *af)
{
	char path[1024];
	snprintf(path, sizeof path, "%s", af->path ? af->path : "");
	dp_err err;
	if (dp_afile_commit(af, &err) != DP_OK) {
		char msg[1200];
		fprintf(stderr, "bench: %s\n",
			dp_err_format(&err, msg, sizeof msg));
		return -1;
	}
	printf("wrote %s\n", path);
	return 0;
}

/* Compact JSON with one line per top-level entry and per element of a
 * top-level array: small enough to commit, and diffs stay readable. */
static int write_lines(FILE *f, const cJSON *root)
{
	fputs("{\n", f);
	for (const cJSON *it = root->child; it; it = it->next) {
		/* keys are this program's own identifiers: nothing to escape */
		fprintf(f, "\"%s\": ", it->string);
		if (cJSON_IsArray(it)) {
			fputs("[\n", f);
			for (const cJSON *e = it->child; e; e = e->next) {
				char *t = cJSON_PrintUnformatted(e);
				if (!t)
					return -1;
				fprintf(f, "  %s%s\n", t, e->next ? "," : "");
				free(t);
			}
			fputs("]", f);
		} else {
			char *t = cJSON_PrintUnformatted(it);
			if (!t)
				return -1;
			fputs(t, f);
			free(t);
		}
		fputs(it->next ? ",\n" : "\n", f);
	}
	fputs("}\n", f);
	return 0;
}

int bench_write_json(const bench_cfg *cfg, const char *name, cJSON *root,
		     bool pretty)
{
	dp_afile af;
	if (bench_open_result(cfg, name, &af) != 0) {
		cJSON_Delete(root);
		return -1;
	}
	int rc = 0;
	if (pretty) {
		char *text = cJSON_Print(root);
		if (text) {
			fputs(text, af.f);
			fputc('\n', af.f);
		}
		rc = text ? 0 : -1;
		free(text);
	} else {
		rc = write_lines(af.f, root);
	}
	cJSON_Delete(root);
	if (rc != 0) {
		fprintf(stderr, "bench: out of memory writing %s\n", name);
		dp_afile_abort(&af);
		return -1;
	}
	return bench_commit_result(&af);
}

void bench_json_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

void bench_json_cap(cJSON *o, int64_t cap)
{
	bench_json_num(o, "cap_bytes", cap > 0 ? (double)cap : NAN);
}

void bench_json_round(cJSON *o, const char *key, double v, double unit)
{
	bench_json_num(o, key, round(v / unit) * unit);
}

void bench_gen_opts(dp_gen_opts *o, uint32_t n)
{
	dp_gen_opts_default(o);
	o->ops = n;
	o->seed = 1;
}

int bench_gen_write(const dp_gen_opts *o, const char *path)
{
	dp_graph *g = NULL;
	dp_err err;
	char msg[1200];
	int rc = 0;
	if (dp_gen_graph(o, &g, &err) || dp_gen_write_json(path, g, &err)) {
		fprintf(stderr, "bench: %s: %s\n", path,
			dp_err_format(&err, msg, sizeof msg));
		rc = -1;
	}
	dp_graph_free(g);
	return rc;
}

dp_graph *bench_gen_graph(uint32_t n)
{
	dp_gen_opts o;
	bench_gen_opts(&o, n);
	dp_graph *g = NULL;
	dp_err err;
	char msg[1200];
	if (dp_gen_graph(&o, &g, &err) != DP_OK) {
		fprintf(stderr, "bench: gen %u: %s\n", n,
			dp_err_format(&err, msg, sizeof msg));
		return NULL;
	}
	return g;
}

int64_t bench_one_device_peak(const dp_graph *g)
{
	dp_machine m;
	dp_err err;
	if (dp_machine_init(&m, 1, &err) != DP_OK)
		return -1;
	int32_t *pl = calloc(g->nops ? g->nops : 1, sizeof *pl);
	dp_sim *s = pl ? dp_sim_new(g, &m, &err) : NULL;
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	dp_sim_opts so = {.contention = DP_CONT_PORT, .detail = false};
	int64_t peak = -1;
	if (s && dp_sim_run(s, pl, &so, &r, &err) == DP_OK)
		peak = r.dev[0].peak_bytes;
	else
		fprintf(stderr, "bench: one-device simulation of %s failed\n",
			g->name);
	dp_sim_result_free(&r);
	dp_sim_free(s);
	free(pl);
	dp_machine_free(&m);
	return peak;
}
