/* cli_outputs.c - which files a batch command may write (see cli.h).
 *
 * Nothing is lost: an existing file is replaced only with --force, and a
 * file the command reads (the graph, the placement) never, whatever the
 * spelling of its path (compared by device and inode). The check runs
 * before any work, so a long plan does not end in a refusal, and again
 * just before each file is written; from then on the engine's afile never
 * replaces a file that appears while it writes.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "dnnpart/afile.h"

int cli_check_output(const char *path, const cli_out_rule *rule)
{
	dp_afile_target what;
	dp_err err;
	dp_err_clear(&err);
	if (dp_afile_check(path, rule->inputs, CLI_MAX_INPUTS, &what, &err))
		return cli_error(&err);
	switch (what) {
	case DP_AFILE_INPUT:
		fprintf(stderr,
			"dnnpart: %s is an input of this command; it is "
			"never replaced, even with --force\n",
			path);
		return 2;
	case DP_AFILE_EXISTS:
		if (rule->force)
			return 0;
		fprintf(stderr,
			"dnnpart: %s exists; pass --force to replace it\n",
			path);
		return 2;
	case DP_AFILE_NEW:
		break;
	}
	return 0;
}

/* True when a and b name one file: the same text, or the same device and
 * inode when both exist. */
static bool same_output(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return true;
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cli_check_outputs(const char *const *outs, size_t n,
		      const cli_out_rule *rule)
{
	for (size_t i = 0; i < n; i++) {
		if (!outs[i])
			continue;
		for (size_t j = 0; j < i; j++)
			if (outs[j] && same_output(outs[i], outs[j])) {
				fprintf(stderr,
					"dnnpart: %s is given as two outputs; "
					"each file can hold one\n",
					outs[i]);
				return 2;
			}
		int rc = cli_check_output(outs[i], rule);
		if (rc)
			return rc;
	}
	return 0;
}
