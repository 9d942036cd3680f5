/* load_dot.c - graphs in Graphviz DOT, read with cgraph (docs/formats.md).
 *
 * Node attributes carry the op fields under the JSON names (time_us,
 * output_bytes, param_bytes, temp_bytes, type, layer, colocate, pin), edge
 * attributes bytes and control; graph attributes devices, memory, bandwidth
 * and latency give machine defaults. A node without time_us takes 1 µs, as
 * the ParDNN reference does for ops without a profile.
 *
 * cgraph reports problems through a process-wide error function, so loading
 * holds a lock and routes messages to a function of ours that collects
 * them: nothing is printed and syntax errors become a dp_err with the line
 * Graphviz names. cgraph keeps no line numbers for nodes, so errors in
 * attribute values name the node and the first line that mentions it.
 */
#include <cgraph.h>
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/units.h"
#include "internal/graph_int.h"
#include "internal/load_dot_int.h"
#include "internal/load_util.h"

/* cgraph 2.42's DOT scanner (flex) keeps its input buffer between
 * agmemread() calls: what followed the closing brace on the last line it
 * read is lexed at the start of the next parse, so a second graph on that
 * line became the next file's graph and a trailing newline shifted the next
 * file's error lines by one. aglexbad() flushes that buffer (cgraph calls it
 * itself after a syntax error); we call it before and after each parse.
 * libcgraph exports it without declaring it in its headers, so it is
 * declared weak: a cgraph without it still links. */
extern void aglexbad(void) __attribute__((weak));

/* cgraph 2.42 dereferences NULL when an allocation fails inside
 * agmemread(), so a DOT file too large for the memory left crashed the
 * process (found under ulimit -v) instead of failing. Its parse needs about
 * DOT_BYTES_PER_ITEM per node and per edge on top of the text (measured:
 * some 225 bytes, whatever the attributes), so the loader estimates the
 * count from the text and refuses up front when that much memory is not
 * available. */
#define DOT_BYTES_PER_ITEM 256

/* Nodes and edges a DOT text may declare, from above: one edge per "->"
 * or "--", and as many nodes as there are edges or statements (lines, and
 * ';' within a line), whichever is more. */
static size_t dot_items(const char *text, size_t len)
{
	size_t edges = 0, stmts = 1;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (c == '\n' || (c == ';' && i + 1 < len &&
				  text[i + 1] != '\n' && text[i + 1] != '\r'))
			stmts++;
		else if (c == '-' && i + 1 < len &&
			 (text[i + 1] == '>' || text[i + 1] == '-'))
			edges++, i++;
	}
	return edges + (edges > stmts ? edges : stmts);
}

/* Bytes this process can still allocate: the address-space limit less
 * what is mapped, and what the system has available (memory and swap);
 * SIZE_MAX when neither is known. */
static size_t memory_headroom(void)
{
	size_t room = SIZE_MAX;
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		unsigned long pages = 0;
		FILE *f = fopen("/proc/self/statm", "r");
		if (f) {
			if (fscanf(f, "%lu", &pages) != 1)
				pages = 0;
			fclose(f);
		}
		size_t used = (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
		room = rl.rlim_cur > used ? (size_t)rl.rlim_cur - used : 0;
	}
	FILE *f = fopen("/proc/meminfo", "r");
	if (f) {
		char line[128];
		unsigned long long kb, avail = 0;
		bool have = false;
		while (fgets(line, sizeof line, f)) {
			if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
				avail += kb * 1024;
				have = true;
			} else if (sscanf(line, "SwapFree: %llu kB", &kb) ==
				   1) {
				avail += kb * 1024;
			}
		}
		fclose(f);
		if (have && avail < room)
			room = (size_t)avail;
	}
	return room;
}

static pthread_mutex_t dot_lock = PTHREAD_MUTEX_INITIALIZER;
/* messages cgraph reported during the current load (under dot_lock) */
static char dot_msgs[2048];
static size_t dot_msgs_len;

static int collect_message(char *msg)
{
	size_t n = strlen(msg);
	if (dot_msgs_len + n >= sizeof dot_msgs)
		n = sizeof dot_msgs - 1 - dot_msgs_len;
	memcpy(dot_msgs + dot_msgs_len, msg, n);
	dot_msgs_len += n;
	dot_msgs[dot_msgs_len] = '\0';
	return 0;
}

/* Turns cgraph's collected messages into an error: the first line that
 * says "Error", with "in line N" taken as the position. */
static dp_status syntax_error(const char *path, dp_err *err)
{
	const char *m = strstr(dot_msgs, "Error");
	if (!m)
		m = dot_msgs;
	const char *nl = strchr(m, '\n');
	int n = nl ? (int)(nl - m) : (int)strlen(m);
	int line = 0;
	const char *in = strstr(m, "in line ");
	if (in && in < m + n)
		line = atoi(in + 8);
	/* "Error: <stdin>: syntax error in line 3 near 'x'" -> the part
	 * after the source name reads best */
	const char *msg = m;
	const char *colon = strstr(m, ": ");
	if (colon && colon < m + n) {
		const char *second = strstr(colon + 2, ": ");
		msg = second && second < m + n ? second + 2 : colon + 2;
	}
	int mlen = n - (int)(msg - m);
	if (mlen <= 0)
		return dp_err_set(err, DP_EINPUT, path, line, 0,
				  "not a valid DOT graph: expected digraph "
				  "NAME { ... }");
	return dp_err_set(err, DP_EINPUT, path, line, 0,
			  "DOT %.*s (expected a graph such as: digraph g "
			  "{ a -> b; })",
			  mlen, msg);
}

bool dpi_dot_token_at(const char *text, size_t i, size_t n, size_t len)
{
	char before = i ? text[i - 1] : ' ';
	char after = i + n < len ? text[i + n] : ' ';
	bool word_before = isalnum((unsigned char)before) || before == '_' ||
			   before == '.';
	bool word_after =
		isalnum((unsigned char)after) || after == '_' || after == '.';
	return !word_before && !word_after;
}

int dpi_dot_guess_line(const char *text, const char *name, const char *attr)
{
	size_t len = strlen(text), nl = strlen(name);
	int first = 0;
	int line = 1;
	const char *p = text;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);
		for (size_t i = 0; nl && i + nl <= ll; i++) {
			if (memcmp(p + i, name, nl) != 0 ||
			    !dpi_dot_token_at(text, (size_t)(p - text) + i, nl,
					      len))
				continue;
			if (!first)
				first = line;
			if (!attr)
				return line;
			size_t al = strlen(attr);
			for (size_t j = 0; j + al <= ll; j++)
				if (memcmp(p + j, attr, al) == 0)
					return line;
			break;
		}
		if (!eol)
			break;
		p = eol + 1;
		line++;
	}
	return first;
}

const char *dpi_dot_attr(void *obj, Agsym_t *sym)
{
	if (!sym)
		return NULL;
	const char *v = agxget(obj, sym);
	return v && v[0] ? v : NULL;
}

dp_status dpi_dot_value_error(dload *D, const char *what, const char *name,
			      const char *field, const char *msg)
{
	return dp_err_set(D->err, DP_EINPUT, D->path,
			  dpi_dot_guess_line(D->text, name, field), 0,
			  "%s '%s', attribute %s: %s", what, name, field, msg);
}

static dp_status size_attr(dload *D, void *obj, Agsym_t *sym, const char *name,
			   int64_t *out)
{
	const char *v = dpi_dot_attr(obj, sym);
	dp_err e;
	if (v && dp_units_parse_bytes(v, out, &e))
		return dpi_dot_value_error(D, "node", name, sym->name, e.msg);
	return DP_OK;
}

static dp_status read_node(dload *D, Agnode_t *n)
{
	const char *name = agnameof(n);
	uint32_t id;
	dp_err e;
	if (dp_graph_add_op(D->g, name, &id, &e))
		return dp_err_set(D->err, e.code, D->path,
				  dpi_dot_guess_line(D->text, name, NULL), 0,
				  "%s", e.msg);
	dp_op *op = &D->g->ops[id];
	const char *v = dpi_dot_attr(n, D->time);
	op->time_us = 1.0; /* ParDNN's default for unprofiled ops */
	if (v && dp_units_parse_time(v, &op->time_us, &e))
		return dpi_dot_value_error(D, "node", name, "time_us", e.msg);
	dp_status st;
	if ((st = size_attr(D, n, D->out, name, &op->output_bytes)) ||
	    (st = size_attr(D, n, D->param, name, &op->param_bytes)) ||
	    (st = size_attr(D, n, D->temp, name, &op->temp_bytes)))
		return st;
	if ((v = dpi_dot_attr(n, D->pin))) {
		double d;
		size_t k = dp_units_scan_number(v, &d);
		if (!k || v[k] || d != floor(d) || d < -1 ||
		    d >= DP_MAX_DEVICES) {
			char msg[160];
			snprintf(msg, sizeof msg,
				 "expected an integer from -1 (not pinned) to "
				 "%d, got '%.40s'",
				 DP_MAX_DEVICES - 1, v);
			return dpi_dot_value_error(D, "node", name, "pin", msg);
		}
		op->pin = (int32_t)d;
	}
	if (((v = dpi_dot_attr(n, D->type)) &&
	     dp_graph_set_type(D->g, id, v, &e)) ||
	    ((v = dpi_dot_attr(n, D->layer)) &&
	     dp_graph_set_layer(D->g, id, v, &e)) ||
	    ((v = dpi_dot_attr(n, D->coloc)) &&
	     dp_graph_set_colocate(D->g, id, v, &e)))
		return dp_err_set(D->err, e.code, D->path,
				  dpi_dot_guess_line(D->text, name, NULL), 0,
				  "%s", e.msg);
	dp_role r;
	if ((v = dpi_dot_attr(n, D->role)) &&
	    (dp_role_parse(v, &r, &e) || dp_graph_set_role(D->g, id, r, &e)))
		return e.code == DP_EINPUT
			       ? dpi_dot_value_error(D, "node", name, "role",
						     e.msg)
			       : dp_err_set(D->err, e.code, D->path, 0, 0, "%s",
					    e.msg);
	return dpi_dot_read_node_dims(D, n, id);
}

static int cmp_edge_seq(const void *a, const void *b)
{
	uint64_t x = AGSEQ(*(Agedge_t *const *)a);
	uint64_t y = AGSEQ(*(Agedge_t *const *)b);
	return x < y ? -1 : x > y;
}

static dp_status read_edge(dload *D, Agedge_t *ed)
{
	const char *from = agnameof(agtail(ed)), *to = agnameof(aghead(ed));
	uint32_t a = dp_graph_find(D->g, from), b = dp_graph_find(D->g, to);
	char label[600];
	snprintf(label, sizeof label, "%s -> %s", from, to);
	if (a == b)
		return dp_err_set(D->err, DP_EINPUT, D->path,
				  dpi_dot_guess_line(D->text, from, NULL), 0,
				  "self-loop on node '%s' (an op cannot "
				  "depend on itself)",
				  from);
	int64_t bytes = -1;
	dp_err e;
	const char *v = dpi_dot_attr(ed, D->ebytes);
	if (v && dp_units_parse_bytes(v, &bytes, &e))
		return dp_err_set(D->err, DP_EINPUT, D->path,
				  dpi_dot_guess_line(D->text, to, "bytes"), 0,
				  "edge '%s', attribute bytes: %s", label,
				  e.msg);
	bool control = false;
	if ((v = dpi_dot_attr(ed, D->econtrol))) {
		if (!strcasecmp(v, "true") || !strcmp(v, "1") ||
		    !strcasecmp(v, "yes"))
			control = true;
		else if (strcasecmp(v, "false") && strcmp(v, "0") &&
			 strcasecmp(v, "no"))
			return dp_err_set(
				D->err, DP_EINPUT, D->path,
				dpi_dot_guess_line(D->text, to, "control"), 0,
				"edge '%s', attribute control: "
				"expected true or false, got '%.40s'",
				label, v);
	}
	if (dp_graph_add_edge(D->g, a, b, bytes, control, &e))
		return dp_err_set(D->err, e.code, D->path, 0, 0, "%s", e.msg);
	return dpi_dot_read_edge_dims(D, ed, D->g->nedges - 1);
}

/* Graph attributes devices, memory, bandwidth, latency -> g->hint. */
static dp_status read_hint(dload *D)
{
	dp_machine_hint *h = &D->g->hint;
	dp_err e;
	const char *v;
	if ((v = agget(D->ag, "devices")) && v[0]) {
		double d;
		size_t k = dp_units_scan_number(v, &d);
		if (!k || v[k] || d != floor(d) || d < 1 || d > DP_MAX_DEVICES)
			return dp_err_set(
				D->err, DP_EINPUT, D->path,
				dpi_dot_guess_line(D->text, "devices", NULL), 0,
				"graph attribute devices: expected "
				"an integer from 1 to %d, got "
				"'%.40s'",
				DP_MAX_DEVICES, v);
		h->devices = (int)d;
	}
	if ((v = agget(D->ag, "memory")) && v[0] &&
	    dp_units_parse_size(v, &h->memory_bytes, &e))
		return dp_err_set(D->err, DP_EINPUT, D->path,
				  dpi_dot_guess_line(D->text, "memory", NULL),
				  0, "graph attribute memory: %s", e.msg);
	if ((v = agget(D->ag, "bandwidth")) && v[0] &&
	    dp_units_parse_bandwidth(v, &h->bw_bytes_per_us, &e))
		return dp_err_set(
			D->err, DP_EINPUT, D->path,
			dpi_dot_guess_line(D->text, "bandwidth", NULL), 0,
			"graph attribute bandwidth: %s", e.msg);
	if ((v = agget(D->ag, "batch_dim")) && v[0] &&
	    dp_graph_set_batch_dim(D->g, v, &e))
		return dp_err_set(
			D->err, e.code, D->path,
			dpi_dot_guess_line(D->text, "batch_dim", NULL), 0,
			"graph attribute %s", e.msg);
	if ((v = agget(D->ag, "latency")) && v[0] &&
	    dp_units_parse_time(v, &h->lat_us, &e))
		return dp_err_set(D->err, DP_EINPUT, D->path,
				  dpi_dot_guess_line(D->text, "latency", NULL),
				  0, "graph attribute latency: %s", e.msg);
	return DP_OK;
}

static dp_status read_graph(dload *D)
{
	Agraph_t *ag = D->ag;
	D->time = agattr(ag, AGNODE, "time_us", NULL);
	D->out = agattr(ag, AGNODE, "output_bytes", NULL);
	D->param = agattr(ag, AGNODE, "param_bytes", NULL);
	D->temp = agattr(ag, AGNODE, "temp_bytes", NULL);
	D->type = agattr(ag, AGNODE, "type", NULL);
	D->layer = agattr(ag, AGNODE, "layer", NULL);
	D->coloc = agattr(ag, AGNODE, "colocate", NULL);
	D->pin = agattr(ag, AGNODE, "pin", NULL);
	D->dims = agattr(ag, AGNODE, "dims", NULL);
	D->dout = agattr(ag, AGNODE, "out", NULL);
	D->dparam = agattr(ag, AGNODE, "param", NULL);
	D->elem = agattr(ag, AGNODE, "elem_bytes", NULL);
	D->role = agattr(ag, AGNODE, "role", NULL);
	D->ebytes = agattr(ag, AGEDGE, "bytes", NULL);
	D->edims = agattr(ag, AGEDGE, "dims", NULL);
	D->econtrol = agattr(ag, AGEDGE, "control", NULL);

	const char *gname = agnameof(ag);
	if (gname && gname[0] && gname[0] != '%' &&
	    dp_graph_set_name(D->g, gname, D->err))
		return DP_ENOMEM;
	dp_status st = read_hint(D);
	if (st)
		return st;
	/* ops in order of first appearance (cgraph's node sequence) */
	for (Agnode_t *n = agfstnode(ag); n; n = agnxtnode(ag, n))
		if ((st = read_node(D, n)))
			return st;
	if (D->g->nops == 0)
		return dp_err_set(D->err, DP_EINPUT, D->path, 0, 0,
				  "the graph has no nodes (expected at least "
				  "one op)");
	/* edges in file order: cgraph lists them per tail node, so sort
	 * them by their creation sequence */
	size_t ne = (size_t)agnedges(ag);
	Agedge_t **edges = malloc((ne ? ne : 1) * sizeof *edges);
	if (!edges)
		return dp_err_set(D->err, DP_ENOMEM, D->path, 0, 0,
				  "out of memory for %zu edges", ne);
	size_t k = 0;
	for (Agnode_t *n = agfstnode(ag); n; n = agnxtnode(ag, n))
		for (Agedge_t *e = agfstout(ag, n); e && k < ne;
		     e = agnxtout(ag, e))
			edges[k++] = e;
	qsort(edges, k, sizeof *edges, cmp_edge_seq);
	for (size_t i = 0; i < k && !st; i++)
		st = read_edge(D, edges[i]);
	free(edges);
	dp_err e;
	if (!st && dpi_graph_check_batch_dim(D->g, &e))
		st = dp_err_set(D->err, DP_EINPUT, D->path,
				dpi_dot_guess_line(D->text, "batch_dim", NULL),
				0, "graph attribute batch_dim: %s", e.msg);
	return st;
}

dp_status dp_load_dot(const char *path, const char *text, size_t len,
		      dp_graph **out, dp_err *err)
{
	/* cgraph reads up to the NUL that dp_load_read_file adds */
	size_t items = dot_items(text, len);
	size_t need = items > (SIZE_MAX - len) / DOT_BYTES_PER_ITEM
			      ? SIZE_MAX
			      : len + items * DOT_BYTES_PER_ITEM;
	size_t room = memory_headroom();
	if (need > room) {
		char a[32], b[32], c[32];
		return dp_err_set(
			err, DP_ENOMEM, path, 0, 0,
			"out of memory: the DOT file is %s and "
			"Graphviz needs about %s to read it, more "
			"than the %s left",
			dp_units_fmt_bytes((int64_t)len, a, sizeof a),
			dp_units_fmt_bytes(need > INT64_MAX ? INT64_MAX
							    : (int64_t)need,
					   b, sizeof b),
			dp_units_fmt_bytes(room > INT64_MAX ? INT64_MAX
							    : (int64_t)room,
					   c, sizeof c));
	}
	dload D;
	memset(&D, 0, sizeof D);
	D.path = path;
	D.text = text;
	D.err = err;
	D.g = dp_graph_new(NULL);
	if (!D.g)
		return dp_err_set(err, DP_ENOMEM, path, 0, 0, "out of memory");
	pthread_mutex_lock(&dot_lock);
	dot_msgs_len = 0;
	dot_msgs[0] = '\0';
	agusererrf prev = agseterrf(collect_message);
	agerrlevel_t prev_level = agseterr(AGWARN);
	if (aglexbad)
		aglexbad();
	D.ag = agmemread(text);
	if (aglexbad)
		aglexbad();
	dp_status st;
	if (!D.ag) {
		st = syntax_error(path, err);
	} else if (!agisdirected(D.ag)) {
		/* a -- b says nothing about which op runs first */
		st = dp_err_set(err, DP_EINPUT, path,
				dpi_dot_guess_line(text, "graph", NULL), 0,
				"undirected graph: dnnpart needs a digraph "
				"(write 'digraph' and edges a -> b, from "
				"producer to consumer)");
		agclose(D.ag);
	} else {
		st = read_graph(&D);
		agclose(D.ag);
	}
	agseterr(prev_level);
	agseterrf(prev);
	pthread_mutex_unlock(&dot_lock);
	if (!st && !D.g->name[0])
		st = dpi_load_name_from_file(D.g, path, err);
	if (st) {
		dp_graph_free(D.g);
		return st;
	}
	*out = D.g;
	return DP_OK;
}
