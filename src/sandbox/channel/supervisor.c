/*
 * Coevolve command channel: one long-lived supervisor per sandbox that runs commands on request and answers with
 * their output, exit status and duration over a length-framed binary protocol (see protocol.ts, which must agree
 * with the constants below). Built with the machine's own gcc as a static binary (channel/binary.ts), never
 * downloaded. It needs nothing from the image it runs in.
 *
 * Why a supervisor, and what it keeps (ARCHITECTURE.md, "The command channel"):
 *  - the host never parses command output: every byte a command writes is wrapped in a frame with a length, so no
 *    output can forge the end of a reply;
 *  - the supervisor is never the agent's uid on docker, is non-dumpable everywhere and, on bwrap, lives in a pid
 *    namespace the agent's commands cannot see (each command has its own), so it cannot be signalled or traced;
 *  - each process serves one channel whose role is fixed when it starts: an agent channel can only run commands
 *    as the agent;
 *  - a command's processes are all ended when it ends or times out: on bwrap its pid namespace dies with it; on
 *    docker and process a per-command subreaper owns every process it starts, setsid or not, and kills the rest.
 *
 * Modes: docker (root in a container; agent commands switch to the agent uid), bwrap (pid 1 of the sandbox's pid
 * namespace; each command in a new pid + mount namespace and a user namespace of its own), process (no isolation;
 * unit tests and the unsandboxed backend).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#define PROTOCOL_VERSION 1

/* Frame types: host -> supervisor */
#define F_RUN 1
#define F_STDIN 2
#define F_CANCEL 3
#define F_ENDALL 4
/* Frame types: supervisor -> host */
#define F_HELLO 0x80
#define F_OUT 0x81
#define F_ERR 0x82
#define F_EXIT 0x83
#define F_ACK 0x84
#define F_FATAL 0x85
#define F_SKIP 0x86
#define F_DONE 0x87

/* RUN flags */
#define RUN_STDIN 1u
#define RUN_SESSION 2u
#define RUN_VERIFIER 4u

/* EXIT flags */
#define X_TIMEDOUT 1u
#define X_CANCELLED 2u
#define X_FLOODED 4u
#define X_SPAWNFAIL 8u
#define X_SESSION 16u
#define X_RESTARTED 32u
#define X_KILLFAIL 64u

#define HEADER 12
#define MAX_FRAME (16u << 20)
#define MAX_CMDS 64
#define RING_MAX (4u << 20)
#define OUTBUF_HIGH (4u << 20)
#define SESSION_GRACE_MS 1500
#define KILL_GRACE_MS 3000

enum mode { M_DOCKER, M_BWRAP, M_PROCESS };
enum role { R_AGENT, R_ROOT };

static enum mode g_mode = M_PROCESS;
static enum role g_role = R_AGENT;
static uid_t g_agent_uid = 65534;
static uid_t g_outer_uid = 65534; /* bwrap: the uid of the sandbox's own user namespace that commands map to */
static const char *g_shell = "/bin/sh";
static const char *g_reaper = NULL; /* bwrap: coevolve-reaper (reaper.c), the init of each command's pid namespace */
static const char *g_covers[8];
static int g_ncovers = 0;
static char g_home[512] = "";
static int g_in = 0, g_out = 1;
static int g_sigfd = -1;

/* ------------------------------------------------------------------------------------------------------------ */
/* small helpers */

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Clock ticks since boot, the unit of field 22 (starttime) of /proc/PID/stat. */
static unsigned long long now_ticks(void) {
  struct timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  long hz = sysconf(_SC_CLK_TCK);
  return (unsigned long long)ts.tv_sec * (unsigned long long)hz + (unsigned long long)ts.tv_nsec * (unsigned long long)hz / 1000000000ull;
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) { static const char m[] = "coevolve-channel: out of memory\n"; (void)!write(2, m, sizeof m - 1); _exit(70); }
  return p;
}

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) { static const char m[] = "coevolve-channel: out of memory\n"; (void)!write(2, m, sizeof m - 1); _exit(70); }
  return p;
}

static void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

static void put32(uint8_t *p, uint32_t v) { p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24; }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }
static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32; }

/* A growable byte buffer with a read position. */
typedef struct { uint8_t *d; size_t len, cap, pos; } buf_t;

static void buf_add(buf_t *b, const void *p, size_t n) {
  if (b->pos > 0 && b->pos == b->len) b->pos = b->len = 0;
  if (b->len + n > b->cap) {
    if (b->pos > 0) { memmove(b->d, b->d + b->pos, b->len - b->pos); b->len -= b->pos; b->pos = 0; }
    if (b->len + n > b->cap) { b->cap = (b->len + n) * 2 + 4096; b->d = xrealloc(b->d, b->cap); }
  }
  memcpy(b->d + b->len, p, n);
  b->len += n;
}
static size_t buf_avail(const buf_t *b) { return b->len - b->pos; }
static void buf_free(buf_t *b) { free(b->d); memset(b, 0, sizeof *b); }

/* ------------------------------------------------------------------------------------------------------------ */
/* frames to the host */

static buf_t g_outbuf;

static void send_frame(uint8_t type, uint32_t id, const void *p1, size_t n1, const void *p2, size_t n2) {
  uint8_t h[HEADER];
  h[0] = type; h[1] = 0; h[2] = 0; h[3] = 0;
  put32(h + 4, id);
  put32(h + 8, (uint32_t)(n1 + n2));
  buf_add(&g_outbuf, h, HEADER);
  if (n1) buf_add(&g_outbuf, p1, n1);
  if (n2) buf_add(&g_outbuf, p2, n2);
}

static void send_text(uint8_t type, uint32_t id, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (n < 0) n = 0;
  if (n > (int)sizeof msg - 1) n = sizeof msg - 1;
  send_frame(type, id, msg, (size_t)n, NULL, 0);
}

/* Blocking flush, used only before exiting. */
static void flush_out_blocking(void) {
  while (buf_avail(&g_outbuf) > 0) {
    ssize_t w = write(g_out, g_outbuf.d + g_outbuf.pos, buf_avail(&g_outbuf));
    if (w > 0) { g_outbuf.pos += (size_t)w; continue; }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) { struct pollfd p = { g_out, POLLOUT, 0 }; poll(&p, 1, 1000); continue; }
    return;
  }
}

static void fatal(const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (n < 0) n = 0;
  if (n > (int)sizeof msg - 1) n = sizeof msg - 1;
  send_frame(F_FATAL, 0, msg, (size_t)n, NULL, 0);
  flush_out_blocking();
  dprintf(2, "coevolve-channel: %.*s\n", n, msg);
  _exit(70);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* process trees: every process of a command descends from its shim, which is a subreaper */

typedef struct { pid_t pid, ppid; char state; unsigned long long start; } proc_t;

static int g_is_shim = 0;
static void on_child_exit(pid_t pid, int status);

/*
 * Reaps exited children without blocking. In the supervisor every status goes to on_child_exit: a status reaped
 * and dropped here would be a command whose end is never seen (its reply would never come).
 */
static void reap_nohang(void) {
  int st;
  pid_t p;
  while ((p = waitpid(-1, &st, WNOHANG)) > 0) if (!g_is_shim) on_child_exit(p, st);
}

/* Reads every process's pid, parent, state and start time from /proc. Returns the count, or -1. */
static int read_procs(proc_t **out) {
  DIR *d = opendir("/proc");
  if (!d) return -1;
  size_t cap = 256, n = 0;
  proc_t *v = xmalloc(cap * sizeof *v);
  struct dirent *e;
  char path[300], text[1024];
  while ((e = readdir(d))) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t r = read(fd, text, sizeof text - 1);
    close(fd);
    if (r <= 0) continue;
    text[r] = 0;
    /* comm is in parentheses and may hold anything: the fields start after the last ')'. */
    char *close_paren = strrchr(text, ')');
    if (!close_paren) continue;
    char state = 0;
    long ppid = 0;
    unsigned long long start = 0;
    /* fields after comm: 3 state, 4 ppid, 5..21 skipped, 22 starttime */
    char *p = close_paren + 2;
    int field = 3;
    char *tok = strtok(p, " ");
    while (tok) {
      if (field == 3) state = tok[0];
      else if (field == 4) ppid = strtol(tok, NULL, 10);
      else if (field == 22) { start = strtoull(tok, NULL, 10); break; }
      field++;
      tok = strtok(NULL, " ");
    }
    if (n == cap) { cap *= 2; v = xrealloc(v, cap * sizeof *v); }
    v[n].pid = (pid_t)strtol(e->d_name, NULL, 10);
    v[n].ppid = (pid_t)ppid;
    v[n].state = state;
    v[n].start = start;
    n++;
  }
  closedir(d);
  *out = v;
  return (int)n;
}

static int descends_from(const proc_t *v, int n, int i, pid_t root) {
  for (int depth = 0; depth < 4096; depth++) {
    if (v[i].ppid == root) return 1;
    if (v[i].ppid <= 1) return 0;
    int next = -1;
    for (int j = 0; j < n; j++) if (v[j].pid == v[i].ppid) { next = j; break; }
    if (next < 0) return 0;
    i = next;
  }
  return 0;
}

/*
 * SIGKILLs every live descendant of `root` (not root itself) started at or after `since` ticks (0: all), again and
 * again until none is left, so forks racing the kill lose. `spare` (0: none) is left alive, with its older children.
 * Returns 0, or -1 when they could not all be ended.
 */
static int kill_tree(pid_t root, unsigned long long since, pid_t spare) {
  for (int pass = 0; pass < 2000; pass++) {
    proc_t *v = NULL;
    int n = read_procs(&v);
    if (n < 0) return -1;
    int live = 0;
    for (int i = 0; i < n; i++) {
      if (v[i].pid == root || v[i].pid == spare || v[i].state == 'Z' || v[i].state == 'X') continue;
      if (since && v[i].start < since) continue;
      if (!descends_from(v, n, i, root)) continue;
      kill(v[i].pid, SIGKILL);
      live++;
    }
    free(v);
    if (live == 0) return 0;
    /* Reap our own children among them, so the next pass does not see them as zombies forever. */
    reap_nohang();
    struct timespec ts = { 0, pass < 20 ? 200000 : 2000000 };
    nanosleep(&ts, NULL);
  }
  return -1;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* starting a command */

typedef struct {
  char **argv;
  char **envp;
  const char *cwd;
  int in_fd, out_fd, err_fd, err_report_fd, extra_fd; /* extra_fd: the session's status pipe, becomes fd 3 */
  int verifier;
  int new_session; /* setsid */
} spawn_t;

static void child_fail(int fd, const char *stage, int err) {
  char msg[600];
  int n = snprintf(msg, sizeof msg, "%s: %s", stage, strerror(err));
  if (fd >= 0 && n > 0) (void)!write(fd, msg, (size_t)n);
  _exit(err == ENOENT ? 127 : 126);
}

static int write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = write(fd, text, strlen(text));
  int e = errno;
  close(fd);
  errno = e;
  return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int capset_all(uint32_t keep_lo, uint32_t keep_hi) {
  struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct d[2];
  memset(d, 0, sizeof d);
  d[0].effective = d[0].permitted = keep_lo;
  d[1].effective = d[1].permitted = keep_hi;
  return (int)syscall(SYS_capset, &h, d);
}

static void drop_bounding_except(uint64_t keep) {
  for (int c = 0; c <= 63; c++) {
    if (keep & (1ull << c)) continue;
    if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1) prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
  }
}

/* execvpe with the command's own PATH. */
static void exec_command(char **argv, char **envp) {
  const char *file = argv[0];
  if (strchr(file, '/')) { execve(file, argv, envp); return; }
  const char *path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  for (char **e = envp; *e; e++) if (strncmp(*e, "PATH=", 5) == 0) { path = *e + 5; break; }
  int saved = ENOENT;
  char full[4096];
  for (const char *p = path;; ) {
    const char *colon = strchr(p, ':');
    size_t len = colon ? (size_t)(colon - p) : strlen(p);
    if (len + strlen(file) + 2 < sizeof full) {
      if (len == 0) snprintf(full, sizeof full, "./%s", file);
      else snprintf(full, sizeof full, "%.*s/%s", (int)len, p, file);
      execve(full, argv, envp);
      if (errno != ENOENT && errno != ENOTDIR) saved = errno;
    }
    if (!colon) break;
    p = colon + 1;
  }
  errno = saved;
}

/* In the command's own process: namespaces (bwrap), credentials, fds, then exec. Never returns. */
static void become_command(spawn_t *s) {
  int rep = s->err_report_fd;
  sigset_t all;
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, NULL);
  for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL);
  if (s->new_session) setsid();

  if (g_mode == M_BWRAP) {
    /* A user namespace of its own: uid 65534 (agent) or 0 (setup, verifier), both mapped to the sandbox's one uid,
     * with no capability left; the mounts it inherits are locked, so the covers cannot be lifted. */
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0); /* the map files below must be ours to write */
    if (unshare(CLONE_NEWUSER) != 0) child_fail(rep, "unshare(user)", errno);
    char map[64];
    unsigned inner = g_role == R_AGENT ? (unsigned)g_agent_uid : 0u;
    snprintf(map, sizeof map, "%u %u 1", inner, (unsigned)g_outer_uid);
    if (write_file("/proc/self/setgroups", "deny") != 0) child_fail(rep, "setgroups", errno);
    if (write_file("/proc/self/uid_map", map) != 0) child_fail(rep, "uid_map", errno);
    if (write_file("/proc/self/gid_map", map) != 0) child_fail(rep, "gid_map", errno);
    drop_bounding_except(0);
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    if (capset_all(0, 0) != 0) child_fail(rep, "capset", errno);
  } else if (g_mode == M_DOCKER) {
    if (g_role == R_AGENT) {
      gid_t g = (gid_t)g_agent_uid;
      if (setgroups(0, NULL) != 0) child_fail(rep, "setgroups", errno);
      if (setresgid(g, g, g) != 0) child_fail(rep, "setresgid", errno);
      if (setresuid(g_agent_uid, g_agent_uid, g_agent_uid) != 0) child_fail(rep, "setresuid", errno);
    }
    /* Root commands get the container's bounding set back at exec (as any root exec does), so nothing to drop. */
  }
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);

  /* fds: 0 1 2 from the pipes, 3 the session's status pipe when there is one, the error report kept close-on-exec
   * right after them; nothing else of the supervisor's (its channel, other commands' pipes) reaches the command. */
  int fds[3] = { s->in_fd, s->out_fd, s->err_fd };
  int hi = 100;
  for (int i = 0; i < 3; i++) { int d = fcntl(fds[i], F_DUPFD_CLOEXEC, hi); if (d < 0) child_fail(rep, "dup", errno); fds[i] = d; }
  int extra = -1;
  if (s->extra_fd >= 0) { extra = fcntl(s->extra_fd, F_DUPFD_CLOEXEC, hi); if (extra < 0) child_fail(rep, "dup", errno); }
  int r2 = fcntl(rep, F_DUPFD_CLOEXEC, hi);
  if (r2 < 0) child_fail(rep, "dup", errno);
  rep = r2;
  for (int i = 0; i < 3; i++) if (dup2(fds[i], i) < 0) child_fail(rep, "dup2", errno);
  if (extra >= 0 && dup2(extra, 3) < 0) child_fail(rep, "dup2", errno);
  int first = extra >= 0 ? 4 : 3;
  if (dup3(rep, first, O_CLOEXEC) < 0) child_fail(rep, "dup3", errno);
  rep = first;
  close_range((unsigned)first + 1, ~0u, 0);

  if (s->cwd && chdir(s->cwd) != 0) {
    char stage[600];
    snprintf(stage, sizeof stage, "cannot change to directory %s", s->cwd);
    child_fail(rep, stage, errno);
  }
  exec_command(s->argv, s->envp);
  char stage[600];
  snprintf(stage, sizeof stage, "cannot run %s", s->argv[0]);
  child_fail(rep, stage, errno);
}

/* The status of a command as one exit code: its own, or 128 + the signal that ended it. */
static int encode_status(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return 255;
}

/* bwrap only: the command's pid namespace gets its own /proc, with the same read-only covers bwrap makes. */
static void bwrap_ns_setup(spawn_t *s) {
  int rep = s->err_report_fd;
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) child_fail(rep, "mount private", errno);
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) child_fail(rep, "mount /proc", errno);
  static const char *const proc_covers[] = { "/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus" };
  for (size_t i = 0; i < sizeof proc_covers / sizeof *proc_covers; i++) {
    if (access(proc_covers[i], W_OK) != 0) continue;
    if (mount(proc_covers[i], proc_covers[i], NULL, MS_BIND | MS_REC, NULL) != 0) child_fail(rep, "cover /proc", errno);
    if (mount(NULL, proc_covers[i], NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) child_fail(rep, "cover /proc", errno);
  }
  /* The trust rule's I1: only verifier commands see /tests and /logs/verifier; everyone else sees empty folders. */
  if (!s->verifier) {
    for (int i = 0; i < g_ncovers; i++) {
      if (mount("tmpfs", g_covers[i], "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=755") != 0) child_fail(rep, "cover verifier folder", errno);
    }
  }
}

/*
 * docker and process: the shim, the command's parent and the subreaper of everything it starts. It waits for the
 * command, then ends whatever is left of its tree and exits with the command's status. (bwrap: init_main below.)
 */
static int shim_main(void *arg) {
  spawn_t *s = arg;
  g_is_shim = 1;
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  pid_t c = fork();
  if (c < 0) child_fail(s->err_report_fd, "fork", errno);
  if (c == 0) become_command(s);
  /* Our copies of the command's fds must not keep its pipes open. */
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0) { dup2(null, 0); dup2(null, 1); dup2(null, 2); }
  close_range(3, ~0u, 0);
  int status = 0, have = 0;
  for (;;) {
    int st;
    pid_t p = waitpid(-1, &st, 0);
    if (p < 0) {
      if (errno == EINTR) continue;
      break; /* ECHILD: nothing of the command is left */
    }
    if (p == c) {
      status = st;
      have = 1;
      /* Orphans of the command are our children now (we are their subreaper): none left means nothing is. */
      pid_t q;
      while ((q = waitpid(-1, &st, WNOHANG)) > 0) {}
      if (q < 0) break;
      if (kill_tree(getpid(), 0, 0) != 0) _exit(254);
    }
  }
  _exit(have ? encode_status(status) : 255);
}

/* bwrap: the command, started by the namespace's init-to-be while it still shares our memory. */
static int command_main(void *arg) {
  become_command(arg);
  return 127;
}

/*
 * bwrap: the first process of the command's new pid and mount namespaces. It shares the supervisor's memory (as
 * posix_spawn's child does; the supervisor is suspended until it execs), sets the namespace up, starts the command
 * the same way, then becomes the namespace's init by exec'ing the reaper (reaper.c; where it was not built, this
 * binary's --reap mode). So the command is never its namespace's pid 1, whose signals from inside the kernel ignores,
 * and no copy of the supervisor's page tables is made and torn down per command, as the forked shim of docker and
 * process does: on a paravirtualised guest, where every page-table write traps, that copy and its teardown were most
 * of the supervisor's CPU (`npm run bench:run -- --demo-cpu` against the forked shim: 0.822x the demo's CPU).
 */
static char g_init_stack[64 * 1024] __attribute__((aligned(16)));
static char g_command_stack[64 * 1024] __attribute__((aligned(16)));
static int init_main(void *arg) {
  spawn_t *s = arg;
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  bwrap_ns_setup(s);
  pid_t c = clone(command_main, g_command_stack + sizeof g_command_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, s);
  if (c < 0) child_fail(s->err_report_fd, "clone", errno);
  /* Nothing of ours may keep the command's pipes open once we are its init. */
  if (close_range(0, ~0u, CLOSE_RANGE_CLOEXEC) != 0) child_fail(s->err_report_fd, "close_range", errno);
  char pid[24];
  snprintf(pid, sizeof pid, "%d", (int)c);
  char *const envp[] = { NULL };
  if (g_reaper) {
    char *const argv[] = { "coevolve-reaper", pid, NULL };
    execve(g_reaper, argv, envp);
  }
  char *const argv[] = { "coevolve-channel", "--reap", pid, NULL };
  execve("/proc/self/exe", argv, envp);
  child_fail(s->err_report_fd, "cannot start the command's init", errno);
  return 126;
}

/* The command's init (--reap PID): pid 1 of its namespace, reaps whatever is reparented to it and leaves with the
 * command's status when the command ends; leaving ends the rest of the namespace. */
static int reap_main(int argc, char **argv) {
  if (argc != 1) return 255;
  pid_t cmd = (pid_t)atoi(argv[0]);
  for (;;) {
    int st;
    pid_t p = waitpid(-1, &st, 0);
    if (p < 0) {
      if (errno == EINTR) continue;
      _exit(255);
    }
    if (p == cmd) _exit(encode_status(st));
  }
}

/* Forks a shim that runs the command, or on bwrap clones the command's init-to-be into new pid and mount namespaces;
 * returns when the command and its init have both exec'd (or failed). */
static pid_t spawn_shim(spawn_t *s) {
  if (g_mode != M_BWRAP) {
    pid_t p = fork();
    if (p == 0) _exit(shim_main(s));
    return p;
  }
  pid_t p = clone(init_main, g_init_stack + sizeof g_init_stack, CLONE_VM | CLONE_VFORK | CLONE_NEWPID | CLONE_NEWNS | SIGCHLD, s);
  int e = errno;
  /* The command made our shared memory dumpable to write its uid map; nothing may trace us. */
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  errno = e;
  return p;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* commands */

typedef struct {
  uint64_t total, head_sent, cap, head_cap, tail_cap;
  int ring_mode;
  uint8_t *ring;
  size_t ring_len, ring_pos;
} stream_t;

typedef struct cmd {
  int used;
  uint32_t id;
  int session;
  pid_t pid;
  int fd_out, fd_err, fd_in, fd_rep;
  int out_eof, err_eof, reaped, wstatus;
  uint64_t started_us, deadline, flood, kill_deadline;
  unsigned long long since_ticks;
  int timed_out, cancelled, flooded, killed, kill_failed;
  stream_t st[2];
  buf_t in_pending;
  int in_eof_wanted;
  char rep_text[600];
  size_t rep_len;
  /* session only */
  int session_done, session_status;
  char note[600];
} cmd_t;

static cmd_t g_cmds[MAX_CMDS];

static void stream_init(stream_t *s, uint64_t cap) {
  memset(s, 0, sizeof *s);
  s->cap = cap;
  s->head_cap = (cap + 1) / 2;
  s->tail_cap = cap - s->head_cap;
  s->ring_mode = s->tail_cap <= RING_MAX;
  if (s->ring_mode && s->tail_cap > 0) s->ring = xmalloc(s->tail_cap);
}

static void stream_bytes(cmd_t *c, int which, const uint8_t *p, size_t n) {
  stream_t *s = &c->st[which];
  uint8_t type = which == 0 ? F_OUT : F_ERR;
  s->total += n;
  if (!s->ring_mode) { send_frame(type, c->id, p, n, NULL, 0); return; }
  if (s->head_sent < s->head_cap) {
    size_t take = (size_t)((s->head_cap - s->head_sent) < n ? (s->head_cap - s->head_sent) : n);
    send_frame(type, c->id, p, take, NULL, 0);
    s->head_sent += take;
    p += take;
    n -= take;
  }
  if (n == 0 || s->tail_cap == 0) return;
  /* The last tail_cap bytes are kept in a ring and sent when the command ends. */
  if (n >= s->tail_cap) { memcpy(s->ring, p + n - s->tail_cap, s->tail_cap); s->ring_len = s->tail_cap; s->ring_pos = 0; return; }
  for (size_t i = 0; i < n; ) {
    size_t at = (s->ring_pos + s->ring_len) % s->tail_cap;
    if (s->ring_len < s->tail_cap) {
      size_t room = s->tail_cap - at < s->tail_cap - s->ring_len ? s->tail_cap - at : s->tail_cap - s->ring_len;
      size_t take = n - i < room ? n - i : room;
      memcpy(s->ring + at, p + i, take);
      s->ring_len += take;
      i += take;
    } else {
      size_t room = s->tail_cap - s->ring_pos;
      size_t take = n - i < room ? n - i : room;
      memcpy(s->ring + s->ring_pos, p + i, take);
      s->ring_pos = (s->ring_pos + take) % s->tail_cap;
      i += take;
    }
  }
}

static void stream_finish(cmd_t *c, int which) {
  stream_t *s = &c->st[which];
  uint8_t type = which == 0 ? F_OUT : F_ERR;
  if (s->ring_mode) {
    uint64_t skipped = s->total - s->head_sent - s->ring_len;
    if (skipped > 0) { uint8_t b[9]; b[0] = (uint8_t)which; put64(b + 1, skipped); send_frame(F_SKIP, c->id, b, 9, NULL, 0); }
    size_t first = s->tail_cap - s->ring_pos < s->ring_len ? s->tail_cap - s->ring_pos : s->ring_len;
    if (first) send_frame(type, c->id, s->ring + s->ring_pos, first, NULL, 0);
    if (s->ring_len > first) send_frame(type, c->id, s->ring, s->ring_len - first, NULL, 0);
  }
  free(s->ring);
  s->ring = NULL;
}

static cmd_t *find_cmd(uint32_t id) {
  for (int i = 0; i < MAX_CMDS; i++) if (g_cmds[i].used && g_cmds[i].id == id) return &g_cmds[i];
  return NULL;
}

static void close_fd(int *fd) { if (*fd >= 0) { close(*fd); *fd = -1; } }

/* ------------------------------------------------------------------------------------------------------------ */
/* the session: one long-lived shell whose cwd, variables and background jobs persist between commands */

typedef struct {
  int alive;
  pid_t pid;              /* its shim */
  int ctl, out, err, st;  /* supervisor ends: commands in, stdout, stderr, status frames */
  buf_t status;
  cmd_t *cur;
  char nonce[33];
  buf_t snapshot;         /* "cd ...; export ..." restoring cwd and exports, from the last finished command */
  int has_snapshot;
  int restarts;
  buf_t idle_out, idle_err; /* output written between commands (background jobs) */
  int dead_status;
  pid_t shell;            /* the shell itself, once known (0: not looked up yet) */
} session_t;

static session_t g_sess = { .ctl = -1, .out = -1, .err = -1, .st = -1 };

static void random_hex(char *out, size_t bytes) {
  uint8_t r[32];
  if (bytes > sizeof r) bytes = sizeof r;
  ssize_t got = 0;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) { got = read(fd, r, bytes); close(fd); }
  if (got != (ssize_t)bytes) {
    unsigned long long x = now_us() ^ ((unsigned long long)getpid() << 32);
    for (size_t i = 0; i < bytes; i++) { x = x * 6364136223846793005ull + 1442695040888963407ull; r[i] = (uint8_t)(x >> 56); }
  }
  for (size_t i = 0; i < bytes; i++) sprintf(out + 2 * i, "%02x", r[i]);
  out[2 * bytes] = 0;
}

/* Single-quotes text for the shell: ' becomes '\''. */
static void add_quoted(buf_t *b, const char *p, size_t n) {
  buf_add(b, "'", 1);
  for (size_t i = 0; i < n; i++) {
    if (p[i] == '\'') buf_add(b, "'\\''", 4);
    else buf_add(b, p + i, 1);
  }
  buf_add(b, "'", 1);
}

/*
 * What the shell runs first: a function that reports the end of each command, with its status, cwd and exports,
 * on fd 3 (closed while the command itself runs). The agent can see and call it: anything the shell can do, the
 * agent's commands can do too. A forged report only ends the agent's own command early (its nonce is per command);
 * the supervisor still vouches for time-outs, truncation and what it killed.
 */
static const char *k_preamble =
  "__coevolve_done() { __coevolve_s=$?; printf '\\036CVDONE %s %s\\000%s\\000' \"$1\" \"$__coevolve_s\" \"$PWD\" >&3; "
  "export -p >&3; printf '\\000\\036CVEND %s\\036' \"$1\" >&3; }\n";

static int session_start(char **envp, const char *cwd) {
  int ctl[2], out[2], err[2], st[2], rep[2];
  if (pipe2(ctl, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(st, O_CLOEXEC) || pipe2(rep, O_CLOEXEC)) return -1;
  char *argv[] = { (char *)g_shell, "-s", NULL };
  spawn_t s = { argv, envp, cwd, ctl[0], out[1], err[1], rep[1], st[1], 0, 1 };
  pid_t p = spawn_shim(&s);
  close(ctl[0]); close(out[1]); close(err[1]); close(st[1]); close(rep[1]);
  close(rep[0]);
  if (p < 0) { close(ctl[1]); close(out[0]); close(err[0]); close(st[0]); return -1; }
  g_sess.alive = 1;
  g_sess.pid = p;
  g_sess.shell = 0;
  g_sess.ctl = ctl[1]; g_sess.out = out[0]; g_sess.err = err[0]; g_sess.st = st[0];
  set_nonblock(g_sess.out); set_nonblock(g_sess.err); set_nonblock(g_sess.st);
  /* The control pipe stays blocking: a command line is small and the shell reads it right away. */
  buf_t script = { 0 };
  buf_add(&script, k_preamble, strlen(k_preamble));
  if (g_sess.has_snapshot) buf_add(&script, g_sess.snapshot.d + g_sess.snapshot.pos, buf_avail(&g_sess.snapshot));
  ssize_t w = write(g_sess.ctl, script.d, script.len);
  buf_free(&script);
  return w < 0 ? -1 : 0;
}

static void session_close_fds(void) {
  close_fd(&g_sess.ctl); close_fd(&g_sess.out); close_fd(&g_sess.err); close_fd(&g_sess.st);
  buf_free(&g_sess.status);
}

/* Kills the whole session (shell, jobs, everything it started) and forgets it; the next command starts a new one. */
static void session_kill(void) {
  if (!g_sess.alive) return;
  if (g_mode == M_BWRAP) kill(g_sess.pid, SIGKILL);
  else { kill_tree(g_sess.pid, 0, 0); kill(g_sess.pid, SIGKILL); }
  waitpid(g_sess.pid, NULL, 0);
  g_sess.alive = 0;
  session_close_fds();
}

/*
 * The session's shell: the shim's first child, so the oldest of its direct children (orphaned jobs are reparented
 * to the shim later). A time-out spares it, so that the session's state survives the command it killed.
 */
static pid_t session_shell_pid(void) {
  if (g_sess.shell > 0 || !g_sess.alive) return g_sess.shell;
  proc_t *v = NULL;
  int n = read_procs(&v);
  int best = -1;
  for (int i = 0; i < n; i++) {
    if (v[i].ppid != g_sess.pid || v[i].state == 'Z') continue;
    if (best < 0 || v[i].start < v[best].start || (v[i].start == v[best].start && v[i].pid < v[best].pid)) best = i;
  }
  if (best >= 0) g_sess.shell = v[best].pid;
  free(v);
  return g_sess.shell;
}

/* Builds the restore script "cd -- '<pwd>' 2>/dev/null; <export -p output>" from a status report. */
static void session_keep_snapshot(const uint8_t *pwd, size_t pwd_len, const uint8_t *exports, size_t exp_len) {
  buf_free(&g_sess.snapshot);
  buf_add(&g_sess.snapshot, "cd -- ", 6);
  add_quoted(&g_sess.snapshot, (const char *)pwd, pwd_len);
  buf_add(&g_sess.snapshot, " 2>/dev/null\n", 13);
  if (exp_len > 0 && exp_len < (1u << 20)) {
    buf_add(&g_sess.snapshot, exports, exp_len);
    buf_add(&g_sess.snapshot, "\n", 1);
  }
  g_sess.has_snapshot = 1;
}

static const uint8_t *find_bytes(const uint8_t *hay, size_t n, const char *needle, size_t m) {
  if (m == 0 || n < m) return NULL;
  for (size_t i = 0; i + m <= n; i++) if (hay[i] == (uint8_t)needle[0] && memcmp(hay + i, needle, m) == 0) return hay + i;
  return NULL;
}

/* Looks for the current command's end report in what the shell wrote to fd 3; anything else there is dropped. */
static void session_scan_status(void) {
  cmd_t *c = g_sess.cur;
  buf_t *b = &g_sess.status;
  if (!c) { b->pos = b->len; return; }
  char start[64], end[64];
  int sl = snprintf(start, sizeof start, "\036CVDONE %s ", g_sess.nonce);
  int el = snprintf(end, sizeof end, "\036CVEND %s\036", g_sess.nonce);
  const uint8_t *data = b->d + b->pos;
  size_t n = buf_avail(b);
  const uint8_t *s = find_bytes(data, n, start, (size_t)sl);
  if (!s) {
    /* keep only a tail that could still begin a report */
    if (n > 64) b->pos += n - 64;
    if (buf_avail(b) > (8u << 20)) b->pos = b->len;
    return;
  }
  const uint8_t *rest = s + sl;
  size_t rest_n = n - (size_t)(rest - data);
  const uint8_t *e = find_bytes(rest, rest_n, end, (size_t)el);
  if (!e) {
    if (rest_n > (4u << 20)) b->pos = b->len; /* a report this large is not ours */
    return;
  }
  /* rest: "<status>\0<pwd>\0<exports>\0" then the end marker */
  const uint8_t *z1 = memchr(rest, 0, (size_t)(e - rest));
  const uint8_t *z2 = z1 ? memchr(z1 + 1, 0, (size_t)(e - z1 - 1)) : NULL;
  if (z1 && z2 && e > z2 && e[-1] == 0) {
    char num[16] = { 0 };
    size_t nl = (size_t)(z1 - rest) < sizeof num - 1 ? (size_t)(z1 - rest) : sizeof num - 1;
    memcpy(num, rest, nl);
    c->session_status = (int)strtol(num, NULL, 10);
    session_keep_snapshot(z1 + 1, (size_t)(z2 - z1 - 1), z2 + 1, (size_t)(e - 1 - (z2 + 1)));
    c->session_done = 1;
  }
  b->pos += (size_t)(e + el - data);
}

static void session_read_fd(int which) {
  int fd = which == 0 ? g_sess.out : which == 1 ? g_sess.err : g_sess.st;
  uint8_t tmp[65536];
  for (int i = 0; i < 16; i++) {
    ssize_t r = read(fd, tmp, sizeof tmp);
    if (r > 0) {
      if (which == 2) { buf_add(&g_sess.status, tmp, (size_t)r); session_scan_status(); }
      else if (g_sess.cur) {
        cmd_t *c = g_sess.cur;
        stream_bytes(c, which, tmp, (size_t)r);
        if (!c->flooded && c->st[0].total + c->st[1].total > c->flood) c->flooded = 1;
      } else {
        buf_t *idle = which == 0 ? &g_sess.idle_out : &g_sess.idle_err;
        if (buf_avail(idle) < (1u << 20)) buf_add(idle, tmp, (size_t)r);
      }
      continue;
    }
    if (r == 0) { /* the shell and all its jobs closed it: the session is ending */
      if (which == 0) close_fd(&g_sess.out);
      else if (which == 1) close_fd(&g_sess.err);
      else close_fd(&g_sess.st);
    }
    return;
  }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* requests */

typedef struct { const uint8_t *p; size_t n; int bad; } reader_t;

static uint32_t rd32(reader_t *r) { if (r->n < 4) { r->bad = 1; return 0; } uint32_t v = get32(r->p); r->p += 4; r->n -= 4; return v; }
static uint64_t rd64(reader_t *r) { if (r->n < 8) { r->bad = 1; return 0; } uint64_t v = get64(r->p); r->p += 8; r->n -= 8; return v; }
static char *rdstr(reader_t *r) {
  uint32_t len = rd32(r);
  if (r->bad || len > r->n) { r->bad = 1; return NULL; }
  if (memchr(r->p, 0, len)) { r->bad = 1; return NULL; }
  char *s = xmalloc(len + 1);
  memcpy(s, r->p, len);
  s[len] = 0;
  r->p += len;
  r->n -= len;
  return s;
}

static void free_strv(char **v) { if (!v) return; for (char **p = v; *p; p++) free(*p); free(v); }

/* The command's environment: the supervisor's own (minus HOME, set for the command's user) with the request's on top. */
static char **build_env(char **extra, int nextra) {
  extern char **environ;
  int n = 0;
  for (char **e = environ; *e; e++) n++;
  char **v = xmalloc(sizeof(char *) * (size_t)(n + nextra + 2));
  int k = 0;
  for (char **e = environ; *e; e++) {
    if (g_home[0] && strncmp(*e, "HOME=", 5) == 0) continue;
    const char *eq = strchr(*e, '=');
    size_t kl = eq ? (size_t)(eq - *e) : strlen(*e);
    int overridden = 0;
    for (int i = 0; i < nextra; i++) if (strncmp(extra[i], *e, kl) == 0 && extra[i][kl] == '=') { overridden = 1; break; }
    if (!overridden) v[k++] = strdup(*e);
  }
  if (g_home[0]) {
    int home_given = 0;
    for (int i = 0; i < nextra; i++) if (strncmp(extra[i], "HOME=", 5) == 0) home_given = 1;
    if (!home_given) { v[k] = xmalloc(strlen(g_home) + 6); sprintf(v[k], "HOME=%s", g_home); k++; }
  }
  for (int i = 0; i < nextra; i++) v[k++] = strdup(extra[i]);
  v[k] = NULL;
  return v;
}

static void send_exit(cmd_t *c, int code, uint32_t flags, const char *message) {
  uint8_t b[36];
  put32(b, (uint32_t)code);
  put32(b + 4, flags);
  put64(b + 8, now_us() - c->started_us);
  put64(b + 16, c->st[0].total);
  put64(b + 24, c->st[1].total);
  put32(b + 32, (uint32_t)g_sess.restarts);
  send_frame(F_EXIT, c->id, b, sizeof b, message, message ? strlen(message) : 0);
}

static cmd_t *new_cmd(uint32_t id) {
  for (int i = 0; i < MAX_CMDS; i++) if (!g_cmds[i].used) {
    cmd_t *c = &g_cmds[i];
    memset(c, 0, sizeof *c);
    c->used = 1;
    c->id = id;
    c->fd_out = c->fd_err = c->fd_in = c->fd_rep = -1;
    return c;
  }
  return NULL;
}

static void free_cmd(cmd_t *c) {
  close_fd(&c->fd_out); close_fd(&c->fd_err); close_fd(&c->fd_in); close_fd(&c->fd_rep);
  buf_free(&c->in_pending);
  free(c->st[0].ring); free(c->st[1].ring);
  c->used = 0;
}

static void start_session_command(cmd_t *c, const char *command, char **envp, const char *cwd) {
  c->session = 1;
  if (g_sess.cur) { c->note[0] = 0; send_exit(c, 126, X_SPAWNFAIL | X_SESSION, "the session is busy with another command"); free_cmd(c); return; }
  if (!g_sess.alive) {
    if (session_start(envp, cwd) != 0) { send_exit(c, 126, X_SPAWNFAIL | X_SESSION, "could not start the session's shell"); free_cmd(c); return; }
  }
  g_sess.cur = c;
  random_hex(g_sess.nonce, 16);
  buf_t line = { 0 };
  /* `command eval`: a syntax error in the text fails the command instead of ending the shell. */
  buf_add(&line, "command eval ", 13);
  add_quoted(&line, command, strlen(command));
  buf_add(&line, " </dev/null 3>&-; __coevolve_done ", 34);
  buf_add(&line, g_sess.nonce, strlen(g_sess.nonce));
  buf_add(&line, "\n", 1);
  c->since_ticks = now_ticks();
  /* Output of background jobs written since the last command comes first, as a terminal would show it. */
  if (buf_avail(&g_sess.idle_out)) { stream_bytes(c, 0, g_sess.idle_out.d + g_sess.idle_out.pos, buf_avail(&g_sess.idle_out)); buf_free(&g_sess.idle_out); }
  if (buf_avail(&g_sess.idle_err)) { stream_bytes(c, 1, g_sess.idle_err.d + g_sess.idle_err.pos, buf_avail(&g_sess.idle_err)); buf_free(&g_sess.idle_err); }
  size_t off = 0;
  while (off < line.len) {
    ssize_t w = write(g_sess.ctl, line.d + off, line.len - off);
    if (w > 0) { off += (size_t)w; continue; }
    if (w < 0 && errno == EINTR) continue;
    break; /* the shell is gone: handled when its shim is reaped */
  }
  buf_free(&line);
}

static void handle_run(uint32_t id, const uint8_t *p, size_t n) {
  reader_t r = { p, n, 0 };
  uint32_t flags = rd32(&r);
  uint32_t timeout_ms = rd32(&r);
  uint64_t cap = rd64(&r);
  uint64_t flood = rd64(&r);
  char *cwd = rdstr(&r);
  uint32_t argc = rd32(&r);
  char **argv = NULL, **extra = NULL;
  uint32_t envc = 0;
  if (!r.bad && argc > 0 && argc < 65536) {
    argv = xmalloc(sizeof(char *) * (argc + 1));
    memset(argv, 0, sizeof(char *) * (argc + 1));
    for (uint32_t i = 0; i < argc && !r.bad; i++) argv[i] = rdstr(&r);
    envc = rd32(&r);
    if (!r.bad && envc < 65536) {
      extra = xmalloc(sizeof(char *) * (envc + 1));
      memset(extra, 0, sizeof(char *) * (envc + 1));
      for (uint32_t i = 0; i < envc && !r.bad; i++) { extra[i] = rdstr(&r); if (extra[i] && !strchr(extra[i], '=')) r.bad = 1; }
    } else r.bad = 1;
  } else r.bad = 1;
  if (r.bad) { free(cwd); free_strv(argv); free_strv(extra); fatal("malformed RUN request %u", id); }
  if (find_cmd(id)) fatal("request id %u is already running", id);
  cmd_t *c = new_cmd(id);
  if (!c) { cmd_t tmp = { .id = id, .started_us = now_us() }; send_exit(&tmp, 126, X_SPAWNFAIL, "too many commands at once"); free(cwd); free_strv(argv); free_strv(extra); return; }
  c->started_us = now_us();
  c->deadline = now_ms() + timeout_ms;
  c->flood = flood;
  stream_init(&c->st[0], cap);
  stream_init(&c->st[1], cap);
  char **envp = build_env(extra, (int)envc);
  if ((flags & RUN_SESSION) && argc == 1 && !(flags & RUN_STDIN) && g_role == R_AGENT) {
    start_session_command(c, argv[0], envp, cwd[0] ? cwd : NULL);
    free(cwd); free_strv(argv); free_strv(extra); free_strv(envp);
    return;
  }
  int in[2], out[2], err[2], rep[2];
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(rep, O_CLOEXEC)) {
    send_exit(c, 126, X_SPAWNFAIL, "could not create pipes");
    free_cmd(c);
  } else {
    spawn_t s = { argv, envp, cwd[0] ? cwd : NULL, in[0], out[1], err[1], rep[1], -1, (flags & RUN_VERIFIER) != 0, 1 };
    pid_t pid = spawn_shim(&s);
    int e = errno;
    close(in[0]); close(out[1]); close(err[1]); close(rep[1]);
    c->fd_in = in[1]; c->fd_out = out[0]; c->fd_err = err[0]; c->fd_rep = rep[0];
    set_nonblock(c->fd_in); set_nonblock(c->fd_out); set_nonblock(c->fd_err);
    if (pid < 0) {
      char msg[256];
      snprintf(msg, sizeof msg, "could not start the command: %s", strerror(e));
      send_exit(c, 126, X_SPAWNFAIL, msg);
      free_cmd(c);
    } else {
      c->pid = pid;
      if (!(flags & RUN_STDIN)) close_fd(&c->fd_in);
    }
  }
  free(cwd); free_strv(argv); free_strv(extra); free_strv(envp);
}

static void handle_stdin(uint32_t id, const uint8_t *p, size_t n) {
  cmd_t *c = find_cmd(id);
  uint8_t ack[4];
  put32(ack, (uint32_t)n);
  if (!c || c->fd_in < 0) { if (n) send_frame(F_ACK, id, ack, 4, NULL, 0); return; }
  if (n == 0) { c->in_eof_wanted = 1; if (buf_avail(&c->in_pending) == 0) close_fd(&c->fd_in); return; }
  buf_add(&c->in_pending, p, n);
}

/* Ends a command's processes now: its pid namespace on bwrap, its tree elsewhere; the session keeps its shell. */
static void kill_command(cmd_t *c) {
  if (c->killed) return;
  c->killed = 1;
  c->kill_deadline = now_ms() + (c->session ? SESSION_GRACE_MS : KILL_GRACE_MS);
  if (c->session) {
    if (g_sess.alive && kill_tree(g_sess.pid, c->since_ticks, session_shell_pid()) != 0) c->kill_failed = 1;
    return;
  }
  if (g_mode == M_BWRAP) { kill(c->pid, SIGKILL); return; }
  if (kill_tree(c->pid, 0, 0) != 0) c->kill_failed = 1;
}

static void handle_endall(uint32_t id) {
  for (int i = 0; i < MAX_CMDS; i++) {
    cmd_t *c = &g_cmds[i];
    if (!c->used || c->session) continue;
    c->cancelled = 1;
    kill_command(c);
    /* On bwrap the shim is its pid namespace's init: once it is reaped, nothing of the command is left. */
    if (g_mode == M_BWRAP && !c->reaped && waitpid(c->pid, &c->wstatus, 0) == c->pid) c->reaped = 1;
  }
  int lost_session = g_sess.alive;
  if (g_sess.cur) { g_sess.cur->cancelled = 1; }
  session_kill();
  g_sess.has_snapshot = 0;
  int ok = 1;
  if (g_mode == M_DOCKER && g_role == R_AGENT && g_agent_uid != 0) {
    /* Anything of the agent's uid still alive (started outside this channel, e.g. by the exec fallback). A root
     * agent's uid is the container's own processes' too: the host ends its strays by what started when. */
    for (int pass = 0; pass < 300; pass++) {
      proc_t *v = NULL;
      int n = read_procs(&v);
      int live = 0;
      for (int i = 0; i < n; i++) {
        char path[64], line[256];
        if (v[i].pid == getpid() || v[i].state == 'Z') continue;
        snprintf(path, sizeof path, "/proc/%d/status", v[i].pid);
        FILE *f = fopen(path, "re");
        if (!f) continue;
        unsigned ruid = 0, euid = 0;
        while (fgets(line, sizeof line, f)) if (sscanf(line, "Uid: %u %u", &ruid, &euid) == 2) break;
        fclose(f);
        if (ruid == g_agent_uid || euid == g_agent_uid) { kill(v[i].pid, SIGKILL); live++; }
      }
      free(v);
      if (live == 0) break;
      reap_nohang();
      struct timespec ts = { 0, 1000000 };
      nanosleep(&ts, NULL);
      if (pass == 299) ok = 0;
    }
  }
  uint8_t b[8];
  put32(b, ok ? 0u : 1u);
  put32(b + 4, (uint32_t)lost_session);
  send_frame(F_DONE, id, b, 8, NULL, 0);
}

static void handle_frame(uint8_t type, uint32_t id, const uint8_t *p, size_t n) {
  switch (type) {
    case F_RUN: handle_run(id, p, n); break;
    case F_STDIN: handle_stdin(id, p, n); break;
    case F_CANCEL: { cmd_t *c = find_cmd(id); if (c) { c->cancelled = 1; kill_command(c); } break; }
    case F_ENDALL: handle_endall(id); break;
    default: fatal("unknown frame type %u", type);
  }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* completion */

static void finish_cmd(cmd_t *c) {
  char rep[600] = { 0 };
  if (c->fd_rep >= 0) {
    ssize_t r = read(c->fd_rep, rep, sizeof rep - 1);
    if (r > 0) rep[r] = 0;
  }
  stream_finish(c, 0);
  stream_finish(c, 1);
  uint32_t flags = 0;
  if (c->timed_out) flags |= X_TIMEDOUT;
  if (c->cancelled) flags |= X_CANCELLED;
  if (c->flooded) flags |= X_FLOODED;
  if (c->kill_failed) flags |= X_KILLFAIL;
  int code = encode_status(c->wstatus);
  if (code == 254 && WIFEXITED(c->wstatus)) flags |= X_KILLFAIL;
  if (rep[0]) flags |= X_SPAWNFAIL;
  send_exit(c, code, flags, rep[0] ? rep : NULL);
  free_cmd(c);
}

static void finish_session_cmd(cmd_t *c, int shell_ended) {
  stream_finish(c, 0);
  stream_finish(c, 1);
  uint32_t flags = X_SESSION;
  if (c->timed_out) flags |= X_TIMEDOUT;
  if (c->cancelled) flags |= X_CANCELLED;
  if (c->flooded) flags |= X_FLOODED;
  if (c->kill_failed) flags |= X_KILLFAIL;
  int code = c->session_done ? c->session_status : shell_ended ? g_sess.dead_status : 137;
  const char *note = NULL;
  char msg[600];
  if (!c->session_done) {
    flags |= X_RESTARTED;
    const char *why = shell_ended ? "the command ended the shell (exit, exec, or a signal)" : c->timed_out ? "the command timed out and the shell did not come back" : c->cancelled ? "the command was cancelled" : "the command flooded its output and the shell did not come back";
    snprintf(msg, sizeof msg, "%s; the next command starts a new shell %s", why,
             g_sess.has_snapshot ? "in the working directory and with the exported variables from before this command; shell variables that were not exported, functions, aliases and background jobs were lost" : "in the start directory; everything the session had set was lost");
    note = msg;
    g_sess.restarts++;
  }
  g_sess.cur = NULL;
  send_exit(c, code, flags, note);
  free_cmd(c);
}

static void drain_session(void) {
  if (g_sess.out >= 0) session_read_fd(0);
  if (g_sess.err >= 0) session_read_fd(1);
}

static void on_child_exit(pid_t pid, int status) {
  if (g_sess.alive && pid == g_sess.pid) {
    /* the shell is gone; everything it wrote is already in its pipes */
    g_sess.alive = 0;
    g_sess.dead_status = encode_status(status);
    if (g_sess.st >= 0) session_read_fd(2);
    drain_session();
    cmd_t *c = g_sess.cur;
    session_close_fds();
    buf_free(&g_sess.idle_out);
    buf_free(&g_sess.idle_err);
    if (c) finish_session_cmd(c, !c->killed || c->session_done);
    return;
  }
  for (int i = 0; i < MAX_CMDS; i++) {
    cmd_t *c = &g_cmds[i];
    if (c->used && !c->session && c->pid == pid) { c->reaped = 1; c->wstatus = status; return; }
  }
}

static void reap_children(void) {
  struct signalfd_siginfo si;
  while (read(g_sigfd, &si, sizeof si) == sizeof si) {}
  reap_nohang();
}

/* ------------------------------------------------------------------------------------------------------------ */
/* the loop */

static buf_t g_inbuf;

static void read_host(void) {
  uint8_t tmp[65536];
  ssize_t r = read(g_in, tmp, sizeof tmp);
  if (r == 0) {
    /* The host closed the channel: end everything and leave. */
    for (int i = 0; i < MAX_CMDS; i++) if (g_cmds[i].used && !g_cmds[i].session) kill_command(&g_cmds[i]);
    session_kill();
    _exit(0);
  }
  if (r < 0) { if (errno == EAGAIN || errno == EINTR) return; _exit(0); }
  buf_add(&g_inbuf, tmp, (size_t)r);
  while (buf_avail(&g_inbuf) >= HEADER) {
    const uint8_t *h = g_inbuf.d + g_inbuf.pos;
    uint32_t len = get32(h + 8);
    if (len > MAX_FRAME) fatal("frame of %u bytes is too large", len);
    if (buf_avail(&g_inbuf) < HEADER + (size_t)len) break;
    uint8_t type = h[0];
    uint32_t id = get32(h + 4);
    /* copy: handlers may add to the buffers */
    uint8_t *payload = xmalloc(len);
    memcpy(payload, h + HEADER, len);
    g_inbuf.pos += HEADER + len;
    handle_frame(type, id, payload, len);
    free(payload);
  }
}

static void read_cmd_fd(cmd_t *c, int which) {
  int *fd = which == 0 ? &c->fd_out : &c->fd_err;
  uint8_t tmp[65536];
  for (int i = 0; i < 16; i++) {
    ssize_t r = read(*fd, tmp, sizeof tmp);
    if (r > 0) {
      stream_bytes(c, which, tmp, (size_t)r);
      if (!c->flooded && c->st[0].total + c->st[1].total > c->flood) { c->flooded = 1; kill_command(c); }
      continue;
    }
    if (r == 0) { close_fd(fd); if (which == 0) c->out_eof = 1; else c->err_eof = 1; }
    return;
  }
}

static void write_cmd_stdin(cmd_t *c) {
  while (buf_avail(&c->in_pending) > 0) {
    ssize_t w = write(c->fd_in, c->in_pending.d + c->in_pending.pos, buf_avail(&c->in_pending));
    if (w > 0) { uint8_t ack[4]; put32(ack, (uint32_t)w); send_frame(F_ACK, c->id, ack, 4, NULL, 0); c->in_pending.pos += (size_t)w; continue; }
    if (w < 0 && errno == EAGAIN) return;
    /* The command stopped reading (EPIPE): drop the rest, but let the host go on sending. */
    uint8_t ack[4];
    put32(ack, (uint32_t)buf_avail(&c->in_pending));
    send_frame(F_ACK, c->id, ack, 4, NULL, 0);
    c->in_pending.pos = c->in_pending.len;
    close_fd(&c->fd_in);
    return;
  }
  if (c->in_eof_wanted) close_fd(&c->fd_in);
}

static void check_deadlines(void) {
  uint64_t t = now_ms();
  for (int i = 0; i < MAX_CMDS; i++) {
    cmd_t *c = &g_cmds[i];
    if (!c->used) continue;
    if (!c->killed && t >= c->deadline) { c->timed_out = 1; kill_command(c); }
    if (c->session && c->flooded && !c->killed) kill_command(c);
    if (c->killed && t >= c->kill_deadline) {
      if (c->session) {
        /* The shell did not report back after its new processes were killed: the session is lost. */
        if (g_sess.cur == c) { session_kill(); finish_session_cmd(c, 0); }
      } else {
        /* Still not ended: try once more; the host removes the sandbox if even this does not help. */
        if (g_mode == M_BWRAP) kill(c->pid, SIGKILL); else if (kill_tree(c->pid, 0, 0) != 0) c->kill_failed = 1;
        kill(c->pid, SIGKILL);
        c->kill_deadline = t + KILL_GRACE_MS;
      }
    }
  }
}

static int next_timeout(void) {
  uint64_t t = now_ms(), best = UINT64_MAX;
  for (int i = 0; i < MAX_CMDS; i++) {
    cmd_t *c = &g_cmds[i];
    if (!c->used) continue;
    uint64_t d = c->killed ? c->kill_deadline : c->deadline;
    if (d < best) best = d;
  }
  if (best == UINT64_MAX) return -1;
  return best <= t ? 0 : (int)(best - t > 60000 ? 60000 : best - t);
}

static void loop(void) {
  struct pollfd pf[4 + 3 * MAX_CMDS + 4];
  cmd_t *owner[4 + 3 * MAX_CMDS + 4];
  int kind[4 + 3 * MAX_CMDS + 4];
  for (;;) {
    int n = 0;
    int backed_up = buf_avail(&g_outbuf) > OUTBUF_HIGH;
    pf[n] = (struct pollfd){ g_in, POLLIN, 0 }; kind[n] = 0; owner[n++] = NULL;
    pf[n] = (struct pollfd){ g_sigfd, POLLIN, 0 }; kind[n] = 1; owner[n++] = NULL;
    if (buf_avail(&g_outbuf) > 0) { pf[n] = (struct pollfd){ g_out, POLLOUT, 0 }; kind[n] = 2; owner[n++] = NULL; }
    if (g_sess.alive && !backed_up) {
      if (g_sess.out >= 0) { pf[n] = (struct pollfd){ g_sess.out, POLLIN, 0 }; kind[n] = 10; owner[n++] = NULL; }
      if (g_sess.err >= 0) { pf[n] = (struct pollfd){ g_sess.err, POLLIN, 0 }; kind[n] = 11; owner[n++] = NULL; }
    }
    if (g_sess.alive && g_sess.st >= 0) { pf[n] = (struct pollfd){ g_sess.st, POLLIN, 0 }; kind[n] = 12; owner[n++] = NULL; }
    for (int i = 0; i < MAX_CMDS; i++) {
      cmd_t *c = &g_cmds[i];
      if (!c->used || c->session) continue;
      if (c->fd_out >= 0 && !backed_up) { pf[n] = (struct pollfd){ c->fd_out, POLLIN, 0 }; kind[n] = 3; owner[n++] = c; }
      if (c->fd_err >= 0 && !backed_up) { pf[n] = (struct pollfd){ c->fd_err, POLLIN, 0 }; kind[n] = 4; owner[n++] = c; }
      if (c->fd_in >= 0 && buf_avail(&c->in_pending) > 0) { pf[n] = (struct pollfd){ c->fd_in, POLLOUT, 0 }; kind[n] = 5; owner[n++] = c; }
    }
    int r = poll(pf, (nfds_t)n, next_timeout());
    if (r < 0 && errno != EINTR) fatal("poll: %s", strerror(errno));
    for (int i = 0; i < n && r > 0; i++) {
      if (!pf[i].revents) continue;
      switch (kind[i]) {
        case 0: read_host(); break;
        case 1: reap_children(); break;
        case 2: {
          ssize_t w = write(g_out, g_outbuf.d + g_outbuf.pos, buf_avail(&g_outbuf));
          if (w > 0) g_outbuf.pos += (size_t)w;
          else if (w < 0 && errno != EAGAIN && errno != EINTR) _exit(0); /* the host is gone */
          break;
        }
        case 3: if (owner[i]->used) read_cmd_fd(owner[i], 0); break;
        case 4: if (owner[i]->used) read_cmd_fd(owner[i], 1); break;
        case 5: if (owner[i]->used && owner[i]->fd_in >= 0) write_cmd_stdin(owner[i]); break;
        case 10: if (g_sess.out >= 0) session_read_fd(0); break;
        case 11: if (g_sess.err >= 0) session_read_fd(1); break;
        case 12: if (g_sess.st >= 0) session_read_fd(2); break;
      }
    }
    /* a session command is done when its report came and its output is read */
    if (g_sess.cur && g_sess.cur->session_done) { drain_session(); finish_session_cmd(g_sess.cur, 0); }
    if (g_sess.cur && g_sess.cur->flooded && !g_sess.cur->killed) kill_command(g_sess.cur);
    for (int i = 0; i < MAX_CMDS; i++) {
      cmd_t *c = &g_cmds[i];
      if (c->used && !c->session && c->reaped && c->out_eof && c->err_eof) finish_cmd(c);
    }
    check_deadlines();
  }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* setup */

/* HOME of a uid from the image's /etc/passwd, as `docker exec --user` sets it; "/" when it has none. */
static void home_of(uid_t uid, char *out, size_t size) {
  snprintf(out, size, "/");
  FILE *f = fopen("/etc/passwd", "re");
  if (!f) return;
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    char *fields[7] = { 0 };
    int k = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, ":\n", &save); t && k < 7; t = strtok_r(NULL, ":\n", &save)) fields[k++] = t;
    if (k >= 6 && (uid_t)strtoul(fields[2], NULL, 10) == uid) { snprintf(out, size, "%s", fields[5]); break; }
  }
  fclose(f);
}

static void usage(void) {
  dprintf(2, "usage: coevolve-channel --mode docker|bwrap|process --role agent|root [--in FD --out FD] [--agent-uid N] [--outer-uid N] [--cover PATH]... [--shell PATH] [--reaper PATH] [--close-fd N]\n");
  _exit(64);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* scrub: a container back to the state it was created in, before it serves another rollout (docker/warmPool.ts) */

#include <ftw.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/xattr.h>

static uint64_t g_fp = 1469598103934665603ull;
static void fp_add(const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) { g_fp ^= b[i]; g_fp *= 1099511628211ull; }
}

/* Everything but pid 1, the container's main process (init's oldest child) and our own ancestry, until none is left. */
static int scrub_processes(void) {
  for (int pass = 0; pass < 2000; pass++) {
    proc_t *v = NULL;
    int n = read_procs(&v);
    if (n < 0) return -1;
    pid_t keep[64];
    int nk = 0;
    keep[nk++] = 1;
    for (pid_t p = getpid(); p > 1 && nk < 63;) {
      keep[nk++] = p;
      pid_t up = 0;
      for (int i = 0; i < n; i++) if (v[i].pid == p) { up = v[i].ppid; break; }
      p = up;
    }
    int main_i = -1;
    for (int i = 0; i < n; i++) {
      int ours = 0;
      for (int k = 0; k < nk; k++) if (keep[k] == v[i].pid) ours = 1;
      if (!ours && v[i].ppid == 1 && v[i].state != 'Z' && (main_i < 0 || v[i].start < v[main_i].start)) main_i = i;
    }
    int live = 0;
    for (int i = 0; i < n; i++) {
      if (i == main_i || v[i].state == 'Z' || v[i].state == 'X') continue;
      int ours = 0;
      for (int k = 0; k < nk; k++) if (keep[k] == v[i].pid) ours = 1;
      if (ours) continue;
      kill(v[i].pid, SIGKILL);
      live++;
    }
    free(v);
    if (live == 0) return 0;
    reap_nohang();
    struct timespec ts = { 0, pass < 20 ? 200000 : 2000000 };
    nanosleep(&ts, NULL);
  }
  return -1;
}

/* SysV objects live as long as the container's IPC namespace: each is removed as its owner (root lacks CAP_IPC_OWNER). */
static int scrub_ipc_file(const char *path, int kind) {
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  char line[1024];
  int left = 0;
  if (!fgets(line, sizeof line, f)) { fclose(f); return 0; }
  while (fgets(line, sizeof line, f)) {
    long long c[12] = { 0 };
    int k = sscanf(line, "%lld %lld %llo %lld %lld %lld %lld %lld %lld %lld %lld", &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7], &c[8], &c[9], &c[10]);
    if (k < 8) { left++; continue; }
    /* uid column: shm 8th (index 7), msg 8th (index 7), sem 5th (index 4) */
    int id = (int)c[1];
    uid_t uid = (uid_t)(kind == 2 ? c[4] : c[7]);
    gid_t gid = (gid_t)(kind == 2 ? c[5] : c[8]);
    pid_t p = fork();
    if (p == 0) {
      if (setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0) _exit(1);
      int r = kind == 0 ? shmctl(id, IPC_RMID, NULL) : kind == 1 ? msgctl(id, IPC_RMID, NULL) : semctl(id, 0, IPC_RMID);
      _exit(r == 0 ? 0 : 1);
    }
    int st = 0;
    if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0) left++;
  }
  fclose(f);
  return left;
}

static int count_ipc(const char *path) {
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  char line[1024];
  int n = -1;
  while (fgets(line, sizeof line, f)) n++;
  fclose(f);
  return n < 0 ? 0 : n;
}

static const char *g_keep_name = NULL;
static int g_rm_failed = 0;
static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  if (ftw->level == 0) return 0;
  if (ftw->level == 1 && g_keep_name && !strcmp(path + ftw->base, g_keep_name)) return 0;
  if ((flag == FTW_DP ? rmdir(path) : unlink(path)) != 0 && errno != ENOENT) g_rm_failed++;
  return 0;
}

/* PATH:MODE:UID:GID[:KEEP]: empties PATH (never following a link, never crossing a mount) but KEEP, and resets its own inode. */
static int scrub_dir(const char *spec) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", spec);
  char *f[5] = { 0 };
  int k = 0;
  for (char *save = NULL, *t = strtok_r(buf, ":", &save); t && k < 5; t = strtok_r(NULL, ":", &save)) f[k++] = t;
  if (k < 4) { dprintf(2, "scrub: bad folder spec %s\n", spec); return -1; }
  const char *path = f[0];
  mode_t mode = (mode_t)strtoul(f[1], NULL, 8);
  uid_t uid = (uid_t)strtoul(f[2], NULL, 10);
  gid_t gid = (gid_t)strtoul(f[3], NULL, 10);
  g_keep_name = f[4];
  g_rm_failed = 0;
  struct stat st;
  if (lstat(path, &st) != 0) return 0; /* a folder this image does not have */
  if (!S_ISDIR(st.st_mode)) { dprintf(2, "scrub: %s is not a folder\n", path); return -1; }
  if (nftw(path, rm_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0) { dprintf(2, "scrub: cannot walk %s: %s\n", path, strerror(errno)); return -1; }
  if (g_rm_failed) { dprintf(2, "scrub: %d entries of %s could not be removed\n", g_rm_failed, path); return -1; }
  /* The folder itself: no extended attributes or ACLs, the owner and mode it was created with, a fresh time. */
  char names[65536];
  ssize_t len = llistxattr(path, names, sizeof names);
  for (ssize_t i = 0; len > 0 && i < len; i += (ssize_t)strlen(names + i) + 1)
    if (lremovexattr(path, names + i) != 0 && errno != ENODATA) { dprintf(2, "scrub: cannot remove attribute %s of %s: %s\n", names + i, path, strerror(errno)); return -1; }
  if (len < 0 && errno != ENOTSUP) { dprintf(2, "scrub: cannot list the attributes of %s\n", path); return -1; }
  if (lchown(path, uid, gid) != 0 || chmod(path, mode) != 0) { dprintf(2, "scrub: cannot reset %s: %s\n", path, strerror(errno)); return -1; }
  struct timespec now[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
  utimensat(AT_FDCWD, path, now, AT_SYMLINK_NOFOLLOW);
  DIR *d = opendir(path);
  if (!d) return -1;
  int left = 0;
  for (struct dirent *e; (e = readdir(d));) if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !(g_keep_name && !strcmp(e->d_name, g_keep_name))) left++;
  closedir(d);
  if (left) { dprintf(2, "scrub: %s still holds %d entries\n", path, left); return -1; }
  return 0;
}

/* What no scrub resets but could have been changed by a root command: /dev's entries (types, owners, modes, links). */
static void fingerprint_dev(void) {
  struct dirent **list = NULL;
  int n = scandir("/dev", &list, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    char path[512], target[512] = "";
    snprintf(path, sizeof path, "/dev/%s", list[i]->d_name);
    struct stat st;
    if (lstat(path, &st) == 0) {
      if (S_ISLNK(st.st_mode)) { ssize_t r = readlink(path, target, sizeof target - 1); if (r > 0) target[r] = 0; }
      char row[1200];
      int len = snprintf(row, sizeof row, "%s %o %u %u %llu %s\n", list[i]->d_name, (unsigned)st.st_mode, (unsigned)st.st_uid, (unsigned)st.st_gid,
                         (unsigned long long)(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? st.st_rdev : 0), target);
      fp_add(row, (size_t)len);
    }
    free(list[i]);
  }
  free(list);
  FILE *m = fopen("/proc/self/mounts", "re");
  char line[4096];
  while (m && fgets(line, sizeof line, m)) fp_add(line, strlen(line));
  if (m) fclose(m);
}

/*
 * --scrub [--fingerprint-only] [--wipe SPEC]...: every process but the container's own ended, SysV IPC objects
 * removed, each SPEC folder emptied and reset; prints the fingerprint of what it does not reset (/dev, the mounts),
 * which the host compares with the container's first. --fingerprint-only changes nothing (the first one).
 */
static int scrub_main(int argc, char **argv) {
  int failed = 0;
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  if (argc > 0 && !strcmp(argv[0], "--fingerprint-only")) {
    fingerprint_dev();
    printf("fingerprint %016llx\n", (unsigned long long)g_fp);
    return 0;
  }
  if (scrub_processes() != 0) { dprintf(2, "scrub: processes kept forking\n"); failed = 1; }
  const char *ipc[3] = { "/proc/sysvipc/shm", "/proc/sysvipc/msg", "/proc/sysvipc/sem" };
  for (int i = 0; i < 3; i++) {
    scrub_ipc_file(ipc[i], i);
    if (count_ipc(ipc[i]) > 0) { dprintf(2, "scrub: %s still lists objects\n", ipc[i]); failed = 1; }
  }
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--wipe") && i + 1 < argc) { if (scrub_dir(argv[++i]) != 0) failed = 1; }
    else { dprintf(2, "scrub: unknown argument %s\n", argv[i]); return 64; }
  }
  fingerprint_dev();
  if (failed) return 1;
  printf("fingerprint %016llx\n", (unsigned long long)g_fp);
  return 0;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* launch: the host side of a bwrap sandbox's start */

/*
 * --launch [--rlimit fsize|nproc|as=N]... [--join CGROUP_PROCS_FILE]... -- PROGRAM ARGS...: sets each rlimit (soft
 * and hard, as prlimit does), moves itself into each cgroup, then execs PROGRAM (bwrap) found on PATH. One static
 * exec instead of prlimit and a shell (two dynamically linked execs), which is a measurable share of a sandbox's
 * start on machines where process creation is expensive. Exits 127 with a message when anything fails.
 */
static int launch_main(int argc, char **argv) {
  int i = 0;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--")) { i++; break; }
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) { dprintf(2, "coevolve-channel --launch: %s needs a value\n", a); return 127; }
    if (!strcmp(a, "--rlimit")) {
      const char *eq = strchr(v, '=');
      int res = -1;
      if (eq && !strncmp(v, "fsize=", 6)) res = RLIMIT_FSIZE;
      else if (eq && !strncmp(v, "nproc=", 6)) res = RLIMIT_NPROC;
      else if (eq && !strncmp(v, "as=", 3)) res = RLIMIT_AS;
      char *end = NULL;
      unsigned long long n = eq ? strtoull(eq + 1, &end, 10) : 0;
      if (res < 0 || !end || *end || end == eq + 1) { dprintf(2, "coevolve-channel --launch: bad rlimit %s\n", v); return 127; }
      struct rlimit rl = { (rlim_t)n, (rlim_t)n };
      if (setrlimit(res, &rl) != 0) { dprintf(2, "coevolve-channel --launch: setrlimit %s: %s\n", v, strerror(errno)); return 127; }
    } else if (!strcmp(a, "--join")) {
      char pid[32];
      snprintf(pid, sizeof pid, "%d\n", (int)getpid());
      if (write_file(v, pid) != 0) { dprintf(2, "coevolve-channel --launch: cannot join %s: %s\n", v, strerror(errno)); return 127; }
    } else { dprintf(2, "coevolve-channel --launch: unknown argument %s\n", a); return 127; }
    i++;
  }
  if (i >= argc) { dprintf(2, "coevolve-channel --launch: no program after --\n"); return 127; }
  execvp(argv[i], argv + i);
  dprintf(2, "coevolve-channel --launch: cannot run %s: %s\n", argv[i], strerror(errno));
  return 127;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* spawner: starts bwrap sandboxes for the host process, so the host never forks itself */

#include <sys/socket.h>
#include <sys/un.h>

/*
 * --spawner: a long-lived helper of the host (bwrap/spawner.ts). Node's spawn forks the whole host process, whose
 * page tables are those of a large JIT-compiled heap, twice per rollout; on the development VM that was about a tenth
 * of a run's CPU. This small static process forks instead. Requests on fd 0, replies on fd 1, each a frame
 * [u32 payload length][u32 id][u8 op][payload]:
 *   host -> spawner   'S' start: NUL-terminated strings: socket path, token, cwd, PATH, then --launch's arguments
 *                     'K' kill: SIGKILL to the process started by request `id` (nothing if it already ended)
 *   spawner -> host   'P' started: i32 pid, u8 1 when it connected | 'F' could not fork: message | 'X' ended: i32 status (128 + signal)
 * The started process connects to the host's socket three times (token + 'a' becomes fds 0 and 1, 'r' fds 3 and 4,
 * 'e' fd 2), keeps nothing else of ours, then does what --launch does. EOF on fd 0, or the host's death, ends every
 * process it started, then itself.
 */
#define SPAWN_MAX_FRAME (1u << 20)
#define SPAWN_TOKEN 32

typedef struct { uint32_t id; pid_t pid; } spawned_t;
static spawned_t *g_spawned;
static size_t g_nspawned, g_capspawned;
static pid_t g_spawner_pid;
static int g_ready_fd = -1;

static int read_full(int fd, uint8_t *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    got += (size_t)r;
  }
  return 0;
}

static void write_full(int fd, const uint8_t *buf, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, buf, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) _exit(0); /* the host is gone: nothing left to serve */
    buf += w;
    n -= (size_t)w;
  }
}

static void spawner_reply(uint32_t id, uint8_t op, const void *payload, uint32_t len) {
  uint8_t head[9];
  put32(head, len);
  put32(head + 4, id);
  head[8] = op;
  uint8_t *frame = xmalloc(9 + len);
  memcpy(frame, head, 9);
  if (len) memcpy(frame + 9, payload, len);
  write_full(1, frame, 9 + len);
  free(frame);
}

/* One connection to the host's socket, announced by the request's token and the fd group it becomes. */
static int connect_host(const char *path, const char *token, char tag) {
  struct sockaddr_un a;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  if (strlen(path) >= sizeof a.sun_path) { errno = ENAMETOOLONG; return -1; }
  strcpy(a.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { int e = errno; close(fd); errno = e; return -1; }
  uint8_t hello[SPAWN_TOKEN + 1];
  memcpy(hello, token, SPAWN_TOKEN);
  hello[SPAWN_TOKEN] = (uint8_t)tag;
  if (write(fd, hello, sizeof hello) != (ssize_t)sizeof hello) { int e = errno; close(fd); errno = e; return -1; }
  return fd;
}

/* In the started process: fds from the host's socket, then --launch (rlimits, cgroups, exec bwrap). Never returns. */
static void spawned_main(char **s, int n) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  signal(SIGPIPE, SIG_DFL);
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (getppid() != g_spawner_pid) _exit(127);
  static const char tags[3] = { 'a', 'r', 'e' };
  int fds[3];
  for (int i = 0; i < 3; i++) {
    int c = connect_host(s[0], s[1], tags[i]);
    if (c < 0) { dprintf(2, "coevolve-channel --spawner: cannot connect to the host: %s\n", strerror(errno)); _exit(127); }
    fds[i] = fcntl(c, F_DUPFD_CLOEXEC, 100);
    if (fds[i] < 0) _exit(127);
    close(c);
  }
  (void)!write(g_ready_fd, "c", 1);
  if (dup2(fds[0], 0) < 0 || dup2(fds[0], 1) < 0 || dup2(fds[2], 2) < 0 || dup2(fds[1], 3) < 0 || dup2(fds[1], 4) < 0) _exit(127);
  close_range(5, ~0u, 0);
  if (chdir(s[2]) != 0) { dprintf(2, "coevolve-channel --spawner: cannot change to %s: %s\n", s[2], strerror(errno)); _exit(127); }
  clearenv();
  setenv("PATH", s[3], 1);
  _exit(launch_main(n - 4, s + 4));
}

static void spawner_start(uint32_t id, uint8_t *payload, uint32_t len) {
  /* Split the payload into its NUL-terminated strings, NULL-terminated for exec. */
  int n = 0;
  for (uint32_t i = 0; i < len; i++) if (payload[i] == 0) n++;
  if (len == 0 || payload[len - 1] != 0 || n < 5) { static const char m[] = "malformed start request"; spawner_reply(id, 'F', m, sizeof m - 1); return; }
  char **s = xmalloc(sizeof(char *) * (size_t)(n + 1));
  int k = 0;
  for (uint32_t i = 0; i < len; i++) if (i == 0 || payload[i - 1] == 0) s[k++] = (char *)payload + i;
  s[n] = NULL;
  if (strlen(s[1]) != SPAWN_TOKEN) { free(s); static const char m[] = "bad token"; spawner_reply(id, 'F', m, sizeof m - 1); return; }
  /* The started process says on this pipe when its three connections are made (EOF: it died first), so the host
   * knows how many to wait for before it takes the process's end as final. */
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) { free(s); char m[200]; int l = snprintf(m, sizeof m, "pipe: %s", strerror(errno)); spawner_reply(id, 'F', m, (uint32_t)l); return; }
  g_ready_fd = ready[1];
  pid_t p = fork();
  if (p == 0) { close(ready[0]); spawned_main(s, n); }
  free(s);
  close(ready[1]);
  uint8_t connected = 0;
  if (p > 0) while (read(ready[0], &connected, 1) < 0 && errno == EINTR) {}
  close(ready[0]);
  if (p < 0) { char m[200]; int l = snprintf(m, sizeof m, "fork: %s", strerror(errno)); spawner_reply(id, 'F', m, (uint32_t)l); return; }
  if (g_nspawned == g_capspawned) { g_capspawned = g_capspawned ? g_capspawned * 2 : 64; g_spawned = xrealloc(g_spawned, g_capspawned * sizeof *g_spawned); }
  g_spawned[g_nspawned++] = (spawned_t){ id, p };
  uint8_t reply[5];
  put32(reply, (uint32_t)p);
  reply[4] = connected == 'c';
  spawner_reply(id, 'P', reply, 5);
}

static void spawner_reap(void) {
  int st;
  pid_t p;
  while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
    for (size_t i = 0; i < g_nspawned; i++) {
      if (g_spawned[i].pid != p) continue;
      uint8_t code[4];
      put32(code, (uint32_t)encode_status(st));
      spawner_reply(g_spawned[i].id, 'X', code, 4);
      g_spawned[i] = g_spawned[--g_nspawned];
      break;
    }
  }
}

static int spawner_main(void) {
  g_spawner_pid = getpid();
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (getppid() == 1) return 0; /* the host died before we could tie ourselves to it */
  signal(SIGPIPE, SIG_IGN);
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD);
  sigprocmask(SIG_BLOCK, &mask, NULL);
  int sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
  if (sigfd < 0) { dprintf(2, "coevolve-channel --spawner: signalfd: %s\n", strerror(errno)); return 70; }
  fcntl(0, F_SETFD, FD_CLOEXEC);
  fcntl(1, F_SETFD, FD_CLOEXEC);
  for (;;) {
    struct pollfd p[2] = { { 0, POLLIN, 0 }, { sigfd, POLLIN, 0 } };
    if (poll(p, 2, -1) < 0) { if (errno == EINTR) continue; break; }
    if (p[1].revents) {
      struct signalfd_siginfo si;
      while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si) {}
      spawner_reap();
    }
    if (!p[0].revents) continue;
    uint8_t head[9];
    if (read_full(0, head, 9) != 0) break;
    uint32_t len = get32(head), id = get32(head + 4);
    if (len > SPAWN_MAX_FRAME) break;
    uint8_t *payload = xmalloc(len + 1);
    if (read_full(0, payload, len) != 0) { free(payload); break; }
    if (head[8] == 'S') spawner_start(id, payload, len);
    else if (head[8] == 'K') {
      for (size_t i = 0; i < g_nspawned; i++) if (g_spawned[i].id == id) kill(g_spawned[i].pid, SIGKILL);
    }
    free(payload);
  }
  for (size_t i = 0; i < g_nspawned; i++) kill(g_spawned[i].pid, SIGKILL);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--launch")) return launch_main(argc - 2, argv + 2);
  if (argc > 1 && !strcmp(argv[1], "--spawner")) return spawner_main();
  if (argc > 1 && !strcmp(argv[1], "--scrub")) return scrub_main(argc - 2, argv + 2);
  if (argc > 1 && !strcmp(argv[1], "--reap")) return reap_main(argc - 2, argv + 2);
  int close_fd_arg = -1, root_in = -1, root_out = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--version")) { printf("coevolve-channel %d\n", PROTOCOL_VERSION); return 0; }
    if (!v) usage();
    if (!strcmp(a, "--mode")) g_mode = !strcmp(v, "docker") ? M_DOCKER : !strcmp(v, "bwrap") ? M_BWRAP : !strcmp(v, "process") ? M_PROCESS : (usage(), M_PROCESS);
    else if (!strcmp(a, "--role")) g_role = !strcmp(v, "agent") ? R_AGENT : !strcmp(v, "root") ? R_ROOT : (usage(), R_AGENT);
    else if (!strcmp(a, "--in")) g_in = atoi(v);
    else if (!strcmp(a, "--out")) g_out = atoi(v);
    else if (!strcmp(a, "--agent-uid")) g_agent_uid = (uid_t)atoi(v);
    else if (!strcmp(a, "--outer-uid")) g_outer_uid = (uid_t)atoi(v);
    else if (!strcmp(a, "--cover")) { if (g_ncovers < 8) g_covers[g_ncovers++] = v; }
    else if (!strcmp(a, "--shell")) g_shell = v;
    else if (!strcmp(a, "--reaper")) g_reaper = v;
    else if (!strcmp(a, "--close-fd")) close_fd_arg = atoi(v);
    else if (!strcmp(a, "--root-in")) root_in = atoi(v);
    else if (!strcmp(a, "--root-out")) root_out = atoi(v);
    else usage();
    i++;
  }
  if (close_fd_arg >= 0) close(close_fd_arg);
  /* Nothing of the agent's can trace us or open our fds through /proc. */
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  signal(SIGPIPE, SIG_IGN);
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD);
  sigprocmask(SIG_BLOCK, &mask, NULL);
  g_sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
  if (g_sigfd < 0) { dprintf(2, "coevolve-channel: signalfd: %s\n", strerror(errno)); return 70; }
  if (root_in >= 0 && root_out >= 0) {
    /* bwrap: one namespace set, two channels. The root channel is a second process of ours, a child of pid 1,
     * serving its own pipe pair; commands of either never see the other's pipes. */
    pid_t p = fork();
    if (p < 0) { dprintf(2, "coevolve-channel: fork: %s\n", strerror(errno)); return 70; }
    if (p == 0) { close(g_in); close(g_out); g_in = root_in; g_out = root_out; g_role = R_ROOT; }
    else { close(root_in); close(root_out); }
  }
  fcntl(g_in, F_SETFD, FD_CLOEXEC);
  fcntl(g_out, F_SETFD, FD_CLOEXEC);
  set_nonblock(g_in);
  set_nonblock(g_out);
  if (g_mode == M_DOCKER) {
    home_of(g_role == R_AGENT ? g_agent_uid : 0, g_home, sizeof g_home);
    if (g_role == R_AGENT && g_agent_uid != 0) {
      /* The agent channel keeps only what switching to the agent uid and ending its processes need (a root agent's
       * keeps the container's set: its commands are root with the container's capabilities, as docker exec gave). */
      uint32_t keep = (1u << CAP_SETUID) | (1u << CAP_SETGID) | (1u << CAP_KILL);
      capset_all(keep, 0);
    }
  }
  send_text(F_HELLO, 0, "coevolve-channel %d pid=%d mode=%s role=%s uid=%d", PROTOCOL_VERSION, (int)getpid(),
            g_mode == M_DOCKER ? "docker" : g_mode == M_BWRAP ? "bwrap" : "process", g_role == R_AGENT ? "agent" : "root", (int)getuid());
  loop();
  return 0;
}
