// The reference under bench/visible.mjs's key → painted echo figure: the barest X client that
// paints what is typed. A window titled "xecho"; on each KeyPress it draws the key's character
// with the server's core font, waits for the server to have done it (XSync), and prints the wall
// time (ms since the epoch, as Node's performance.timeOrigin + now()) on stdout. What is left
// between xdotool's key and this line is X itself: no toolkit, no emulator, no process hop.
// Built and run by bench/visible.mjs when gcc and libX11's headers are there.
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <stdio.h>
#include <time.h>

static double wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void) {
  Display *d = XOpenDisplay(NULL);
  if (!d) {
    fprintf(stderr, "xecho: cannot open the display\n");
    return 1;
  }
  int s = DefaultScreen(d);
  Window w = XCreateSimpleWindow(d, RootWindow(d, s), 0, 0, 400, 100, 0, BlackPixel(d, s), WhitePixel(d, s));
  XStoreName(d, w, "xecho");
  XSelectInput(d, w, KeyPressMask | ExposureMask);
  XMapWindow(d, w);
  GC gc = XCreateGC(d, w, 0, NULL);
  XSetForeground(d, gc, BlackPixel(d, s));
  setvbuf(stdout, NULL, _IOLBF, 0);
  printf("ready\n");
  int x = 0;
  for (;;) {
    XEvent e;
    XNextEvent(d, &e);
    if (e.type != KeyPress) continue;
    char buf[8];
    KeySym sym;
    int n = XLookupString(&e.xkey, buf, sizeof buf, &sym, NULL);
    if (n <= 0) continue;
    // A cell 8 px wide, wrapping at the window's edge: like a terminal echoing one character.
    x = (x + 8) % 392;
    XClearArea(d, w, x, 40, 8, 20, False);
    XDrawString(d, w, gc, x, 55, buf, 1);
    XSync(d, False);
    printf("%.3f\n", wall_ms());
  }
}
