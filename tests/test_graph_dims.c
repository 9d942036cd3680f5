/* test_graph_dims.c - iteration spaces, roles and the batch dim (graph.h
 * "Iteration spaces and roles", docs/formats.md): the accessors, every rule
 * with its message (from the API, native JSON and DOT), the round trip
 * through the JSON writer, and that a graph without them costs nothing
 * more. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/gen.h"
#include "dnnpart/graph.h"
#include "dnnpart/load.h"
#include "lib/testlib.h"

/* A small MLP step with every field: x -> mm (with w) -> loss, and plain
 * after it; tests/data/dims_mlp.dot is its DOT twin. Read once. */
static const char *mlp_json(void)
{
	static char *text;
	if (!text)
		text = test_read_file("tests/data/dims_mlp.json", NULL);
	return text ? text : "";
}

/* Loads text as the file name and finalizes it (NULL out: freed). */
static dp_status load_as(test_text_loader load, const char *name,
			 const char *text, dp_graph **out, dp_err *err)
{
	dp_graph *g = NULL;
	dp_err_clear(err);
	dp_status s = load(name, text, strlen(text), &g, err);
	if (!s && !(s = dp_graph_set_source(g, name, err)))
		s = dp_graph_finalize(g, err);
	if (s) {
		dp_graph_free(g);
		g = NULL;
	}
	if (out)
		*out = g;
	else
		dp_graph_free(g);
	return s;
}

/* Native JSON text loaded as the file "t.json". */
static dp_status load_json(const char *text, dp_graph **out, dp_err *err)
{
	return load_as(dp_load_json, "t.json", text, out, err);
}

/* load_as that must succeed: a failure is recorded with the error. */
static dp_graph *load_ok(test_text_loader load, const char *name,
			 const char *text)
{
	dp_graph *g;
	dp_err err;
	if (load_as(load, name, text, &g, &err))
		FAIL_ERR(name, &err);
	return g;
}

/* "file:line:col: msg" of an error, for comparing with one string. */
static const char *where(const dp_err *e)
{
	static char buf[2400];
	return dp_err_format(e, buf, sizeof buf);
}

/* Every op and edge of a and b carry the same fields, dims and roles. */
static bool same_dims_graph(const dp_graph *a, const dp_graph *b)
{
	bool ok = a->nops == b->nops && a->nedges == b->nedges &&
		  !strcmp(dp_graph_batch_dim(a), dp_graph_batch_dim(b));
	for (uint32_t u = 0; ok && u < a->nops; u++) {
		char da[512];
		snprintf(da, sizeof da, "%s", test_dims_text(a, u));
		ok = !strcmp(dp_graph_op_name(a, u), dp_graph_op_name(b, u)) &&
		     !strcmp(da, test_dims_text(b, u)) &&
		     dp_op_role(a, u) == dp_op_role(b, u) &&
		     a->ops[u].output_bytes == b->ops[u].output_bytes &&
		     a->ops[u].param_bytes == b->ops[u].param_bytes &&
		     a->ops[u].time_us == b->ops[u].time_us;
		if (!ok)
			test_fail(__FILE__, __LINE__, "op %u: '%s' vs '%s'", u,
				  da, test_dims_text(b, u));
	}
	for (uint32_t e = 0; ok && e < a->nedges; e++) {
		char ea[256];
		snprintf(ea, sizeof ea, "%s", test_edge_dims_text(a, e));
		ok = a->edges[e].from == b->edges[e].from &&
		     a->edges[e].to == b->edges[e].to &&
		     a->edges[e].bytes == b->edges[e].bytes &&
		     !strcmp(ea, test_edge_dims_text(b, e));
	}
	return ok;
}

static void test_dims_json_fields_are_read(void)
{
	dp_graph *g = load_ok(dp_load_json, "t.json", mlp_json());
	REQUIRE(g);
	CHECK_STR(dp_graph_batch_dim(g), "b");
	CHECK_STR(test_dims_text(g, 0),
		  "b=8,s=16,k=4 out=b,s,k param=- elem=4");
	CHECK_STR(test_dims_text(g, 1), "k=4,n=32 out=k,n param=k,n elem=4");
	CHECK_STR(test_dims_text(g, 2),
		  "b=8,s=16,k=4,n=32 out=b,s,n param=- elem=2");
	CHECK_STR(test_dims_text(g, 3), " out= param=- elem=4"); /* a scalar */
	CHECK_STR(test_dims_text(g, 4), "none");
	CHECK_INT(dp_op_role(g, 0), DP_ROLE_INPUT);
	CHECK_INT(dp_op_role(g, 1), DP_ROLE_PARAM);
	CHECK_INT(dp_op_role(g, 2), DP_ROLE_FORWARD);
	CHECK_INT(dp_op_role(g, 3), DP_ROLE_LOSS);
	CHECK_INT(dp_op_role(g, 4), DP_ROLE_NONE);
	/* bytes are what the file says: 0 (a variable's output, counted in
	 * its param_bytes) is not filled in from dims */
	CHECK_INT(g->ops[0].output_bytes, 8 * 16 * 4 * 4);
	CHECK_INT(g->ops[1].output_bytes, 0);
	CHECK_INT(g->ops[1].param_bytes, 2048);
	CHECK_INT(g->ops[2].output_bytes, 0);
	CHECK_INT(g->edges[0].bytes, 8 * 16 * 4 * 4);
	CHECK_INT(g->edges[1].bytes, 4 * 32 * 4);
	CHECK_STR(test_edge_dims_text(g, 0), "b,s,k");
	CHECK_STR(test_edge_dims_text(g, 1), "k,n");
	CHECK_STR(test_edge_dims_text(g, 2), "none");
	CHECK_STR(test_edge_dims_text(g, 3), "[]");
	CHECK_INT(dp_op_find_dim(g, 2, "n"), 3);
	CHECK_INT(dp_op_find_dim(g, 2, "q"), -1);
	CHECK_INT(dp_op_find_dim(g, 4, "b"), -1);
	dp_graph_free(g);
}

static void test_dims_api_builds_and_reads_them(void)
{
	dp_graph *g = dp_graph_new("api");
	uint32_t a, b;
	dp_err err;
	REQUIRE(dp_graph_add_op(g, "a", &a, NULL) == DP_OK);
	REQUIRE(dp_graph_add_op(g, "b", &b, NULL) == DP_OK);
	const char *names[] = {"m", "n"};
	const int64_t sizes[] = {3, 5};
	const char *out[] = {"n", "m"}; /* transposed output */
	dp_dims_spec s = {2, names, sizes, 2, out, -1, NULL, 8};
	REQUIRE(dp_graph_set_op_dims(g, a, &s, &err) == DP_OK);
	const char *bn[] = {"p", "q"};
	const int64_t bz[] = {5, 3};
	const char *bout[] = {"q"};
	dp_dims_spec t = {2, bn, bz, 1, bout, 0, NULL, 0};
	REQUIRE(dp_graph_set_op_dims(g, b, &t, &err) == DP_OK);
	REQUIRE(dp_graph_add_edge(g, a, b, -1, false, NULL) == DP_OK);
	const char *ed[] = {"p", "q"};
	REQUIRE(dp_graph_set_edge_dims(g, 0, 2, ed, &err) == DP_OK);
	REQUIRE(dp_graph_set_role(g, b, DP_ROLE_BACKWARD, &err) == DP_OK);
	REQUIRE(dp_graph_set_batch_dim(g, "m", &err) == DP_OK);
	g->ops[a].output_bytes = 15 * 8;
	g->ops[b].param_bytes = 4 * 3; /* a scalar param and more state */
	REQUIRE(dp_graph_finalize(g, &err) == DP_OK);
	dp_dims d;
	REQUIRE(dp_op_dims(g, a, &d));
	CHECK_INT(d.n, 2);
	CHECK_STR(dp_graph_str(g, d.name_off[1]), "n");
	CHECK_INT(d.sizes[1], 5);
	CHECK_INT(d.nout, 2);
	CHECK_INT(d.out[0], 1);
	CHECK_INT(d.out[1], 0);
	CHECK_INT(d.nparam, -1);
	CHECK_INT(d.elem_bytes, 8);
	CHECK_STR(test_dims_text(g, b), "p=5,q=3 out=q param= elem=4");
	CHECK_INT(dp_op_role(g, a), DP_ROLE_NONE);
	CHECK_INT(dp_op_role(g, b), DP_ROLE_BACKWARD);
	CHECK_STR(dp_graph_batch_dim(g), "m");
	dp_graph_free(g);

	/* an op without dims reads as the defaults */
	g = dp_graph_new("none");
	REQUIRE(dp_graph_add_op(g, "a", &a, NULL) == DP_OK);
	memset(&d, 0x55, sizeof d);
	CHECK(!dp_op_dims(g, a, &d));
	CHECK_INT(d.n, 0);
	CHECK_INT(d.nout, -1);
	CHECK_INT(d.nparam, -1);
	CHECK_INT(d.elem_bytes, 4);
	CHECK_STR(dp_graph_batch_dim(g), "");
	dp_graph_free(g);
}

static void test_dims_role_names_parse_back(void)
{
	for (int r = DP_ROLE_NONE + 1; r < DP_ROLE_COUNT; r++) {
		dp_role back = DP_ROLE_NONE;
		CHECK_INT(dp_role_parse(dp_role_name((dp_role)r), &back, NULL),
			  DP_OK);
		CHECK_INT(back, r);
	}
	CHECK_STR(dp_role_name(DP_ROLE_NONE), "");
	CHECK_STR(dp_role_name(DP_ROLE_COUNT), "");
	CHECK_STR(dp_role_name(DP_ROLE_GRAD), "grad");
	dp_err err;
	dp_role r;
	CHECK_INT(dp_role_parse("Forward", &r, &err), DP_EINPUT);
	CHECK_STR(err.msg, "unknown role 'Forward': expected one of input, "
			   "param, forward, backward, grad, update, loss");
	dp_graph *g = dp_graph_new("r");
	uint32_t a;
	REQUIRE(dp_graph_add_op(g, "a", &a, NULL) == DP_OK);
	CHECK_INT(dp_graph_set_role(g, a, DP_ROLE_COUNT, &err), DP_EINPUT);
	/* clearing a role that was never set allocates nothing */
	CHECK_INT(dp_graph_set_role(g, a, DP_ROLE_NONE, &err), DP_OK);
	CHECK(g->roles == NULL);
	/* ops added after the first role get none */
	CHECK_INT(dp_graph_set_role(g, a, DP_ROLE_UPDATE, &err), DP_OK);
	char nm[16];
	for (int i = 0; i < 300; i++) {
		uint32_t id;
		snprintf(nm, sizeof nm, "o%d", i);
		REQUIRE(dp_graph_add_op(g, nm, &id, NULL) == DP_OK);
		CHECK_INT(dp_op_role(g, id), DP_ROLE_NONE);
	}
	CHECK_INT(dp_op_role(g, a), DP_ROLE_UPDATE);
	CHECK(g->roles_cap >= g->nops);
	dp_graph_free(g);
}

/* The rules about one op, from the API: the message names op and field. */
static void test_dims_setter_rules(void)
{
	static const struct {
		const char *names[3];
		int64_t sizes[3];
		int nout;
		const char *out[3];
		int64_t elem;
		const char *msg;
	} cases[] = {
		{{"b", "b"},
		 {2, 3},
		 -1,
		 {0},
		 0,
		 "op 'a', dims[1]: dim 'b' is named twice"},
		{{"b", "1x"},
		 {2, 3},
		 -1,
		 {0},
		 0,
		 "op 'a', dims[1]: '1x' is not a dim name: expected 1 to 63 "
		 "letters, digits or '_', not starting with a digit"},
		{{"b", "s-q"},
		 {2, 3},
		 -1,
		 {0},
		 0,
		 "op 'a', dims[1]: 's-q' is not a dim name: expected 1 to 63 "
		 "letters, digits or '_', not starting with a digit"},
		{{"b", ""},
		 {2, 3},
		 -1,
		 {0},
		 0,
		 "op 'a', dims[1]: '' is not a dim name: expected 1 to 63 "
		 "letters, digits or '_', not starting with a digit"},
		{{"b", "s"},
		 {2, 0},
		 -1,
		 {0},
		 0,
		 "op 'a', dims[1]: dim 's' has size 0: expected an integer "
		 "from 1 to 2^62"},
		{{"b", "s"},
		 {2, -4},
		 -1,
		 {0},
		 0,
		 "op 'a', dims[1]: dim 's' has size -4: expected an integer "
		 "from 1 to 2^62"},
		{{"b", "s", "k"},
		 {1 << 30, 1 << 30, 1 << 30},
		 3,
		 {"b", "s", "k"},
		 0,
		 "op 'a', out: the tensor is larger than 2^62 bytes (at dim "
		 "'k' "
		 "of size 1073741824, with 4-byte elements)"},
		{{"b", "s"},
		 {2, 3},
		 2,
		 {"b", "q"},
		 0,
		 "op 'a', out[1]: 'q' is not a dim of this op (its dims: b, "
		 "s)"},
		{{"b", "s"},
		 {2, 3},
		 2,
		 {"s", "s"},
		 0,
		 "op 'a', out[1]: dim 's' appears twice (a tensor is indexed "
		 "by each dim at most once)"},
		{{"b", "s"},
		 {2, 3},
		 1,
		 {"b"},
		 1025,
		 "op 'a', elem_bytes: expected an integer from 1 to 1024 (the "
		 "bytes of one element), got 1025"},
		{{"b", "s"},
		 {2, 3},
		 1,
		 {"b"},
		 -2,
		 "op 'a', elem_bytes: expected an integer from 1 to 1024 (the "
		 "bytes of one element), got -2"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		dp_graph *g = dp_graph_new("s");
		uint32_t a;
		REQUIRE(dp_graph_add_op(g, "a", &a, NULL) == DP_OK);
		uint32_t n = cases[i].names[2] ? 3 : 2;
		dp_dims_spec s = {n,
				  cases[i].names,
				  cases[i].sizes,
				  cases[i].nout,
				  cases[i].out,
				  -1,
				  NULL,
				  cases[i].elem};
		dp_err err;
		CHECK_INT(dp_graph_set_op_dims(g, a, &s, &err), DP_EINPUT);
		CHECK_STR(err.msg, cases[i].msg);
		CHECK_INT(g->ops[a].dims, 0); /* nothing half set */
		dp_graph_free(g);
	}
	/* the loop nest itself may exceed 2^62 (a concat's per-input dims);
	 * only its tensors must fit */
	{
		dp_graph *g = dp_graph_new("v");
		uint32_t a;
		REQUIRE(dp_graph_add_op(g, "a", &a, NULL) == DP_OK);
		const char *nm[] = {"b", "s", "k"}, *o[] = {"b", "s"};
		const int64_t z[] = {1 << 30, 1 << 30, 1 << 30};
		dp_dims_spec v = {3, nm, z, 2, o, -1, NULL, 0};
		dp_err err;
		CHECK_INT(dp_graph_set_op_dims(g, a, &v, &err), DP_OK);
		dp_graph_free(g);
	}
	/* param is checked as out is; out without dims names no dim */
	dp_graph *g = dp_graph_new("s");
	uint32_t a;
	REQUIRE(dp_graph_add_op(g, "a", &a, NULL) == DP_OK);
	const char *param[] = {"k"};
	dp_dims_spec s = {0, NULL, NULL, -1, NULL, 1, param, 0};
	dp_err err;
	CHECK_INT(dp_graph_set_op_dims(g, a, &s, &err), DP_EINPUT);
	CHECK_STR(err.msg, "op 'a', param[0]: 'k' is not a dim of this op: it "
			   "has no dims (give them in dims)");
	/* 33 dims */
	const char *many[DP_MAX_OP_DIMS + 1];
	int64_t ones[DP_MAX_OP_DIMS + 1];
	char nm[DP_MAX_OP_DIMS + 1][16];
	for (int i = 0; i <= DP_MAX_OP_DIMS; i++) {
		snprintf(nm[i], sizeof nm[i], "d%d", i);
		many[i] = nm[i];
		ones[i] = 1;
	}
	dp_dims_spec big = {
		DP_MAX_OP_DIMS + 1, many, ones, -1, NULL, -1, NULL, 0};
	CHECK_INT(dp_graph_set_op_dims(g, a, &big, &err), DP_EINPUT);
	CHECK_STR(err.msg, "op 'a', dims: 33 dims: an op may have at most 32");
	big.n = DP_MAX_OP_DIMS;
	CHECK_INT(dp_graph_set_op_dims(g, a, &big, &err), DP_OK);
	/* a name of 63 characters is one, of 64 is not */
	char longname[80];
	memset(longname, 'x', 63);
	longname[63] = '\0';
	const char *ln[] = {longname};
	const int64_t one[] = {1};
	dp_dims_spec l = {1, ln, one, -1, NULL, -1, NULL, 0};
	CHECK_INT(dp_graph_set_op_dims(g, a, &l, &err), DP_OK);
	longname[63] = 'x';
	longname[64] = '\0';
	CHECK_INT(dp_graph_set_op_dims(g, a, &l, &err), DP_EINPUT);
	CHECK_INT(dp_graph_set_batch_dim(g, "b c", &err), DP_EINPUT);
	CHECK_STR(err.msg, "batch_dim: 'b c' is not a dim name: expected 1 to "
			   "63 letters, digits or '_', not starting with a "
			   "digit");
	/* edge dims: names checked when set */
	uint32_t b;
	REQUIRE(dp_graph_add_op(g, "b", &b, NULL) == DP_OK);
	REQUIRE(dp_graph_add_edge(g, a, b, -1, false, NULL) == DP_OK);
	const char *twice[] = {"k", "k"};
	CHECK_INT(dp_graph_set_edge_dims(g, 0, 2, twice, &err), DP_EINPUT);
	CHECK_STR(err.msg, "edge 'a' -> 'b', dims[1]: dim 'k' appears twice (a "
			   "tensor is indexed by each dim at most once)");
	dp_graph_free(g);
}

/* The rules dp_graph_finalize checks (bytes, edges, the batch dim), on a
 * graph built through the API: the message names the op or edge. */
static void test_dims_finalize_rules(void)
{
	static const char *const mm_names[] = {"b", "k", "n"};
	static const int64_t mm_sizes[] = {8, 4, 32};
	static const char *const x_names[] = {"b", "k"};
	static const int64_t x_sizes[] = {8, 4};
	static const char *const bk[] = {"b", "k"}, *const bn[] = {"b", "n"},
				 *const kn[] = {"k", "n"}, *const b_[] = {"b"};
	enum {
		OUT_BYTES,
		PARAM_BYTES,
		EDGE_RANK,
		EDGE_NOT_DIM,
		EDGE_SIZE,
		EDGE_CONTROL,
		EDGE_NO_OUT,
		EDGE_BYTES,
		BATCH,
		NCASES
	};
	static const char *const msgs[NCASES] = {
		"g.json: op 'mm', output_bytes: expected 1024 bytes (out [b, "
		"n]: 8 x 32 elements of 4 bytes), got 1000",
		"g.json: op 'mm', param_bytes: expected at least 512 bytes "
		"(param [k, n]: 4 x 32 elements of 4 bytes; param_bytes may "
		"add gradients and optimizer state), got 511",
		"g.json: edge 'x' -> 'mm', dims: expected 2 dims, one per dim "
		"of the out [b, k] of the producer 'x', got 1",
		"g.json: edge 'x' -> 'mm', dims[1]: 'q' is not a dim of the "
		"consumer 'mm' (its dims: b, k, n)",
		"g.json: edge 'x' -> 'mm', dims[1]: 'n' of the consumer 'mm' "
		"has size 32, but the producer 'x' indexes this axis of its "
		"output with 'k' of size 4 (the sizes must agree)",
		"g.json: edge 'x' -> 'mm', dims: a control edge carries no "
		"tensor, so it has no dims",
		"g.json: edge 'x' -> 'mm', dims: the producer 'x' has no out: "
		"edge dims name, for each dim of the producer's out, the "
		"consumer's dim that indexes it",
		"g.json: edge 'x' -> 'mm', bytes: expected 128 bytes, the "
		"output of 'x' (out [b, k]: 8 x 4 elements of 4 bytes), got "
		"100",
		"g.json: batch_dim: no op has a dim 'z' (batch_dim names the "
		"dim that data parallelism and micro-batches split; give it in "
		"the dims of the ops it indexes)",
	};
	for (int c = 0; c < NCASES; c++) {
		dp_graph *g = dp_graph_new("f");
		dp_graph_set_source(g, "g.json", NULL);
		uint32_t x, mm;
		REQUIRE(dp_graph_add_op(g, "x", &x, NULL) == DP_OK);
		REQUIRE(dp_graph_add_op(g, "mm", &mm, NULL) == DP_OK);
		dp_dims_spec xs = {
			2,  x_names, x_sizes, c == EDGE_NO_OUT ? -1 : 2,
			bk, -1,	     NULL,    0};
		dp_dims_spec ms = {3, mm_names, mm_sizes, 2, bn, 2, kn, 0};
		/* (a producer with dims but no out has several outputs: an
		 * edge may name its dims; test_dims_several_outputs) */
		if (c != EDGE_NO_OUT)
			REQUIRE(dp_graph_set_op_dims(g, x, &xs, NULL) == DP_OK);
		REQUIRE(dp_graph_set_op_dims(g, mm, &ms, NULL) == DP_OK);
		g->ops[mm].output_bytes = c == OUT_BYTES ? 1000 : 0;
		g->ops[mm].param_bytes = c == PARAM_BYTES ? 511 : 4096;
		g->ops[x].output_bytes = 128;
		REQUIRE(dp_graph_add_edge(g, x, mm, c == EDGE_BYTES ? 100 : -1,
					  c == EDGE_CONTROL, NULL) == DP_OK);
		const char *q[] = {"b", "q"}, *n2[] = {"b", "n"};
		const char *const *ed = c == EDGE_NOT_DIM ? q
					: c == EDGE_SIZE  ? n2
							  : bk;
		REQUIRE(dp_graph_set_edge_dims(g, 0, c == EDGE_RANK ? 1 : 2,
					       c == EDGE_RANK ? b_ : ed,
					       NULL) == DP_OK);
		REQUIRE(dp_graph_set_batch_dim(g, c == BATCH ? "z" : "b",
					       NULL) == DP_OK);
		dp_err err;
		CHECK_INT(dp_graph_finalize(g, &err), DP_EINPUT);
		CHECK_STR(where(&err), msgs[c]);
		dp_graph_free(g);
	}
}

/* Native JSON: every rule, at its line and column (the edits of
 * tests/data/dims_mlp.json.edits). */
static void test_dims_json_errors_name_the_position(void)
{
	CHECK_INT(test_check_edits("tests/data/dims_mlp.json.edits", mlp_json(),
				   dp_load_json, "t.json"),
		  22);
}

/* DOT carries the same fields; a DOT graph and its JSON twin load equal
 * (DOT cannot write a scalar out: "" is "not given"). */
static void test_dims_dot_reads_them(void)
{
	char *dot = test_read_file("tests/data/dims_mlp.dot", NULL);
	REQUIRE(dot);
	dp_graph *d = load_ok(dp_load_dot, "t.dot", dot);
	free(dot);
	REQUIRE(d);
	char text[4096];
	const char *from = "\"dims\":{},\"out\":[]";
	const char *at = strstr(mlp_json(), from);
	REQUIRE(at);
	snprintf(text, sizeof text, "%.*s\"time_us\":0%s",
		 (int)(at - mlp_json()), mlp_json(), at + strlen(from));
	at = strstr(text, ",\"dims\":[]}");
	REQUIRE(at);
	memmove((char *)at, at + 10, strlen(at + 10) + 1);
	dp_graph *j = load_ok(dp_load_json, "t.json", text);
	REQUIRE(j);
	CHECK(same_dims_graph(d, j));
	CHECK_STR(test_dims_text(d, 2),
		  "b=8,s=16,k=4,n=32 out=b,s,n param=- elem=2");
	CHECK_INT(dp_op_role(d, 1), DP_ROLE_PARAM);
	CHECK_STR(dp_graph_batch_dim(d), "b");
	dp_graph_free(d);
	dp_graph_free(j);
}

/* DOT: every rule, at its line (tests/data/dims_mlp.dot.edits). */
static void test_dims_dot_errors_name_the_line(void)
{
	char *dot = test_read_file("tests/data/dims_mlp.dot", NULL);
	CHECK_INT(test_check_edits("tests/data/dims_mlp.dot.edits", dot,
				   dp_load_dot, "t.dot"),
		  17);
	free(dot);
}

/* load -> write -> load gives the same graph, and writing that gives the
 * same file. */
static void test_dims_json_round_trip(void)
{
	dp_graph *g, *back = NULL, *again = NULL;
	dp_err err;
	REQUIRE(load_json(mlp_json(), &g, &err) == DP_OK);
	char p1[256], p2[256];
	REQUIRE(test_tmp_path("a.json"));
	snprintf(p1, sizeof p1, "%s", test_tmp_path("a.json"));
	snprintf(p2, sizeof p2, "%s", test_tmp_path("b.json"));
	REQUIRE(dp_gen_write_json(p1, g, &err) == DP_OK);
	REQUIRE((back = test_load_ok(p1)));
	CHECK(same_dims_graph(g, back));
	REQUIRE(dp_gen_write_json(p2, back, &err) == DP_OK);
	size_t l1, l2;
	char *t1 = test_read_file(p1, &l1), *t2 = test_read_file(p2, &l2);
	REQUIRE(t1 && t2);
	CHECK(l1 == l2 && !memcmp(t1, t2, l1));
	/* the fields are written as documented */
	CHECK_CONTAINS(t1, "\"name\":\"mlp\",\"batch_dim\":\"b\"");
	CHECK_CONTAINS(t1, "{\"name\":\"mm\",\"time_us\":10,\"output_bytes\":"
			   "0,\"role\":\"forward\",\"dims\":{\"b\":8,\"s\":"
			   "16,\"k\":4,\"n\":32},\"out\":[\"b\",\"s\",\"n\"],"
			   "\"elem_bytes\":2}");
	CHECK_CONTAINS(t1, "\"param_bytes\":2048,\"role\":\"param\",\"dims\":"
			   "{\"k\":4,\"n\":32},\"out\":[\"k\",\"n\"],\"param\":"
			   "[\"k\",\"n\"]}");
	CHECK_CONTAINS(t1, "\"dims\":{},\"out\":[]}");
	CHECK_CONTAINS(t1,
		       "{\"from\":\"x\",\"to\":\"mm\",\"dims\":[\"b\",\"s\","
		       "\"k\"]}");
	CHECK_CONTAINS(t1, "{\"from\":\"loss\",\"to\":\"plain\",\"dims\":[]}");
	free(t1);
	free(t2);
	/* a graph without any of them writes none of them */
	again = load_ok(dp_load_json, "t.json",
			"{\"ops\":[{\"name\":\"a\"},{\"name\":\"b\"}],"
			"\"edges\":[{\"from\":\"a\",\"to\":\"b\"}]}");
	REQUIRE(again);
	REQUIRE(dp_gen_write_json(p1, again, &err) == DP_OK);
	t1 = test_read_file(p1, &l1);
	REQUIRE(t1);
	CHECK(!strstr(t1, "dims") && !strstr(t1, "role") &&
	      !strstr(t1, "batch_dim") && !strstr(t1, "elem_bytes"));
	free(t1);
	CHECK(test_tmp_cleanup());
	dp_graph_free(g);
	dp_graph_free(back);
	dp_graph_free(again);
}

/* The op and edge records as they were before iteration spaces: the new
 * fields had to fit in their padding. */
struct op_before {
	uint32_t name, type, layer;
	int32_t colocate, pin;
	double time_us;
	int64_t output_bytes, param_bytes, temp_bytes;
};
struct edge_before {
	uint32_t from, to;
	int64_t bytes;
	bool control;
};

static void test_dims_cost_nothing_without_them(void)
{
	CHECK_INT(sizeof(dp_op), sizeof(struct op_before));
	CHECK_INT(sizeof(dp_edge), sizeof(struct edge_before));
	/* a graph without dims or roles allocates nothing for them */
	dp_graph *g;
	dp_err err;
	REQUIRE(load_json("{\"ops\":[{\"name\":\"a\"},{\"name\":\"b\"}],"
			  "\"edges\":[{\"from\":\"a\",\"to\":\"b\"}]}",
			  &g, &err) == DP_OK);
	CHECK(g->dims == NULL && g->dims_hash == NULL && g->roles == NULL);
	CHECK_INT(g->dims_cap, 0);
	dp_graph_free(g);

	/* 100,000 ops of one shape (a model's repeated layers) share one
	 * record: their dims cost a few KiB, not bytes per op; a role costs
	 * one byte per op */
	enum { N = 100000 };
	g = dp_graph_new("many");
	const char *names[] = {"b", "s", "k", "n"};
	const int64_t sizes[] = {8, 1024, 768, 3072};
	const char *out[] = {"b", "s", "n"}, *param[] = {"k", "n"};
	dp_dims_spec s = {4, names, sizes, 3, out, 2, param, 2};
	char nm[32];
	for (uint32_t i = 0; i < N; i++) {
		uint32_t id;
		snprintf(nm, sizeof nm, "op%u", i);
		REQUIRE(dp_graph_add_op(g, nm, &id, NULL) == DP_OK);
		if (i == 0) {
			REQUIRE(dp_graph_set_op_dims(g, id, &s, &err) == DP_OK);
			continue;
		}
		REQUIRE(dp_graph_set_op_dims(g, id, &s, &err) == DP_OK);
		CHECK_INT(g->ops[id].dims, g->ops[0].dims);
	}
	size_t with_dims = dp_graph_memory_bytes(g);
	CHECK_INT(g->ndims_records, 1);
	CHECK(g->dims_cap + g->dims_hash_cap * sizeof(uint32_t) <= 8192);
	for (uint32_t i = 0; i < N; i++)
		REQUIRE(dp_graph_set_role(g, i, DP_ROLE_FORWARD, &err) ==
			DP_OK);
	CHECK_INT(dp_graph_memory_bytes(g) - with_dims, g->ops_cap);
	g->ops[N - 1].output_bytes = 8 * 1024 * 3072 * 2;
	g->ops[N - 1].param_bytes = 768 * 3072 * 2 * 4;
	REQUIRE(dp_graph_finalize(g, &err) == DP_OK);
	dp_graph_free(g);

	/* distinct shapes cost one record each, 8-byte aligned: here the
	 * header (8), 4 sizes (32), 4 names (16) and 5 indices = 64 bytes */
	g = dp_graph_new("distinct");
	int64_t z[4] = {8, 1024, 768, 3072};
	s.sizes = z;
	for (uint32_t i = 0; i < 1000; i++) {
		uint32_t id;
		snprintf(nm, sizeof nm, "op%u", i);
		REQUIRE(dp_graph_add_op(g, nm, &id, NULL) == DP_OK);
		z[0] = 1 + i;
		REQUIRE(dp_graph_set_op_dims(g, id, &s, &err) == DP_OK);
	}
	CHECK_INT(g->ndims_records, 1000);
	CHECK_INT(g->dims_len, 8 + 1000 * 64);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_dims_json_fields_are_read),
	  TEST(test_dims_api_builds_and_reads_them),
	  TEST(test_dims_role_names_parse_back), TEST(test_dims_setter_rules),
	  TEST(test_dims_finalize_rules),
	  TEST(test_dims_json_errors_name_the_position),
	  TEST(test_dims_dot_reads_them),
	  TEST(test_dims_dot_errors_name_the_line),
	  TEST(test_dims_json_round_trip),
	  TEST(test_dims_cost_nothing_without_them))
