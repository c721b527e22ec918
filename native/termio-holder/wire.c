/* termio-holder's data structures: the ring of bytes kept since the last checkpoint (grows from
 * RING_MIN to RING_MAX, shrinks back once a checkpoint frees it), the growable byte buffers the
 * sockets are read into and written from, and big-endian message framing. */
#include <stdlib.h>
#include <string.h>

#include "holder.h"

uint64_t ring_end(const ring_t *r) { return r->base + r->len; }

/* Moves the kept bytes into a buffer of `cap` bytes, oldest first. */
static int ring_realloc(ring_t *r, size_t cap) {
  unsigned char *d = malloc(cap);
  if (!d) return -1;
  size_t first = r->cap - r->head < r->len ? r->cap - r->head : r->len;
  if (r->len) {
    memcpy(d, r->data + r->head, first);
    memcpy(d + first, r->data, r->len - first);
  }
  free(r->data);
  r->data = d;
  r->cap = cap;
  r->head = 0;
  return 0;
}

static void ring_drop(ring_t *r, size_t n) {
  if (n > r->len) n = r->len;
  r->head = r->cap ? (r->head + n) % r->cap : 0;
  r->len -= n;
  r->base += n;
}

size_t ring_append(ring_t *r, const unsigned char *p, size_t n) {
  size_t dropped = 0;
  if (n > RING_MAX) {
    /* Only the newest RING_MAX bytes of this chunk can be kept. */
    dropped += r->len + (n - RING_MAX);
    r->base += r->len + (n - RING_MAX);
    r->len = 0;
    r->head = 0;
    p += n - RING_MAX;
    n = RING_MAX;
  }
  if (r->len + n > r->cap && r->cap < RING_MAX) {
    size_t cap = r->cap ? r->cap : RING_MIN;
    while (cap < r->len + n && cap < RING_MAX) cap *= 2;
    if (cap > RING_MAX) cap = RING_MAX;
    /* Out of memory: keep what fits in the ring as it is, as a full ring does. */
    (void)ring_realloc(r, cap);
  }
  if (n > r->cap) {
    /* Only when memory ran out before the ring had any room. */
    size_t lost = r->len + n - r->cap;
    r->base += r->len;
    r->len = 0;
    r->head = 0;
    r->base += n - r->cap;
    p += n - r->cap;
    n = r->cap;
    dropped += lost;
    if (n == 0) return dropped;
  }
  if (r->len + n > r->cap) {
    size_t over = r->len + n - r->cap;
    ring_drop(r, over);
    dropped += over;
  }
  size_t tail = (r->head + r->len) % r->cap;
  size_t first = r->cap - tail < n ? r->cap - tail : n;
  memcpy(r->data + tail, p, first);
  memcpy(r->data, p + first, n - first);
  r->len += n;
  return dropped;
}

void ring_release(ring_t *r, uint64_t offset) {
  if (offset <= r->base) return;
  uint64_t upto = offset < ring_end(r) ? offset : ring_end(r);
  ring_drop(r, (size_t)(upto - r->base));
  /* Give a flood's memory back once a checkpoint has covered it. */
  if (r->cap > RING_MIN && r->len <= r->cap / 8) {
    size_t cap = r->cap;
    while (cap > RING_MIN && r->len <= cap / 8) cap /= 2;
    ring_realloc(r, cap);
  }
}

size_t ring_copy(const ring_t *r, uint64_t from, unsigned char *out, size_t max) {
  if (from < r->base || from >= ring_end(r)) return 0;
  size_t skip = (size_t)(from - r->base);
  size_t n = r->len - skip < max ? r->len - skip : max;
  size_t start = (r->head + skip) % r->cap;
  size_t first = r->cap - start < n ? r->cap - start : n;
  memcpy(out, r->data + start, first);
  memcpy(out + first, r->data, n - first);
  return n;
}

int buf_add(buf_t *b, const void *p, size_t n) {
  if (b->pos > 0 && b->pos == b->len) b->pos = b->len = 0;
  if (b->len + n > b->cap) {
    if (b->pos > 0) {
      memmove(b->data, b->data + b->pos, b->len - b->pos);
      b->len -= b->pos;
      b->pos = 0;
    }
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n) cap *= 2;
    if (cap != b->cap) {
      unsigned char *d = realloc(b->data, cap);
      if (!d) return -1;
      b->data = d;
      b->cap = cap;
    }
  }
  memcpy(b->data + b->len, p, n);
  b->len += n;
  return 0;
}

void buf_consume(buf_t *b, size_t n) {
  b->pos += n;
  if (b->pos >= b->len) {
    b->pos = b->len = 0;
    /* A large paste or replay leaves a large buffer: return it once it is empty. */
    if (b->cap > 256 * 1024) {
      free(b->data);
      b->data = NULL;
      b->cap = 0;
    }
  }
}

size_t buf_pending(const buf_t *b) { return b->len - b->pos; }

void put_u16(unsigned char *p, unsigned v) {
  p[0] = (unsigned char)(v >> 8);
  p[1] = (unsigned char)v;
}

void put_u32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (24 - 8 * i));
}

void put_u64(unsigned char *p, uint64_t v) {
  put_u32(p, (uint32_t)(v >> 32));
  put_u32(p + 4, (uint32_t)v);
}

unsigned get_u16(const unsigned char *p) { return (unsigned)p[0] << 8 | p[1]; }

uint32_t get_u32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint64_t get_u64(const unsigned char *p) { return (uint64_t)get_u32(p) << 32 | get_u32(p + 4); }

int frame(buf_t *out, int kind, const void *payload, size_t n) {
  unsigned char head[5];
  put_u32(head, (uint32_t)(n + 1));
  head[4] = (unsigned char)kind;
  if (buf_add(out, head, 5) != 0) return -1;
  return n ? buf_add(out, payload, n) : 0;
}
