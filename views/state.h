/* state.h - the explorer's whole state, as one struct.
 *
 * The session's settings (graph, machine, algorithm, contention), the last
 * good plan, what a rerun in progress reports, the Compare table, the
 * selection and scroll positions of every view, the status line and the
 * line editor. Views draw from it (a view is a pure function of the state
 * and its rectangle); actions (actions.h) change it; the front end (tui/)
 * runs the engine and feeds results back in. It never talks to a terminal
 * and never starts a thread, so tests drive it directly.
 *
 * Ownership: the state owns everything it points to (graph, machine, plans,
 * caches); state_free() releases it. Not thread-safe: the front end's UI
 * thread is its only user.
 */
#ifndef DNNPART_VIEWS_STATE_H
#define DNNPART_VIEWS_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/algo.h"
#include "dnnpart/export.h"
#include "dnnpart/fit.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "dnnpart/sim.h"

/* The views, in tab order, as X(ID, name): the one list of them. It numbers
 * them (VIEW_NAME) and fills view_table (view.c) with &view_name_class, which
 * views/view_name.c defines; adding a view is that file and one line here
 * (view.h). Help comes last: it is not a tab but shown over any view. */
/* clang-format off */
#define VIEW_LIST(X)                                                        \
	X(DEVICES, devices)                                                 \
	X(TIMELINE, timeline)                                               \
	X(MEMORY, memory)                                                   \
	X(CRITICAL, critical)                                               \
	X(OPS, ops)                                                         \
	X(OP, op)                                                           \
	X(COMPARE, compare)                                                 \
	X(WHY, why)                                                         \
	X(DIFF, diff)                                                       \
	X(FIT, fit)                                                         \
	X(HELP, help)

typedef enum view_id {
#define VIEW_ID_(ID, name) VIEW_##ID,
	VIEW_LIST(VIEW_ID_)
#undef VIEW_ID_
	VIEW_ALL, /* the number of views */
} view_id;
/* clang-format on */

/* The views reachable by Tab and the number keys: those before the diff,
 * which (like help) is opened over them by its key. */
#define VIEW_COUNT VIEW_DIFF

/* Sort keys of the Ops view. */
/* A time window over the step: the zoom (1 = the whole step, 2 = half,
 * ...) and its left edge as a fraction of the makespan, 0..1. */
typedef struct time_win {
	int zoom;
	double left;
} time_win;

typedef enum ops_sort {
	SORT_START = 0, /* schedule order */
	SORT_NAME,
	SORT_TYPE,
	SORT_DEVICE,
	SORT_DURATION,
	SORT_OUTPUT,
	SORT_PARAMS,
	SORT_COUNT
} ops_sort;

typedef enum prompt_kind {
	PROMPT_NONE = 0,
	PROMPT_CAP,	/* cap of the selected device */
	PROMPT_CAP_ALL, /* cap of every device */
	PROMPT_SEARCH,	/* Ops view search */
	PROMPT_FILTER,	/* Ops view filter */
	PROMPT_OPEN,	/* another graph */
	PROMPT_SAVE,	/* placement file */
	PROMPT_EXPORT,	/* DOT/SVG/JSON/... export */
	PROMPT_CONFIRM, /* "PATH exists - overwrite? (y/N)" for io_path */
	PROMPT_PIN,	/* the device to pin op st->pin_op to */
	PROMPT_LAYER,	/* ... to pin its whole layer to */
	PROMPT_RESERVE, /* the memory reserve of every device */
} prompt_kind;

typedef enum cmp_status {
	CMP_WAITING = 0,
	CMP_RUNNING,
	CMP_DONE,
	CMP_FAILED,
} cmp_status;

/* One algorithm in the Compare table. */
typedef struct cmp_row {
	const dp_algo *algo;
	cmp_status status;
	/* when status == CMP_DONE: the plan's numbers, and the plan itself
	 * until it is adopted (Enter moves it to the state) */
	double makespan, xlb, speedup, plan_ms;
	bool feasible;
	int worst;	    /* dp_plan_worst_device() */
	int64_t over_bytes; /* the worst device's peak - cap */
	int64_t cut_bytes;
	bool has_plan;
	dp_plan plan;
	char err[200]; /* when status == CMP_FAILED */
} cmp_row;

#define STATE_TEXT_MAX 256

typedef struct vstate {
	/* ---- settings ---- */
	dp_graph *g;  /* owned */
	dp_machine m; /* owned; the settings the next rerun uses */
	const dp_algo *algo;
	dp_contention contention;
	int microbatches; /* of a pipeline strategy; 0 = its own choice */
	int schedule;	  /* of a pipeline strategy: a dp_schedule, -1 = its
			     own (S cycles it) */
	int zero_stage;	  /* zero's ZeRO stage, 0 = its own (from the
			     command line; no key changes it) */
	long long bucket; /* gradient bucket in bytes, -1 = the default */
	long long batch;  /* batch size st->g was made for from base (0:
			     as loaded) */
	dp_graph *base;	  /* owned: the graph as loaded when st->g is it at
			     another batch size, else NULL */
	dp_graph *plain;  /* owned: st->g before its levers (at st->g's batch
			     size) when levers made st->g, else NULL; its
			     lever set is dp_graph_levers(st->g), m.levers */
	dp_levers lv_next; /* the levers F or K asked for (AR_RELEVER) */
	unsigned gen;	  /* bumped by every change of the settings */

	/* the pins the next rerun uses, one per op of st->g (-1: free): they
	 * start as the file's; st->g's own op pins follow them once the front
	 * end has stopped every job on the graph (AR_REPIN,
	 * state_apply_pins) */
	int32_t *pins;	 /* owned */
	uint32_t npins;	 /* ops pinned */
	bool pins_dirty; /* pins differ from st->g's */
	uint32_t pin_op; /* the op a pin prompt is for */

	/* ---- the last good plan ---- */
	dp_plan *plan;	   /* owned; NULL before the first one */
	unsigned plan_gen; /* settings generation it was made for */
	char plan_error[STATE_TEXT_MAX]; /* last rerun failure, "" if none */
	/* the plan before it (the Diff view); NULL before the second plan
	 * and after a new graph */
	dp_plan *prev; /* owned */

	/* ---- the front end's jobs: mirrored from its worker by one function
	 * of the front end's (tui: session_sync_jobs), nothing else writes
	 * them ---- */
	bool running;	/* a plan job is running or queued */
	bool comparing; /* a compare job is running or queued */
	char phase[48];
	double fraction; /* 0..1, < 0 when unknown */
	double elapsed_s;

	/* ---- a file job in progress: open or export, on a thread of the
	 * front end's (it keeps these current; PROMPT_NONE when none runs) */
	prompt_kind file_job;
	bool file_cancelling; /* Esc was pressed: it is stopping */
	char file_path[512];
	char file_phase[48];
	double file_fraction; /* 0..1, < 0 when unknown */
	double file_elapsed_s;

	/* ---- Compare view ---- */
	cmp_row *cmp; /* dp_algo_count() rows, owned */
	int ncmp;
	unsigned cmp_gen; /* settings generation of the table */
	bool cmp_valid;	  /* the table was (or is being) computed */
	int cmp_cursor;

	/* ---- what fits (f): the last fit job's answers, a cache for the
	 * settings generation fit_gen (state_fit_current) ---- */
	bool fitting; /* a fit job is running or queued (mirrored from the
			 front end's worker, as running) */
	bool fit_valid;
	unsigned fit_gen;
	int fit_dev;	      /* the device whose cap was searched */
	bool fit_k_found;     /* the smallest K for the caps: fit_k */
	int fit_k, fit_k_max; /* fit_k_max: the largest K tried */
	bool fit_cap_found;   /* the smallest cap of fit_dev: fit_cap */
	int64_t fit_cap;
	int fit_probes; /* reruns the two searches made */
	/* the lever search (`dnnpart fit`'s), when the last fit job ran it
	 * (the Fit view): owned; fit_rows the candidates listed at its K
	 * (dp_fit_search_rows), fit_cursor the one Enter adopts */
	bool fit_levers;
	dp_fit_search fit_search;
	size_t *fit_rows;
	int fit_nrows, fit_cursor;
	size_t fit_skipped[4];

	/* ---- navigation (never changes the plan) ---- */
	view_id view;
	view_id back; /* where Esc returns from help / op detail */
	int dev;      /* selected device */
	uint32_t op;  /* selected op (Op detail), UINT32_MAX = none */
	/* each view's own time window (Timeline, Memory): z/Z, the arrows,
	 * Home/End and the wheel move the one of the view shown */
	time_win time[VIEW_ALL];
	int mem_scroll; /* live-tensor list */
	int cp_cursor, cp_scroll;
	int op_scroll;
	int help_scroll;

	/* Ops view: a sorted, filtered index of ops (state_prepare) */
	ops_sort sort;
	bool sort_desc;
	char filter[64];
	char search[64];
	uint32_t *ops_idx; /* owned, nops entries, first ops_n used */
	uint32_t ops_n;
	uint32_t ops_cursor, ops_scroll;
	bool ops_dirty;

	/* per-op flags of the current plan: 1 = on the schedule's critical
	 * path (state_prepare); indexed by the ops of the plan's graph
	 * (state_plan_graph: the lowered graph of a strategy) */
	uint8_t *on_cp; /* owned, on_cp_n entries */
	uint32_t on_cp_n;
	const dp_plan *prepared_for;

	/* per op of the user's graph, the plan's ops grouped by the op they
	 * came from (one each for a placement; the shards, replicas and
	 * micro-batches of a strategy): earliest start, latest end, the
	 * device (-1: several), how many, the first of them, and whether
	 * one is on the critical path (state_prepare) */
	double *agg_start, *agg_end;
	int32_t *agg_dev;
	uint32_t *agg_n, *agg_first;
	uint8_t *agg_cp;

	/* the Diff view (state_prepare): per op of the user's graph, the
	 * previous plan's device (-1: several, or no previous plan); the ops
	 * whose device differs, by device before, device after, op id */
	int32_t *prev_dev; /* owned */
	uint32_t *moved;   /* owned */
	uint32_t moved_n;
	const dp_plan *diffed_prev, *diffed_plan;
	int diff_cursor, diff_scroll;

	/* the critical path's hops grouped into runs of one source op:
	 * run i is hops cpg_first[i] .. cpg_first[i+1]-1 (state_prepare) */
	uint32_t *cpg_first; /* owned, cpg_n + 1 entries */
	uint32_t cpg_n;

	/* ---- status line and line editor ---- */
	char status[STATE_TEXT_MAX];
	bool status_error;
	prompt_kind prompt;
	char pbuf[512];
	char plabel[600];
	/* pbuf still holds the text the prompt opened with: the first
	 * character typed replaces it (shown selected) */
	bool pfresh;
	/* a submitted prompt that needs the front end (open, save, export);
	 * io_replace: the user said y to overwriting io_path */
	prompt_kind io;
	char io_path[512];
	/* the detail of the next picture or trace `e` writes: Tab in the
	 * export prompt cycles auto (groups above 150 ops), groups (always
	 * by layer), every op (never) */
	dp_export_coarsen export_detail;
	bool io_replace;
	/* PROMPT_CONFIRM: the save or export waiting for y */
	prompt_kind confirm_for;

	/* m / M: the cap of step_dev is step_base moved step_n steps along
	 * settings_cap_at(), so that m m M M comes back to it exactly; a cap
	 * changed any other way (step_last differs) starts a new base.
	 * step_none: the walk began at no cap, which is step 1 of it */
	int step_dev;
	int step_n;
	bool step_none;
	int64_t step_base, step_last;
} vstate;

/* Initialises st for graph g (taking ownership) and machine m (copied),
 * with algorithm algo and contention c. Returns DP_OK or DP_ENOMEM; on
 * failure the graph is still the caller's. */
dp_status state_init(vstate *st, dp_graph *g, const dp_machine *m,
		     const dp_algo *algo, dp_contention c, dp_err *err);
void state_free(vstate *st);

/* Replaces the graph (the old one is freed with its plans): used by `o`.
 * The machine keeps its settings; selection and caches are reset. */
dp_status state_set_graph(vstate *st, dp_graph *g, dp_err *err);

/* Replaces st->g by g, the same graph at the batch size st->batch (made
 * from st->base, or from st->g, which then becomes the base); ops keep
 * their numbers, so the plan on screen stays (stale) until the rerun.
 * Takes g over. */
void state_rebatch(vstate *st, dp_graph *g);

/* Writes st->pins into st->g (and st->base) when they differ: only while
 * no job reads the graph (the front end's AR_REPIN). */
void state_apply_pins(vstate *st);

/* Installs a new plan made for settings generation gen (ownership of plan's
 * arrays moves to the state; plan is zeroed). The plan it replaces becomes
 * st->prev. */
void state_set_plan(vstate *st, dp_plan *plan, unsigned gen);

/* Records that the settings changed: bumps gen and marks the Compare table
 * out of date. */
void state_settings_changed(vstate *st);

/* The options the next rerun gives the algorithms: contention,
 * micro-batches. */
void state_algo_opts(const vstate *st, dp_algo_opts *o);

/* The graph whose ops the plan places: the user's graph, or the lowered
 * graph of a strategy. */
const dp_graph *state_plan_graph(const vstate *st);

/* Whether the plan on screen was made for other settings than the current
 * ones (a rerun is pending, running or was cancelled). */
bool state_plan_stale(const vstate *st);

/* Sets the status line (printf-style); error chooses the error style. */
void state_status(vstate *st, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Rebuilds the caches views read (critical-path flags, the Ops index) when
 * the plan, the sort or the filter changed. Call before drawing. Returns
 * DP_OK or DP_ENOMEM. */
dp_status state_prepare(vstate *st);

/* Whether op u's name, type or layer contains text (case-insensitive). */
bool state_op_matches(const vstate *st, uint32_t u, const char *text);

/* Clears the Compare table to "waiting" rows for the current settings. */
void state_compare_reset(vstate *st);
/* Stores the plan of Compare row i (ownership moves; plan is zeroed) or
 * its failure message. */
void state_compare_done(vstate *st, int i, dp_plan *plan);
void state_compare_failed(vstate *st, int i, const char *msg);
/* Adopts Compare row i: its algorithm becomes the session's and its plan
 * (made for the current settings) the one on screen. Returns false when
 * the row has no plan to adopt (the caller then reruns). */
bool state_compare_adopt(vstate *st, int i);

/* Stores a fit job's answers for settings generation gen: k (the smallest
 * K for the caps) and cap (the smallest cap of device dev); the status
 * line says them when gen is the current one. */
void state_fit_done(vstate *st, unsigned gen, int dev, const dp_fit_result *k,
		    const dp_fit_result *cap);
/* Replaces st->g by g (taken over) at the same batch size: the plan and
 * the views' arrays go (state_set_graph keeps the rest); the old graph is
 * the caller's. */
dp_status state_replace_graph(vstate *st, dp_graph *g, dp_err *err);
/* Makes lg (st->plain, or st->g when that has no lever, with levers
 * applied; taken over) the session's graph, or with lg NULL the lever-free
 * one again. */
dp_status state_relever(vstate *st, dp_graph *lg, dp_err *err);
/* Stores a lever search for settings generation gen (taken over: *s is
 * left empty) and shows the Fit view when gen is current. */
void state_fit_search_done(vstate *st, unsigned gen, dp_fit_search *s);
/* Frees the lever search kept (state_free, a new graph). */
void state_fit_search_free(vstate *st);
/* What a fit search (f) runs on: returns the graph as loaded (the lever
 * search chooses the levers) and sets *m to a shallow copy of the session's
 * machine (its arrays shared: do not free) without the session's levers
 * where the graph had some, and *dev to the selected device. */
const dp_graph *state_fit_input(const vstate *st, dp_machine *m, int *dev);
/* Whether the cached fit answers are for the current settings. */
bool state_fit_current(const vstate *st);
/* "fits with 4 devices; GPU1 fits with 17.3 GiB" (or what was not found)
 * from the cached answers, into buf; short drops the device count. */
void state_fit_text(const vstate *st, bool shortform, char *buf, int size);

/* Records that only the algorithm changed: bumps gen but keeps a Compare
 * table made for the same machine. */
void state_algo_changed(vstate *st);

/* Number of device rows the panel shows: the larger of the plan's and the
 * settings' device counts. */
int state_ndev(const vstate *st);

const char *ops_sort_name(ops_sort s);

#endif
