/* test_export_table.c - placement exports: kinds by file name, the CSV
 * schedule read back exactly (RFC 4180 quoting), numbers that ignore the
 * locale, the PyTorch device map listing every layer once under the right
 * device, TensorFlow device strings, JSON and .place through dp_export_write. */
#include <cJSON.h>
#include <dirent.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnnpart/export.h"
#include "dnnpart/machine.h"
#include "dnnpart/placement.h"
#include "dnnpart/plan.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

static uint32_t add(dp_graph *g, const char *name, double t, int64_t par,
		    const char *layer)
{
	uint32_t id;
	dp_graph_add_op(g, name, &id, NULL);
	g->ops[id].time_us = t;
	g->ops[id].output_bytes = 4096;
	g->ops[id].param_bytes = par;
	if (layer)
		dp_graph_set_layer(g, id, layer, NULL);
	return id;
}

/* Layers: "enc.0" on one device; "enc.1" split, its parameters on
 * device 1 but most of its compute (100 of 101 us) on device 0; "enc.2"
 * split without parameters, most compute on device 1;
 * two ops without a layer, listed under their own names. Names that CSV
 * must quote. */
static const char *const names[] = {
	"embed", "a,b", "q\"uote", "new\nline", " lead",
	"x.1",	 "x.2", "head",	   "loss",
};
static const char *const layers[] = {
	"enc.0", "enc.0", "enc.1", "enc.1", "enc.2",
	"enc.2", "enc.2", NULL,	   NULL,
};
static const double times[] = {10, 20, 100, 1, 5, 4, 10, 3, 2};
static const int64_t params[] = {0, 0, 0, 1 << 20, 0, 0, 0, 0, 0};
static const int32_t place[] = {0, 0, 0, 1, 0, 0, 1, 1, 0};
#define NOPS 9

static dp_graph *mapped(void)
{
	dp_graph *g = dp_graph_new("mapped");
	for (int i = 0; i < NOPS; i++) {
		uint32_t id = add(g, names[i], times[i], params[i], layers[i]);
		if (i)
			dp_graph_add_edge(g, id - 1, id, -1, false, NULL);
	}
	return test_finalized(g);
}

/* ---- an RFC 4180 reader ---- */

/* Reads one field at *p into out (size); returns the delimiter that ended
 * it (',', '\n' or '\0'), or -1 on a malformed quoted field. */
static int csv_field(const char **p, char *out, size_t size)
{
	size_t n = 0;
	const char *s = *p;
	if (*s == '"') {
		s++;
		for (;;) {
			if (*s == '\0')
				return -1;
			if (*s == '"') {
				if (s[1] == '"') {
					s += 2;
					if (n + 1 < size)
						out[n++] = '"';
					continue;
				}
				s++;
				break;
			}
			if (n + 1 < size)
				out[n++] = *s;
			s++;
		}
		if (*s != ',' && *s != '\n' && *s != '\0')
			return -1;
	} else {
		while (*s && *s != ',' && *s != '\n') {
			if (*s == '"')
				return -1;
			if (n + 1 < size)
				out[n++] = *s;
			s++;
		}
	}
	out[n] = '\0';
	int d = *s;
	*p = *s ? s + 1 : s;
	return d;
}

/* ---- tests ---- */

static void test_export_kind_follows_the_file_name(void)
{
	/* a file name and the kind it gives, by its name */
	static const char *const cases[][2] = {
		{"a.dot", "DOT"},
		{"dir.x/a.gv", "DOT"},
		{"A.SVG", "SVG"},
		{"p.json", "placement JSON"},
		{"p.place", "ParDNN .place"},
		{"s.csv", "CSV schedule"},
		{"m.devmap.json", "PyTorch device map"},
		{"m.torch.json", "PyTorch device map"},
		{"m.tf.txt", "TensorFlow device strings"},
	};
	CHECK_PARSE_NAMES(cases, dp_export_kind, dp_export_kind_from_path,
			  dp_export_kind_name);
	dp_err err;
	dp_export_kind k;
	CHECK_INT(dp_export_kind_from_path("picture.jpg", &k, &err), DP_EINPUT);
	CHECK_STR(err.file, "picture.jpg");
	CHECK_CONTAINS(err.msg, ".svg");
	CHECK_CONTAINS(err.msg, ".devmap.json");
	CHECK_INT(dp_export_kind_from_path(".txt", &k, &err), DP_EINPUT);
	dp_export_coarsen c;
	CHECK_INT(dp_export_coarsen_parse("always", &c, &err), DP_OK);
	CHECK_INT(c, DP_COARSEN_ALWAYS);
	CHECK_INT(dp_export_coarsen_parse("sometimes", &c, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "auto, never or always");
}

static void test_csv_reads_back_exactly(void)
{
	dp_graph *g = mapped();
	dp_machine m;
	dp_plan plan;
	REQUIRE(test_evaluate(g, 2, place, &m, &plan));
	const char *path = test_tmp_path("s.csv");
	dp_err err;
	dp_export_report rep;
	REQUIRE(dp_export_write_opts(path, DP_EXPORT_CSV, g, &m, &plan, NULL,
				     NULL, &rep, &err) == DP_OK);
	CHECK_INT(rep.entries, NOPS);
	char *text = test_read_file(path, NULL);
	REQUIRE(text);
	const char *p = text;
	char f[4][128];
	for (int c = 0; c < 4; c++)
		CHECK_INT(csv_field(&p, f[c], sizeof f[c]), c < 3 ? ',' : '\n');
	CHECK_STR(f[0], "op");
	CHECK_STR(f[3], "end_us");
	int rows = 0;
	while (*p) {
		for (int c = 0; c < 4; c++) {
			int d = csv_field(&p, f[c], sizeof f[c]);
			REQUIRE(d == (c < 3 ? ',' : '\n'));
		}
		uint32_t u = dp_graph_find(g, f[0]);
		REQUIRE(u != UINT32_MAX);
		CHECK_INT(atoi(f[1]), place[u]);
		CHECK(strtod(f[2], NULL) == plan.sim.start[u]);
		CHECK(strtod(f[3], NULL) == plan.sim.end[u]);
		rows++;
	}
	CHECK_INT(rows, NOPS);
	/* quoting only where needed */
	CHECK_CONTAINS(text, "\nembed,0,");
	CHECK_CONTAINS(text, "\n\"a,b\",0,");
	CHECK_CONTAINS(text, "\n\"q\"\"uote\",0,");
	CHECK_CONTAINS(text, "\n\"new\nline\",1,");
	CHECK_CONTAINS(text, "\n\" lead\",0,");
	free(text);
	test_free(g, &m, &plan);
}

static void test_numbers_use_a_dot_in_any_locale(void)
{
	dp_graph *g = mapped();
	dp_machine m;
	dp_plan plan;
	REQUIRE(test_evaluate(g, 2, place, &m, &plan));
	REQUIRE(test_tmp_path("x"));
	if (!test_comma_locale()) {
		printf("# no comma locale here (localedef failed): checked "
		       "in the C locale only\n");
	} else {
		char probe[16];
		snprintf(probe, sizeof probe, "%.1f", 1.5);
		CHECK_STR(probe, "1,5"); /* the locale is really active */
	}
	char csv[256], dot[256];
	snprintf(csv, sizeof csv, "%s", test_tmp_path("loc.csv"));
	snprintf(dot, sizeof dot, "%s", test_tmp_path("loc.dot"));
	REQUIRE(test_export(csv, DP_EXPORT_CSV, g, &m, &plan) &&
		test_export(dot, DP_EXPORT_DOT, g, &m, &plan));
	setlocale(LC_NUMERIC, "C");
	char *text = test_read_file(csv, NULL);
	REQUIRE(text);
	/* every row has exactly 4 fields once names are unquoted */
	const char *p = strchr(text, '\n') + 1;
	char f[4][128];
	int rows = 0;
	while (*p) {
		for (int c = 0; c < 4; c++)
			REQUIRE(csv_field(&p, f[c], sizeof f[c]) ==
				(c < 3 ? ',' : '\n'));
		uint32_t u = dp_graph_find(g, f[0]);
		REQUIRE(u != UINT32_MAX);
		CHECK(strtod(f[3], NULL) == plan.sim.end[u]);
		rows++;
	}
	CHECK_INT(rows, NOPS);
	free(text);
	text = test_read_file(dot, NULL);
	REQUIRE(text);
	/* busy share, times and memory all written with a '.' */
	CHECK(strstr(text, "%)") != NULL);
	CHECK(strstr(text, ",0%)") == NULL && strstr(text, ",5 us") == NULL);
	char want[64];
	snprintf(want, sizeof want, "time_us=%g", times[1]);
	CHECK_CONTAINS(text, want);
	free(text);
	test_free(g, &m, &plan);
}

static void test_torch_map_lists_every_layer_once(void)
{
	dp_graph *g = mapped();
	dp_machine m;
	dp_plan plan;
	REQUIRE(test_evaluate(g, 2, place, &m, &plan));
	const char *path = test_tmp_path("m.devmap.json");
	dp_err err;
	dp_export_report rep;
	REQUIRE(dp_export_write_opts(path, DP_EXPORT_DEVMAP_TORCH, g, &m, &plan,
				     NULL, NULL, &rep, &err) == DP_OK);
	char *text = test_read_file(path, NULL);
	REQUIRE(text);
	cJSON *j = cJSON_Parse(text);
	REQUIRE(j && cJSON_IsObject(j));
	static const struct {
		const char *key, *dev;
	} want[] = {
		{"enc.0", "cuda:0"}, /* one device */
		{"enc.1", "cuda:0"}, /* split: its compute is on 0 (its
					params on 1: the map follows the
					work, as the plan ran it) */
		{"enc.2", "cuda:1"}, /* split, no parameters: compute 10 > 9 */
		{"head", "cuda:1"},  /* no layer: its own name */
		{"loss", "cuda:0"},
	};
	int n = 0;
	for (cJSON *it = j->child; it; it = it->next, n++) {
		REQUIRE(n < 5);
		/* in input order, each once */
		CHECK_STR(it->string, want[n].key);
		CHECK(cJSON_IsString(it));
		CHECK_STR(it->valuestring, want[n].dev);
	}
	CHECK_INT(n, 5);
	CHECK_INT(rep.entries, 5);
	CHECK_INT(rep.split_layers, 2);
	CHECK_CONTAINS(rep.note, "2 layers are split");
	CHECK_CONTAINS(rep.note, "enc.1 (cuda:0 1 op 99%, cuda:1 1 op 1%)");
	CHECK_CONTAINS(rep.note, "enc.2 (cuda:0 2 ops 47%, cuda:1 1 op 53%)");
	/* enc.1 100 of 101, enc.2 10 of 19 us; enc.0 30, head 3, loss 2 us
	 * whole: (30 + 100 + 10 + 3 + 2) / 155 = 94 % where the plan put it */
	CHECK_CONTAINS(rep.note, "runs 94% of the compute where the plan");
	cJSON_Delete(j);
	free(text);
	test_free(g, &m, &plan);
}

static void test_tf_map_has_one_line_per_op(void)
{
	dp_graph *g = dp_graph_new("tf");
	static const char *const tfnames[] = {"conv/Conv2D", "bn 1",
					      "grad/conv"};
	for (int i = 0; i < 3; i++) {
		uint32_t id = add(g, tfnames[i], 5, 0, NULL);
		if (i)
			dp_graph_add_edge(g, id - 1, id, -1, false, NULL);
	}
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	int32_t pl[] = {1, 0, 2};
	dp_machine m;
	dp_plan plan;
	REQUIRE(test_evaluate(g, 3, pl, &m, &plan));
	char *text = test_export_text(test_tmp_path("m.tf.txt"),
				      DP_EXPORT_DEVMAP_TF, g, &m, &plan);
	REQUIRE(text);
	CHECK_STR(text, "conv/Conv2D /device:GPU:1\nbn 1 /device:GPU:0\n"
			"grad/conv /device:GPU:2\n");
	free(text);
	test_free(g, &m, &plan);

	/* a name with a line break cannot be a line: an error, no file */
	g = mapped();
	REQUIRE(test_evaluate(g, 2, place, &m, &plan));
	const char *path = test_tmp_path("bad.tf.txt");
	dp_err err;
	CHECK_INT(dp_export_write(path, DP_EXPORT_DEVMAP_TF, g, &m, &plan, NULL,
				  &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "line break");
	CHECK(access(path, F_OK) != 0);
	test_free(g, &m, &plan);
}

static void test_json_and_place_read_back(void)
{
	dp_graph *g = dp_graph_new("jp");
	for (int i = 0; i < 4; i++) {
		uint32_t id = test_add_opf(g, 5, 4096, "op%d", i);
		if (i)
			dp_graph_add_edge(g, id - 1, id, -1, false, NULL);
	}
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	int32_t pl[] = {0, 1, 1, 0};
	dp_machine m;
	dp_plan plan;
	REQUIRE(test_evaluate(g, 2, pl, &m, &plan));
	char json_path[256], place_path[256];
	snprintf(json_path, sizeof json_path, "%s", test_tmp_path("p.json"));
	snprintf(place_path, sizeof place_path, "%s", test_tmp_path("p.place"));
	const char *paths[] = {json_path, place_path};
	for (int i = 0; i < 2; i++) {
		dp_export_kind k;
		dp_err err;
		REQUIRE(dp_export_kind_from_path(paths[i], &k, &err) == DP_OK);
		REQUIRE(dp_export_write(paths[i], k, g, &m, &plan, NULL,
					&err) == DP_OK);
		int32_t back[4] = {-1, -1, -1, -1};
		dp_placement_info info;
		if (dp_placement_read(paths[i], g, back, &info, &err) !=
		    DP_OK) {
			test_fail(__FILE__, __LINE__, "%s: %s", paths[i],
				  err.msg);
			continue;
		}
		for (int u = 0; u < 4; u++)
			CHECK_INT(back[u], pl[u]);
	}
	test_free(g, &m, &plan);
}

static void test_canceled_or_failed_export_keeps_the_old_file(void)
{
	dp_graph *g = mapped();
	dp_machine m;
	dp_plan plan;
	REQUIRE(test_evaluate(g, 2, place, &m, &plan));
	atomic_int cancel = 1;
	dp_progress p = {NULL, NULL, &cancel};
	CHECK_EXPORT_KEEPS_OLD(DP_EXPORT_CSV, "old.csv", g, &m, &plan, &p);
	dp_err err;
	CHECK(dp_export_write("/nonexistent-dir/m.devmap.json",
			      DP_EXPORT_DEVMAP_TORCH, g, &m, &plan, NULL,
			      &err) != DP_OK);
	CHECK_CONTAINS(err.file, "/nonexistent-dir/m.devmap.json");
	/* a plan for another graph is refused, not written */
	dp_plan other = plan;
	other.nops = plan.nops - 1;
	CHECK_INT(dp_export_write(test_tmp_path("o.csv"), DP_EXPORT_CSV, g, &m,
				  &other, NULL, &err),
		  DP_EINTERNAL);
	CHECK(access(test_tmp_path("o.csv"), F_OK) != 0);
	test_free(g, &m, &plan);
}

static void test_table_cleanup(void)
{
	CHECK(test_tmp_cleanup());
}

TEST_MAIN(TEST(test_export_kind_follows_the_file_name),
	  TEST(test_csv_reads_back_exactly),
	  TEST(test_numbers_use_a_dot_in_any_locale),
	  TEST(test_torch_map_lists_every_layer_once),
	  TEST(test_tf_map_has_one_line_per_op),
	  TEST(test_json_and_place_read_back),
	  TEST(test_canceled_or_failed_export_keeps_the_old_file),
	  TEST(test_table_cleanup))
