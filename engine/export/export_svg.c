/* export_svg.c - SVG of the partition, laid out by Graphviz in a child.
 *
 * Graphviz is not thread-safe, leaks per layout, prints its warnings to
 * stderr and can take minutes on a large graph (docs/export.md). So the layout
 * runs in a forked child: it builds the graph with cgraph, lays it out with
 * gvc and renders into the temporary file of an afile, then leaves with
 * _exit. Its stdout and stderr go to a pipe that the parent reads, so
 * Graphviz never prints over a terminal UI. The parent waits with a time
 * limit, polls the cancel flag and reports progress; on cancel or timeout
 * it kills the child. The file is renamed into place only on success.
 */
#include <errno.h>
#include <fcntl.h>
#include <gvc.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dnnpart/afile.h"
#include "internal/child.h"
#include "internal/clock.h"
#include "internal/export_impl.h"

/* above this, dot's effort is bounded (bound_dot) */
#define DOT_BOUNDED_NODES 300u
#define DOT_BOUNDED_EDGES 600u
#define POLL_MS 50
#define MSG_KEEP 4096

enum child_exit {
	CHILD_OK = 0,
	CHILD_BUILD = 10, /* building the graph failed */
	CHILD_LAYOUT_MISSING = 11,
	CHILD_LAYOUT = 12, /* gvLayout failed */
	CHILD_RENDER = 13, /* gvRender failed */
	CHILD_WRITE = 14,  /* writing the file failed */
};

/* ---- the child ---- */

static bool has_layout(GVC_t *gvc, const char *name, char *avail, size_t size)
{
	int n = 0;
	char **list = gvPluginList(gvc, "layout", &n, NULL);
	bool found = false;
	size_t len = 0;
	avail[0] = '\0';
	for (int i = 0; list && i < n; i++) {
		if (strcmp(list[i], name) == 0)
			found = true;
		if (len < size)
			len += (size_t)snprintf(avail + len, size - len, "%s%s",
						i ? ", " : "", list[i]);
		free(list[i]);
	}
	free(list);
	return found;
}

/* dot with limits on its network simplex (ranking and x coordinates),
 * crossing minimisation and edge routing: a plainer picture in bounded
 * time. Measured on coarsened training graphs, routing spline edges around
 * tens of thousands of virtual nodes took most of the time; straight lines
 * cost almost nothing. */
static void bound_dot(Agraph_t *G)
{
	agsafeset(G, "nslimit", "0.2", "");
	agsafeset(G, "nslimit1", "0.2", "");
	agsafeset(G, "mclimit", "0.2", "");
	agsafeset(G, "searchsize", "30", "");
	agsafeset(G, "remincross", "false", "");
	agsafeset(G, "splines", "line", "");
}

/* Force-directed layouts draw no clusters: list the devices in the graph
 * label instead, so that the picture still says what each color is. */
static void add_legend(Agraph_t *G)
{
	dpi_sbuf sb = {0};
	char *label = agget(G, "label");
	dpi_sbuf_puts(&sb, label ? label : "");
	for (Agraph_t *s = agfstsubg(G); s; s = agnxtsubg(s)) {
		char *l = agget(s, "label"), *c = agget(s, "color");
		dpi_sbuf_printf(&sb, "\\n[%s] %s", c ? c : "", l ? l : "");
	}
	if (sb.s)
		agsafeset(G, "label", sb.s, "");
	dpi_sbuf_free(&sb);
}

/* ---- the timeline layout ----
 *
 * dot with device clusters spends minutes in crossing minimisation once a
 * picture has a few hundred nodes joined by long edges (a 587-node picture
 * of a 3,000-op training graph ran past 120 s, even ranked by time and with
 * bounded effort; the same graph without clusters took 0.4 s). The timeline
 * places the nodes itself, in time linear in the picture: one column per
 * device (its cluster), the nodes of a device top to bottom in the order
 * they start, each as low as its start time says unless the one above
 * pushes it further down. Graphviz's "nop" layout then keeps these
 * positions, draws the clusters in the boxes given and routes the edges as
 * straight lines. */

typedef struct tl_node {
	Agnode_t *n;
	double start, w, h;
} tl_node;

static int tl_cmp(const void *a, const void *b)
{
	const tl_node *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* Size in points of a label of Helvetica at `pt` points: lines are split
 * at the escString "\n"; a character is taken as wide as a digit or
 * capital (0.62 em), so that a label rarely outgrows its estimate. */
static void tl_label_size(const char *label, double pt, double *w, double *h)
{
	size_t lines = 1, cur = 0, widest = 0;
	for (const char *s = label ? label : ""; *s; s++) {
		if (s[0] == '\\' &&
		    (s[1] == 'n' || s[1] == 'l' || s[1] == 'r')) {
			lines++;
			widest = cur > widest ? cur : widest;
			cur = 0;
			s++;
		} else if (((unsigned char)*s & 0xC0) != 0x80) {
			cur++; /* one per UTF-8 character */
		}
	}
	widest = cur > widest ? cur : widest;
	*w = (double)widest * pt * 0.62;
	*h = (double)lines * pt * 1.2;
}

/* pos of a node, in points */
static void tl_set_pos(Agnode_t *n, double x, double y)
{
	char buf[64];
	agsafeset(n, "pos", dp_units_fmt_c(buf, sizeof buf, "%.2f,%.2f", x, y),
		  "");
}

/* bb (lower left, upper right) of a graph or cluster, in points */
static void tl_set_bb(Agraph_t *g, double x0, double y0, double x1, double y1)
{
	char buf[128];
	agsafeset(g, "bb",
		  dp_units_fmt_c(buf, sizeof buf, "%.2f,%.2f,%.2f,%.2f", x0, y0,
				 x1, y1),
		  "");
}

#define TL_PAD 12.0	/* points inside a cluster's box */
#define TL_COL_GAP 48.0 /* points between columns */
#define TL_ROW_GAP 10.0 /* points between nodes of a column */
#define TL_TITLE 36.0	/* room for a cluster's two-line title */

/* The device clusters of G in device order (cgraph lists subgraphs in an
 * order of its own: GPU 0, 3, 1, 2). Returns how many; *out is malloc'd. */
static int clusters_in_order(Agraph_t *G, Agraph_t ***out)
{
	int n = 0;
	for (Agraph_t *s = agfstsubg(G); s; s = agnxtsubg(s))
		n++;
	Agraph_t **cl = malloc(((size_t)n + 1) * sizeof *cl);
	int k = 0;
	char name[32];
	for (; cl && k < n; k++) {
		snprintf(name, sizeof name, "cluster_dev%d", k);
		if (!(cl[k] = agsubg(G, name, 0)))
			break;
	}
	*out = cl;
	return cl ? k : -1;
}

/* Places the nodes of every cluster_devN of G; false when out of memory. */
static bool timeline_place(Agraph_t *G)
{
	Agraph_t **cl;
	int nclust = clusters_in_order(G, &cl);
	size_t most = 0;
	for (int i = 0; i < nclust; i++) {
		size_t n = (size_t)agnnodes(cl[i]);
		most = n > most ? n : most;
	}
	tl_node *tn = malloc((most ? most : 1) * sizeof *tn);
	double *colw =
		calloc((size_t)(nclust > 0 ? nclust : 0) + 1, sizeof *colw);
	if (nclust < 0 || !tn || !colw) {
		free(cl);
		free(tn);
		free(colw);
		return false;
	}
	/* the step's time becomes height: the tallest column's own height is
	 * the step's length, so that time and stacking agree roughly */
	double span = 0, tallest = 0;
	for (int ci = 0; ci < nclust; ci++) {
		Agraph_t *s = cl[ci];
		double sum = 0, w = 0, h;
		for (Agnode_t *n = agfstnode(s); n; n = agnxtnode(s, n)) {
			char *e = agget(n, "end_us");
			double end = e && *e ? strtod(e, NULL) : 0;
			span = end > span ? end : span;
			double nw, nh;
			tl_label_size(agget(n, "label"), 10, &nw, &nh);
			sum += nh + 16 + TL_ROW_GAP;
			w = nw + 24 > w ? nw + 24 : w;
		}
		tl_label_size(agget(s, "label"), 12, &colw[ci], &h);
		colw[ci] = w > colw[ci] ? w : colw[ci];
		tallest = sum > tallest ? sum : tallest;
	}
	double scale = span > 0 ? tallest / span : 0;
	/* columns in device order, left to right; y grows downwards here and
	 * is flipped below (Graphviz's y grows upwards) */
	double x = 0, bottom = 0;
	for (int ci = 0; ci < nclust; ci++) {
		Agraph_t *s = cl[ci];
		size_t k = 0;
		for (Agnode_t *n = agfstnode(s); n; n = agnxtnode(s, n)) {
			char *st = agget(n, "start_us");
			tn[k].n = n;
			tn[k].start = st && *st ? strtod(st, NULL) : 0;
			tl_label_size(agget(n, "label"), 10, &tn[k].w,
				      &tn[k].h);
			tn[k].h += 16;
			k++;
		}
		qsort(tn, k, sizeof *tn, tl_cmp);
		double y = TL_TITLE, cx = x + TL_PAD + colw[ci] / 2;
		char wbuf[32];
		dp_units_fmt_c(wbuf, sizeof wbuf, "%.3f", colw[ci] / 72.0);
		for (size_t i = 0; i < k; i++) {
			double want = TL_TITLE + tn[i].start * scale;
			y = want > y ? want : y;
			tl_set_pos(tn[i].n, cx, -(y + tn[i].h / 2));
			agsafeset(tn[i].n, "width", wbuf, "");
			y += tn[i].h + TL_ROW_GAP;
		}
		bottom = y > bottom ? y : bottom;
		x += colw[ci] + 2 * TL_PAD + TL_COL_GAP;
	}
	/* every column as tall as the tallest, so the boxes line up */
	x = 0;
	for (int ci = 0; ci < nclust; ci++) {
		double x1 = x + colw[ci] + 2 * TL_PAD;
		tl_set_bb(cl[ci], x, -(bottom + TL_PAD), x1, 0);
		x = x1 + TL_COL_GAP;
	}
	tl_set_bb(G, -TL_PAD, -(bottom + 2 * TL_PAD), x - TL_COL_GAP + TL_PAD,
		  TL_PAD);
	free(cl);
	free(tn);
	free(colw);
	return true;
}

/* The graph title says how the picture reads. */
static void timeline_title(Agraph_t *G)
{
	dpi_sbuf sb = {0};
	char *label = agget(G, "label");
	dpi_sbuf_puts(&sb, label ? label : "");
	dpi_sbuf_puts(&sb, "\\ntimeline: one column per device, its ops top to "
			   "bottom in the order they start");
	if (sb.s)
		agsafeset(G, "label", sb.s, "");
	dpi_sbuf_free(&sb);
}

static void child_say(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* dot lays out a picture whose edges cross up to this many ranks in total
 * in seconds (with its device clusters); above it the ranks follow the
 * schedule's time instead when dot is asked for by name. */
#define STRUCT_MAX_VIRTUAL 2000u

/* The layout of the picture when none was asked for: the timeline, whose
 * time is linear in the picture and whose columns are the devices in
 * order. dot, which drew small pictures before, puts its clusters in an
 * order of its own (GPU 3, 0, 1, 2 on resnet50), which no invisible anchor
 * or edge order changed (docs/export.md). */
static const char *auto_layout(void)
{
	return "timeline";
}

/* Runs in the child; never returns. */
static void child_main(int msg_fd, int stat_fd, FILE *out, const char *format,
		       const dp_graph *g, const dp_machine *m,
		       const dp_plan *plan, const dp_coarse *c,
		       const dp_export_opts *o)
{
	dpi_child_signals();
	dup2(msg_fd, STDERR_FILENO);
	dup2(msg_fd, STDOUT_FILENO);

	GVC_t *gvc = gvContext();
	if (!gvc)
		_exit(CHILD_BUILD);
	char avail[256];
	const char *layout = o->layout ? o->layout : auto_layout();
	bool timeline = strcmp(layout, "timeline") == 0;
	if (timeline && !has_layout(gvc, "nop", avail, sizeof avail)) {
		if (o->layout) { /* asked for by name: say why not */
			child_say(STDERR_FILENO, avail);
			_exit(CHILD_LAYOUT_MISSING);
		}
		layout = "dot"; /* a Graphviz without neato's plugin */
		timeline = false;
	}
	if (o->layout && !timeline &&
	    !has_layout(gvc, layout, avail, sizeof avail)) {
		child_say(STDERR_FILENO, avail);
		_exit(CHILD_LAYOUT_MISSING);
	}
	bool dot = strcmp(layout, "dot") == 0;
	/* training graphs have long edges (activations kept for the backward
	 * pass): ranked by structure they can keep dot busy for hours */
	int windows = 0;
	if (dot && dpi_coarsen_layout_cost(c) > STRUCT_MAX_VIRTUAL) {
		windows = (int)(2.0 * sqrt((double)c->n));
		windows = windows < 8 ? 8 : windows > 60 ? 60 : windows;
	}
	Agraph_t *G = NULL;
	dp_err err;
	if (dpi_export_dot_build(g, m, plan, c, true, windows, NULL, &G,
				 &err) != DP_OK) {
		child_say(STDERR_FILENO, err.msg);
		_exit(CHILD_BUILD);
	}
	if (dot && (windows || c->n > DOT_BOUNDED_NODES ||
		    c->nedges > DOT_BOUNDED_EDGES))
		bound_dot(G);
	if (timeline) {
		if (!timeline_place(G))
			_exit(CHILD_BUILD);
		timeline_title(G);
		agsafeset(G, "splines", "line", "");
		agsafeset(G, "outputorder", "edgesfirst", "");
		layout = "nop";
	} else if (!dot && strcmp(layout, "fdp") != 0) {
		add_legend(G);
		agsafeset(G, "overlap", "prism", "");
		agsafeset(G, "outputorder", "edgesfirst", "");
	}
	child_say(stat_fd, timeline  ? "timeline"
			   : windows ? "dot, ranked by time"
				     : layout);
	close(stat_fd);
	if (gvLayout(gvc, G, layout) != 0)
		_exit(CHILD_LAYOUT);
	if (gvRender(gvc, G, format, out) != 0)
		_exit(CHILD_RENDER);
	if (fflush(out) != 0 || ferror(out))
		_exit(CHILD_WRITE);
	_exit(CHILD_OK);
}

/* ---- the parent ---- */

typedef struct msgbuf {
	char text[MSG_KEEP + 1];
	size_t len;
} msgbuf;

/* Reads what is available on fd into b, keeping the last MSG_KEEP bytes.
 * Returns false at end of file. */
static bool drain(int fd, msgbuf *b)
{
	char tmp[1024];
	ssize_t n = read(fd, tmp, sizeof tmp);
	if (n == 0)
		return false;
	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	size_t k = (size_t)n;
	if (b->len + k > MSG_KEEP) {
		size_t drop = b->len + k - MSG_KEEP;
		if (drop > b->len)
			drop = b->len;
		memmove(b->text, b->text + drop, b->len - drop);
		b->len -= drop;
	}
	if (k > MSG_KEEP)
		k = MSG_KEEP;
	memcpy(b->text + b->len, tmp + (size_t)n - k, k);
	b->len += k;
	b->text[b->len] = '\0';
	return true;
}

/* The last line(s) of Graphviz's messages, for an error message. */
static const char *msg_tail(msgbuf *b)
{
	while (b->len &&
	       (b->text[b->len - 1] == '\n' || b->text[b->len - 1] == ' '))
		b->text[--b->len] = '\0';
	for (size_t i = 0; i < b->len; i++)
		if (b->text[i] == '\n' || b->text[i] == '\t')
			b->text[i] = ' ';
	return b->len > 300 ? b->text + b->len - 300 : b->text;
}

typedef struct child {
	const char *format; /* Graphviz's renderer: svg, png, pdf */
	pid_t pid;
	int msg_fd, stat_fd;
	msgbuf msg;
	char layout[32];
	size_t layout_len;
	int status;
	bool exited;
} child;

static void kill_child(child *ch)
{
	if (ch->exited)
		return;
	kill(ch->pid, SIGKILL);
	while (waitpid(ch->pid, &ch->status, 0) < 0 && errno == EINTR)
		;
	ch->exited = true;
}

/* Waits for the child, reading its messages; returns DP_OK when it exited
 * (status in ch->status), else the error after killing it. */
static dp_status wait_child(child *ch, const char *path, const dp_coarse *c,
			    const dp_export_opts *o, const dp_progress *p,
			    double t0, dp_err *err)
{
	bool msg_open = true, stat_open = true;
	for (;;) {
		struct pollfd pf[2];
		int npf = 0;
		if (msg_open)
			pf[npf++] = (struct pollfd){ch->msg_fd, POLLIN, 0};
		if (stat_open)
			pf[npf++] = (struct pollfd){ch->stat_fd, POLLIN, 0};
		if (npf)
			poll(pf, (nfds_t)npf, POLL_MS);
		else
			nanosleep(&(struct timespec){0, POLL_MS * 1000000L},
				  NULL);
		if (msg_open)
			msg_open = drain(ch->msg_fd, &ch->msg);
		if (stat_open) {
			ssize_t n =
				read(ch->stat_fd, ch->layout + ch->layout_len,
				     sizeof ch->layout - 1 - ch->layout_len);
			if (n > 0)
				ch->layout_len += (size_t)n;
			else if (n == 0 || (errno != EAGAIN && errno != EINTR))
				stat_open = false;
			ch->layout[ch->layout_len] = '\0';
		}
		if (!ch->exited) {
			pid_t r = waitpid(ch->pid, &ch->status, WNOHANG);
			if (r == ch->pid || (r < 0 && errno != EINTR))
				ch->exited = true;
			if (r < 0 && errno == ECHILD)
				return dp_err_set(err, DP_EINTERNAL, path, 0, 0,
						  "lost the layout process "
						  "(is SIGCHLD ignored?)");
		}
		if (ch->exited && !msg_open)
			return DP_OK;
		double el = dpi_now_s() - t0;
		if (dp_progress_canceled(p)) {
			kill_child(ch);
			return dp_err_set(err, DP_ECANCELED, path, 0, 0,
					  "export canceled; no file written");
		}
		if (el > o->timeout_s) {
			kill_child(ch);
			char lim[32];
			dp_units_fmt_c(lim, sizeof lim, "%g", o->timeout_s);
			return dp_err_set(
				err, DP_EIO, path, 0, 0,
				"layout took longer than %s s (%s, %u nodes, "
				"%u edges) and was stopped; try a smaller "
				"picture (--coarsen always, --max-nodes), "
				"another layout (--layout timeline), a longer "
				"--timeout, or export DOT and lay it out "
				"yourself",
				lim, ch->layout[0] ? ch->layout : "dot", c->n,
				c->nedges);
		}
		if (ch->exited) /* the pipe is still open in a grandchild? */
			msg_open = false;
		char phase[64];
		snprintf(phase, sizeof phase, "laying out (%s)",
			 ch->layout[0] ? ch->layout : "starting");
		/* the fraction shows the share of the time limit used */
		dp_progress_report(p, phase, 0.1 + 0.8 * el / o->timeout_s);
	}
}

static dp_status child_error(child *ch, const char *path,
			     const dp_export_opts *o, dp_err *err)
{
	const char *tail = msg_tail(&ch->msg);
	if (WIFSIGNALED(ch->status) && (WTERMSIG(ch->status) == SIGTERM ||
					WTERMSIG(ch->status) == SIGKILL))
		return dp_err_set(err, DP_EINTERNAL, path, 0, 0,
				  "the layout process was stopped by signal "
				  "%d (%s) from outside; no file written",
				  WTERMSIG(ch->status),
				  strsignal(WTERMSIG(ch->status)));
	if (WIFSIGNALED(ch->status))
		return dp_err_set(err, DP_EINTERNAL, path, 0, 0,
				  "the Graphviz layout crashed (signal %d)%s%s",
				  WTERMSIG(ch->status), tail[0] ? ": " : "",
				  tail);
	switch (WEXITSTATUS(ch->status)) {
	case CHILD_LAYOUT_MISSING:
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "layout engine '%s' is not installed; "
				  "available: %s%s",
				  o->layout ? o->layout : "?",
				  strstr(tail, "nop") ? "timeline, " : "",
				  tail);
	case CHILD_BUILD:
		return dp_err_set(err, DP_ENOMEM, path, 0, 0,
				  "could not build the graph to lay out%s%s",
				  tail[0] ? ": " : "", tail);
	case CHILD_LAYOUT:
		return dp_err_set(err, DP_EINTERNAL, path, 0, 0,
				  "Graphviz could not lay out the graph "
				  "(%s)%s%s",
				  ch->layout, tail[0] ? ": " : "", tail);
	case CHILD_RENDER:
		return dp_err_set(err, DP_EINTERNAL, path, 0, 0,
				  "Graphviz could not render %s%s%s (its "
				  "cairo renderer, from the libgvplugin-"
				  "pango package, draws PNG and PDF)",
				  ch->format, tail[0] ? ": " : "", tail);
	case CHILD_WRITE:
		return dp_err_set(err, DP_EIO, path, 0, 0,
				  "could not write the %s (disk full?)",
				  ch->format);
	default:
		return dp_err_set(err, DP_EINTERNAL, path, 0, 0,
				  "the layout process failed (exit %d)%s%s",
				  WEXITSTATUS(ch->status), tail[0] ? ": " : "",
				  tail);
	}
}

static dp_status run_layout(dp_afile *af, const char *path, const char *format,
			    const dp_graph *g, const dp_machine *m,
			    const dp_plan *plan, const dp_coarse *c,
			    const dp_export_opts *o, const dp_progress *p,
			    dp_export_report *rep, dp_err *err)
{
	int mp[2], sp[2];
	if (pipe(mp) != 0)
		return dp_err_set(err, DP_EIO, path, 0, 0,
				  "could not create a pipe: %s",
				  strerror(errno));
	if (pipe(sp) != 0) {
		close(mp[0]);
		close(mp[1]);
		return dp_err_set(err, DP_EIO, path, 0, 0,
				  "could not create a pipe: %s",
				  strerror(errno));
	}
	/* nothing buffered may be written twice by parent and child (the
	 * child leaves with _exit, which flushes no other stream) */
	fflush(af->f);
	double t0 = dpi_now_s();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(mp[0]);
		close(mp[1]);
		close(sp[0]);
		close(sp[1]);
		return dp_err_set(err, DP_EIO, path, 0, 0,
				  "could not start the layout process: %s",
				  strerror(e));
	}
	if (pid == 0) {
		close(mp[0]);
		close(sp[0]);
		child_main(mp[1], sp[1], af->f, format, g, m, plan, c, o);
	}
	close(mp[1]);
	close(sp[1]);
	child ch;
	memset(&ch, 0, sizeof ch);
	ch.pid = pid;
	ch.format = format;
	ch.msg_fd = mp[0];
	ch.stat_fd = sp[0];
	fcntl(mp[0], F_SETFL, fcntl(mp[0], F_GETFL) | O_NONBLOCK);
	fcntl(sp[0], F_SETFL, fcntl(sp[0], F_GETFL) | O_NONBLOCK);
	dp_status st = wait_child(&ch, path, c, o, p, t0, err);
	close(mp[0]);
	close(sp[0]);
	if (st)
		return st;
	if (!WIFEXITED(ch.status) || WEXITSTATUS(ch.status) != CHILD_OK)
		return child_error(&ch, path, o, err);
	struct stat sb;
	if (fstat(fileno(af->f), &sb) != 0 || sb.st_size == 0)
		return dp_err_set(err, DP_EINTERNAL, path, 0, 0,
				  "Graphviz wrote nothing%s%s",
				  ch.msg.len ? ": " : "", msg_tail(&ch.msg));
	/* the file offset is shared with the child: move the parent's
	 * stream to the end so that nothing could overwrite the SVG */
	fseek(af->f, 0, SEEK_END);
	snprintf(rep->layout, sizeof rep->layout, "%s", ch.layout);
	rep->layout_s = dpi_now_s() - t0;
	return DP_OK;
}

static dp_status write_svg(const dpi_picture_job *j, const dp_coarse *c,
			   dp_afile *af, dp_err *err)
{
	dp_progress_report(j->p, "laying out", 0.1);
	return run_layout(af, j->path, j->format, j->g, j->m, j->plan, c, j->o,
			  j->p, j->rep, err);
}

dp_status dpi_export_svg_write(const char *path, dp_export_kind kind,
			       const dp_graph *g, const dp_machine *m,
			       const dp_plan *plan, const dp_export_opts *o,
			       const dp_progress *p, dp_export_report *rep,
			       dp_err *err)
{
	/* the layout runs on what is drawn: max_nodes ops at most, grouped
	 * beyond that */
	const char *format = kind == DP_EXPORT_PNG   ? "png"
			     : kind == DP_EXPORT_PDF ? "pdf"
						     : "svg";
	dpi_picture_job j = {path, g, m, plan, o, p, rep, format};
	return dpi_export_picture(&j, o->max_nodes, write_svg, err);
}
