// qodeshim: lets plain Node host NodeGUI on Linux.
// 1. Defines qode's three symbols (qode_argc, qode_argv, InjectCustomRunLoop) that the NodeGUI
//    addon links against; this module is loaded with RTLD_GLOBAL before NodeGUI.
// 2. Drives Qt's event dispatcher (GLib's default main context on Linux) from libuv, so Node
//    timers, sockets and Qt events share one thread, with no fixed-interval polling:
//    uv_prepare -> g_main_context_prepare/query -> uv_poll per GLib fd + one uv_timer for GLib's
//    timeout -> uv_check -> g_main_context_check/dispatch.
#include <glib.h>
#include <node_api.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <uv.h>
#include <v8.h>

#include <QCoreApplication>
#include <QEvent>
#include <string>
#include <unordered_map>
#include <vector>

#define QODE_EXPORT __attribute__((visibility("default")))

namespace qode {
QODE_EXPORT int qode_argc = 0;
QODE_EXPORT char** qode_argv = nullptr;
typedef int (*QodeCustomRunLoopFunc)();
static QodeCustomRunLoopFunc injectedRunLoop = nullptr;
// NodeGUI hands qode a function that would block in QApplication::exec(); we never call it
// (libuv stays the outer loop), we only record that NodeGUI initialised.
QODE_EXPORT void InjectCustomRunLoop(QodeCustomRunLoopFunc fn) { injectedRunLoop = fn; }
}  // namespace qode

namespace {

// argv storage must outlive QApplication, which keeps references to argc and argv.
std::vector<std::string> argStorage{"termio"};
std::vector<char*> argPointers;

void publishArgs() {
  argPointers.clear();
  for (auto& s : argStorage) argPointers.push_back(s.data());
  argPointers.push_back(nullptr);
  qode::qode_argc = static_cast<int>(argStorage.size());
  qode::qode_argv = argPointers.data();
}

struct FdWatch {
  uv_poll_t handle;
  int events = 0;  // UV_READABLE | UV_WRITABLE currently requested
  bool seen = false;
};

struct Driver {
  napi_env env = nullptr;
  napi_async_context asyncContext = nullptr;
  napi_ref resource = nullptr;
  uv_loop_t* loop = nullptr;
  GMainContext* ctx = nullptr;
  uv_prepare_t prepare;
  uv_check_t check;
  uv_timer_t timer;
  std::vector<GPollFD> fds;
  gint maxPriority = 0;
  bool running = false;
  bool prepared = false;
  // Counters for tests and benchmarks: how often the loop woke and how often GLib dispatched.
  double iterations = 0;
  double dispatches = 0;
  std::unordered_map<int, FdWatch*> watches;
};

Driver driver;

void onTimer(uv_timer_t*) {}  // only wakes libuv; the work happens in onCheck

void onPoll(uv_poll_t*, int, int) {}  // likewise: revents are read with g_poll in onCheck

void closeWatch(uv_handle_t* h) { delete reinterpret_cast<FdWatch*>(h->data); }

int uvEventsFor(gushort gevents) {
  int ev = 0;
  if (gevents & (G_IO_IN | G_IO_PRI | G_IO_HUP | G_IO_ERR)) ev |= UV_READABLE;
  if (gevents & G_IO_OUT) ev |= UV_WRITABLE;
  return ev;
}

// Makes the set of uv_poll watchers equal to the fds GLib asked for this iteration.
void syncWatches() {
  for (auto& kv : driver.watches) kv.second->seen = false;
  for (auto& pfd : driver.fds) {
    int ev = uvEventsFor(pfd.events);
    auto it = driver.watches.find(pfd.fd);
    FdWatch* w;
    if (it == driver.watches.end()) {
      w = new FdWatch();
      if (uv_poll_init(driver.loop, &w->handle, pfd.fd) != 0) {
        delete w;
        continue;
      }
      w->handle.data = w;
      uv_unref(reinterpret_cast<uv_handle_t*>(&w->handle));
      driver.watches[pfd.fd] = w;
    } else {
      w = it->second;
    }
    w->seen = true;
    if (ev != w->events) {
      w->events = ev;
      if (ev) uv_poll_start(&w->handle, ev, onPoll);
      else uv_poll_stop(&w->handle);
    }
  }
  for (auto it = driver.watches.begin(); it != driver.watches.end();) {
    if (!it->second->seen) {
      uv_poll_stop(&it->second->handle);
      uv_close(reinterpret_cast<uv_handle_t*>(&it->second->handle), closeWatch);
      it = driver.watches.erase(it);
    } else {
      ++it;
    }
  }
}

void onPrepare(uv_prepare_t*) {
  if (!driver.running) return;
  driver.iterations++;
  gint timeout = -1;
  gboolean ready = g_main_context_prepare(driver.ctx, &driver.maxPriority);
  if (driver.fds.empty()) driver.fds.resize(8);
  for (;;) {
    gint n = g_main_context_query(driver.ctx, driver.maxPriority, &timeout, driver.fds.data(),
                                  static_cast<gint>(driver.fds.size()));
    if (n <= static_cast<gint>(driver.fds.size())) {
      driver.fds.resize(n);
      break;
    }
    driver.fds.resize(n);
  }
  driver.prepared = true;
  syncWatches();
  if (ready) timeout = 0;
  if (timeout >= 0) {
    uv_timer_start(&driver.timer, onTimer, static_cast<uint64_t>(timeout), 0);
  } else {
    uv_timer_stop(&driver.timer);
  }
}

void onCheck(uv_check_t*) {
  if (!driver.running || !driver.prepared) return;
  driver.prepared = false;
  g_poll(driver.fds.data(), driver.fds.size(), 0);
  if (!g_main_context_check(driver.ctx, driver.maxPriority, driver.fds.data(),
                            static_cast<gint>(driver.fds.size()))) {
    return;
  }
  driver.dispatches++;
  // JS called from Qt signals runs inside a callback scope, so promise jobs and nextTicks run
  // right after it, as they would after any libuv callback.
  napi_handle_scope hs;
  napi_open_handle_scope(driver.env, &hs);
  napi_value resource;
  napi_get_reference_value(driver.env, driver.resource, &resource);
  napi_callback_scope cs;
  napi_open_callback_scope(driver.env, resource, driver.asyncContext, &cs);
  g_main_context_dispatch(driver.ctx);
  // Without QApplication::exec() Qt's loop level stays 0, and Qt only delivers a
  // DeferredDelete posted at level 0 when asked for explicitly: ask, so deleteLater works.
  if (QCoreApplication::instance()) QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
  napi_close_callback_scope(driver.env, cs);
  napi_close_handle_scope(driver.env, hs);
}

napi_value throwError(napi_env env, const char* msg) {
  napi_throw_error(env, nullptr, msg);
  return nullptr;
}

napi_value SetArgs(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  bool isArray = false;
  if (argc < 1 || napi_is_array(env, argv[0], &isArray) != napi_ok || !isArray)
    return throwError(env, "qodeshim.setArgs expects an array of strings");
  uint32_t len = 0;
  napi_get_array_length(env, argv[0], &len);
  std::vector<std::string> next;
  for (uint32_t i = 0; i < len; i++) {
    napi_value el;
    napi_get_element(env, argv[0], i, &el);
    size_t n = 0;
    if (napi_get_value_string_utf8(env, el, nullptr, 0, &n) != napi_ok)
      return throwError(env, "qodeshim.setArgs expects an array of strings");
    std::string s(n, '\0');
    napi_get_value_string_utf8(env, el, s.data(), n + 1, &n);
    next.push_back(s);
  }
  if (next.empty()) next.push_back("termio");
  argStorage = next;
  publishArgs();
  return nullptr;
}

// Keep up to this much freed memory at the top of the heap instead of giving it straight back.
// Why: a Qt process has a bigger V8 heap, so its young generation grows and scavenges come less
// often; meanwhile every 64 KB read of a flooding pty or pipe mallocs a fresh buffer. A scavenge
// then frees thousands of them at once, glibc (trim threshold 128 KB) returns the memory to the
// kernel, and the next reads fault every page back in: 8x the page faults of plain Node under the
// same flood. Slower reads let the writer keep the pipe full, so libuv keeps reading (up to 32
// reads per callback) and timers, Node's and Qt's alike, wait 10-15 ms (bench/loop.mjs). With
// 16 MB kept, faults and lateness match plain Node's. (This fixes the mmap threshold at its
// default 128 KB, which glibc would otherwise raise after freeing large chunks.)
constexpr int kTrimThresholdBytes = 16 << 20;
double trimThreshold = 0;

void tuneAllocator() {
#ifdef __GLIBC__
  if (trimThreshold == 0 && mallopt(M_TRIM_THRESHOLD, kTrimThresholdBytes) == 1) trimThreshold = kTrimThresholdBytes;
#endif
}

napi_value Start(napi_env env, napi_callback_info) {
  if (driver.running) return nullptr;
  if (!qode::injectedRunLoop || !QCoreApplication::instance())
    return throwError(env, "qodeshim.start: load @nodegui/nodegui first (no QApplication yet)");
  driver.env = env;
  napi_get_uv_event_loop(env, &driver.loop);
  driver.ctx = g_main_context_default();
  if (!g_main_context_acquire(driver.ctx))
    return throwError(env, "qodeshim.start: GLib's default main context is owned by another thread");
  napi_value resource, name;
  napi_create_object(env, &resource);
  napi_create_reference(env, resource, 1, &driver.resource);
  napi_create_string_utf8(env, "QtEventLoop", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, resource, name, &driver.asyncContext);
  uv_prepare_init(driver.loop, &driver.prepare);
  uv_check_init(driver.loop, &driver.check);
  uv_timer_init(driver.loop, &driver.timer);
  uv_unref(reinterpret_cast<uv_handle_t*>(&driver.timer));
  uv_unref(reinterpret_cast<uv_handle_t*>(&driver.check));
  // The prepare handle stays referenced: while Qt runs, Node's process stays alive.
  uv_prepare_start(&driver.prepare, onPrepare);
  uv_check_start(&driver.check, onCheck);
  driver.running = true;
  tuneAllocator();
  return nullptr;
}

void noopClose(uv_handle_t*) {}


napi_value Stop(napi_env env, napi_callback_info) {
  if (!driver.running) return nullptr;
  driver.running = false;
  uv_prepare_stop(&driver.prepare);
  uv_check_stop(&driver.check);
  uv_timer_stop(&driver.timer);
  uv_close(reinterpret_cast<uv_handle_t*>(&driver.prepare), noopClose);
  uv_close(reinterpret_cast<uv_handle_t*>(&driver.check), noopClose);
  uv_close(reinterpret_cast<uv_handle_t*>(&driver.timer), noopClose);
  for (auto& kv : driver.watches) {
    uv_poll_stop(&kv.second->handle);
    uv_close(reinterpret_cast<uv_handle_t*>(&kv.second->handle), closeWatch);
  }
  driver.watches.clear();
  g_main_context_release(driver.ctx);
  napi_async_destroy(env, driver.asyncContext);
  napi_delete_reference(env, driver.resource);
  return nullptr;
}

napi_value Stats(napi_env env, napi_callback_info) {
  napi_value obj, v;
  napi_create_object(env, &obj);
  napi_create_double(env, driver.iterations, &v);
  napi_set_named_property(env, obj, "iterations", v);
  napi_create_double(env, driver.dispatches, &v);
  napi_set_named_property(env, obj, "dispatches", v);
  napi_create_double(env, static_cast<double>(driver.watches.size()), &v);
  napi_set_named_property(env, obj, "fds", v);
  napi_get_boolean(env, driver.running, &v);
  napi_set_named_property(env, obj, "running", v);
  napi_create_double(env, trimThreshold, &v);
  napi_set_named_property(env, obj, "mallocTrimThreshold", v);
  return obj;
}

// Gives the heaps' free memory back to the kernel; returns whether malloc had any to give (V8's
// comes back later, see below). The app calls it once it has been idle a while
// (src/app/platform/idleTrim.ts): memory kept for a flood is not kept for good, and no flood pays
// for the trim. Two heaps keep memory:
// - V8 grows its young generation (two semispaces) up to 2 x 16 MB while many young objects
//   survive, which start-up's bursts cause in about one start of three, and shrinks it only in a
//   collection asked to reduce memory: an idle window kept 32 MB of empty semispace (128 instead
//   of 111 MB RSS, bench/visible.mjs). A moderate memory-pressure notification starts that
//   collection as incremental marking, which V8 finishes in small steps on the loop: the call
//   takes 2-4 ms, where a critical one collected at once and held the UI thread for 55 ms.
// - glibc's malloc keeps the 16 MB trim threshold set above.
napi_value Trim(napi_env env, napi_callback_info) {
  if (v8::Isolate* isolate = v8::Isolate::GetCurrent())
    isolate->MemoryPressureNotification(v8::MemoryPressureLevel::kModerate);
  bool released = false;
#ifdef __GLIBC__
  released = malloc_trim(0) == 1;
#endif
  napi_value v;
  napi_get_boolean(env, released, &v);
  return v;
}

// Threads that allocate at once each get an arena of their own, up to 8 per core by default, and
// what an arena frees stays with it: Qt's and V8's helper threads held ~1.5 MB that way in an idle
// window. Two arenas are plenty for one UI thread and its helpers. Set at load, before NodeGUI
// starts Qt's threads.
void capArenas() {
#ifdef __GLIBC__
  mallopt(M_ARENA_MAX, 2);
#endif
}

napi_value Init(napi_env env, napi_value exports) {
  capArenas();
  publishArgs();
  napi_property_descriptor props[] = {
      {"setArgs", nullptr, SetArgs, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"start", nullptr, Start, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"stop", nullptr, Stop, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"stats", nullptr, Stats, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"trim", nullptr, Trim, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
