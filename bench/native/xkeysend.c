/* Sends keys through XTEST, one per line read from stdin ("a", "ctrl+c", "Return"), and prints for
 * each the wall-clock time (ms) just before the press and just after XSync returned (the server
 * has taken the events), so a bench times a key from when it reached X and not from a process's
 * start-up (xdotool spends ~15-20 ms of its own before it sends anything).
 * A key is released as a typist's is, HOLD_MS after its press (or before the next key, if that comes
 * first), not in the same batch of events: a client handed press and release together converts
 * both before it answers the press, which no typist's keystroke makes it do.
 * Build: gcc -O2 xkeysend.c -o xkeysend -lX11 -lXtst */
#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* How long a key is held down: typists hold a key 70-100 ms; the benches send one every ~30 ms. */
#define HOLD_MS 15

/* The keys still down, released in the reverse order of their presses. */
static KeyCode down[3];
static int ndown;
static double release_at;

static void release(Display *dpy) {
  while (ndown > 0) XTestFakeKeyEvent(dpy, down[--ndown], False, 0);
  XFlush(dpy);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

int main(void) {
  Display *dpy = XOpenDisplay(NULL);
  if (!dpy) {
    fprintf(stderr, "xkeysend: cannot open the display\n");
    return 1;
  }
  int ev, err, major, minor;
  if (!XTestQueryExtension(dpy, &ev, &err, &major, &minor)) {
    fprintf(stderr, "xkeysend: the X server has no XTEST\n");
    return 1;
  }
  /* Unbuffered: poll() on fd 0 must see every line not yet read. */
  setvbuf(stdin, NULL, _IONBF, 0);
  printf("ready\n");
  fflush(stdout);
  char line[256];
  for (;;) {
    if (ndown > 0) {
      /* Wait for the next key or the release, whichever comes first. */
      double left = release_at - now_ms();
      struct pollfd p = {0, POLLIN, 0};
      if (left > 0 && poll(&p, 1, (int)left + 1) == 0) continue;
      if (left <= 0 || !(p.revents & POLLIN)) {
        release(dpy);
        continue;
      }
      release(dpy);
    }
    if (!fgets(line, sizeof line, stdin)) break;
    line[strcspn(line, "\r\n")] = 0;
    int ctrl = 0, shift = 0;
    char *name = line;
    for (;;) {
      if (strncmp(name, "ctrl+", 5) == 0) ctrl = 1, name += 5;
      else if (strncmp(name, "shift+", 6) == 0) shift = 1, name += 6;
      else break;
    }
    KeySym sym = XStringToKeysym(name);
    KeyCode code = sym == NoSymbol ? 0 : XKeysymToKeycode(dpy, sym);
    if (!code) {
      printf("error unknown key %s\n", name);
      fflush(stdout);
      continue;
    }
    KeyCode c = XKeysymToKeycode(dpy, XK_Control_L), s = XKeysymToKeycode(dpy, XK_Shift_L);
    double before = now_ms();
    if (ctrl) XTestFakeKeyEvent(dpy, c, True, 0);
    if (shift) XTestFakeKeyEvent(dpy, s, True, 0);
    XTestFakeKeyEvent(dpy, code, True, 0);
    if (ctrl) down[ndown++] = c;
    if (shift) down[ndown++] = s;
    down[ndown++] = code;
    XSync(dpy, False);
    double synced = now_ms();
    release_at = synced + HOLD_MS;
    printf("%.3f %.3f\n", before, synced);
    fflush(stdout);
  }
  release(dpy);
  XCloseDisplay(dpy);
  return 0;
}
