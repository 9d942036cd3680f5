/* tui_main.c - `dnnpart GRAPH`: the explorer's set-up and main loop.
 *
 * The loop is short (htop): wait on stdin, the rerun worker's pipe and
 * the file job's pipe with poll(), apply finished results to the state,
 * translate input into actions, act on the bits they return (rerun,
 * compare, cancel, files, quit), draw. Signal handlers only set a flag
 * (nvtop); a terminal resize arrives as a key from curses. While a job
 * runs the loop wakes ten times a second to show its progress and elapsed
 * time.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actions.h"
#include "cli.h"
#include "screen.h"
#include "tui.h"
#include "tui_load.h"
#include "tui_session.h"
#include "tui_term.h"

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

/* In the SVG export's layout child (forked by the file job's thread, which
 * blocks every signal so that they reach the UI thread): the child starts
 * with the signals a process normally gets, so that a SIGTERM or a hangup
 * stops it like any process (export_svg.c sets their dispositions). */
static void unblock_signals_in_child(void)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

void tui_help(FILE *out)
{
	fprintf(out,
		"usage: dnnpart GRAPH [-k K] [--mem CAPS] [--algo NAME] "
		"[--link PRESET]\n"
		"                     [--color=auto|always|never] "
		"[--no-mouse]\n"
		"\n"
		"Opens the interactive explorer on GRAPH: devices with load "
		"and "
		"memory bars,\n"
		"timeline, memory, critical path, ops and a comparison of "
		"every "
		"algorithm.\n"
		"Keys: ? shows them all; + - devices, m M c C caps, a "
		"algorithm, q quits.\n"
		"See docs/tui.md.\n"
		"\n"
		"  --algo NAME        starting algorithm: %s\n"
		"  --color WHEN       auto (default; NO_COLOR turns color "
		"off), "
		"always, never\n"
		"  --no-mouse         leave the mouse to the terminal\n",
		dp_algo_names());
	cli_help_machine_opts(out);
}

void session_sync_jobs(tui_session *s)
{
	vstate *st = &s->st;
	worker_status ws;
	worker_get_status(s->w, &ws);
	st->running = ws.plan_queued;
	st->comparing = ws.compare_queued;
	st->fitting = ws.fit_queued;
	if (ws.busy) {
		snprintf(st->phase, sizeof st->phase, "%s", ws.phase);
		st->fraction = ws.fraction;
		st->elapsed_s = ws.elapsed_s;
	} else {
		st->phase[0] = '\0';
		st->fraction = -1;
		st->elapsed_s = 0;
	}
	if (ws.busy && ws.kind == JOB_COMPARE && st->cmp_gen == st->gen &&
	    ws.row >= 0 && ws.row < st->ncmp &&
	    st->cmp[ws.row].status == CMP_WAITING)
		st->cmp[ws.row].status = CMP_RUNNING;
}

void session_start(tui_session *s, job_kind kind)
{
	vstate *st = &s->st;
	dp_err err;
	dp_err_clear(&err);
	dp_algo_opts ao;
	state_algo_opts(st, &ao);
	if (worker_submit(s->w, kind, st->g, &st->m, st->algo, &ao, st->gen,
			  &err) != DP_OK) {
		state_status(st, true, "cannot start the %s: %s",
			     kind == JOB_PLAN ? "rerun" : "comparison",
			     err.msg);
		return;
	}
	if (kind == JOB_PLAN)
		st->plan_error[0] = '\0';
	session_sync_jobs(s);
}

/* f: what fits for the current settings and the selected device. */
static void session_start_fit(tui_session *s)
{
	vstate *st = &s->st;
	dp_err err;
	dp_err_clear(&err);
	dp_algo_opts ao;
	state_algo_opts(st, &ao);
	/* the lever search runs on the graph as loaded, its sets on it: the
	 * machine without the session's levers */
	dp_machine m;
	int dev;
	const dp_graph *g = state_fit_input(st, &m, &dev);
	if (worker_submit_fit(s->w, g, &m, st->algo, &ao, dev, st->gen,
			      &err) != DP_OK) {
		state_status(st, true, "cannot start the fit search: %s",
			     err.msg);
		return;
	}
	session_sync_jobs(s);
}

static vgrid screen_grid;

void session_draw(tui_session *s)
{
	int w, h;
	term_size(&w, &h);
	if ((screen_grid.w != w || screen_grid.h != h) &&
	    grid_resize(&screen_grid, w, h) != 0)
		return;
	if (state_prepare(&s->st) != DP_OK)
		state_status(&s->st, true, "out of memory preparing the views");
	screen_draw(&s->st, &screen_grid);
	term_draw(&screen_grid, s->full_redraw);
	s->full_redraw = false;
}

/* Mirrors the jobs into the state, once the keys of a round have started
 * what they asked for: compare rows still waiting when no comparison is
 * left to run them were cancelled (by Esc, or by a plan job, which
 * supersedes a comparison). */
static void sync_progress(tui_session *s)
{
	vstate *st = &s->st;
	session_sync_file_job(s);
	session_sync_jobs(s);
	if (st->cmp_valid && !st->comparing)
		for (int i = 0; i < st->ncmp; i++)
			if (st->cmp[i].status == CMP_WAITING ||
			    st->cmp[i].status == CMP_RUNNING)
				state_compare_failed(st, i, "cancelled");
}

static void apply_result(tui_session *s, worker_result *r)
{
	vstate *st = &s->st;
	if (r->g != st->g && r->g != st->plain)
		return; /* made for a graph that is gone */
	if (r->kind == JOB_FIT) {
		if (r->status == DP_OK && r->fit_levers)
			state_fit_search_done(st, r->gen, &r->search);
		else if (r->status == DP_OK)
			state_fit_done(st, r->gen, r->fit_dev, &r->fit_k,
				       &r->fit_cap);
		else if (r->status != DP_ECANCELED && r->gen == st->gen)
			state_status(st, true, "fit search failed: %s", r->msg);
		return;
	}
	if (r->kind == JOB_COMPARE) {
		if (r->gen != st->cmp_gen)
			return;
		if (r->status == DP_OK)
			state_compare_done(st, r->row, &r->plan);
		else
			state_compare_failed(st, r->row,
					     r->status == DP_ECANCELED
						     ? "cancelled"
						     : r->msg);
		return;
	}
	if (r->status == DP_ECANCELED)
		return;
	if (r->status != DP_OK) {
		if (r->gen == st->gen) {
			snprintf(st->plan_error, sizeof st->plan_error,
				 "%.250s", r->msg);
			state_status(st, true, "%s failed: %s", st->algo->name,
				     r->msg);
		}
		return;
	}
	/* a newer plan than the one on screen: show it (stale if the
	 * settings moved on meanwhile) */
	if (!st->plan || r->gen >= st->plan_gen)
		state_set_plan(st, &r->plan, r->gen);
}

static void take_results(tui_session *s)
{
	worker_result *r;
	while ((r = worker_take(s->w))) {
		apply_result(s, r);
		worker_result_free(r);
	}
}

/* Acts on the bits an action returned; false when the session ends. */
static bool handle(tui_session *s, unsigned bits)
{
	vstate *st = &s->st;
	if (bits & AR_QUIT)
		return false;
	if (bits & AR_CANCEL) {
		worker_cancel(s->w, false);
		state_status(st, false, "%s",
			     !st->plan ? "cancelled; no plan yet (r runs one)"
			     : state_plan_stale(st)
				     ? "cancelled; the plan on screen is for "
				       "earlier settings (r reruns)"
				     : "cancelled");
	}
	if (bits & AR_CANCEL_PLAN)
		worker_cancel(s->w, true);
	if (bits & AR_CANCEL_FILE) {
		filejob_cancel(s->files);
		/* the progress line says "cancelling" until it has stopped */
		session_sync_file_job(s);
		st->status[0] = '\0';
	}
	if (bits & AR_REBATCH)
		session_rebatch(s);
	if (bits & AR_REPIN)
		session_repin(s);
	if (bits & AR_RERUN)
		session_start(s, JOB_PLAN);
	if (bits & AR_COMPARE)
		session_start(s, JOB_COMPARE);
	if (bits & AR_FIT)
		session_start_fit(s);
	if (bits & AR_FIT_ADOPT)
		session_fit_adopt(s);
	if (bits & AR_RELEVER)
		session_relever(s);
	if (bits & AR_FULL_REDRAW)
		s->full_redraw = true;
	if (bits & AR_IO)
		session_do_io(s);
	return true;
}

static int parse_args(int argc, char **argv, cli_opts *o, color_mode *color,
		      bool *no_mouse, const dp_algo **algo)
{
	*color = COLOR_AUTO;
	*no_mouse = false;
	*algo = dp_algo_default();
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int r = cli_parse_common("explorer", argc, argv, &i, o);
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		if (!strcmp(a, "--no-mouse")) {
			*no_mouse = true;
		} else if (!strncmp(a, "--color=", 8) ||
			   !strcmp(a, "--color")) {
			const char *v = a[7] == '='    ? a + 8
					: i + 1 < argc ? argv[++i]
						       : "";
			int c = term_color_parse(v);
			if (c < 0)
				return cli_usage_error(
					"explorer",
					"--color: expected auto, always or "
					"never, got '%s'",
					v);
			*color = (color_mode)c;
		} else if ((r = cli_parse_algo("explorer", argc, argv, &i,
					       algo))) {
			if (r < 0)
				return 2;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			tui_help(stdout);
			return -1;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error("explorer",
					       "unknown option '%s'", a);
		} else if (o->graph_path) {
			return cli_usage_error(
				"explorer",
				"one graph at a time: got '%s' and '%s'",
				o->graph_path, a);
		} else {
			o->graph_path = a;
		}
	}
	if (!o->graph_path)
		return cli_usage_error("explorer", "no graph given");
	/* `dnnpart plna`: most likely a mistyped command, not a file */
	if (access(o->graph_path, F_OK) != 0 && !strpbrk(o->graph_path, "/.")) {
		fprintf(stderr,
			"dnnpart: '%s' is neither a command nor a graph file. "
			"Commands:\n",
			o->graph_path);
		cli_print_commands(stderr);
		return 2;
	}
	return 0;
}

static void loop(tui_session *s)
{
	vstate *st = &s->st;
	bool dirty = true;
	for (;;) {
		if (got_signal)
			return;
		/* results first, so that a finished job never shows as
		 * "stale, not running" for a frame */
		take_results(s);
		session_take_file_result(s);
		sync_progress(s);
		bool busy = st->running || st->comparing || st->fitting ||
			    st->file_job != PROMPT_NONE;
		if (dirty || busy)
			session_draw(s);
		dirty = false;
		struct pollfd fds[3] = {{STDIN_FILENO, POLLIN, 0},
					{worker_fd(s->w), POLLIN, 0},
					{filejob_fd(s->files), POLLIN, 0}};
		int n = poll(fds, 3, busy ? 100 : -1);
		if (n < 0 && errno != EINTR)
			return;
		if (got_signal)
			return;
		dirty = true;
		term_event ev;
		while (term_read(&ev)) {
			unsigned bits = 0;
			int w, h;
			term_size(&w, &h);
			if (ev.mouse) {
				bits = actions_mouse(st, w, h, ev.mx, ev.my,
						     ev.mkind);
			} else if (ev.key) {
				bits = actions_key(st, w, h, ev.key);
				/* the terminal may have moved cells around while
				 * resizing: repaint all of it */
				if (ev.key == VK_RESIZE)
					s->full_redraw = true;
			}
			if (!handle(s, bits))
				return;
		}
		if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			return; /* the terminal went away */
	}
}

int tui_main(int argc, char **argv)
{
	cli_opts o;
	cli_opts_init(&o);
	color_mode color;
	bool no_mouse;
	const dp_algo *algo;
	int rc = parse_args(argc, argv, &o, &color, &no_mouse, &algo);
	if (rc)
		return rc < 0 ? 0 : rc;
	dp_graph *g, *plain;
	dp_machine m;
	if ((rc = tui_load_graph_machine(&o, &g, &plain, &m)))
		return rc;
	tui_session s;
	memset(&s, 0, sizeof s);
	dp_err err;
	dp_err_clear(&err);
	if (state_init(&s.st, g, &m, algo, o.contention, &err) != DP_OK) {
		dp_machine_free(&m);
		dp_graph_free(g);
		dp_graph_free(plain);
		return cli_error(&err);
	}
	dp_machine_free(&m);
	s.st.plain = plain;
	s.st.microbatches = o.microbatches;
	s.st.schedule = o.schedule;
	s.st.zero_stage = o.zero_stage;
	s.st.bucket = o.bucket;
	s.w = worker_new(&err);
	if (!s.w) {
		state_free(&s.st);
		return cli_error(&err);
	}
	s.files = filejob_new(&err);
	if (!s.files) {
		worker_free(s.w);
		state_free(&s.st);
		return cli_error(&err);
	}
	char msg[256];
	if (term_init(color, no_mouse, msg, sizeof msg) != 0) {
		fprintf(stderr, "dnnpart: %s\n", msg);
		filejob_free(s.files);
		worker_free(s.w);
		state_free(&s.st);
		return 2;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* the SVG export waits for its layout child: a SIGCHLD that the
	 * explorer's parent left ignored (exec keeps that) would make the
	 * child's exit status vanish ("lost the layout process") */
	sa.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &sa, NULL);
	pthread_atfork(NULL, NULL, unblock_signals_in_child);
	state_status(&s.st, false,
		     "? lists every key: + - devices, m M c caps, a algorithm, "
		     "Tab views, q quits");
	session_start(&s, JOB_PLAN);
	loop(&s);
	term_fini();
	/* a load in progress cannot be stopped: this waits for it */
	filejob_free(s.files);
	worker_free(s.w);
	state_free(&s.st);
	grid_free(&screen_grid);
	if (got_signal && got_signal != SIGINT)
		return 128 + got_signal;
	return 0;
}
