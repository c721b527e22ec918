/*
 * termio-hotkeys (X11): system-wide keys for Termio, as a passive grab on the root window.
 *
 * A separate process rather than a Node addon: Xlib needs its own connection and event loop
 * (Qt's is not reachable from Node), a crash or a stuck X server cannot take the app with it, and
 * it builds with a plain C compiler at set-up like the session holder. The app talks to it in
 * lines (src/app/platform/globalKeys.ts):
 *
 *   stdin   grab ID MODS KEYSYM   grab the key: MODS is an X modifier mask (Shift 1, Control 4,
 *                                 Mod1/Alt 8, Mod4/Super 64), KEYSYM an X keysym name ("space")
 *           ungrab ID
 *           activate WINDOW       raise and focus that window (the app's) as of the last press:
 *                                 the app's own request would carry an older time than the
 *                                 other client's focus, and the X server (or the window
 *                                 manager's focus-stealing rule) would ignore it
 *   stdout  ready                 the display is open
 *           grabbed ID
 *           failed ID taken       another client holds that key (the grab got BadAccess)
 *           failed ID nokey       no such keysym, or no key on this keyboard makes it
 *           pressed ID
 *           fatal MESSAGE         then it exits 1 (no display)
 *
 * Each key is grabbed with the NumLock and CapsLock variants of its modifiers, so it works with
 * either lock on. It ends when stdin closes (the app quit).
 */
#include <X11/XKBlib.h>
#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <X11/keysym.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_KEYS 16
#define ID_CHARS 64

struct key {
  char id[ID_CHARS];
  KeyCode code;
  unsigned int mods;
  int used;
  int down;
};

static struct key keys[MAX_KEYS];
static int bad_access;
/** The server time of the last key press reported: the user's action a focus change answers. */
static Time last_press = CurrentTime;

static int on_error(Display *d, XErrorEvent *e) {
  (void)d;
  if (e->error_code == BadAccess) bad_access = 1;
  return 0;
}

static unsigned int numlock_mask(Display *d) {
  unsigned int mask = 0;
  KeyCode nl = XKeysymToKeycode(d, XK_Num_Lock);
  XModifierKeymap *map = XGetModifierMapping(d);
  for (int m = 0; m < 8 && nl; m++)
    for (int k = 0; k < map->max_keypermod; k++)
      if (map->modifiermap[m * map->max_keypermod + k] == nl) mask = 1u << m;
  XFreeModifiermap(map);
  return mask;
}

static void grab_variants(Display *d, struct key *k, unsigned int numlock, int on) {
  unsigned int variants[4] = {0, LockMask, numlock, numlock | LockMask};
  Window root = DefaultRootWindow(d);
  for (int i = 0; i < 4; i++) {
    if (i >= 2 && !numlock) break;
    if (on) XGrabKey(d, k->code, k->mods | variants[i], root, True, GrabModeAsync, GrabModeAsync);
    else XUngrabKey(d, k->code, k->mods | variants[i], root);
  }
}

static struct key *find(const char *id) {
  for (int i = 0; i < MAX_KEYS; i++)
    if (keys[i].used && strcmp(keys[i].id, id) == 0) return &keys[i];
  return NULL;
}

static void ungrab(Display *d, const char *id, unsigned int numlock) {
  struct key *k = find(id);
  if (!k) return;
  grab_variants(d, k, numlock, 0);
  XSync(d, False);
  k->used = 0;
}

static void grab(Display *d, const char *id, unsigned int mods, const char *keysym, unsigned int numlock) {
  ungrab(d, id, numlock);
  KeySym sym = XStringToKeysym(keysym);
  KeyCode code = sym == NoSymbol ? 0 : XKeysymToKeycode(d, sym);
  struct key *k = NULL;
  for (int i = 0; i < MAX_KEYS && !k; i++)
    if (!keys[i].used) k = &keys[i];
  if (!code || !k) {
    printf("failed %s nokey\n", id);
    return;
  }
  snprintf(k->id, ID_CHARS, "%s", id);
  k->code = code;
  k->mods = mods;
  k->down = 0;
  bad_access = 0;
  grab_variants(d, k, numlock, 1);
  XSync(d, False);
  if (bad_access) {
    grab_variants(d, k, numlock, 0);
    XSync(d, False);
    printf("failed %s taken\n", id);
    return;
  }
  k->used = 1;
  printf("grabbed %s\n", id);
}

/* Whether a window manager runs that supports _NET_ACTIVE_WINDOW (EWMH). */
static int wm_activates(Display *d, Atom active) {
  Atom type;
  int format;
  unsigned long n, after;
  unsigned char *data = NULL;
  int found = 0;
  Atom supported = XInternAtom(d, "_NET_SUPPORTED", False);
  if (XGetWindowProperty(d, DefaultRootWindow(d), supported, 0, 4096, False, XA_ATOM, &type, &format, &n, &after, &data) == Success && data) {
    for (unsigned long i = 0; i < n && !found; i++) found = ((Atom *)data)[i] == active;
    XFree(data);
  }
  return found;
}

/* A window manager is asked as a pager would (source 2, with the press's time); without one,
 * the window is raised and given the focus directly. */
static void activate(Display *d, Window w) {
  Atom active = XInternAtom(d, "_NET_ACTIVE_WINDOW", False);
  if (wm_activates(d, active)) {
    XEvent e;
    memset(&e, 0, sizeof e);
    e.xclient.type = ClientMessage;
    e.xclient.window = w;
    e.xclient.message_type = active;
    e.xclient.format = 32;
    e.xclient.data.l[0] = 2;
    e.xclient.data.l[1] = (long)last_press;
    XSendEvent(d, DefaultRootWindow(d), False, SubstructureRedirectMask | SubstructureNotifyMask, &e);
  } else {
    XRaiseWindow(d, w);
    XSetInputFocus(d, w, RevertToParent, last_press);
  }
  XSync(d, False);
}

static void command(Display *d, char *line, unsigned int numlock) {
  char verb[16], id[ID_CHARS], keysym[64];
  unsigned int mods;
  unsigned long window;
  if (sscanf(line, "grab %63s %u %63s", id, &mods, keysym) == 3) grab(d, id, mods, keysym, numlock);
  else if (sscanf(line, "activate %lu", &window) == 1) activate(d, (Window)window);
  else if (sscanf(line, "ungrab %63s", id) == 1) ungrab(d, id, numlock);
  else if (sscanf(line, "%15s", verb) == 1) printf("error unknown command %s\n", verb);
}

static void key_event(XEvent *ev, unsigned int numlock) {
  unsigned int state = ev->xkey.state & ~(LockMask | numlock);
  for (int i = 0; i < MAX_KEYS; i++) {
    struct key *k = &keys[i];
    if (!k->used || k->code != ev->xkey.keycode) continue;
    if (ev->type == KeyRelease) k->down = 0;
    else if (!k->down && (state & (ShiftMask | ControlMask | Mod1Mask | Mod4Mask)) == k->mods) {
      k->down = 1; /* held down, the key repeats: one press */
      last_press = ev->xkey.time;
      printf("pressed %s\n", k->id);
    }
  }
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  Display *d = XOpenDisplay(NULL);
  if (!d) {
    printf("fatal cannot open the X display '%s'\n", getenv("DISPLAY") ? getenv("DISPLAY") : "");
    return 1;
  }
  XSetErrorHandler(on_error);
  XkbSetDetectableAutoRepeat(d, True, NULL);
  unsigned int numlock = numlock_mask(d);
  printf("ready\n");
  char buf[4096];
  size_t have = 0;
  struct pollfd fds[2] = {{.fd = 0, .events = POLLIN}, {.fd = ConnectionNumber(d), .events = POLLIN}};
  for (;;) {
    while (XPending(d)) {
      XEvent ev;
      XNextEvent(d, &ev);
      if (ev.type == KeyPress || ev.type == KeyRelease) key_event(&ev, numlock);
    }
    if (poll(fds, 2, -1) < 0 && errno != EINTR) return 1;
    if (!(fds[0].revents & (POLLIN | POLLHUP))) continue;
    ssize_t n = read(0, buf + have, sizeof buf - 1 - have);
    if (n <= 0) break;
    have += (size_t)n;
    buf[have] = 0;
    char *start = buf, *nl;
    while ((nl = strchr(start, '\n'))) {
      *nl = 0;
      command(d, start, numlock);
      start = nl + 1;
    }
    have -= (size_t)(start - buf);
    memmove(buf, start, have);
    if (have == sizeof buf - 1) have = 0; /* a line this long is no command */
  }
  XCloseDisplay(d);
  return 0;
}
