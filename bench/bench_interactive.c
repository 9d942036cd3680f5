/* bench_interactive.c - how long a cap change takes to reach the screen,
 * and how long the explorer's input loop is ever blocked meanwhile.
 *
 * Method. The explorer (tui/tui_main.c) reruns the engine like this: a key
 * goes to actions_key() (views/actions.c), whose AR_RERUN bit makes the
 * session submit a plan job to the worker thread (jobs/worker.c,
 * worker_submit); the worker runs dp_plan_run() and signals its pipe; the UI
 * loop, blocked in poll() on stdin and that pipe, takes the result
 * (worker_take), installs it (state_set_plan), prepares the views
 * (state_prepare) and draws the screen (screen_draw into a grid, then
 * curses). This benchmark links the same worker object file and the same
 * views library and runs that loop, in the same order, with two
 * differences: the last step (curses copying the grid to the terminal) is
 * left out, and "stdin" is a pipe fed by a typist thread that presses a
 * view key (1-5, as a user flipping views would) every 20 ms with its send
 * time recorded. The loop itself presses m / M (lower / raise GPU0's cap,
 * alternately) whenever the last plan has been on screen for 0.3 s.
 *
 * Reported per graph size: the first plan, then for the cap changes the
 * time from the key to the end of the draw that shows the first new plan
 * (an interim one when the algorithm is anytime, as best is: it passes each
 * better placement while it runs) and the final one, and the algorithm's
 * own share of the latter (plan_ms); the delay between a typist
 * key being sent and the loop reading it (what a user feels), and the
 * longest stretch the loop spent between two poll() calls (the time input
 * cannot be read), both while reruns run and while idle.
 * bench/bench_tui.sh measures the whole path through a real terminal
 * (tmux) for comparison.
 */
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "actions.h"
#include "bench.h"
#include "keys.h"
#include "screen.h"
#include "state.h"
#include "worker.h"

#define MAX_KEYS 8192
#define TYPIST_PERIOD_S 0.020
#define PAUSE_S 0.3
#define GRID_W 100
#define GRID_H 30

typedef struct typist {
	int wfd;
	atomic_int stop;
	atomic_int nsent;
	atomic_llong sent_ns[MAX_KEYS];
} typist;

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *typist_main(void *arg)
{
	typist *t = arg;
	static const char keys[] = "12345";
	int i = 0;
	while (!atomic_load(&t->stop) && i < MAX_KEYS) {
		atomic_store(&t->sent_ns[i], now_ns());
		atomic_store(&t->nsent, i + 1);
		char k = keys[i % 5];
		if (write(t->wfd, &k, 1) != 1)
			break;
		i++;
		struct timespec ts = {0, (long)(TYPIST_PERIOD_S * 1e9)};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* Samples of one kind, for median / p99 / max. */
typedef struct samples {
	double v[MAX_KEYS];
	int n;
} samples;

static void add(samples *s, double x)
{
	if (s->n < MAX_KEYS)
		s->v[s->n++] = x;
}

typedef struct stats {
	int n;
	double med, p99, max;
} stats;

static stats stats_of(samples *s)
{
	stats r = {s->n, NAN, NAN, NAN};
	if (s->n == 0)
		return r;
	r.med = bench_median(s->v, s->n); /* sorts */
	int i99 = (int)ceil(0.99 * s->n) - 1;
	r.p99 = s->v[i99 < 0 ? 0 : i99];
	r.max = s->v[s->n - 1];
	return r;
}

static cJSON *stats_json(stats s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "n", s.n);
	bench_json_num(o, "median_ms", s.med * 1000);
	bench_json_num(o, "p99_ms", s.p99 * 1000);
	bench_json_num(o, "max_ms", s.max * 1000);
	return o;
}

typedef struct session {
	vstate st;
	worker *w;
	vgrid grid;
	double last_plan_ms; /* plan_ms of the last plan installed */
} session;

/* As tui_main.c's session_draw, minus the terminal. */
static void draw(session *s)
{
	state_prepare(&s->st);
	screen_draw(&s->st, &s->grid);
}

/* As tui_main.c's apply_result and take_results, for plan jobs. */
static bool take_results(session *s)
{
	bool any = false;
	worker_result *r;
	while ((r = worker_take(s->w))) {
		vstate *st = &s->st;
		if (r->kind == JOB_PLAN && r->g == st->g &&
		    r->status == DP_OK &&
		    (!st->plan || r->gen >= st->plan_gen)) {
			s->last_plan_ms = r->plan.plan_ms;
			state_set_plan(st, &r->plan, r->gen);
			any = true;
		} else if (r->kind == JOB_PLAN && r->status != DP_OK &&
			   r->status != DP_ECANCELED) {
			fprintf(stderr, "bench: rerun failed: %s\n", r->msg);
		}
		worker_result_free(r);
	}
	return any;
}

/* As tui_main.c's sync_progress, for plan jobs. */
static void sync_progress(session *s)
{
	worker_status ws;
	worker_get_status(s->w, &ws);
	s->st.running = ws.plan_queued;
	if (ws.busy) {
		snprintf(s->st.phase, sizeof s->st.phase, "%s", ws.phase);
		s->st.fraction = ws.fraction;
		s->st.elapsed_s = ws.elapsed_s;
	} else {
		s->st.phase[0] = '\0';
		s->st.fraction = -1;
		s->st.elapsed_s = 0;
	}
}

/* As tui_main.c's handle, for the bits these keys return. */
static void handle(session *s, unsigned bits)
{
	if (!(bits & AR_RERUN))
		return;
	dp_err err;
	dp_err_clear(&err);
	dp_algo_opts ao;
	state_algo_opts(&s->st, &ao);
	if (worker_submit(s->w, JOB_PLAN, s->st.g, &s->st.m, s->st.algo, &ao,
			  s->st.gen, &err) != DP_OK) {
		fprintf(stderr, "bench: cannot submit: %s\n", err.msg);
		return;
	}
	s->st.plan_error[0] = '\0';
	sync_progress(s);
}

typedef struct size_result {
	uint32_t ops, edges;
	double first_plan_s;
	/* the first plan of a run on screen: an interim one when the
	 * algorithm is anytime (best), else the final one */
	double first_interim_s;
	samples to_screen, to_interim, plan_ms, overhead;
	samples key_busy, key_idle;   /* typist key delay */
	samples iter_busy, iter_idle; /* loop time between polls */
	double max_iter_result;	      /* longest iteration that installed a
					 plan */
} size_result;

/* Runs the loop on a generated graph of n ops with `reruns` cap changes. */
static int run_size(uint32_t n, int reruns, size_result *res)
{
	memset(res, 0, sizeof *res);
	dp_graph *g = bench_gen_graph(n);
	if (!g)
		return -1;
	dp_err err;
	res->ops = g->nops;
	res->edges = g->nedges;
	dp_machine m;
	dp_machine_init(&m, 4, &err);
	session s;
	memset(&s, 0, sizeof s);
	if (state_init(&s.st, g, &m, dp_algo_default(), DP_CONT_PORT, &err) !=
	    DP_OK) {
		dp_machine_free(&m);
		dp_graph_free(g);
		return -1;
	}
	dp_machine_free(&m);
	s.w = worker_new(&err);
	if (!s.w || grid_init(&s.grid, GRID_W, GRID_H) != 0) {
		fprintf(stderr, "bench: cannot start the worker: %s\n",
			err.msg);
		worker_free(s.w);
		state_free(&s.st);
		return -1;
	}
	int fds[2];
	if (pipe(fds) != 0) {
		worker_free(s.w);
		state_free(&s.st);
		grid_free(&s.grid);
		return -1;
	}
	typist *t = calloc(1, sizeof *t);
	pthread_t th;
	t->wfd = fds[1];
	pthread_create(&th, NULL, typist_main, t);

	int nread = 0, done = 0;
	double t_key = bench_now(), t_shown = 0;
	unsigned want_gen = s.st.gen;
	bool waiting = true, first = true, shown_any = false;
	handle(&s, AR_RERUN); /* the explorer's first plan */
	double t_wake = bench_now();
	for (;;) {
		bool running = s.st.running;
		bool installed = take_results(&s);
		sync_progress(&s);
		draw(&s);
		double now = bench_now();
		if (waiting && !shown_any && s.st.plan &&
		    s.st.plan_gen == want_gen) {
			if (first)
				res->first_interim_s = now - t_key;
			else
				add(&res->to_interim, now - t_key);
			shown_any = true;
		}
		if (waiting && s.st.plan && s.st.plan_gen == want_gen &&
		    !s.st.running) {
			if (first) {
				res->first_plan_s = now - t_key;
			} else {
				add(&res->to_screen, now - t_key);
				add(&res->plan_ms, s.last_plan_ms / 1000);
				add(&res->overhead,
				    now - t_key - s.last_plan_ms / 1000);
			}
			first = false;
			waiting = false;
			t_shown = now;
		}
		if (!waiting && now - t_shown >= PAUSE_S) {
			if (done == reruns)
				break;
			/* GPU0 selected: m lowers its cap, M raises it */
			s.st.dev = 0;
			t_key = bench_now();
			handle(&s, actions_key(&s.st, GRID_W, GRID_H,
						 done % 2 ? 'M' : 'm'));
			want_gen = s.st.gen;
			waiting = true;
			shown_any = false;
			done++;
		}
		double busy = bench_now() - t_wake;
		add(running || s.st.running ? &res->iter_busy : &res->iter_idle,
		    busy);
		if (installed && busy > res->max_iter_result)
			res->max_iter_result = busy;
		struct pollfd pf[2] = {{fds[0], POLLIN, 0},
				       {worker_fd(s.w), POLLIN, 0}};
		int timeout = s.st.running ? 100 : (int)(PAUSE_S * 1000);
		poll(pf, 2, timeout);
		t_wake = bench_now();
		long long wake_ns = now_ns();
		if (pf[0].revents & POLLIN) {
			char buf[64];
			ssize_t k = read(fds[0], buf, sizeof buf);
			for (ssize_t i = 0; i < k; i++, nread++) {
				long long sent = atomic_load(
					&t->sent_ns[nread % MAX_KEYS]);
				add(s.st.running ? &res->key_busy
						 : &res->key_idle,
				    (double)(wake_ns - sent) * 1e-9);
				handle(&s, actions_key(&s.st, GRID_W, GRID_H,
							 buf[i]));
			}
		}
	}
	atomic_store(&t->stop, 1);
	pthread_join(th, NULL);
	close(fds[0]);
	close(fds[1]);
	free(t);
	worker_free(s.w);
	state_free(&s.st);
	grid_free(&s.grid);
	return 0;
}

static void print_stats(const char *what, samples *s, cJSON *o, const char *key)
{
	stats st = stats_of(s);
	printf("  %-44s median %8.1f ms, p99 %8.1f ms, max %8.1f ms (%d)\n",
	       what, st.med * 1000, st.p99 * 1000, st.max * 1000, st.n);
	cJSON_AddItemToObject(o, key, stats_json(st));
}

int bench_interactive(const bench_cfg *cfg)
{
	static const uint32_t sizes[] = {10000, 100000};
	int reruns_full[] = {20, 10}, reruns_quick[] = {6, 3};
	const int *reruns = cfg->quick ? reruns_quick : reruns_full;
	printf("== interactive: a cap change to the new plan on screen, and "
	       "the input loop meanwhile ==\n");
	printf("the explorer's own worker (jobs/worker.c) and views, its "
	       "loop's order of calls, a %dx%d\nscreen (no terminal); %s "
	       "(the default), K=4; m / M on GPU0 alternately; a view key "
	       "(1-5)\nevery %.0f ms\n\n",
	       GRID_W, GRID_H, dp_algo_default()->name,
	       TYPIST_PERIOD_S * 1000);
	cJSON *root = bench_env_json(cfg, "interactive");
	cJSON *arr = cJSON_AddArrayToObject(root, "sizes");
	int rc = 0;
	for (int i = 0; i < 2; i++) {
		size_result *r = calloc(1, sizeof *r);
		if (!r || run_size(sizes[i], reruns[i], r) != 0) {
			free(r);
			rc = 1;
			continue;
		}
		printf("%u ops, %u edges: first plan on screen after %.0f ms "
		       "(the final one after %.0f ms)\n",
		       r->ops, r->edges, r->first_interim_s * 1000,
		       r->first_plan_s * 1000);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "algorithm",
					dp_algo_default()->name);
		bench_json_num(o, "first_interim_plan_ms",
			       r->first_interim_s * 1000);
		cJSON_AddNumberToObject(o, "ops", r->ops);
		cJSON_AddNumberToObject(o, "edges", r->edges);
		cJSON_AddNumberToObject(o, "cap_changes", r->to_screen.n);
		bench_json_num(o, "first_plan_ms", r->first_plan_s * 1000);
		print_stats("cap change -> first new plan on screen",
			    &r->to_interim, o, "cap_change_to_first_plan");
		print_stats("cap change -> final plan on screen", &r->to_screen,
			    o, "cap_change_to_screen");
		print_stats("  of which the algorithm (plan_ms)", &r->plan_ms,
			    o, "algorithm");
		print_stats("  the rest (simulation, hand-over, draw)",
			    &r->overhead, o, "rest");
		print_stats("key delay while a rerun runs", &r->key_busy, o,
			    "key_delay_rerun");
		print_stats("key delay while idle", &r->key_idle, o,
			    "key_delay_idle");
		print_stats("loop blocked between polls, rerun running",
			    &r->iter_busy, o, "loop_blocked_rerun");
		print_stats("loop blocked between polls, idle", &r->iter_idle,
			    o, "loop_blocked_idle");
		printf("  %-44s %8.1f ms\n",
		       "longest iteration that installed a plan",
		       r->max_iter_result * 1000);
		bench_json_num(o, "max_install_iteration_ms",
			       r->max_iter_result * 1000);
		cJSON_AddItemToArray(arr, o);
		printf("\n");
		free(r);
	}
	if (bench_write_json(cfg, "interactive.json", root, true) != 0)
		rc = 1;
	printf("\n");
	return rc;
}
