/* load_pardnn_files.c - finding and reading the files of a ParDNN folder
 * (see internal/pardnn_folder.h; the folder's format is described in
 * load_pardnn.c and docs/formats.md).
 *
 * Each role has a pattern and, for folders holding several candidates (the
 * reference's tools leave variants such as nodes_average_durations.txt next
 * to nodes_average_durations_fixed.txt), a preferred name: the reference's
 * default file. Several candidates without exactly one preferred is an
 * error that lists them, rather than a silent guess.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal/load_util.h"
#include "internal/nomem.h"
#include "internal/pardnn_folder.h"

static const struct pd_role_def {
	const char *what, *pattern, *prefer;
	bool required;
} roles[R_COUNT] = {
	[R_EDGES] = {"edges file", "*.dot", "*src_sink*", true},
	[R_DUR] = {"durations file", "*durations*.txt", "*fixed*", true},
	[R_TSZ] = {"tensor sizes file", "tensors_sz*.txt",
		   "tensors_sz_32_low.txt", true},
	[R_VAR] = {"variable list", "var_nodes.txt", NULL, false},
	[R_REF] = {"ref-op list", "ref_nodes.txt", NULL, false},
	[R_NOOP] = {"no-op list", "no_ops.txt", NULL, false},
	[R_MEM] = {"memory file", "memory.txt", NULL, false},
	[R_COLOC] = {"colocations file", "*col*ocation*.txt",
		     "collocations.txt", false},
	[R_PLACE] = {"placement file", "*.place", "vanilla*", false},
};

static char *path_join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);
	if (p) {
		memcpy(p, dir, a);
		p[a] = '/';
		memcpy(p + a + 1, name, b + 1);
	}
	return p;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

dp_status dpi_pardnn_find_files(const char *dir, char *files[R_COUNT],
				dp_err *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return dp_err_set(err, errno == ENOMEM ? DP_ENOMEM : DP_EIO,
				  dir, 0, 0, "cannot read the folder: %s",
				  strerror(errno));
	char **names = NULL;
	size_t n = 0, cap = 0;
	dp_status st = DP_OK;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *full = path_join(dir, de->d_name);
		struct stat sb;
		if (!full) {
			st = dpi_nomem(err, "loading a ParDNN folder");
			break;
		}
		bool reg = stat(full, &sb) == 0 && S_ISREG(sb.st_mode);
		free(full);
		if (!reg)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			char **q = realloc(names, cap * sizeof *q);
			if (!q) {
				st = dpi_nomem(err, "loading a ParDNN folder");
				break;
			}
			names = q;
		}
		if (!(names[n] = strdup(de->d_name))) {
			st = dpi_nomem(err, "loading a ParDNN folder");
			break;
		}
		n++;
	}
	closedir(d);
	if (!st && n)
		qsort(names, n, sizeof *names, cmp_str);
	for (int r = 0; !st && r < R_COUNT; r++) {
		const struct pd_role_def *rd = &roles[r];
		size_t nmatch = 0, npref = 0, pick = 0;
		char list[400] = "";
		for (size_t i = 0; i < n; i++) {
			if (fnmatch(rd->pattern, names[i], 0) != 0)
				continue;
			size_t l = strlen(list);
			snprintf(list + l, sizeof list - l, "%s%s",
				 nmatch ? ", " : "", names[i]);
			if (nmatch++ == 0)
				pick = i;
			if (rd->prefer &&
			    fnmatch(rd->prefer, names[i], 0) == 0) {
				if (npref++ == 0 || nmatch == 1)
					pick = i;
			}
		}
		if (nmatch == 0 && rd->required)
			st = dp_err_set(
				err, DP_EINPUT, dir, 0, 0,
				"no %s (%s) in this folder; a ParDNN folder "
				"holds an edges file *.dot, durations "
				"*durations*.txt and tensor sizes "
				"tensors_sz*.txt (see docs/formats.md)",
				rd->what, rd->pattern);
		else if (nmatch > 1 && npref != 1)
			st = dp_err_set(err, DP_EINPUT, dir, 0, 0,
					"several files could be the %s (%s): "
					"%s; keep one%s%s",
					rd->what, rd->pattern, list,
					rd->prefer ? " or name the one to use "
						     "like "
						   : "",
					rd->prefer ? rd->prefer : "");
		else if (nmatch > 0 &&
			 !(files[r] = path_join(dir, names[pick])))
			st = dpi_nomem(err, "loading a ParDNN folder");
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return st;
}

dp_status dpi_pardnn_read_lines(const char *path, pd_line_fn fn, void *ctx,
				dp_err *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return dp_err_set(err, errno == ENOMEM ? DP_ENOMEM : DP_EIO,
				  path, 0, 0, "cannot open: %s",
				  strerror(errno));
	char *buf = NULL;
	size_t len = 0, cap = 0;
	dp_status st = DP_OK;
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			char *q = realloc(buf, cap + 1);
			if (!q) {
				st = dpi_nomem(err, "loading a ParDNN folder");
				break;
			}
			buf = q;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (!st && ferror(f))
		st = dp_err_set(err, DP_EIO, path, 0, 0, "read error");
	fclose(f);
	if (!st && memchr(buf, '\0', len))
		st = dp_err_set(err, DP_EINPUT, path, 0, 0,
				"file contains a NUL byte; expected text");
	if (st) {
		free(buf);
		return st;
	}
	buf[len] = '\0';
	int lineno = 0;
	for (char *p = buf; *p && !st;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		lineno++;
		char *line = dpi_load_trim(p);
		if (*line)
			st = fn(ctx, path, p, line, lineno, err);
		p = nl ? nl + 1 : p + strlen(p);
	}
	free(buf);
	return st;
}

bool dpi_pardnn_parse_name(char **p, char *out)
{
	char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	const char *name;
	size_t n;
	if (*s == '"') {
		name = s + 1;
		char *q = strchr(name, '"');
		if (!q) {
			*p = s;
			return false;
		}
		n = (size_t)(q - name);
		s = q + 1;
	} else {
		name = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '"' &&
		       strncmp(s, "->", 2) != 0 && strncmp(s, "::", 2) != 0)
			s++;
		n = (size_t)(s - name);
	}
	if (n == 0 || n >= PD_NAME_MAX) {
		*p = s;
		return false;
	}
	memcpy(out, name, n);
	out[n] = '\0';
	while (*s == ' ' || *s == '\t')
		s++;
	*p = s;
	return true;
}

dp_status dpi_pardnn_bad_line(const char *path, int lineno, const char *raw,
			      const char *at, const char *expected, dp_err *err)
{
	return dp_err_set(err, DP_EINPUT, path, lineno,
			  at ? (int)(at - raw) + 1 : 0, "expected %s",
			  expected);
}
