/* afile.c - output files that appear whole or not at all (see afile.h).
 *
 * The temporary file is created with open(O_CREAT | O_EXCL, 0666) rather
 * than mkstemp() so that the user's umask applies as for any new file; an
 * existing target keeps its permission bits. rename() within one folder is
 * atomic, so a reader sees the old file or the new one, never a mix.
 *
 * A target that did not exist when the afile was opened is created by a
 * rename that refuses to replace (renameat2 RENAME_NOREPLACE on Linux, else
 * link() + unlink(), else a check just before rename()): a file that
 * appears while a long export runs is never lost.
 */
#include "dnnpart/afile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

/* Folder part of path ("." when it has none). Caller frees. */
static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	size_t n = (size_t)(slash - path);
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, path, n);
		d[n] = '\0';
	}
	return d;
}

/* The temporary files of open afiles, for dp_afile_remove_pending(): plain
 * pointers to af->tmp, claimed and cleared with atomic exchanges so that a
 * signal handler can read them at any moment. */
enum { PENDING_MAX = 16 };
static _Atomic(char *) pending[PENDING_MAX];

static void pending_add(char *tmp)
{
	for (int i = 0; i < PENDING_MAX; i++) {
		char *none = NULL;
		if (atomic_compare_exchange_strong(&pending[i], &none, tmp))
			return;
	}
	/* all slots taken: this one is not tracked (still removed on any
	 * ordinary failure, only not on a signal) */
}

static void pending_drop(char *tmp)
{
	for (int i = 0; tmp && i < PENDING_MAX; i++) {
		char *want = tmp;
		atomic_compare_exchange_strong(&pending[i], &want, NULL);
	}
}

void dp_afile_remove_pending(void)
{
	for (int i = 0; i < PENDING_MAX; i++) {
		char *p = atomic_load(&pending[i]);
		if (p)
			unlink(p);
	}
}

static void afile_release(dp_afile *af)
{
	pending_drop(af->tmp);
	free(af->path);
	free(af->tmp);
	af->path = NULL;
	af->tmp = NULL;
	af->f = NULL;
}

/* Renames tmp onto path only when nothing is at path. 0, or -1 with errno
 * (EEXIST when something is there). */
static int rename_noreplace(const char *tmp, const char *path)
{
#if defined(__linux__) && defined(SYS_renameat2)
	/* RENAME_NOREPLACE is 1 (linux/fs.h) */
	if (syscall(SYS_renameat2, AT_FDCWD, tmp, AT_FDCWD, path, 1u) == 0)
		return 0;
	if (errno != ENOSYS && errno != EINVAL)
		return -1;
#endif
	if (link(tmp, path) == 0) {
		(void)unlink(tmp);
		return 0;
	}
	if (errno == EEXIST)
		return -1;
	/* a file system without hard links: check, then rename (a short
	 * window instead of none) */
	struct stat st;
	if (lstat(path, &st) == 0) {
		errno = EEXIST;
		return -1;
	}
	return rename(tmp, path);
}

static bool same_file(const struct stat *a, const char *path)
{
	struct stat b;
	return path && stat(path, &b) == 0 && a->st_dev == b.st_dev &&
	       a->st_ino == b.st_ino;
}

dp_status dp_afile_check(const char *path, const char *const *inputs,
			 size_t ninputs, dp_afile_target *what, dp_err *err)
{
	*what = DP_AFILE_NEW;
	if (!path || !path[0])
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "empty output file name");
	struct stat st;
	if (stat(path, &st) != 0) {
		if (lstat(path, &st) == 0) /* a dangling symbolic link */
			*what = DP_AFILE_EXISTS;
		return DP_OK;
	}
	if (S_ISDIR(st.st_mode))
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "is a folder; expected a file name");
	*what = DP_AFILE_EXISTS;
	for (size_t i = 0; i < ninputs; i++)
		if (same_file(&st, inputs[i])) {
			*what = DP_AFILE_INPUT;
			break;
		}
	return DP_OK;
}

dp_status dp_afile_open(dp_afile *af, const char *path, dp_err *err)
{
	memset(af, 0, sizeof *af);
	if (!path || !path[0])
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "empty output file name");
	size_t plen = strlen(path);
	if (path[plen - 1] == '/')
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "is a folder name; expected a file name");
	struct stat st;
	bool exists = stat(path, &st) == 0;
	af->replace = exists || lstat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode))
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "is a folder; expected a file name");
	char *dir = folder_of(path);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t tlen = strlen(dir ? dir : "") + strlen(base) + 32;
	af->path = strdup(path);
	af->tmp = malloc(tlen);
	if (!dir || !af->path || !af->tmp) {
		free(dir);
		afile_release(af);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory opening '%s'", path);
	}
	struct stat dst;
	if (stat(dir, &dst) != 0 || !S_ISDIR(dst.st_mode)) {
		bool there = stat(dir, &dst) == 0;
		dp_status s = dp_err_set(err, DP_EIO, path, 0, 0,
					 there ? "cannot write: '%s' is not "
						 "a folder"
					       : "cannot write: folder '%s' "
						 "does not exist",
					 dir);
		free(dir);
		afile_release(af);
		return s;
	}
	/* ".NAME.tmpXXXXXX" with a suffix from pid, time and a counter;
	 * O_EXCL makes a clash a retry, never an overwrite. */
	static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNO"
				     "PQRSTUVWXYZ0123456789";
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t seed = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^
			(uint64_t)ts.tv_sec * 2654435761u ^ (uintptr_t)af;
	int fd = -1, saved = 0;
	for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
		char suffix[7];
		uint64_t x = seed + (uint64_t)attempt * 0x9e3779b97f4a7c15ull;
		for (int i = 0; i < 6; i++) {
			x ^= x >> 29;
			x *= 0xbf58476d1ce4e5b9ull;
			suffix[i] = digits[(x >> 40) % (sizeof digits - 1)];
		}
		suffix[6] = '\0';
		if (strcmp(dir, ".") == 0 && !strchr(path, '/'))
			snprintf(af->tmp, tlen, ".%s.tmp%s", base, suffix);
		else
			snprintf(af->tmp, tlen, "%s%s.%s.tmp%s", dir,
				 strcmp(dir, "/") == 0 ? "" : "/", base,
				 suffix);
		fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			  0666);
		saved = errno;
		if (fd < 0 && saved != EEXIST)
			break;
	}
	if (fd < 0) {
		dp_status s = dp_err_set(err, DP_EIO, path, 0, 0,
					 "cannot create a file in folder "
					 "'%s': %s",
					 dir, strerror(saved));
		free(dir);
		afile_release(af);
		return s;
	}
	free(dir);
	pending_add(af->tmp);
	if (exists)
		(void)fchmod(fd, st.st_mode & 07777);
	af->f = fdopen(fd, "w");
	if (!af->f) {
		saved = errno;
		close(fd);
		unlink(af->tmp);
		dp_status s = dp_err_set(err, DP_EIO, path, 0, 0,
					 "cannot write: %s", strerror(saved));
		afile_release(af);
		return s;
	}
	return DP_OK;
}

dp_status dp_afile_commit(dp_afile *af, dp_err *err)
{
	if (!af->f)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "dp_afile_commit on a file that is not open");
	int saved = 0;
	const char *step = NULL;
	if (ferror(af->f)) {
		/* the failed write's errno is gone; writing what is still
		 * buffered usually fails again for the same reason (disk
		 * full, file too large), which tells the user more than EIO */
		step = "writing";
		clearerr(af->f);
		errno = 0;
		saved = fflush(af->f) != 0 && errno ? errno : EIO;
	} else if (fflush(af->f) != 0) {
		step = "writing";
		saved = errno;
	} else if (fsync(fileno(af->f)) != 0 && errno != EINVAL) {
		/* EINVAL: the file system does not sync (e.g. a pipe) */
		step = "syncing";
		saved = errno;
	}
	if (fclose(af->f) != 0 && !step) {
		step = "closing";
		saved = errno;
	}
	af->f = NULL;
	bool appeared = false;
	if (!step && (af->replace ? rename(af->tmp, af->path)
				  : rename_noreplace(af->tmp, af->path)) != 0) {
		step = "renaming the temporary file onto";
		saved = errno;
		appeared = !af->replace && saved == EEXIST;
	}
	if (appeared) {
		unlink(af->tmp);
		dp_status s = dp_err_set(err, DP_EIO, af->path, 0, 0,
					 "a file appeared there while this "
					 "one was written; it was kept and "
					 "nothing was written");
		afile_release(af);
		return s;
	}
	if (step) {
		unlink(af->tmp);
		dp_status s = dp_err_set(err, DP_EIO, af->path, 0, 0,
					 "error while %s the file (nothing "
					 "was changed): %s",
					 step, strerror(saved));
		afile_release(af);
		return s;
	}
	/* make the rename itself durable; failure here loses nothing */
	char *dir = folder_of(af->path);
	if (dir) {
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			(void)fsync(dfd);
			close(dfd);
		}
		free(dir);
	}
	afile_release(af);
	return DP_OK;
}

void dp_afile_abort(dp_afile *af)
{
	if (!af)
		return;
	if (af->f) {
		fclose(af->f);
		af->f = NULL;
	}
	if (af->tmp)
		unlink(af->tmp);
	afile_release(af);
}
