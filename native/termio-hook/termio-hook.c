/* termio-hook (native): the same reporter as bin/termio-hook, without Node's ~90 ms start-up.
 * `termio-hook <agent> <state> <event> [payload-json]` sends one frame (src/protocol/hookReport.ts)
 * to Termio's hook socket, byte for byte what the Node reporter sends: the frame is
 * JSON.stringify of {v,session,secret,agent,state,event,payload,truncated,parents}, strings
 * decoded from UTF-8 the way Node decodes them; parents are [pid, name] of each ancestor, parent
 * first (/proc on Linux, sysctl on macOS: no process is started for them).
 * A no-op outside Termio, nothing on stdout, exit code always 0.
 * Plain POSIX C, no dependencies: `cc -O2 -o termio-hook termio-hook.c`. */
/* POSIX.1-2008 with XSI (setitimer) everywhere; macOS also needs its own names (SO_NOSIGPIPE). */
#define _XOPEN_SOURCE 700
#define _DARWIN_C_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#ifdef __APPLE__
#include <sys/sysctl.h>
#endif
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Repeated from src/protocol/hookReport.ts (a unit test keeps them equal). */
#define HOOK_REPORT_VERSION 2
#define MAX_HOOK_PAYLOAD_CHARS (64 * 1024)
#define MAX_REPORT_PARENTS 32
/* The whole run, app gone or not: agents wait for us, and 300 ms is noticeable but safe. */
#define GIVE_UP_MS 300
/* Agents write the payload and close stdin at once; one that keeps it open costs us this. */
#define STDIN_WAIT_MS 100
/* A UTF-16 unit of the payload comes from at most 3 input bytes (a 3-byte character, or an
 * invalid run of up to 3 bytes that decodes to one U+FFFD), so this many bytes always decode to
 * more than the cap; the 16 spare bytes cover a character cut at the end. Later bytes are read
 * and dropped so the agent writing a large payload never sees a broken pipe. */
#define STDIN_KEEP_BYTES (3 * (MAX_HOOK_PAYLOAD_CHARS + 1) + 16)
/* One read's worth: a pipe's default capacity on Linux. */
#define READ_CHUNK 65536

static void give_up(int sig) {
  (void)sig;
  _exit(0);
}

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int ms_left(long long deadline) {
  long long left = deadline - now_ms();
  return left > 0 ? (int)left : 0;
}

/* ---- a growing byte buffer; running out of memory just ends the run (exit 0) ---------- */

typedef struct {
  char *data;
  size_t len, cap;
} buf_t;

static void buf_reserve(buf_t *b, size_t more) {
  if (b->len + more <= b->cap) return;
  size_t cap = b->cap ? b->cap : 1024;
  while (cap < b->len + more) cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) _exit(0);
  b->data = p;
  b->cap = cap;
}

static void buf_add(buf_t *b, const char *s, size_t n) {
  buf_reserve(b, n);
  memcpy(b->data + b->len, s, n);
  b->len += n;
}

static void buf_str(buf_t *b, const char *s) { buf_add(b, s, strlen(s)); }

/* ---- UTF-8 → code points, as V8 decodes (the WHATWG decoder: one U+FFFD per maximal
 * invalid subsequence; a sequence cut by the end of the input is one U+FFFD) ------------- */

#define REPLACEMENT 0xFFFD

/* Decodes one code point at s[*i] (i < n), advancing *i. */
static unsigned next_cp(const unsigned char *s, size_t n, size_t *i) {
  unsigned char b = s[*i];
  if (b < 0x80) {
    (*i)++;
    return b;
  }
  int need;
  unsigned cp;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b >= 0xC2 && b <= 0xDF) {
    need = 1;
    cp = b & 0x1F;
  } else if (b >= 0xE0 && b <= 0xEF) {
    need = 2;
    cp = b & 0x0F;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F; /* no surrogates */
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 3;
    cp = b & 0x07;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F; /* nothing above U+10FFFF */
  } else {
    (*i)++;
    return REPLACEMENT;
  }
  size_t j = *i + 1;
  for (int k = 0; k < need; k++, j++) {
    if (j >= n) {
      *i = n;
      return REPLACEMENT;
    }
    if (s[j] < lo || s[j] > hi) {
      *i = j; /* the offending byte starts the next sequence */
      return REPLACEMENT;
    }
    cp = (cp << 6) | (s[j] & 0x3F);
    lo = 0x80;
    hi = 0xBF;
  }
  *i = j;
  return cp;
}

/* How many bytes at the end of a stdin chunk Node's StringDecoder holds back as an incomplete
 * character (its lead byte promises more bytes than follow). At the end of the stream it decodes
 * them like any other bytes; before it (our stdin timeout) they are not part of the payload. */
static size_t held_tail(const unsigned char *s, size_t n) {
  if (n == 0 || !(s[n - 1] & 0x80)) return 0;
  size_t held = 0;
  for (size_t i = n - 1;; i--) {
    held++;
    if ((s[i] & 0xC0) == 0x80) {
      if (held >= 4 || i == 0) return 0;
      continue;
    }
    size_t want;
    if ((s[i] & 0xE0) == 0xC0) want = 2;
    else if ((s[i] & 0xF0) == 0xE0) want = 3;
    else if ((s[i] & 0xF8) == 0xF0) want = 4;
    else return 0;
    return held >= want ? 0 : held;
  }
}

/* ---- JSON string encoding, as JSON.stringify writes it ---------------------------------- */

static void json_unit_escape(buf_t *out, unsigned u) {
  static const char hex[] = "0123456789abcdef";
  char e[6] = {'\\', 'u', hex[(u >> 12) & 15], hex[(u >> 8) & 15], hex[(u >> 4) & 15], hex[u & 15]};
  buf_add(out, e, 6);
}

static void json_cp(buf_t *out, unsigned cp) {
  char u[4];
  switch (cp) {
    case '"': buf_add(out, "\\\"", 2); return;
    case '\\': buf_add(out, "\\\\", 2); return;
    case '\b': buf_add(out, "\\b", 2); return;
    case '\f': buf_add(out, "\\f", 2); return;
    case '\n': buf_add(out, "\\n", 2); return;
    case '\r': buf_add(out, "\\r", 2); return;
    case '\t': buf_add(out, "\\t", 2); return;
  }
  if (cp < 0x20 || (cp >= 0xD800 && cp <= 0xDFFF)) {
    json_unit_escape(out, cp); /* controls; a lone surrogate only comes from cutting a pair */
  } else if (cp < 0x80) {
    u[0] = (char)cp;
    buf_add(out, u, 1);
  } else if (cp < 0x800) {
    u[0] = (char)(0xC0 | (cp >> 6));
    u[1] = (char)(0x80 | (cp & 0x3F));
    buf_add(out, u, 2);
  } else if (cp < 0x10000) {
    u[0] = (char)(0xE0 | (cp >> 12));
    u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[2] = (char)(0x80 | (cp & 0x3F));
    buf_add(out, u, 3);
  } else {
    u[0] = (char)(0xF0 | (cp >> 18));
    u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[3] = (char)(0x80 | (cp & 0x3F));
    buf_add(out, u, 4);
  }
}

/* Appends "<text>" decoded from UTF-8, keeping at most `limit` UTF-16 units (0: no limit) and
 * cutting a surrogate pair in half at the limit as String.prototype.slice does. Returns 1 when
 * the text was cut. */
static int json_string(buf_t *out, const unsigned char *s, size_t n, size_t limit) {
  size_t units = 0, i = 0;
  int cut = 0;
  buf_add(out, "\"", 1);
  while (i < n) {
    unsigned cp = next_cp(s, n, &i);
    size_t w = cp >= 0x10000 ? 2 : 1;
    if (limit && units + w > limit) {
      cut = 1;
      if (units < limit) json_cp(out, 0xD800 + ((cp - 0x10000) >> 10)); /* the pair's high half */
      break;
    }
    json_cp(out, cp);
    units += w;
  }
  buf_add(out, "\"", 1);
  return cut;
}

static void json_cstr(buf_t *out, const char *s) {
  json_string(out, (const unsigned char *)s, strlen(s), 0);
}

/* ---- ancestors -------------------------------------------------------------------------------- */

/* The parent of pid and its name (at most name_len-1 bytes); 0 on success. */
static int parent_of(long pid, long *ppid, char *name, size_t name_len) {
#ifdef __APPLE__
  struct kinfo_proc kp;
  size_t len = sizeof kp;
  int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_PID, (int)pid};
  if (sysctl(mib, 4, &kp, &len, NULL, 0) < 0 || len == 0) return -1;
  *ppid = kp.kp_eproc.e_ppid;
  snprintf(name, name_len, "%s", kp.kp_proc.p_comm);
  return 0;
#else
  char path[64], stat[512];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, stat, sizeof stat - 1);
  close(fd);
  if (n <= 0) return -1;
  stat[n] = 0;
  /* "pid (comm) state ppid ...": comm may hold spaces and parentheses, so take the last ')'. */
  char *open_paren = strchr(stat, '('), *close_paren = strrchr(stat, ')');
  if (!open_paren || !close_paren || close_paren < open_paren || close_paren[1] == 0) return -1;
  size_t len = (size_t)(close_paren - open_paren - 1);
  if (len >= name_len) len = name_len - 1;
  memcpy(name, open_paren + 1, len);
  name[len] = 0;
  char state;
  if (sscanf(close_paren + 2, "%c %ld", &state, ppid) != 2) return -1;
  return 0;
#endif
}

static void json_parents(buf_t *out) {
  char name[64], num[32];
  long pid = (long)getppid(), ppid;
  buf_add(out, "[", 1);
  for (int i = 0; pid > 1 && i < MAX_REPORT_PARENTS; i++) {
    if (parent_of(pid, &ppid, name, sizeof name) != 0) break;
    if (i) buf_add(out, ",", 1);
    buf_add(out, num, (size_t)snprintf(num, sizeof num, "[%ld,", pid));
    json_cstr(out, name);
    buf_add(out, "]", 1);
    pid = ppid;
  }
  buf_add(out, "]", 1);
}

/* ---- I/O ------------------------------------------------------------------------------------ */

/* Reads stdin until EOF or the wait ends, keeping the first STDIN_KEEP_BYTES. */
static void read_stdin(buf_t *in, int *eof, int *overflow, long long deadline) {
  static char chunk[READ_CHUNK];
  *eof = 0;
  *overflow = 0;
  for (;;) {
    struct pollfd p = {.fd = 0, .events = POLLIN};
    int r = poll(&p, 1, ms_left(deadline));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return; /* timed out (or poll failed): send what we have */
    if (p.revents & POLLNVAL) {
      *eof = 1; /* no stdin at all: an empty payload */
      return;
    }
    ssize_t got = read(0, chunk, sizeof chunk);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got < 0) return; /* like the Node reporter's stdin 'error': what arrived so far */
    if (got == 0) {
      *eof = 1;
      return;
    }
    size_t room = STDIN_KEEP_BYTES - in->len;
    if ((size_t)got > room) *overflow = 1;
    buf_add(in, chunk, (size_t)got < room ? (size_t)got : room);
  }
}

static int connect_socket(const char *path, long long deadline) {
  struct sockaddr_un addr;
  if (strlen(path) >= sizeof addr.sun_path) return -1;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  strcpy(addr.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
#ifdef SO_NOSIGPIPE
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#endif
  int r;
  do r = connect(fd, (struct sockaddr *)&addr, sizeof addr);
  while (r < 0 && errno == EINTR);
  if (r == 0) return fd;
  if (errno != EINPROGRESS) return -1; /* no app (ENOENT, ECONNREFUSED) or backlog full (EAGAIN) */
  struct pollfd p = {.fd = fd, .events = POLLOUT};
  int err = 0;
  socklen_t len = sizeof err;
  if (poll(&p, 1, ms_left(deadline)) <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err) return -1;
  return fd;
}

static void write_all(int fd, const char *data, size_t len, long long deadline) {
  while (len > 0) {
    ssize_t w = write(fd, data, len);
    if (w > 0) {
      data += w;
      len -= (size_t)w;
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return; /* the app hung up */
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    if (poll(&p, 1, ms_left(deadline)) <= 0) return;
  }
}

/* The host answers once it has applied the report (or closes): the agent, which waits for its
 * hook, goes on only then, so nothing it does next (its title, its output) overtakes the report.
 * The deadline still bounds the wait. */
static void wait_answer(int fd, long long deadline) {
  for (;;) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r = poll(&p, 1, ms_left(deadline));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return;
    char c;
    ssize_t n = read(fd, &c, 1);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    return; /* the answer, the end of the connection, or an error */
  }
}

static const char *env_or(const char *name, const char *fallback) {
  const char *v = getenv(name);
  return v && *v ? v : fallback;
}

int main(int argc, char **argv) {
  const char *session = getenv("TERMIO_SESSION");
  if (!session || !*session) return 0;
  long long start = now_ms();
  long long give_up_at = start + GIVE_UP_MS;

  signal(SIGPIPE, SIG_IGN);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = give_up;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval timer = {{0, 0}, {GIVE_UP_MS / 1000, (GIVE_UP_MS % 1000) * 1000}};
  setitimer(ITIMER_REAL, &timer, NULL);

  const char *agent = argc > 1 ? argv[1] : "";
  const char *state = argc > 2 ? argv[2] : "";
  const char *event = argc > 3 ? argv[3] : "";

  buf_t path = {0};
  const char *socket_path = env_or("TERMIO_HOOK_SOCKET", NULL);
  if (!socket_path) {
    const char *home = env_or("TERMIO_HOME", NULL);
    if (home) {
      buf_str(&path, home);
    } else {
      buf_str(&path, env_or("HOME", ""));
      buf_str(&path, "/.termio");
    }
    buf_str(&path, "/run/hooks.sock");
    buf_add(&path, "", 1);
    socket_path = path.data;
  }
  /* Connect first: when the app is gone we are done before reading anything. */
  int fd = connect_socket(socket_path, give_up_at);
  if (fd < 0) return 0;

  buf_t frame = {0};
  char head[64];
  buf_add(&frame, head, (size_t)snprintf(head, sizeof head, "{\"v\":%d,\"session\":", HOOK_REPORT_VERSION));
  json_cstr(&frame, session);
  buf_str(&frame, ",\"secret\":");
  json_cstr(&frame, env_or("TERMIO_SESSION_SECRET", ""));
  buf_str(&frame, ",\"agent\":");
  json_cstr(&frame, agent);
  buf_str(&frame, ",\"state\":");
  json_cstr(&frame, state);
  buf_str(&frame, ",\"event\":");
  json_cstr(&frame, event);
  buf_str(&frame, ",\"payload\":");
  int truncated;
  if (argc > 4) {
    truncated = json_string(&frame, (const unsigned char *)argv[4], strlen(argv[4]), MAX_HOOK_PAYLOAD_CHARS);
  } else if (isatty(0)) {
    truncated = json_string(&frame, (const unsigned char *)"", 0, MAX_HOOK_PAYLOAD_CHARS);
  } else {
    buf_t in = {0};
    int eof, overflow;
    read_stdin(&in, &eof, &overflow, start + STDIN_WAIT_MS);
    const unsigned char *s = (const unsigned char *)in.data;
    size_t tail = eof || overflow ? 0 : held_tail(s, in.len);
    truncated = json_string(&frame, s, in.len - tail, MAX_HOOK_PAYLOAD_CHARS) || overflow;
  }
  buf_str(&frame, truncated ? ",\"truncated\":true,\"parents\":" : ",\"truncated\":false,\"parents\":");
  json_parents(&frame);
  buf_str(&frame, "}\n");
  write_all(fd, frame.data, frame.len, give_up_at);
  wait_answer(fd, give_up_at);
  close(fd);
  return 0;
}
