/*
 * coevolve-reaper: the init of a bwrap command's own pid namespace (usage: coevolve-reaper PID).
 *
 * The supervisor (supervisor.c, init_main) starts each command from a process that shares its memory, in new pid
 * and mount namespaces; that process then execs this program and becomes the namespace's pid 1. It reaps whatever
 * is reparented to it and, when PID (the command, its child) ends, leaves with the command's status as one exit
 * code: its own, or 128 + the signal that ended it. Leaving ends the rest of the namespace.
 *
 * Why a program of its own: an init is exec'd once per command, and an exec costs by what it maps. This one has no
 * libc (raw system calls, a page of code): about a third of the cost of exec'ing the static supervisor again on a
 * paravirtualised guest, where every page-table write is a trap. The supervisor's `--reap` mode does the same work
 * and is the fallback when this program was not built (no toolchain for its architecture).
 *
 * Built with: gcc -static -nostdlib -ffreestanding -fno-stack-protector -O2 (channel/binary.ts).
 */
#include <sys/syscall.h>

#if defined(__x86_64__)
__asm__(".text\n.globl _start\n_start:\n  xor %rbp, %rbp\n  mov %rsp, %rdi\n  and $-16, %rsp\n  call reaper_main\n  hlt\n");
static long sys4(long n, long a, long b, long c, long d) {
  long r;
  register long r10 __asm__("r10") = d;
  __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
  return r;
}
#elif defined(__aarch64__)
__asm__(".text\n.globl _start\n_start:\n  mov x29, #0\n  mov x0, sp\n  bl reaper_main\n  brk #0\n");
static long sys4(long n, long a, long b, long c, long d) {
  register long x8 __asm__("x8") = n;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
  return x0;
}
#else
#error "coevolve-reaper: no system-call stub for this architecture (the supervisor's --reap mode is used instead)"
#endif

#define EINTR_ 4

static __attribute__((noreturn)) void leave(int code) {
  for (;;) sys4(SYS_exit_group, code, 0, 0, 0);
}

/* The same encoding as the supervisor's encode_status. */
static int encode_status(int st) {
  int sig = st & 0x7f;
  if (sig == 0) return (st >> 8) & 0xff;
  if (sig != 0x7f) return 128 + sig;
  return 255;
}

__attribute__((noreturn, used)) void reaper_main(long *sp) {
  long argc = sp[0];
  char **argv = (char **)(sp + 1);
  if (argc != 2) leave(255);
  long pid = 0;
  for (const char *p = argv[1]; *p; p++) {
    if (*p < '0' || *p > '9' || pid > 100000000) leave(255);
    pid = pid * 10 + (*p - '0');
  }
  for (;;) {
    int st = 0;
    long p = sys4(SYS_wait4, -1, (long)&st, 0, 0);
    if (p == -EINTR_) continue;
    if (p < 0) leave(255); /* nothing left to wait for, and the command was not among it */
    if (p == pid) leave(encode_status(st));
  }
}
