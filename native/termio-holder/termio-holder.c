/* termio-holder: holds one Termio session's pty so that the agent on it outlives termio-host.
 *
 *   termio-holder [--tap FILE] SOCKET COLS ROWS FILE [ARG...]
 *
 * Opens a pty of COLS x ROWS, starts FILE ARG... on it in a session of its own (setsid, the pty
 * as its controlling terminal), listens on the Unix socket SOCKET (mode 0600) and prints
 * "ok <agent pid>" on stdout once both are up ("error <why>" and exit 1 otherwise). From then on
 * it keeps every byte the agent writes since the host's last checkpoint (at most RING_MAX, the
 * oldest dropped first) and serves one host at a time with the protocol in docs/holder.md. It
 * outlives the host that started it; it exits with its agent (once a host has the exit status,
 * or LINGER_MS after the exit with no host). No parsing, no status: the host does all that.
 * --tap FILE appends every byte read from the pty to FILE (a diagnostic the tests use).
 * Plain POSIX C, no dependencies: `cc -O2 -o termio-holder termio-holder.c wire.c`. */
/* POSIX with XSI (posix_openpt, ptsname) everywhere; Linux's own names for SO_PEERCRED; macOS's
 * for getpeereid and SO_NOSIGPIPE. */
#ifdef __linux__
#define _GNU_SOURCE
#else
#define _XOPEN_SOURCE 700
#define _DARWIN_C_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "holder.h"

/* After the agent exits, its last output may still be on its way through the pty: keep reading
 * until the pty reports the hang-up, or this long with nothing new (a background job that keeps
 * the terminal open). */
#define DRAIN_QUIET_MS 50
/* An agent that exited while no host was attached waits this long for one to collect its exit
 * status and last output (a host restarting takes about a second), then the holder goes. */
#define LINGER_MS 60000
/* Grace between the hang-up and SIGKILL when a SIGTERM ends the holder (the host's own close
 * names its grace): time for an agent to save its state. */
#define TERM_GRACE_MS 2000
/* Read from the pty only while the host has less than this unsent: the agent then waits in
 * write(2) while the host is busy, as it would on a terminal nobody reads. */
#define SEND_AHEAD (256 * 1024)
/* One data message: large enough for a flood to move in few messages, small enough that input
 * and control messages are never queued behind much. */
#define DATA_CHUNK (64 * 1024)
/* Reads of the pty per wake-up before the data goes out: 16 reads of a few KiB each make a
 * message of tens of KiB, while a keystroke's echo still goes out after its single read. */
#define READS_PER_WAKE 16
/* Resizes remembered since the last checkpoint, so a replay lays text out at the sizes it was
 * written at; more than this (a window dragged for minutes) keeps the newest. */
#define MAX_SIZES 64

static ring_t ring;
static struct { uint64_t off; unsigned cols, rows; } sizes[MAX_SIZES];
static int nsizes, size_next;
static unsigned cur_cols, cur_rows;
static int listen_fd = -1, conn = -1, master = -1, tap_fd = -1, sig_r = -1, sig_w = -1;
static const char *socket_path;
static pid_t agent = -1;
static int agent_done, exit_code, exit_signal;
static long long drain_until = -1, kill_at = -1, linger_until = -1;
static int attached, paused, exit_sent, closing;
/* The host's credit (CREDIT): read the pty only while the stream is shorter than credit_until.
 * Until a host sends one (an older host never does) only pause and SEND_AHEAD apply. */
static int has_credit;
static uint64_t credit_until;
static uint64_t sent, gap_from, gap_to;
static buf_t in, out, input;
/* Input accounting for the host attached now (TAKEN): how many of its input bytes went to the
 * pty (or were dropped with it), how many of those it was last told, and what a previous host
 * left in `input` (written first, and not this host's to count). The host sends no more while
 * its untaken input is past its bound, so `input` stays bounded however much is pasted into a
 * program that never reads. */
static uint64_t input_taken, taken_told;
static size_t input_leftover;

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void finish(int code) {
  if (socket_path) unlink(socket_path);
  _exit(code);
}

static void on_signal(int sig) {
  int saved = errno;
  unsigned char b = (unsigned char)sig;
  if (write(sig_w, &b, 1) < 0) { /* the pipe is full: a wake-up is already pending */ }
  errno = saved;
}

static void cloexec_nonblock(int fd) {
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* ---- the pty and the agent ----------------------------------------------------------------- */

/* The line discipline a terminal emulator's pty starts with: UTF-8 aware erase, ^C/^Z/^\ as
 * signals, echo, and the usual control characters. */
static void default_termios(int fd) {
  struct termios t;
  if (tcgetattr(fd, &t) != 0) return;
  t.c_iflag = ICRNL | IXON | IXANY | IMAXBEL | BRKINT;
#ifdef IUTF8
  t.c_iflag |= IUTF8;
#endif
  t.c_oflag = OPOST | ONLCR;
  t.c_cflag = CREAD | CS8 | HUPCL;
  t.c_lflag = ICANON | ISIG | IEXTEN | ECHO | ECHOE | ECHOK | ECHOKE | ECHOCTL;
  t.c_cc[VEOF] = 4;
  t.c_cc[VERASE] = 0x7f;
  t.c_cc[VWERASE] = 23;
  t.c_cc[VKILL] = 21;
  t.c_cc[VREPRINT] = 18;
  t.c_cc[VINTR] = 3;
  t.c_cc[VQUIT] = 0x1c;
  t.c_cc[VSUSP] = 26;
  t.c_cc[VSTART] = 17;
  t.c_cc[VSTOP] = 19;
  t.c_cc[VLNEXT] = 22;
  t.c_cc[VDISCARD] = 15;
  t.c_cc[VMIN] = 1;
  t.c_cc[VTIME] = 0;
  cfsetispeed(&t, B38400);
  cfsetospeed(&t, B38400);
  tcsetattr(fd, TCSANOW, &t);
}

static void set_size(unsigned cols, unsigned rows) {
  struct winsize ws;
  memset(&ws, 0, sizeof ws);
  ws.ws_col = (unsigned short)cols;
  ws.ws_row = (unsigned short)rows;
  if (master >= 0) ioctl(master, TIOCSWINSZ, &ws);
  cur_cols = cols;
  cur_rows = rows;
}

/* The child: a session of its own with the pty as controlling terminal, default signals, exec. */
static void exec_agent(const char *slave_name, char **argv) {
  setsid();
  int s = open(slave_name, O_RDWR);
  if (s < 0) _exit(127);
#ifdef TIOCSCTTY
  ioctl(s, TIOCSCTTY, 0);
#endif
  dup2(s, 0);
  dup2(s, 1);
  dup2(s, 2);
  if (s > 2) close(s);
  for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  execvp(argv[0], argv);
  dprintf(2, "termio-holder: cannot run %s: %s\r\n", argv[0], strerror(errno));
  _exit(127);
}

static const char *start_agent(char **argv) {
  master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) return "cannot open a pty";
  char *name = ptsname(master);
  if (!name) return "cannot name the pty";
  char slave_name[256];
  snprintf(slave_name, sizeof slave_name, "%s", name);
  /* Held open until the child has it, so the pty is never without a slave in between. */
  int slave = open(slave_name, O_RDWR | O_NOCTTY);
  if (slave < 0) return "cannot open the pty's terminal side";
  default_termios(slave);
  set_size(cur_cols, cur_rows);
  cloexec_nonblock(master);
  fcntl(slave, F_SETFD, FD_CLOEXEC);
  agent = fork();
  if (agent < 0) return "cannot fork";
  if (agent == 0) exec_agent(slave_name, argv);
  close(slave);
  return NULL;
}

static void reap(void) {
  int st;
  pid_t p;
  while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
    if (p != agent || agent_done) continue;
    agent_done = 1;
    exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
    exit_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    if (master >= 0) drain_until = now_ms() + DRAIN_QUIET_MS;
  }
}

/* Tells the attached host how much of its input was taken: at once when `now`, else once 4 KiB
 * more were. */
static void tell_taken(int now) {
  if (conn < 0 || !attached || input_taken == taken_told) return;
  if (!now && input_taken - taken_told < 4096) return;
  unsigned char p[8];
  put_u64(p, input_taken);
  frame(&out, MSG_TAKEN, p, 8);
  taken_told = input_taken;
}

/* `n` bytes of `input` went to the pty (or were dropped): the attached host's share is counted
 * (what a previous host left goes first), and told when nothing is left. */
static void took(size_t n) {
  size_t old = n < input_leftover ? n : input_leftover;
  input_leftover -= old;
  input_taken += n - old;
  tell_taken(buf_pending(&input) == 0);
}

static void close_master(void) {
  if (master >= 0) close(master);
  master = -1;
  drain_until = -1;
  size_t dropped = buf_pending(&input);
  input.pos = input.len = 0;
  took(dropped);
}

/* Hang up (the agent and every process of its terminal get SIGHUP), SIGKILL after the grace. */
static void start_closing(long long grace_ms) {
  if (closing) return;
  closing = 1;
  if (!agent_done) kill(agent, SIGHUP);
  close_master();
  kill_at = now_ms() + grace_ms;
}

/* ---- the host connection --------------------------------------------------------------------- */

static void drop_conn(void) {
  if (conn >= 0) close(conn);
  conn = -1;
  attached = paused = 0;
  in.pos = in.len = 0;
  out.pos = out.len = 0;
  /* The host that went may not have handled the exit: the next one is told again. */
  exit_sent = 0;
  if (agent_done) linger_until = now_ms() + LINGER_MS;
}

static void send_hello(void) {
  unsigned char p[2 + 4 + 4 + 2 + 2 + 8 + 8 + 1 + 4 + 1];
  put_u16(p, HOLDER_PROTOCOL);
  put_u32(p + 2, (uint32_t)getpid());
  put_u32(p + 6, (uint32_t)agent);
  put_u16(p + 10, cur_cols);
  put_u16(p + 12, cur_rows);
  put_u64(p + 14, ring.base);
  put_u64(p + 22, ring_end(&ring));
  p[30] = (unsigned char)agent_done;
  put_u32(p + 31, (uint32_t)exit_code);
  p[35] = (unsigned char)exit_signal;
  frame(&out, MSG_HELLO, p, sizeof p);
}

static void send_error(const char *msg) {
  frame(&out, MSG_ERROR, msg, strlen(msg));
  if (write(conn, out.data + out.pos, buf_pending(&out)) < 0) { /* it is being dropped anyway */ }
  drop_conn();
}

static int peer_is_us(int fd) {
#if defined(SO_PEERCRED) && defined(__linux__)
  struct ucred cred;
  socklen_t len = sizeof cred;
  return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == getuid();
#else
  uid_t uid;
  gid_t gid;
  return getpeereid(fd, &uid, &gid) == 0 && uid == getuid();
#endif
}

static void accept_conn(void) {
  int fd = accept(listen_fd, NULL, NULL);
  if (fd < 0) return;
  if (!peer_is_us(fd)) {
    close(fd);
    return;
  }
  /* A new host replaces the old one: only one host runs per Termio home, so the old one is gone
   * or going (a restart). */
  drop_conn();
  conn = fd;
  cloexec_nonblock(conn);
#ifdef SO_NOSIGPIPE
  int one = 1;
  setsockopt(conn, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#endif
  linger_until = -1;
  send_hello();
}

static void attach(const unsigned char *p, size_t n) {
  if (n < 10) return send_error("attach: message too short");
  if (get_u16(p) != HOLDER_PROTOCOL) return send_error("attach: unsupported protocol version");
  uint64_t from = get_u64(p + 2);
  if (from > ring_end(&ring)) return send_error("attach: offset past the end of the stream");
  attached = 1;
  paused = 0;
  has_credit = 0;
  input_leftover = buf_pending(&input);
  input_taken = taken_told = 0;
  /* A first TAKEN of 0 tells the host this holder reports consumed input (an older one never does). */
  unsigned char zero[8];
  put_u64(zero, 0);
  frame(&out, MSG_TAKEN, zero, 8);
  sent = from < ring.base ? ring.base : from;
  if (from < ring.base) {
    gap_from = from;
    gap_to = ring.base;
  }
  size_next = 0;
  while (size_next < nsizes && sizes[size_next].off < sent) size_next++;
}

static void remember_size(unsigned cols, unsigned rows) {
  if (nsizes == MAX_SIZES) {
    memmove(sizes, sizes + 1, sizeof sizes[0] * (MAX_SIZES - 1));
    nsizes--;
    if (size_next > 0) size_next--;
  }
  sizes[nsizes].off = ring_end(&ring);
  sizes[nsizes].cols = cols;
  sizes[nsizes].rows = rows;
  nsizes++;
  /* The host that asked already shows this size: it is for a later host's replay. */
  if (attached) size_next = nsizes;
}

static void checkpointed(uint64_t off) {
  if (off > sent) off = sent;
  ring_release(&ring, off);
  int keep = 0;
  while (keep < nsizes && sizes[keep].off < ring.base) keep++;
  memmove(sizes, sizes + keep, sizeof sizes[0] * (size_t)(nsizes - keep));
  nsizes -= keep;
  size_next = size_next > keep ? size_next - keep : 0;
}

static void send_signal(int sig, int target) {
  if (agent_done || sig <= 0 || sig >= NSIG) return;
  pid_t fg = master >= 0 ? tcgetpgrp(master) : -1;
  if (target == TARGET_GROUP) kill(-agent, sig);
  else if (target == TARGET_FOREGROUND && fg > 0) kill(-fg, sig);
  else kill(agent, sig);
}

static void handle(int kind, const unsigned char *p, size_t n) {
  if (!attached && kind != MSG_ATTACH) return send_error("the first message must be attach");
  switch (kind) {
    case MSG_ATTACH: attach(p, n); break;
    case MSG_INPUT:
      if (master < 0 || buf_add(&input, p, n) != 0) {
        /* Nowhere to write it (the agent is gone) or no memory for it: dropped, and counted as taken. */
        input_taken += n;
        tell_taken(1);
      }
      break;
    case MSG_RESIZE:
      if (n >= 4 && get_u16(p) > 0 && get_u16(p + 2) > 0) {
        set_size(get_u16(p), get_u16(p + 2));
        remember_size(cur_cols, cur_rows);
      }
      break;
    case MSG_SIGNAL: if (n >= 2) send_signal(p[0], p[1]); break;
    case MSG_CHECKPOINT: if (n >= 8) checkpointed(get_u64(p)); break;
    case MSG_PAUSE: paused = 1; break;
    case MSG_RESUME: paused = 0; break;
    case MSG_CREDIT:
      if (n >= 8) {
        credit_until = get_u64(p);
        has_credit = 1;
      }
      break;
    case MSG_CLOSE: start_closing(n >= 4 ? get_u32(p) : TERM_GRACE_MS); break;
    case MSG_BYE: if (exit_sent) finish(0); break;
    default: break; /* a newer host's message: ignored, as the protocol promises */
  }
}

static void read_conn(void) {
  unsigned char chunk[65536];
  ssize_t n = read(conn, chunk, sizeof chunk);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return drop_conn();
  if (n < 0 || buf_add(&in, chunk, (size_t)n) != 0) return;
  size_t pos = in.pos;
  while (in.len - pos >= 4) {
    uint32_t len = get_u32(in.data + pos);
    if (len == 0 || len > MAX_BODY) return send_error("bad message length");
    if (in.len - pos < 4 + (size_t)len) break;
    handle(in.data[pos + 4], in.data + pos + 5, len - 1);
    if (conn < 0) return; /* dropped: its buffers were reset */
    pos += 4 + (size_t)len;
  }
  buf_consume(&in, pos - in.pos);
}

/* Frames what the host has not had yet — a gap, sizes, data, the exit — while little is queued. */
static void fill_out(void) {
  if (conn < 0 || !attached) return;
  static unsigned char chunk[8 + DATA_CHUNK];
  while (buf_pending(&out) < DATA_CHUNK) {
    if (gap_to > gap_from) {
      put_u64(chunk, gap_from);
      put_u64(chunk + 8, gap_to);
      frame(&out, MSG_GAP, chunk, 16);
      gap_from = gap_to = 0;
      continue;
    }
    if (sent < ring.base) {
      /* Only when memory ran out: the ring could not keep what this host had not read. */
      gap_from = sent;
      gap_to = ring.base;
      sent = ring.base;
      continue;
    }
    if (size_next < nsizes && sizes[size_next].off <= sent) {
      put_u64(chunk, sizes[size_next].off);
      put_u16(chunk + 8, sizes[size_next].cols);
      put_u16(chunk + 10, sizes[size_next].rows);
      frame(&out, MSG_SIZE, chunk, 12);
      size_next++;
      continue;
    }
    uint64_t limit = ring_end(&ring);
    if (size_next < nsizes && sizes[size_next].off < limit) limit = sizes[size_next].off;
    if (sent < limit) {
      size_t want = limit - sent < DATA_CHUNK ? (size_t)(limit - sent) : DATA_CHUNK;
      put_u64(chunk, sent);
      size_t n = ring_copy(&ring, sent, chunk + 8, want);
      frame(&out, MSG_DATA, chunk, 8 + n);
      sent += n;
      continue;
    }
    if (agent_done && master < 0 && !exit_sent && !closing) {
      put_u32(chunk, (uint32_t)exit_code);
      chunk[4] = (unsigned char)exit_signal;
      frame(&out, MSG_EXIT, chunk, 5);
      exit_sent = 1;
    }
    break;
  }
}

static void write_conn(void) {
  while (buf_pending(&out) > 0) {
#ifdef MSG_NOSIGNAL
    ssize_t n = send(conn, out.data + out.pos, buf_pending(&out), MSG_NOSIGNAL);
#else
    ssize_t n = write(conn, out.data + out.pos, buf_pending(&out));
#endif
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) return drop_conn();
    buf_consume(&out, (size_t)n);
    fill_out();
  }
}

/* Whether to take more from the pty now: not past the host's credit (it parses what it was sent
 * first: on a Ctrl-C the pty discards what it still holds, so all that is left to show is what
 * the credit let out), not while the host asked for a pause, nor while it has SEND_AHEAD unread.
 * With no host, always: the agent must never wait for a host to come. */
static int want_read(void) {
  if (master < 0) return 0;
  if (conn < 0 || !attached) return 1;
  if (has_credit && ring_end(&ring) >= credit_until) return 0;
  return !paused && ring_end(&ring) - sent < SEND_AHEAD;
}

/* Reads what the pty has now, a few reads in a row (a pty hands out a few KiB per read), so
 * that a busy agent's output goes to the host in few, large messages. */
static void read_master(void) {
  static unsigned char chunk[65536];
  for (int i = 0; i < READS_PER_WAKE && want_read(); i++) {
    ssize_t n = read(master, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) break;
    if (n <= 0) {
      /* EIO: every process of the terminal closed it. The exit status comes with SIGCHLD. */
      if (agent_done) close_master();
      else drain_until = -2; /* wait for the exit without reading a hung-up pty */
      break;
    }
    ring_append(&ring, chunk, (size_t)n);
    if (tap_fd >= 0 && write(tap_fd, chunk, (size_t)n) < 0) tap_fd = -1;
    if (agent_done) drain_until = now_ms() + DRAIN_QUIET_MS;
  }
  fill_out();
}

static void write_master(void) {
  while (buf_pending(&input) > 0) {
    ssize_t n = write(master, input.data + input.pos, buf_pending(&input));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    buf_consume(&input, (size_t)n);
    took((size_t)n);
  }
}

/* ---- the loop -------------------------------------------------------------------------------- */

static int poll_timeout(void) {
  long long now = now_ms(), next = -1;
  long long deadlines[] = {drain_until >= 0 ? drain_until : -1, kill_at, linger_until};
  for (int i = 0; i < 3; i++) {
    if (deadlines[i] < 0) continue;
    if (next < 0 || deadlines[i] < next) next = deadlines[i];
  }
  if (next < 0) return -1;
  return next > now ? (int)(next - now) : 0;
}

static void check_deadlines(void) {
  long long now = now_ms();
  if (drain_until >= 0 && now >= drain_until) {
    /* Paused by the host: the quiet spell only counts while reading. */
    if (want_read()) close_master();
    else drain_until = now + DRAIN_QUIET_MS;
    fill_out();
  }
  if (kill_at >= 0 && now >= kill_at) {
    kill(-agent, SIGKILL);
    kill(agent, SIGKILL);
    kill_at = -1;
  }
  if (linger_until >= 0 && now >= linger_until && conn < 0) finish(0);
}

static void run(void) {
  for (;;) {
    if (closing && agent_done) finish(0);
    if (agent_done && master < 0 && conn < 0 && linger_until < 0) linger_until = now_ms() + LINGER_MS;
    fill_out();
    struct pollfd p[4];
    int n = 0, ci = -1, mi = -1;
    p[n++] = (struct pollfd){sig_r, POLLIN, 0};
    p[n++] = (struct pollfd){listen_fd, POLLIN, 0};
    if (conn >= 0) {
      ci = n;
      p[n++] = (struct pollfd){conn, (short)(POLLIN | (buf_pending(&out) ? POLLOUT : 0)), 0};
    }
    short mev = (short)((want_read() && drain_until != -2 ? POLLIN : 0) | (buf_pending(&input) ? POLLOUT : 0));
    if (master >= 0 && mev) {
      mi = n;
      p[n++] = (struct pollfd){master, mev, 0};
    }
    if (poll(p, (nfds_t)n, poll_timeout()) < 0 && errno != EINTR) finish(1);
    if (p[0].revents & POLLIN) {
      unsigned char drainbuf[64];
      while (read(sig_r, drainbuf, sizeof drainbuf) > 0) {
        for (size_t i = 0; i < sizeof drainbuf; i++) if (drainbuf[i] == SIGTERM) start_closing(TERM_GRACE_MS);
      }
      reap();
    }
    if (ci >= 0 && conn >= 0 && (p[ci].revents & (POLLIN | POLLHUP | POLLERR))) read_conn();
    if (ci >= 0 && conn >= 0 && (p[ci].revents & POLLOUT)) write_conn();
    if (mi >= 0 && master >= 0 && (p[mi].revents & (POLLIN | POLLHUP | POLLERR))) read_master();
    if (mi >= 0 && master >= 0 && (p[mi].revents & POLLOUT)) write_master();
    if (p[1].revents & POLLIN) accept_conn();
    if (conn >= 0 && buf_pending(&out)) write_conn();
    check_deadlines();
  }
}

static const char *listen_on(const char *path) {
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (strlen(path) >= sizeof addr.sun_path) return "socket path too long";
  strcpy(addr.sun_path, path);
  listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (listen_fd < 0) return "cannot create a socket";
  cloexec_nonblock(listen_fd);
  umask(077);
  if (bind(listen_fd, (struct sockaddr *)&addr, sizeof addr) != 0) return strerror(errno);
  socket_path = path;
  chmod(path, 0600);
  if (listen(listen_fd, 4) != 0) return strerror(errno);
  return NULL;
}

static void setup_signals(void) {
  int fds[2];
  if (pipe(fds) != 0) {
    printf("error cannot create a pipe\n");
    exit(1);
  }
  sig_r = fds[0];
  sig_w = fds[1];
  cloexec_nonblock(sig_r);
  cloexec_nonblock(sig_w);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGCHLD, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGHUP, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGINT, SIG_IGN);
}

static int parse_size(const char *s) {
  char *end;
  long v = strtol(s, &end, 10);
  return *s && !*end && v > 0 && v <= 65535 ? (int)v : -1;
}

int main(int argc, char **argv) {
  int a = 1;
  const char *tap = NULL;
  if (a + 1 < argc && strcmp(argv[a], "--tap") == 0) {
    tap = argv[a + 1];
    a += 2;
  }
  if (argc - a < 4) {
    fprintf(stderr, "usage: termio-holder [--tap FILE] SOCKET COLS ROWS FILE [ARG...]\n");
    printf("error bad arguments\n");
    return 2;
  }
  int cols = parse_size(argv[a + 1]), rows = parse_size(argv[a + 2]);
  if (cols < 0 || rows < 0) {
    printf("error bad size %s x %s\n", argv[a + 1], argv[a + 2]);
    return 2;
  }
  cur_cols = (unsigned)cols;
  cur_rows = (unsigned)rows;
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
  /* The ring's larger sizes come from mmap and go back to the system when a checkpoint shrinks
   * it, so a holder that saw a flood is small again once it is idle. */
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
  if (getsid(0) != getpid()) setsid();
  setup_signals();
  if (tap) {
    tap_fd = open(tap, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  }
  const char *err = listen_on(argv[a]);
  if (!err) err = start_agent(argv + a + 3);
  if (err) {
    printf("error %s\n", err);
    finish(1);
  }
  printf("ok %d\n", (int)agent);
  fflush(stdout);
  int devnull = open("/dev/null", O_RDWR);
  if (devnull >= 0) {
    dup2(devnull, 0);
    dup2(devnull, 1);
    if (devnull > 2) close(devnull);
  }
  /* The agent has the folder it runs in; the holder keeps none busy. */
  if (chdir("/") != 0) { /* harmless */ }
  run();
  return 0;
}
