/*
 * termio-hotkeys (macOS): system-wide keys for Termio through Carbon's RegisterEventHotKey, the
 * one API for them that needs no accessibility permission. The same line protocol as the X11
 * helper (termio-hotkeys-x11.c), except that MODS is a Carbon modifier mask (cmdKey 256,
 * shiftKey 512, optionKey 2048, controlKey 4096) and the key a virtual key code (decimal), both
 * chosen by src/app/platform/globalKeys.ts. Built at set-up with -framework Carbon; ends when
 * stdin closes.
 */
#include <Carbon/Carbon.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_KEYS 16
#define ID_CHARS 64

static struct {
  char id[ID_CHARS];
  EventHotKeyRef ref;
  int used;
} keys[MAX_KEYS];

static OSStatus on_hotkey(EventHandlerCallRef next, EventRef ev, void *data) {
  (void)next;
  (void)data;
  EventHotKeyID hk;
  GetEventParameter(ev, kEventParamDirectObject, typeEventHotKeyID, NULL, sizeof hk, NULL, &hk);
  if (hk.id < MAX_KEYS && keys[hk.id].used) printf("pressed %s\n", keys[hk.id].id);
  return noErr;
}

static void ungrab(const char *id) {
  for (int i = 0; i < MAX_KEYS; i++)
    if (keys[i].used && strcmp(keys[i].id, id) == 0) {
      UnregisterEventHotKey(keys[i].ref);
      keys[i].used = 0;
    }
}

static void grab(const char *id, unsigned int mods, unsigned int code) {
  ungrab(id);
  int i = 0;
  while (i < MAX_KEYS && keys[i].used) i++;
  if (i == MAX_KEYS) {
    printf("failed %s nokey\n", id);
    return;
  }
  EventHotKeyID hk = {'trmo', (UInt32)i};
  OSStatus st = RegisterEventHotKey(code, mods, hk, GetApplicationEventTarget(), 0, &keys[i].ref);
  if (st != noErr) {
    printf("failed %s %s\n", id, st == eventHotKeyExistsErr ? "taken" : "nokey");
    return;
  }
  snprintf(keys[i].id, ID_CHARS, "%s", id);
  keys[i].used = 1;
  printf("grabbed %s\n", id);
}

static void on_stdin(CFFileDescriptorRef f, CFOptionFlags flags, void *info) {
  (void)flags;
  (void)info;
  static char buf[4096];
  static size_t have = 0;
  ssize_t n = read(0, buf + have, sizeof buf - 1 - have);
  if (n <= 0) exit(0);
  have += (size_t)n;
  buf[have] = 0;
  char *start = buf, *nl;
  while ((nl = strchr(start, '\n'))) {
    *nl = 0;
    char id[ID_CHARS];
    unsigned int mods, code;
    if (sscanf(start, "grab %63s %u %u", id, &mods, &code) == 3) grab(id, mods, code);
    else if (sscanf(start, "ungrab %63s", id) == 1) ungrab(id);
    start = nl + 1;
  }
  have -= (size_t)(start - buf);
  memmove(buf, start, have);
  if (have == sizeof buf - 1) have = 0;
  CFFileDescriptorEnableCallBacks(f, kCFFileDescriptorReadCallBack);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  EventTypeSpec spec = {kEventClassKeyboard, kEventHotKeyPressed};
  InstallApplicationEventHandler(NewEventHandlerUPP(on_hotkey), 1, &spec, NULL, NULL);
  CFFileDescriptorRef f = CFFileDescriptorCreate(NULL, 0, false, on_stdin, NULL);
  CFFileDescriptorEnableCallBacks(f, kCFFileDescriptorReadCallBack);
  CFRunLoopAddSource(CFRunLoopGetMain(), CFFileDescriptorCreateRunLoopSource(NULL, f, 0), kCFRunLoopDefaultMode);
  printf("ready\n");
  RunApplicationEventLoop();
  return 0;
}
