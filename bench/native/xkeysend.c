/* Sends keys through XTEST, one per line read from stdin ("a", "ctrl+c", "Return"), and prints for
 * each the wall-clock time (ms) just before the press and just after XSync returned (the server
 * has taken the events), so a bench times a key from when it reached X and not from a process's
 * start-up (xdotool spends ~15-20 ms of its own before it sends anything).
 * Build: gcc -O2 xkeysend.c -o xkeysend -lX11 -lXtst */
#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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
  printf("ready\n");
  fflush(stdout);
  char line[256];
  while (fgets(line, sizeof line, stdin)) {
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
    XTestFakeKeyEvent(dpy, code, False, 0);
    if (shift) XTestFakeKeyEvent(dpy, s, False, 0);
    if (ctrl) XTestFakeKeyEvent(dpy, c, False, 0);
    XSync(dpy, False);
    printf("%.3f %.3f\n", before, now_ms());
    fflush(stdout);
  }
  XCloseDisplay(dpy);
  return 0;
}
