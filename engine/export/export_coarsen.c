/* export_coarsen.c - the picture DOT and SVG exports draw (coarsen.h).
 *
 * Graphviz's dot needs seconds for a few thousand nodes and hours for a
 * hundred thousand, so big graphs are drawn as groups of ops (docs/export.md):
 * first by `layer` scope and device, shortening the layer path until the
 * groups fit; else by runs of consecutive ops of one device's schedule
 * (its start order, which is a topological order of that device's ops).
 * The schedule's critical path stays visible: its ops stay single nodes
 * when there are few enough, otherwise their groups are marked.
 */
#include "internal/arrays.h"
#include "internal/coarsen.h"
#include "internal/sort_key.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dp_status oom(dp_err *err)
{
	return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
			  "out of memory while preparing the export picture");
}

static dp_status canceled(dp_err *err)
{
	return dp_err_set(err, DP_ECANCELED, NULL, 0, 0,
			  "export canceled; no file written");
}

void dpi_coarsen_free(dp_coarse *c)
{
	DPI_FREE_ALL(c->nodes, c->of, c->edges, c->strs);
	memset(c, 0, sizeof *c);
}

static uint32_t arena_add(dp_coarse *c, const char *s, size_t n)
{
	if (c->strs_len + n + 1 > c->strs_cap) {
		size_t cap = c->strs_cap ? c->strs_cap : 256;
		while (cap < c->strs_len + n + 1)
			cap *= 2;
		char *p = realloc(c->strs, cap);
		if (!p)
			return UINT32_MAX;
		c->strs = p;
		c->strs_cap = cap;
	}
	uint32_t off = (uint32_t)c->strs_len;
	memcpy(c->strs + off, s, n);
	c->strs[off + n] = '\0';
	c->strs_len += n + 1;
	return off;
}

/* ---- the critical path ---- */

/* Copies the plan's schedule critical path, or the graph's critical path
 * when the plan carries none, into *cp / *cause. */
static dp_status get_critical_path(const dp_graph *g, const dp_plan *plan,
				   uint32_t **cp, uint8_t **cause,
				   uint32_t *len)
{
	*cp = malloc(((size_t)g->nops + 1) * sizeof **cp);
	*cause = malloc((size_t)g->nops + 1);
	if (!*cp || !*cause)
		return DP_ENOMEM;
	if (plan->sim.cp_len > 0 && plan->sim.cp_ops) {
		*len = plan->sim.cp_len;
		memcpy(*cp, plan->sim.cp_ops, *len * sizeof **cp);
		for (uint32_t i = 0; i < *len; i++)
			(*cause)[i] = plan->sim.cp_cause
					      ? plan->sim.cp_cause[i]
					      : (uint8_t)(i ? DP_HOP_DATA
							    : DP_HOP_START);
		return DP_OK;
	}
	*len = 0;
	if (g->nops == 0)
		return DP_OK;
	if (dp_graph_critical_path(g, 1.0, *cp, len) < 0)
		return DP_ENOMEM;
	for (uint32_t i = 0; i < *len; i++)
		(*cause)[i] = i == 0 ? DP_HOP_START
			      : plan->placement[(*cp)[i - 1]] ==
					      plan->placement[(*cp)[i]]
				      ? DP_HOP_DATA
				      : DP_HOP_TRANSFER;
	return DP_OK;
}

/* ---- grouping by layer ---- */

typedef struct pair {
	uint64_t key; /* (group << 32) | dev; see the callers */
	uint32_t idx;
} pair;

/* Length of the first depth components of layer s (separators '/' and
 * '.'); the whole string when it has no more components. */
static size_t prefix_len(const char *s, int depth)
{
	int seen = 0;
	for (size_t i = 0; s[i]; i++)
		if ((s[i] == '/' || s[i] == '.') && ++seen == depth)
			return i;
	return strlen(s);
}

static int layer_depth(const char *s)
{
	int d = 1;
	for (; *s; s++)
		d += *s == '/' || *s == '.';
	return d;
}

/* Finds prefix ids for the distinct layers at one depth: ids[i] is the id
 * of the prefix of layers[i]; equal prefixes get equal ids. Returns the
 * number of distinct prefixes, or UINT32_MAX on allocation failure. The
 * sort is by (length-limited) string content, so ids are deterministic. */
typedef struct pref {
	const char *s;
	size_t n;
	uint32_t idx;
} pref;

DPI_CMP_DEFINE(cmp_pref, pref, memcmp(x->s, y->s, x->n < y->n ? x->n : y->n),
	       DPI_CMP(x->n, y->n), DPI_CMP(x->idx, y->idx))

static uint32_t prefix_ids(const dp_graph *g, const uint32_t *layers,
			   uint32_t nl, int depth, uint32_t *ids, pref *tmp)
{
	for (uint32_t i = 0; i < nl; i++) {
		const char *s = dp_graph_str(g, layers[i]);
		tmp[i].s = s;
		tmp[i].n = depth > 0 ? prefix_len(s, depth) : strlen(s);
		tmp[i].idx = i;
	}
	qsort(tmp, nl, sizeof *tmp, cmp_pref);
	uint32_t id = 0;
	for (uint32_t i = 0; i < nl; i++) {
		if (i > 0 && (tmp[i].n != tmp[i - 1].n ||
			      memcmp(tmp[i].s, tmp[i - 1].s, tmp[i].n) != 0))
			id++;
		ids[tmp[i].idx] = id;
	}
	return nl ? id + 1 : 0;
}

/* A layer grouping that fits: the distinct layers, the (layer, device)
 * pairs present and each layer's prefix id at the depth that fits. */
typedef struct layer_set {
	const uint32_t *layers;
	uint32_t nl;
	const uint64_t *pairs; /* (layer index + 1) << 32 | dev, sorted */
	uint32_t np;
	const uint32_t *ids;
	uint32_t nprefix;
	int depth;
} layer_set;

/* Index in ls->pairs of op u's (layer, device) pair. */
static uint32_t pair_of(const dp_graph *g, const dp_plan *plan,
			const layer_set *ls, uint32_t u)
{
	uint64_t li = 0;
	if (g->ops[u].layer) {
		const uint32_t *hit =
			bsearch(&g->ops[u].layer, ls->layers, ls->nl,
				sizeof *ls->layers, dpi_cmp_u32);
		li = (uint64_t)(hit - ls->layers) + 1;
	}
	uint64_t key = li << 32 | (uint32_t)plan->placement[u];
	const uint64_t *hit = bsearch(&key, ls->pairs, ls->np,
				      sizeof *ls->pairs, dpi_cmp_u64);
	return (uint32_t)(hit - ls->pairs);
}

/* Makes the groups of ls (ids nkept.. in key order, labelled with their
 * prefix), the largest one level finer when refine and the bound allows
 * (export_coarsen_refine.c), and maps every op that is not kept. */
static dp_status layer_groups(const dp_graph *g, const dp_plan *plan,
			      const uint8_t *kept, uint32_t nkept,
			      uint32_t budget, const layer_set *ls, bool refine,
			      uint32_t groups, pref *tmp, dp_coarse *c)
{
	uint32_t np = ls->np, nl = ls->nl;
	uint32_t *pof = malloc(((size_t)g->nops + 1) * sizeof *pof);
	uint32_t *pops = calloc((size_t)np + 1, sizeof *pops);
	uint32_t *fids = malloc(((size_t)nl + 1) * sizeof *fids);
	uint8_t *split = calloc((size_t)np + 1, 1);
	uint64_t *pk = malloc(((size_t)np + 1) * sizeof *pk);
	uint64_t *keys = malloc(((size_t)np + 1) * sizeof *keys);
	uint32_t nfine = 0, *plabel = NULL;
	dp_status st = DP_ENOMEM;
	if (!pof || !pops || !fids || !split || !pk || !keys)
		goto out;
	for (uint32_t u = 0; u < g->nops; u++)
		if (!kept[u])
			pops[pof[u] = pair_of(g, plan, ls, u)]++;
	if (refine) {
		nfine = prefix_ids(g, ls->layers, nl, ls->depth + 1, fids, tmp);
		uint32_t total =
			dpi_coarsen_refine(ls->pairs, np, ls->ids, fids, pops,
					   groups, budget, split);
		if (total == UINT32_MAX)
			goto out;
		c->layer_finer = total != groups;
	}
	/* prefix ids: ids + 1 at the depth that fits, nprefix + 1 + fids
	 * one level down; 0 = no layer */
	plabel = malloc(((size_t)ls->nprefix + nfine + 1) * sizeof *plabel);
	if (!plabel)
		goto out;
	for (uint32_t i = 0; i < ls->nprefix + nfine + 1; i++)
		plabel[i] = UINT32_MAX;
	plabel[0] = 0;
	for (uint32_t i = 0; i < np; i++) {
		uint32_t li = (uint32_t)(ls->pairs[i] >> 32);
		uint64_t pid =
			li == 0	   ? 0
			: split[i] ? (uint64_t)ls->nprefix + 1 + fids[li - 1]
				   : (uint64_t)ls->ids[li - 1] + 1;
		pk[i] = keys[i] = pid << 32 | (uint32_t)ls->pairs[i];
		if (plabel[pid] != UINT32_MAX)
			continue;
		const char *s = dp_graph_str(g, ls->layers[li - 1]);
		size_t len = split[i]	      ? prefix_len(s, ls->depth + 1)
			     : c->layer_depth ? prefix_len(s, ls->depth)
					      : strlen(s);
		if ((plabel[pid] = arena_add(c, s, len)) == UINT32_MAX)
			goto out;
	}
	uint32_t w = dpi_sort_unique(keys, np, sizeof *keys, dpi_cmp_u64);
	c->n = nkept + w;
	c->nodes = calloc((size_t)c->n, sizeof *c->nodes);
	if (!c->nodes)
		goto out;
	for (uint32_t i = 0; i < w; i++)
		c->nodes[nkept + i].label = plabel[(uint32_t)(keys[i] >> 32)];
	for (uint32_t u = 0; u < g->nops; u++) {
		if (kept[u])
			continue;
		uint64_t *hit = bsearch(&pk[pof[u]], keys, w, sizeof *keys,
					dpi_cmp_u64);
		c->of[u] = nkept + (uint32_t)(hit - keys);
	}
	st = DP_OK;
out:
	DPI_FREE_ALL(pof, pops, fids, split, pk, keys, plabel);
	return st;
}

/* Tries the layer grouping: sets of[] (provisional ids; kept ops must
 * already have ids 0..nkept-1) and returns true when some depth fits the
 * budget. Ops of no layer form one group per device. */
static dp_status try_layers(const dp_graph *g, const dp_plan *plan,
			    const uint8_t *kept, uint32_t nkept,
			    uint32_t budget, dp_coarse *c, bool *ok)
{
	*ok = false;
	uint32_t n = g->nops, layered = 0, rest = 0;
	for (uint32_t u = 0; u < n; u++)
		if (!kept[u]) {
			rest++;
			layered += g->ops[u].layer != 0;
		}
	/* a picture of mostly "(no layer)" boxes says nothing: use runs */
	if (rest == 0 || (uint64_t)layered * 10 < (uint64_t)rest * 9)
		return DP_OK;

	/* distinct layers */
	uint32_t *layers = malloc((size_t)layered * sizeof *layers);
	uint64_t *pairs = malloc((size_t)rest * sizeof *pairs);
	if (!layers || !pairs) {
		free(layers);
		free(pairs);
		return DP_ENOMEM;
	}
	uint32_t nl = 0;
	for (uint32_t u = 0; u < n; u++)
		if (!kept[u] && g->ops[u].layer)
			layers[nl++] = g->ops[u].layer;
	nl = dpi_sort_unique(layers, nl, sizeof *layers, dpi_cmp_u32);
	/* (layer index + 1, dev) pairs present; 0 = no layer */
	uint32_t np = 0;
	for (uint32_t u = 0; u < n; u++) {
		if (kept[u])
			continue;
		uint64_t li = 0;
		if (g->ops[u].layer) {
			uint32_t *hit = bsearch(&g->ops[u].layer, layers, nl,
						sizeof *layers, dpi_cmp_u32);
			li = (uint64_t)(hit - layers) + 1;
		}
		pairs[np++] = li << 32 | (uint32_t)plan->placement[u];
	}
	np = dpi_sort_unique(pairs, np, sizeof *pairs, dpi_cmp_u64);

	int maxdepth = 1;
	for (uint32_t i = 0; i < nl; i++) {
		int d = layer_depth(dp_graph_str(g, layers[i]));
		if (d > maxdepth)
			maxdepth = d;
	}
	uint32_t *ids = malloc(((size_t)nl + 1) * sizeof *ids);
	pref *tmp = malloc(((size_t)nl + 1) * sizeof *tmp);
	uint64_t *keys = malloc(((size_t)np + 1) * sizeof *keys);
	dp_status st = DP_OK;
	if (!ids || !tmp || !keys) {
		st = DP_ENOMEM;
		goto out;
	}
	/* from whole names to one component: the finest that fits wins */
	for (int depth = maxdepth; depth >= 1 && !*ok; depth--) {
		uint32_t nprefix = prefix_ids(g, layers, nl, depth, ids, tmp);
		for (uint32_t i = 0; i < np; i++) {
			uint32_t li = (uint32_t)(pairs[i] >> 32);
			uint64_t pid = li ? (uint64_t)ids[li - 1] + 1 : 0;
			keys[i] = pid << 32 | (uint32_t)pairs[i];
		}
		qsort(keys, np, sizeof *keys, dpi_cmp_u64);
		uint32_t groups = 0;
		for (uint32_t i = 0; i < np; i++)
			groups += i == 0 || keys[i] != keys[i - 1];
		if (groups > budget)
			continue;
		*ok = true;
		c->method = DP_COARSE_LAYER;
		c->layer_depth = depth == maxdepth ? 0 : depth;
		layer_set ls = {layers, nl, pairs, np, ids, nprefix, depth};
		st = layer_groups(g, plan, kept, nkept, budget, &ls,
				  depth < maxdepth, groups, tmp, c);
	}
out:
	DPI_FREE_ALL(layers, pairs, ids, tmp, keys);
	return st;
}

/* ---- grouping by runs of a device's schedule ---- */

typedef struct sched_key {
	int32_t dev;
	uint32_t topo_pos;
	double start;
	uint32_t op;
} sched_key;

DPI_CMP_DEFINE(cmp_sched, sched_key, DPI_CMP(x->dev, y->dev),
	       DPI_CMP(x->start, y->start), DPI_CMP(x->topo_pos, y->topo_pos))

/* Number of nodes runs of at most len ops give, over the segments. */
static uint64_t runs_count(const uint32_t *seg, uint32_t nseg, uint32_t len)
{
	uint64_t total = 0;
	for (uint32_t i = 0; i < nseg; i++)
		total += (seg[i] + len - 1) / len;
	return total;
}

/* Groups the ops that are not kept into runs: each device's schedule is
 * cut at its kept ops into segments, and each segment into equal runs of
 * at most run_len ops, the smallest run_len that fits the budget. */
static dp_status group_runs(const dp_graph *g, const dp_plan *plan,
			    const uint8_t *kept, uint32_t nkept,
			    uint32_t budget, dp_coarse *c)
{
	uint32_t n = g->nops;
	sched_key *ord = malloc(((size_t)n + 1) * sizeof *ord);
	uint32_t *seg = malloc(((size_t)n + 1) * sizeof *seg);
	if (!ord || !seg) {
		free(ord);
		free(seg);
		return DP_ENOMEM;
	}
	for (uint32_t u = 0; u < n; u++)
		ord[u] = (sched_key){plan->placement[u], g->topo_pos[u],
				     plan->sim.start[u], u};
	qsort(ord, n, sizeof *ord, cmp_sched);
	uint32_t nseg = 0, maxseg = 1;
	for (uint32_t i = 0; i < n;) {
		if (kept[ord[i].op]) {
			i++;
			continue;
		}
		uint32_t j = i;
		while (j < n && ord[j].dev == ord[i].dev && !kept[ord[j].op])
			j++;
		seg[nseg++] = j - i;
		if (j - i > maxseg)
			maxseg = j - i;
		i = j;
	}
	uint32_t lo = 1, hi = maxseg;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (runs_count(seg, nseg, mid) <= budget)
			hi = mid;
		else
			lo = mid + 1;
	}
	c->method = DP_COARSE_RUNS;
	c->run_len = lo;
	uint32_t id = nkept;
	for (uint32_t i = 0, s = 0; i < n;) {
		if (kept[ord[i].op]) {
			i++;
			continue;
		}
		uint32_t len = seg[s++];
		uint32_t q = (len + lo - 1) / lo;
		for (uint32_t r = 0; r < q; r++) {
			uint32_t a = (uint32_t)((uint64_t)len * r / q);
			uint32_t b = (uint32_t)((uint64_t)len * (r + 1) / q);
			for (uint32_t k = a; k < b; k++)
				c->of[ord[i + k].op] = id;
			id++;
		}
		i += len;
	}
	free(ord);
	free(seg);
	c->n = id;
	c->nodes = calloc((size_t)id + 1, sizeof *c->nodes);
	return c->nodes ? DP_OK : DP_ENOMEM;
}

/* ---- nodes and edges ---- */

/* Renumbers groups by first appearance in topological order (so the DOT
 * lists them in a readable order) and fills their statistics. */
static dp_status finish_nodes(const dp_graph *g, const dp_plan *plan,
			      const uint8_t *crit, dp_coarse *c)
{
	uint32_t *newid = malloc(((size_t)c->n + 1) * sizeof *newid);
	if (!newid)
		return DP_ENOMEM;
	for (uint32_t i = 0; i < c->n; i++)
		newid[i] = UINT32_MAX;
	/* one node per op keeps the input order, so that a reloaded DOT
	 * lists the ops as the input did */
	uint32_t next = 0;
	for (uint32_t i = 0; i < g->nops; i++) {
		uint32_t u = c->method == DP_COARSE_NONE ? i : g->topo[i];
		if (newid[c->of[u]] == UINT32_MAX)
			newid[c->of[u]] = next++;
	}
	dp_cnode *nodes = calloc((size_t)next + 1, sizeof *nodes);
	if (!nodes) {
		free(newid);
		return DP_ENOMEM;
	}
	for (uint32_t i = 0; i < c->n; i++)
		if (newid[i] != UINT32_MAX)
			nodes[newid[i]].label =
				c->nodes ? c->nodes[i].label : 0;
	free(c->nodes);
	c->nodes = nodes;
	c->n = next;
	const double *st = plan->sim.start, *en = plan->sim.end;
	for (uint32_t u = 0; u < g->nops; u++) {
		uint32_t id = newid[c->of[u]];
		c->of[u] = id;
		dp_cnode *nd = &nodes[id];
		const dp_op *op = &g->ops[u];
		if (nd->nops == 0) {
			nd->dev = plan->placement[u];
			nd->op = nd->last_op = u;
			nd->start = st[u];
			nd->end = en[u];
		} else {
			uint32_t f = nd->op, l = nd->last_op;
			if (st[u] < st[f] ||
			    (st[u] == st[f] && g->topo_pos[u] < g->topo_pos[f]))
				nd->op = u;
			if (st[u] > st[l] ||
			    (st[u] == st[l] && g->topo_pos[u] > g->topo_pos[l]))
				nd->last_op = u;
			if (st[u] < nd->start)
				nd->start = st[u];
			if (en[u] > nd->end)
				nd->end = en[u];
		}
		nd->nops++;
		nd->ncrit += crit[u];
		nd->busy_us += en[u] - st[u];
		nd->out_bytes += op->output_bytes;
		nd->param_bytes += op->param_bytes;
		if (op->temp_bytes > nd->temp_max)
			nd->temp_max = op->temp_bytes;
	}
	free(newid);
	return DP_OK;
}

dp_status dpi_coarsen_build(const dp_graph *g, const dp_plan *plan,
			    dp_export_coarsen mode, uint32_t max_nodes,
			    uint32_t auto_limit, const dp_progress *p,
			    dp_coarse *c, dp_err *err)
{
	memset(c, 0, sizeof *c);
	uint32_t n = g->nops;
	uint32_t *cp = NULL, cp_len = 0;
	uint8_t *cause = NULL, *crit = NULL, *kept = NULL;
	dp_status st = get_critical_path(g, plan, &cp, &cause, &cp_len);
	if (st)
		goto fail;
	c->cp_len = cp_len;
	crit = calloc((size_t)n + 1, 1);
	kept = calloc((size_t)n + 1, 1);
	c->of = malloc(((size_t)n + 1) * sizeof *c->of);
	if (!crit || !kept || !c->of || arena_add(c, "", 0) != 0) {
		st = DP_ENOMEM;
		goto fail;
	}
	for (uint32_t i = 0; i < cp_len; i++)
		crit[cp[i]] = 1;

	bool coarse = mode == DP_COARSEN_ALWAYS ||
		      (mode == DP_COARSEN_AUTO && n > auto_limit);
	if (!coarse) {
		c->method = DP_COARSE_NONE;
		c->cp_kept = true;
		for (uint32_t u = 0; u < n; u++)
			c->of[u] = u;
		c->n = n;
	} else {
		/* keep the critical ops single while they take at most a
		 * quarter of the picture (section comment above) */
		c->cp_kept = cp_len <= max_nodes / 4;
		for (int attempt = 0; attempt < 2; attempt++) {
			uint32_t nkept = 0;
			memset(kept, 0, n);
			if (c->cp_kept)
				for (uint32_t i = 0; i < cp_len; i++)
					if (!kept[cp[i]]) {
						kept[cp[i]] = 1;
						c->of[cp[i]] = nkept++;
					}
			uint32_t budget = max_nodes - nkept;
			bool ok = false;
			st = try_layers(g, plan, kept, nkept, budget, c, &ok);
			if (st)
				goto fail;
			if (!ok) {
				st = group_runs(g, plan, kept, nkept, budget,
						c);
				if (st)
					goto fail;
			}
			if (c->n <= max_nodes || !c->cp_kept)
				break;
			/* segments cut at the critical ops did not fit:
			 * mark the critical path instead of keeping it */
			free(c->nodes);
			c->nodes = NULL;
			c->cp_kept = false;
		}
		if (dp_progress_canceled(p)) {
			st = DP_ECANCELED;
			goto fail;
		}
	}
	st = finish_nodes(g, plan, crit, c);
	if (!st)
		st = dpi_coarsen_edges(g, cp, cause, cp_len, p, c);
	if (st)
		goto fail;
	DPI_FREE_ALL(cp, cause, crit, kept);
	return DP_OK;
fail:
	DPI_FREE_ALL(cp, cause, crit, kept);
	dpi_coarsen_free(c);
	return st == DP_ECANCELED ? canceled(err) : oom(err);
}

void dpi_coarsen_describe(const dp_coarse *c, char *buf, size_t size)
{
	const char *cp = c->cp_kept ? "critical-path ops drawn singly"
				    : "groups on the critical path drawn red";
	switch (c->method) {
	case DP_COARSE_NONE:
		snprintf(buf, size, "%s", "");
		break;
	case DP_COARSE_LAYER:
		if (c->layer_depth)
			snprintf(buf, size,
				 "grouped by layer prefix (%d level%s%s) and "
				 "device; %s",
				 c->layer_depth, c->layer_depth == 1 ? "" : "s",
				 c->layer_finer ? ", one more for the largest "
						  "groups"
						: "",
				 cp);
		else
			snprintf(buf, size, "grouped by layer and device; %s",
				 cp);
		break;
	case DP_COARSE_RUNS:
		snprintf(buf, size,
			 "grouped into runs of up to %u consecutive ops of "
			 "one device's schedule; %s",
			 c->run_len, cp);
		break;
	}
}
