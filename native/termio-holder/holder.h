/* termio-holder: shared declarations of its parts (wire.c: the byte ring and message framing;
 * termio-holder.c: the pty, the agent and the event loop). The protocol is docs/holder.md's;
 * src/protocol/holderWire.ts is the host's side of it, and a unit test keeps the numbers equal. */
#ifndef TERMIO_HOLDER_H
#define TERMIO_HOLDER_H

#include <stddef.h>
#include <stdint.h>

/* The protocol version this holder speaks. A host speaks every version since 1, so a holder
 * started by an older Termio is adopted by a newer one. */
#define HOLDER_PROTOCOL 1

/* Holder -> host */
#define MSG_HELLO 0x01
#define MSG_DATA 0x02
#define MSG_SIZE 0x03
#define MSG_GAP 0x04
#define MSG_EXIT 0x05
#define MSG_ERROR 0x06
#define MSG_TAKEN 0x07
/* Host -> holder */
#define MSG_ATTACH 0x81
#define MSG_INPUT 0x82
#define MSG_RESIZE 0x83
#define MSG_SIGNAL 0x84
#define MSG_CHECKPOINT 0x85
#define MSG_PAUSE 0x86
#define MSG_RESUME 0x87
#define MSG_CLOSE 0x88
#define MSG_BYE 0x89
#define MSG_CREDIT 0x8a

/* SIGNAL targets */
#define TARGET_AGENT 0
#define TARGET_GROUP 1
#define TARGET_FOREGROUND 2

/* The largest message body either side sends: a 64 KiB data chunk and its header fit, and so
 * does a pasted megabyte of input. Longer is a framing error (the connection is dropped). */
#define MAX_BODY (1024 * 1024 + 64)
/* Bytes kept since the host's last checkpoint: a minute of a busy agent's output, or a few
 * seconds of a flood. Beyond it the oldest bytes are dropped and a replay starts with a GAP. */
#define RING_MAX (8u * 1024 * 1024)
/* The ring starts this small and doubles as needed, so an idle holder costs a few pages. */
#define RING_MIN (16u * 1024)

typedef struct {
  unsigned char *data;
  size_t cap, head, len; /* head: index of the byte at offset `base` */
  uint64_t base;         /* stream offset of the oldest byte kept */
} ring_t;

typedef struct {
  unsigned char *data;
  size_t len, cap, pos; /* pos: bytes already consumed (written out or parsed) */
} buf_t;

uint64_t ring_end(const ring_t *r);
/* Appends, dropping the oldest bytes past RING_MAX; returns how many were dropped. */
size_t ring_append(ring_t *r, const unsigned char *p, size_t n);
/* Forgets everything before `offset` (a checkpoint covers it). */
void ring_release(ring_t *r, uint64_t offset);
/* Copies up to `max` bytes starting at stream offset `from` into `out`; returns the count. */
size_t ring_copy(const ring_t *r, uint64_t from, unsigned char *out, size_t max);

int buf_add(buf_t *b, const void *p, size_t n);
void buf_consume(buf_t *b, size_t n);
size_t buf_pending(const buf_t *b);

void put_u16(unsigned char *p, unsigned v);
void put_u32(unsigned char *p, uint32_t v);
void put_u64(unsigned char *p, uint64_t v);
unsigned get_u16(const unsigned char *p);
uint32_t get_u32(const unsigned char *p);
uint64_t get_u64(const unsigned char *p);
/* Appends one framed message (length, kind, payload) to `out`. */
int frame(buf_t *out, int kind, const void *payload, size_t n);

#endif
