/*
 * count: the word-count skill's script. Counts lines, words and bytes of
 * files, like wc(1).
 *
 *   count [-l] [-w] [-c] [FILE...]
 *
 * With no FILE (or FILE "-") it counts standard input. Built for WASI it
 * runs in skillrun's sandbox, where the workspace is mounted at /workspace
 * and nothing else is visible: a relative FILE is relative to the
 * workspace. Built natively, FILE is an ordinary path.
 *
 * A word is a maximal run of bytes that are not ASCII white space (space,
 * \t, \n, \v, \f, \r); a line is a '\n'. Bytes are counted, not
 * characters. Files are read in 64 KiB blocks with one table lookup per
 * byte.
 *
 * Exit status: 0 if every file was counted, 1 if any could not be read,
 * 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef __wasi__
#define WORKSPACE "/workspace"
#endif

struct counts {
	unsigned long long lines, words, bytes;
};

static unsigned char is_space[256];
static int show_lines, show_words, show_bytes;

static const char usage[] =
	"usage: count [-l] [-w] [-c] [FILE...]\n"
	"\n"
	"Count lines (-l), words (-w) and bytes (-c) of each FILE, like wc;\n"
	"all three by default. With no FILE, count standard input.\n"
#ifdef WORKSPACE
	"FILE is relative to the workspace (" WORKSPACE ").\n"
#endif
	;

/* count_fd adds the counts of everything read from fd to c. */
static int count_fd(int fd, struct counts *c) {
	static unsigned char buf[1 << 16];
	unsigned long long lines = 0, words = 0, bytes = 0;
	int in_word = 0;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		bytes += (unsigned long long)n;
		for (ssize_t i = 0; i < n; i++) {
			unsigned char ch = buf[i];
			lines += ch == '\n';
			if (is_space[ch]) {
				in_word = 0;
			} else if (!in_word) {
				in_word = 1;
				words++;
			}
		}
	}
	c->lines += lines;
	c->words += words;
	c->bytes += bytes;
	return 0;
}

static void print_counts(const struct counts *c, const char *name) {
	if (show_lines)
		printf(" %7llu", c->lines);
	if (show_words)
		printf(" %7llu", c->words);
	if (show_bytes)
		printf(" %7llu", c->bytes);
	if (name)
		printf(" %s", name);
	putchar('\n');
}

/* report explains why name could not be counted. */
static void report(const char *name, const char *path, int err) {
	fprintf(stderr, "count: %s: %s", name, strerror(err));
#ifdef WORKSPACE
	if (strncmp(path, WORKSPACE "/", sizeof WORKSPACE) != 0 && strcmp(path, WORKSPACE) != 0)
		fprintf(stderr, " (this script sees only the workspace, at " WORKSPACE "; give paths relative to it)");
	else if (err == ENOENT)
		fprintf(stderr, " (no such file in the workspace, " WORKSPACE ")");
	else if (err == EACCES || err == EPERM || err == ENOTCAPABLE)
		fprintf(stderr, " (grant the workspace for reading: --allow-read=workspace)");
#else
	(void)path;
#endif
	fputc('\n', stderr);
}

int main(int argc, char **argv) {
	static const char spaces[] = " \t\n\v\f\r";
	for (const char *s = spaces; *s; s++)
		is_space[(unsigned char)*s] = 1;

	int i = 1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		for (const char *f = argv[i] + 1; *f; f++) {
			switch (*f) {
			case 'l': show_lines = 1; break;
			case 'w': show_words = 1; break;
			case 'c': show_bytes = 1; break;
			default:
				fprintf(stderr, "count: unknown option -%c\n%s", *f, usage);
				return 2;
			}
		}
	}
	if (!show_lines && !show_words && !show_bytes)
		show_lines = show_words = show_bytes = 1;

	struct counts total = {0, 0, 0};
	int status = 0, files = argc - i;
	if (files == 0) {
		struct counts c = {0, 0, 0};
		if (count_fd(STDIN_FILENO, &c) < 0) {
			fprintf(stderr, "count: standard input: %s\n", strerror(errno));
			return 1;
		}
		print_counts(&c, NULL);
		return 0;
	}
	for (; i < argc; i++) {
		const char *name = argv[i];
		struct counts c = {0, 0, 0};
		int fd;
		const char *path = name;
		if (strcmp(name, "-") == 0) {
			fd = STDIN_FILENO;
		} else {
#ifdef WORKSPACE
			static char buf[4096];
			if (name[0] != '/') {
				int n = snprintf(buf, sizeof buf, "%s/%s", WORKSPACE, name);
				if (n < 0 || (size_t)n >= sizeof buf) {
					report(name, WORKSPACE, ENAMETOOLONG);
					status = 1;
					continue;
				}
				path = buf;
			}
#endif
			fd = open(path, O_RDONLY);
			if (fd < 0) {
				report(name, path, errno);
				status = 1;
				continue;
			}
		}
		int r = count_fd(fd, &c);
		int err = errno;
		if (fd != STDIN_FILENO)
			close(fd);
		if (r < 0) {
			report(name, path, err);
			status = 1;
			continue;
		}
		print_counts(&c, name);
		total.lines += c.lines;
		total.words += c.words;
		total.bytes += c.bytes;
	}
	if (files > 1)
		print_counts(&total, "total");
	if (fflush(stdout) != 0) {
		fprintf(stderr, "count: writing output: %s\n", strerror(errno));
		return 1;
	}
	return status;
}
