/* fuzz_util.h - shared helpers of the libFuzzer targets (fuzz/fuzz_*.c).
 *
 * Each target feeds one loader with the fuzzer's bytes and, when the input
 * loads, runs the rest of the path a user's file takes (finalize, the
 * machine hint, a small plan) so that values a loader lets through are
 * exercised too. A target aborts (a finding) when the engine breaks its own
 * contract: an error without a message, an exit code other than 2 for bad
 * input, a success that leaves no graph.
 *
 * Header-only (static functions) so that each target is one translation
 * unit linked against build-fuzz/libdnnpart.a.
 */
#ifndef DNNPART_FUZZ_UTIL_H
#define DNNPART_FUZZ_UTIL_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dnnpart/algo.h"
#include "dnnpart/err.h"
#include "dnnpart/graph.h"
#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"

/* Aborts with a message: libFuzzer records the input as a crash. */
static inline void fuzz_fail(const char *what, const dp_err *err)
{
	char buf[2048];
	fprintf(stderr, "fuzz contract broken: %s (%s)\n", what,
		err ? dp_err_format(err, buf, sizeof buf) : "");
	abort();
}

/* The data as a NUL-terminated string, as dp_load_read_file() gives it. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *t = malloc(size + 1);
	if (!t)
		abort();
	if (size)
		memcpy(t, data, size);
	t[size] = '\0';
	return t;
}

/* A failed load must be a user-facing error with a message; a crash-free
 * DP_EINTERNAL on arbitrary input is a bug too. */
static inline void fuzz_check_error(dp_status s, const dp_err *err)
{
	if (s == DP_OK)
		return;
	if (s != DP_EINPUT && s != DP_ENOMEM && s != DP_EIO)
		fuzz_fail("a loader returned an unexpected status", err);
	if (err->code != s || !err->msg[0])
		fuzz_fail("an error without a message", err);
	if (dp_status_exit_code(s) != 2)
		fuzz_fail("bad input does not map to exit code 2", err);
}

/* What a user's graph goes through after loading: finalize, the machine
 * from its hint, and for small graphs a pardnn plan on two devices (the
 * hint's caps and link, which the file chose). */
static inline void fuzz_after_load(dp_status s, dp_graph *g, const dp_err *lerr)
{
	fuzz_check_error(s, lerr);
	if (s != DP_OK) {
		if (g)
			fuzz_fail("a failed load returned a graph", lerr);
		return;
	}
	if (!g)
		fuzz_fail("a successful load returned no graph", NULL);
	dp_err err;
	dp_err_clear(&err);
	s = dp_graph_finalize(g, &err);
	fuzz_check_error(s, &err);
	if (s == DP_OK && g->nops > 0 && g->nops <= 64) {
		dp_machine m;
		if (dp_machine_init_from_hint(&m, &g->hint, &err) == DP_OK) {
			if (m.k < 2 && dp_machine_resize(&m, 2, &err) != DP_OK)
				fuzz_fail("dp_machine_resize(2) failed", &err);
			const dp_algo *a = dp_algo_find("pardnn");
			dp_plan plan;
			memset(&plan, 0, sizeof plan);
			if (a && dp_plan_run(g, &m, a, NULL, NULL, &plan, &err) ==
					 DP_OK)
				dp_plan_free(&plan);
			dp_machine_free(&m);
		}
	}
	dp_graph_free(g);
}

/* A private folder for targets that need files (removed at exit). */
static char fuzz_dir_path[64];

static inline void fuzz_dir_remove(void)
{
	DIR *d = opendir(fuzz_dir_path);
	if (d) {
		struct dirent *de;
		char p[512];
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.' &&
			    (!de->d_name[1] || !strcmp(de->d_name, "..")))
				continue;
			snprintf(p, sizeof p, "%s/%s", fuzz_dir_path,
				 de->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(fuzz_dir_path);
}

static inline const char *fuzz_dir(void)
{
	if (!fuzz_dir_path[0]) {
		snprintf(fuzz_dir_path, sizeof fuzz_dir_path,
			 "/tmp/dnnpart-fuzz.XXXXXX");
		if (!mkdtemp(fuzz_dir_path))
			abort();
		atexit(fuzz_dir_remove);
	}
	return fuzz_dir_path;
}

/* Writes n bytes to DIR/name; returns the path (static buffer). */
static inline const char *fuzz_write(const char *name, const void *data,
				     size_t n)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
	FILE *f = fopen(path, "wb");
	if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0)
		abort();
	return path;
}

/* The whole of a target that reads files against a fixed graph (placement,
 * strategy): the bytes written as the file NAME, then check on it and the
 * graph of text (native JSON, len bytes), loaded and finalized on the first
 * call and kept for the later ones (a target has one fixed graph). */
static inline int fuzz_file_target(const char *text, size_t len,
				   const char *name, const uint8_t *data,
				   size_t size,
				   int (*check)(const dp_graph *g,
						const char *path))
{
	static dp_graph *g;
	if (!g) {
		dp_err err;
		if (dp_load_json("fz.json", text, len, &g, &err) ||
		    dp_graph_finalize(g, &err))
			fuzz_fail("the fixed graph does not load", &err);
	}
	return check(g, fuzz_write(name, data, size));
}

/* Defines the libFuzzer entry of such a target: fuzz_file_target with the
 * fixed graph graph_text[] and check. */
#define FUZZ_FILE_TARGET(name, graph_text, check)                              \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);          \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)           \
	{                                                                      \
		return fuzz_file_target(graph_text, sizeof graph_text - 1,    \
					name, data, size, check);              \
	}

/* A text loader's signature (dnnpart/load.h). */
typedef dp_status (*fuzz_text_loader)(const char *path, const char *text,
				      size_t len, dp_graph **out,
				      dp_err *err);

/* The whole of a text loader's target: the bytes as text through load,
 * then what a loaded graph goes through. */
static inline int fuzz_text_target(fuzz_text_loader load, const uint8_t *data,
				   size_t size)
{
	char *text = fuzz_text(data, size);
	dp_graph *g = NULL;
	dp_err err;
	dp_err_clear(&err);
	dp_status s = load("fuzz.in", text, size, &g, &err);
	free(text);
	fuzz_after_load(s, g, &err);
	return 0;
}

#endif
