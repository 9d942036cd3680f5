/* tui_load.c - the explorer's first load, with a line that says so.
 *
 * A graph of a million ops takes seconds to load, before the screen can
 * show anything; a silent terminal looks hung. So the load runs on a
 * thread while the caller's thread writes one line to stderr (when it is a
 * terminal): "dnnpart: loading PATH (1.20 GiB) ... 45 % read, 2.1 s", then
 * "... read, building the graph". The loaders have no progress callback:
 * the share read is the file position of the loader's descriptor, as
 * Linux shows it in /proc/self/fdinfo; once the descriptor is closed the
 * file is in memory and the graph is being built (without /proc, the time
 * still shows).
 * The line is erased when the load ends, before the screen starts.
 */
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dnnpart/units.h"
#include "tui_load.h"

typedef struct load_job {
	const cli_opts *o;
	dp_graph *g;
	dp_err err;
	dp_status st;
	atomic_bool done;
} load_job;

static void *load_thread(void *arg)
{
	load_job *j = arg;
	j->st = dp_graph_load(j->o->graph_path, j->o->format, &j->g, &j->err);
	atomic_store(&j->done, true);
	return NULL;
}

/* The file position of this process's descriptor open on the file with
 * inode ino (on device dev); -1 when none is open or it cannot be seen. */
static long long read_position(dev_t dev, ino_t ino)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	long long pos = -1;
	struct dirent *e;
	while (pos < 0 && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[300];
		struct stat st;
		snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
		if (stat(p, &st) != 0 || st.st_dev != dev || st.st_ino != ino)
			continue;
		snprintf(p, sizeof p, "/proc/self/fdinfo/%s", e->d_name);
		FILE *f = fopen(p, "r");
		if (!f)
			continue;
		char line[128];
		while (fgets(line, sizeof line, f))
			if (sscanf(line, "pos: %lld", &pos) == 1)
				break;
		fclose(f);
	}
	closedir(d);
	return pos;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Prints the line over the last one, within the terminal's width (a line
 * that wraps could not be overwritten): the path shortens to its name,
 * then the line is cut. */
static void print_line(const char *path, const char *size, const char *what,
		       double secs)
{
	struct winsize ws;
	int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0
			   ? ws.ws_col
			   : 80;
	char line[1024];
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	for (int pass = 0; pass < 2; pass++) {
		snprintf(line, sizeof line,
			 "dnnpart: loading %s%s%s%s ... %s%.1f s",
			 pass ? name : path, size[0] ? " (" : "", size,
			 size[0] ? ")" : "", what, secs);
		if ((int)strlen(line) < cols)
			break;
	}
	if (cols > 1 && (int)strlen(line) >= cols)
		line[cols - 1] = '\0';
	fprintf(stderr, "\r%s\033[K", line);
}

int tui_load_graph_machine(const cli_opts *o, dp_graph **g, dp_graph **plain,
			   dp_machine *m)
{
	*plain = NULL;
	bool show = isatty(STDERR_FILENO);
	struct stat fst;
	bool file = stat(o->graph_path, &fst) == 0 && S_ISREG(fst.st_mode);
	char size[32] = "";
	if (file)
		dp_units_fmt_bytes((int64_t)fst.st_size, size, sizeof size);
	load_job j;
	memset(&j, 0, sizeof j);
	j.o = o;
	dp_err_clear(&j.err);
	atomic_init(&j.done, false);
	pthread_t th;
	bool threaded = pthread_create(&th, NULL, load_thread, &j) == 0;
	if (!threaded)
		load_thread(&j);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	bool read_all = false, seen = false;
	while (threaded && !atomic_load(&j.done)) {
		if (show) {
			char what[64] = "";
			long long pos =
				file && !read_all
					? read_position(fst.st_dev, fst.st_ino)
					: -1;
			if (pos >= 0 && pos < (long long)fst.st_size &&
			    fst.st_size > 0)
				snprintf(what, sizeof what, "%d %% read, ",
					 (int)(100.0 * (double)pos /
					       (double)fst.st_size));
			else if (file && (pos >= 0 || seen || read_all ||
					  seconds_since(&t0) > 0.3)) {
				/* read to the end, or the loader closed the
				 * file: it holds it in memory */
				read_all = true;
				snprintf(what, sizeof what,
					 "read, building the graph, ");
			}
			seen = seen || pos >= 0;
			print_line(o->graph_path, size, what,
				   seconds_since(&t0));
			fflush(stderr);
		}
		struct timespec nap = {0, 100 * 1000 * 1000};
		nanosleep(&nap, NULL);
	}
	if (threaded)
		pthread_join(th, NULL);
	if (show) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
	int rc = cli_graph_loaded(o, j.st, j.g, &j.err);
	if (rc)
		return rc;
	*g = j.g;
	bool autorc = cli_wants_auto(o);
	if ((rc = cli_apply_batch(o, g)) ||
	    (!autorc && (rc = cli_apply_levers_keep(o, g, plain))))
		return rc;
	if ((rc = cli_make_machine(o, *g, m))) {
		dp_graph_free(*g);
		dp_graph_free(*plain);
		*g = *plain = NULL;
	} else if (autorc && (rc = cli_apply_auto(o, g, m)))
		dp_machine_free(m);
	return rc;
}
