/* ll-study: what a Landlock domain and a seccomp filter cost per open
 * (`make bench-landlock`, BENCHMARKS.md "Per-open cost of Landlock").
 *
 *   ll-study DIR [ROUNDS [CALLS [MAXRULES]]]
 *   ll-study --filter-on-fd3 COMMAND [ARG...]
 *
 * The second form is for `make bench`'s bwrap row: it puts the shim's
 * default seccomp filter (raw struct sock_filter array) in a pipe on
 * descriptor 3 and executes COMMAND, so `bwrap --seccomp 3` gets the very
 * filter __sandbox installs (hyperfine -N has no shell to open a file on
 * fd 3, and a file shared between runs would be read at EOF by the second).
 *
 * Builds its tree under DIR (MAXRULES sibling directories s/r00000…,
 * 10,000 unless given: the cases with more rules are left out; and in
 * s/r00000 a chain d/d/…/d 32 deep with a file f at every level), then
 * measures CALLS × openat(O_RDONLY)+read(1 byte)+close of one file in a
 * fresh child per case: the child builds the case's rulesets directly
 * (landlock_create_ruleset / add_rule / restrict_self, no __sandbox in
 * between) and its seccomp filter, warms up, and times the loop with
 * CLOCK_PROCESS_CPUTIME_ID.  Every case runs once per round, the rounds interleave
 * the cases (a shared machine drifts), and the table shows medians in ns
 * per open+read+close (and the spread of the rounds), each next to the
 * unconfined open of the same file.
 *
 * What the kernel does (security/landlock/fs.c, 6.x): hook_file_open asks
 * for the open's rights plus the optional TRUNCATE (and IOCTL_DEV on a
 * device) and is_access_to_paths_allowed walks from the file up, one
 * dentry at a time, looking each up in the domain's red-black tree of
 * rules, until every layer has granted the whole request — or to the real
 * root.  A read-only grant never grants TRUNCATE, so opening a file of a
 * read-only tree always walks to the root; a writable grant stops at its
 * rule.  The cases vary exactly these: rule count, depth below the rule,
 * rules at every level, layers, and the seccomp filter in front.
 *
 * The shim's own default filter is measured when build/gen's embedded
 * filters are linked in (the Makefile does for the native build; weak
 * references, so a build without them says so instead of failing).
 *
 * Output: a markdown table on stdout.  Exit 0; 1 on a failed set-up call
 * (with the path and errno on stderr); 2 usage; 77 when this kernel has no
 * Landlock (the table would measure nothing). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../policy/landlock_abi.h"
#include "../../shim/seccomp_bpf.h"
#include "../../shim/sys.h"

/* build/gen/seccomp_embedded.c when linked (weak: NULL otherwise). */
extern const struct sc_embedded sc_embedded[] __attribute__((weak));
extern const size_t sc_nembedded __attribute__((weak));

#define NSIB 10000 /* most rules of a case */
#define MAXDEPTH 32

enum grant { NONE, RO, RW };
enum filt { F_NONE, F_ALLOW, F_LIN_CACHED, F_LIN_ARGS, F_DEFAULT };

/* One measured case. */
struct kase {
	const char *group;  /* table section */
	const char *label;
	int nrules;         /* sibling rules s/r00000… (0: no Landlock) */
	enum grant grant;   /* rights of those rules */
	int depth;          /* file below s/r00000: 1 = s/r00000/f */
	bool chain;         /* read-only rules on every directory between */
	int layers;         /* restrict_self this many times, same rules */
	bool outer_root;    /* one more, outer layer granting RW on "/" */
	enum filt filt;
	int flen;           /* linear filters: compares */
	double ns[16];      /* per round */
};

struct ctx {
	const char *dir;
	int abi;
	uint64_t handled;
	long calls;
	int nsib;      /* sibling directories made (MAXRULES) */
};

static void die(const char *what, const char *path)
{
	fprintf(stderr, "ll-study: %s %s: %s\n", what, path ? path : "", strerror(errno));
	exit(1);
}

/* DIR/s/r00000/ then `depth`-1 × "d/" then "f". */
static void file_path(const struct ctx *c, int depth, char *buf, size_t n)
{
	int o = snprintf(buf, n, "%s/s/r00000/", c->dir);
	for (int i = 1; i < depth; i++)
		o += snprintf(buf + o, n - (size_t)o, "d/");
	snprintf(buf + o, n - (size_t)o, "f");
}

static void make_tree(const struct ctx *c)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/s", c->dir);
	if (mkdir(c->dir, 0755) && errno != EEXIST)
		die("mkdir", c->dir);
	if (mkdir(p, 0755) && errno != EEXIST)
		die("mkdir", p);
	for (int i = 0; i < c->nsib; i++) {
		snprintf(p, sizeof p, "%s/s/r%05d", c->dir, i);
		if (mkdir(p, 0755) && errno != EEXIST)
			die("mkdir", p);
	}
	for (int d = 1; d <= MAXDEPTH; d++) {
		file_path(c, d, p, sizeof p);
		int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, "x\n", 2) != 2)
			die("creating", p);
		close(fd);
		*strrchr(p, '/') = 0;
		strcat(p, "/d");
		if (d < MAXDEPTH && mkdir(p, 0755) && errno != EEXIST)
			die("mkdir", p);
	}
}

static void add(int rs, const char *path, uint64_t access)
{
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		die("opening", path);
	struct sb_path_beneath_attr pb = {access, fd};
	if (sb_landlock_add_rule(rs, LL_RULE_PATH_BENEATH, &pb, 0))
		die("landlock_add_rule", path);
	close(fd);
}

static void restrict_layer(const struct ctx *c, const struct kase *k, bool root_rw)
{
	struct sb_ruleset_attr a = {c->handled, 0, 0};
	int rs = sb_landlock_create_ruleset(&a, 8, 0);
	if (rs < 0)
		die("landlock_create_ruleset", NULL);
	uint64_t ro = LL_FS_READ_FILE | LL_FS_READ_DIR | LL_FS_EXECUTE;
	char p[4096];
	if (root_rw) {
		add(rs, "/", c->handled);
	} else {
		for (int i = 0; i < k->nrules; i++) {
			snprintf(p, sizeof p, "%s/s/r%05d", c->dir, i);
			add(rs, p, k->grant == RW ? c->handled : ro);
		}
		if (k->chain) {
			/* s/r00000/d, s/r00000/d/d, … down to the file's directory */
			int o = snprintf(p, sizeof p, "%s/s/r00000", c->dir);
			for (int i = 1; i < k->depth; i++) {
				o += snprintf(p + o, sizeof p - (size_t)o, "/d");
				add(rs, p, ro);
			}
		}
	}
	if (sb_landlock_restrict_self(rs, 0))
		die("landlock_restrict_self", NULL);
	close(rs);
}

static void load_filter(const struct kase *k)
{
	struct sock_filter f[1100];
	size_t n = 0;
	const struct sock_filter *prog = f;
	if (k->filt == F_DEFAULT) {
		prog = sc_embedded[0].bpf; /* the default profile's, with mounts */
		n = sc_embedded[0].len;
	} else if (k->filt == F_ALLOW) {
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	} else {
		/* A linear chain of syscall-number compares (numbers no kernel
		 * has), as an unoptimised filter would test one rule after
		 * another.  F_LIN_ARGS then loads an argument before allowing:
		 * the kernel's per-syscall action cache (kernel/seccomp.c,
		 * seccomp_cache_prepare) only covers syscalls whose answer
		 * does not depend on arguments, so that filter runs in full on
		 * every call, as the default filter does for openat. */
		f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
		for (int i = 0; i < k->flen; i++) {
			f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 2000u + (unsigned)i, 0, 1);
			f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
		}
		if (k->filt == F_LIN_ARGS)
			f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1]));
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	}
	struct sock_fprog fp = {(unsigned short)n, (struct sock_filter *)prog};
	if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp))
		die("seccomp", NULL);
}

/* CPU time of this process, not wall time: on a shared machine the time
 * another process holds the CPU would otherwise land in whichever case
 * happens to run then. */
static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* In a child: confine as the case says, then time the loop. */
static double run_case(const struct ctx *c, const struct kase *k)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC))
		die("pipe", NULL);
	pid_t pid = fork();
	if (pid < 0)
		die("fork", NULL);
	if (pid == 0) {
		close(pfd[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			die("no_new_privs", NULL);
		if (k->outer_root)
			restrict_layer(c, k, true);
		for (int l = 0; l < k->layers && k->nrules; l++)
			restrict_layer(c, k, false);
		if (k->filt != F_NONE)
			load_filter(k);
		char p[4096], ch;
		file_path(c, k->depth, p, sizeof p);
		long warm = c->calls / 10 + 1;
		long long t0 = 0;
		for (long i = -warm; i < c->calls; i++) {
			if (i == 0)
				t0 = now_ns();
			long fd = syscall(SYS_openat, AT_FDCWD, p, O_RDONLY | O_CLOEXEC);
			if (fd < 0 || syscall(SYS_read, fd, &ch, 1) != 1)
				die("open+read", p);
			syscall(SYS_close, fd);
		}
		double per = (double)(now_ns() - t0) / (double)c->calls;
		if (write(pfd[1], &per, sizeof per) != sizeof per)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	double per = -1;
	ssize_t got = read(pfd[0], &per, sizeof per);
	close(pfd[0]);
	int st;
	waitpid(pid, &st, 0);
	if (got != sizeof per || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "ll-study: case \"%s\" failed\n", k->label);
		exit(1);
	}
	return per;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(const struct kase *k, int rounds)
{
	double v[16];
	memcpy(v, k->ns, sizeof v);
	qsort(v, (size_t)rounds, sizeof *v, cmp_d);
	return rounds % 2 ? v[rounds / 2] : (v[rounds / 2 - 1] + v[rounds / 2]) / 2;
}

#define MAXCASES 64

/* --filter-on-fd3: argv[0] is COMMAND.  Exits 1 (with the reason) if the
 * filter is not linked in or the pipe or exec fails. */
static int filter_on_fd3(char **argv)
{
	if (&sc_nembedded == NULL || !sc_nembedded) {
		fputs("ll-study: the shim's default filter is not linked into this build\n", stderr);
		return 1;
	}
	int p[2];
	size_t bytes = sc_embedded[0].len * sizeof *sc_embedded[0].bpf;
	/* 4096 instructions at most (8 bytes each) fit a pipe's 64 KiB */
	if (pipe(p) || write(p[1], sc_embedded[0].bpf, bytes) != (ssize_t)bytes)
		die("pipe for the filter", NULL);
	close(p[1]);
	if (p[0] != 3 && (dup2(p[0], 3) != 3 || close(p[0])))
		die("dup2", NULL);
	execvp(argv[0], argv);
	die("executing", argv[0]);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "--filter-on-fd3") == 0)
		return filter_on_fd3(argv + 2);
	if (argc < 2 || argc > 5) {
		fputs("usage: ll-study DIR [ROUNDS (1-15) [CALLS [MAXRULES]]] | --filter-on-fd3 COMMAND [ARG...]\n", stderr);
		return 2;
	}
	struct ctx c = {argv[1], 0, 0, argc > 3 ? atol(argv[3]) : 100000, argc > 4 ? atoi(argv[4]) : NSIB};
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	if (rounds < 1 || rounds > 15 || c.calls < 1 || c.nsib < 1 || c.nsib > NSIB) {
		fputs("ll-study: ROUNDS 1-15, CALLS ≥ 1, MAXRULES 1-10000\n", stderr);
		return 2;
	}
	c.abi = sb_landlock_create_ruleset(NULL, 0, LL_CREATE_RULESET_VERSION);
	if (c.abi < 1) {
		fprintf(stderr, "ll-study: skipped: no Landlock here (%s)\n", strerror(errno));
		return 77;
	}
	/* Every filesystem right of this ABI, as the shim handles them. */
	c.handled = (LL_FS_MAKE_SYM << 1) - 1;
	if (c.abi >= 2)
		c.handled |= LL_FS_REFER;
	if (c.abi >= 3)
		c.handled |= LL_FS_TRUNCATE;
	if (c.abi >= 5)
		c.handled |= LL_FS_IOCTL_DEV;
	if (c.abi >= 9)
		c.handled |= LL_FS_RESOLVE_UNIX;
	make_tree(&c);

	struct kase k[MAXCASES];
	int n = 0;
#define K(...) (k[n++] = (struct kase){__VA_ARGS__})
	static const int depths[] = {1, 4, 16, 32};
	for (size_t i = 0; i < sizeof depths / sizeof *depths; i++)
		K("bare", "no Landlock, no seccomp", 0, NONE, depths[i], false, 0, false, F_NONE, 0, {0});
	static const int counts[] = {1, 10, 100, 1000, 10000};
	for (size_t i = 0; i < sizeof counts / sizeof *counts && counts[i] <= c.nsib; i++) {
		K("(a) rules", "read-only rules", counts[i], RO, 1, false, 1, false, F_NONE, 0, {0});
		K("(a) rules", "writable rules", counts[i], RW, 1, false, 1, false, F_NONE, 0, {0});
	}
	for (size_t i = 1; i < sizeof depths / sizeof *depths; i++) {
		K("(b) depth", "read-only rule", 1, RO, depths[i], false, 1, false, F_NONE, 0, {0});
		K("(b) depth", "writable rule", 1, RW, depths[i], false, 1, false, F_NONE, 0, {0});
	}
	K("(b) depth", "writable rule, read-only rules on every directory between", 1, RW, 32, true, 1, false, F_NONE, 0, {0});
	K("(b) depth", "read-only rules on every directory between", 1, RO, 32, true, 1, false, F_NONE, 0, {0});
	static const int layers[] = {2, 4, 8, 16};
	for (size_t i = 0; i < sizeof layers / sizeof *layers; i++)
		K("(c) layers", "writable rule in each layer", 1, RW, 1, false, layers[i], false, F_NONE, 0, {0});
	K("(c) layers", "read-only rule in each layer", 1, RO, 1, false, 16, false, F_NONE, 0, {0});
	K("(c) layers", "writable rule, under an outer layer granting / writable", 1, RW, 1, false, 1, true, F_NONE, 0, {0});
	K("(d) seccomp", "allow-all filter (1 instruction)", 0, NONE, 1, false, 0, false, F_ALLOW, 1, {0});
	K("(d) seccomp", "linear filter, answer cached per syscall", 0, NONE, 1, false, 0, false, F_LIN_CACHED, 500, {0});
	K("(d) seccomp", "linear filter, argument loaded (not cached)", 0, NONE, 1, false, 0, false, F_LIN_ARGS, 10, {0});
	K("(d) seccomp", "linear filter, argument loaded (not cached)", 0, NONE, 1, false, 0, false, F_LIN_ARGS, 100, {0});
	K("(d) seccomp", "linear filter, argument loaded (not cached)", 0, NONE, 1, false, 0, false, F_LIN_ARGS, 500, {0});
	/* both come from one object: one test covers both */
	bool have_default = &sc_nembedded != NULL && sc_nembedded > 0;
	if (have_default) {
		K("(d) seccomp", "the shim's default filter (libseccomp binary tree)", 0, NONE, 1, false, 0, false, F_DEFAULT, 0, {0});
		K("(d) seccomp", "the shim's default filter + writable rule", 1, RW, 1, false, 1, false, F_DEFAULT, 0, {0});
		K("(d) seccomp", "the shim's default filter + read-only rule", 1, RO, 1, false, 1, false, F_DEFAULT, 0, {0});
	}
#undef K

	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++)
			k[i].ns[r] = run_case(&c, &k[i]);

	char p[4096];
	file_path(&c, 1, p, sizeof p);
	int base_depth = 0;
	for (const char *s = p; *s; s++)
		base_depth += *s == '/';
	printf("Landlock ABI %d; %d rounds of %ld × openat+read+close, medians; the file is "
	       "%d path components below / at depth 1 (%s)\n\n", c.abi, rounds, c.calls, base_depth, p);
	puts("| group | case | rules | file depth below the rule | layers | filter | ns per open | spread | vs bare | added ns |");
	puts("|---|---|---:|---:|---:|---|---:|---:|---:|---:|");
	for (int i = 0; i < n; i++) {
		double m = median(&k[i], rounds), b = 0;
		for (int j = 0; j < n; j++)
			if (!strcmp(k[j].group, "bare") && k[j].depth == k[i].depth)
				b = median(&k[j], rounds);
		char filt[64] = "none";
		if (k[i].filt == F_ALLOW)
			snprintf(filt, sizeof filt, "1 insn");
		else if (k[i].filt == F_LIN_CACHED || k[i].filt == F_LIN_ARGS)
			snprintf(filt, sizeof filt, "%d compares%s", k[i].flen, k[i].filt == F_LIN_ARGS ? ", arg" : ", cached");
		else if (k[i].filt == F_DEFAULT)
			snprintf(filt, sizeof filt, "default, %zu insns", sc_embedded[0].len);
		double lo = k[i].ns[0], hi = k[i].ns[0];
		for (int r = 1; r < rounds; r++) {
			lo = k[i].ns[r] < lo ? k[i].ns[r] : lo;
			hi = k[i].ns[r] > hi ? k[i].ns[r] : hi;
		}
		printf("| %s | %s | %d | %d | %d%s | %s | %.0f | %.0f–%.0f | %.2f× | %+.0f |\n", k[i].group, k[i].label,
		       k[i].nrules, k[i].depth, k[i].nrules ? k[i].layers : 0, k[i].outer_root ? "+1" : "",
		       filt, m, lo, hi, b ? m / b : 0, m - b);
	}
	if (!have_default)
		puts("\n(the shim's default filter was not linked in: build with the Makefile's rule)");
	return 0;
}
