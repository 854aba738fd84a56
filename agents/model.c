/*
** model.c: model files (layout in agent.h): atomic writes, checked reads.
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>
#include "agents/agent.h"
#include "game/durable.h"

static void put_u16(uint8_t *p, uint32_t x) {
  p[0] = (uint8_t)x;
  p[1] = (uint8_t)(x >> 8);
}
static void put_u32(uint8_t *p, uint32_t x) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(x >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t x) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(x >> (8 * i));
}
static uint32_t get_u16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t get_u32(const uint8_t *p) {
  uint32_t x = 0;
  for (int i = 0; i < 4; i++) x |= (uint32_t)p[i] << (8 * i);
  return x;
}
static uint64_t get_u64(const uint8_t *p) {
  uint64_t x = 0;
  for (int i = 0; i < 8; i++) x |= (uint64_t)p[i] << (8 * i);
  return x;
}

dab_status dab_model_write(const char *path, const dab_model_header *h, const void *payload,
                           size_t n, dab_err *err) {
  size_t klen = strnlen(h->kind, DAB_MODEL_KIND_LEN);
  if (klen == 0 || klen >= DAB_MODEL_KIND_LEN)
    return dab_fail(err, DAB_EINPUT, "%s: model kind must be 1 to %d characters", path,
                    DAB_MODEL_KIND_LEN - 1);
  size_t plen = strnlen(h->params, sizeof h->params);
  if (plen > DAB_MODEL_PARAMS)
    return dab_fail(err, DAB_EINPUT, "%s: model params longer than %d bytes", path, DAB_MODEL_PARAMS);
  if (h->rows < 1 || h->cols < 1 || h->rows > 0xffff || h->cols > 0xffff)
    return dab_fail(err, DAB_EINPUT, "%s: bad model board %dx%d", path, h->rows, h->cols);
  uint8_t head[DAB_MODEL_HEADER_BYTES];
  memset(head, 0, sizeof head);
  memcpy(head, DAB_MODEL_MAGIC, 8);
  put_u32(head + 8, DAB_MODEL_VERSION);
  put_u16(head + 12, (uint32_t)h->rows);
  put_u16(head + 14, (uint32_t)h->cols);
  memcpy(head + 16, h->kind, klen);
  put_u32(head + 32, (uint32_t)plen);
  put_u64(head + 36, (uint64_t)n);
  XXH3_state_t *xs = XXH3_createState();
  if (!xs) return dab_fail(err, DAB_ENOMEM, "%s: out of memory for the checksum", path);
  XXH3_64bits_reset(xs);
  XXH3_64bits_update(xs, head, sizeof head);
  XXH3_64bits_update(xs, h->params, plen);
  if (n) XXH3_64bits_update(xs, payload, n);
  uint8_t sum[8];
  put_u64(sum, XXH3_64bits_digest(xs));
  XXH3_freeState(xs);

  dab_durable d;
  dab_status st = dab_durable_open(&d, path, NULL, err);
  if (st) return st;
  if ((st = dab_durable_put(&d, head, sizeof head, err)) || (st = dab_durable_put(&d, h->params, plen, err)) ||
      (st = dab_durable_put(&d, payload, n, err)) || (st = dab_durable_put(&d, sum, 8, err))) {
    dab_durable_abort(&d);
    return st;
  }
  return dab_durable_commit(&d, err);
}

dab_status dab_model_read(const char *path, const char *want_kind, dab_model_header *h,
                          void **payload, size_t *n, dab_err *err) {
  *payload = NULL;
  *n = 0;
  memset(h, 0, sizeof *h);
  FILE *f = fopen(path, "rb");
  if (!f) /* a missing file is a bad argument (exit 2), other failures I/O */
    return dab_fail(err, errno == ENOENT || errno == EISDIR ? DAB_EINPUT : DAB_EIO, "%s: cannot open: %s",
                    path, strerror(errno));
  dab_status st = DAB_OK;
  uint8_t *buf = NULL;
  uint8_t head[DAB_MODEL_HEADER_BYTES];
  if (fseek(f, 0, SEEK_END) != 0) {
    st = dab_fail(err, DAB_EIO, "%s: cannot read: %s", path, strerror(errno));
    goto out;
  }
  long size = ftell(f);
  rewind(f);
  if (size < 0) {
    st = dab_fail(err, DAB_EIO, "%s: cannot read: %s", path, strerror(errno));
    goto out;
  }
  if (size < DAB_MODEL_HEADER_BYTES + 8 || fread(head, 1, sizeof head, f) != sizeof head) {
    /* Another kind of file (no magic): a bad argument; a model cut short: damaged. */
    size_t k = (size_t)size < 8 ? (size_t)size : 8;
    rewind(f);
    bool magic = k > 0 && fread(head, 1, k, f) == k && !memcmp(head, DAB_MODEL_MAGIC, k);
    st = dab_fail(err, magic ? DAB_ECORRUPT : DAB_EINPUT, "%s: not a dab model file (too short)", path);
    goto out;
  }
  if (memcmp(head, DAB_MODEL_MAGIC, 8) != 0) {
    st = dab_fail(err, DAB_EINPUT, "%s: not a dab model file (bad magic)", path);
    goto out;
  }
  h->version = get_u32(head + 8);
  if (h->version != DAB_MODEL_VERSION) {
    st = dab_fail(err, DAB_EINPUT, "%s: model format version %u, this dab reads version %u", path,
                  h->version, DAB_MODEL_VERSION);
    goto out;
  }
  h->rows = (int)get_u16(head + 12);
  h->cols = (int)get_u16(head + 14);
  memcpy(h->kind, head + 16, DAB_MODEL_KIND_LEN);
  h->kind[DAB_MODEL_KIND_LEN - 1] = 0;
  uint32_t plen = get_u32(head + 32);
  uint64_t paylen = get_u64(head + 36);
  if (plen > DAB_MODEL_PARAMS ||
      paylen != (uint64_t)size - DAB_MODEL_HEADER_BYTES - 8 - plen ||
      (uint64_t)size < DAB_MODEL_HEADER_BYTES + 8ull + plen) {
    st = dab_fail(err, DAB_ECORRUPT, "%s: damaged model file (length fields do not match its %ld "
                  "bytes: truncated?)", path, size);
    goto out;
  }
  size_t total = (size_t)size;
  buf = malloc(total);
  if (!buf) {
    st = dab_fail(err, DAB_ENOMEM, "%s: out of memory for a %ld-byte model", path, size);
    goto out;
  }
  memcpy(buf, head, sizeof head);
  if (fread(buf + sizeof head, 1, total - sizeof head, f) != total - sizeof head) {
    st = dab_fail(err, DAB_EIO, "%s: cannot read: %s", path, ferror(f) ? strerror(errno) : "short read");
    goto out;
  }
  if (XXH3_64bits(buf, total - 8) != get_u64(buf + total - 8)) {
    st = dab_fail(err, DAB_ECORRUPT, "%s: damaged model file (checksum mismatch)", path);
    goto out;
  }
  if (memchr(buf + DAB_MODEL_HEADER_BYTES, 0, plen)) {
    st = dab_fail(err, DAB_ECORRUPT, "%s: damaged model file (NUL in params)", path);
    goto out;
  }
  if (want_kind && strcmp(h->kind, want_kind) != 0) {
    st = dab_fail(err, DAB_EINPUT, "%s: a '%s' model, not a '%s' model", path, h->kind, want_kind);
    goto out;
  }
  memcpy(h->params, buf + DAB_MODEL_HEADER_BYTES, plen);
  h->params[plen] = 0;
  size_t np = (size_t)paylen;
  /* The payload moves to the front of buf, which becomes *payload. */
  memmove(buf, buf + DAB_MODEL_HEADER_BYTES + plen, np);
  uint8_t *shrunk = realloc(buf, np ? np : 1);
  *payload = shrunk ? shrunk : buf;
  buf = NULL;
  *n = np;
out:
  fclose(f);
  free(buf);
  if (st) memset(h, 0, sizeof *h);
  return st;
}

bool dab_params_get(const char *params, const char *key, char *buf, size_t cap) {
  size_t klen = strlen(key);
  const char *p = params;
  while (p && *p) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > klen && !strncmp(p, key, klen) && p[klen] == '=') {
      size_t vlen = len - klen - 1;
      if (vlen >= cap) return false;
      memcpy(buf, p + klen + 1, vlen);
      buf[vlen] = 0;
      return true;
    }
    p = end ? end + 1 : NULL;
  }
  return false;
}

dab_status dab_params_add(dab_model_header *h, const char *key, const char *value, dab_err *err) {
  size_t len = strlen(h->params);
  size_t add = (len ? 1 : 0) + strlen(key) + 1 + strlen(value);
  if (len + add > DAB_MODEL_PARAMS)
    return dab_fail(err, DAB_EINPUT, "model params longer than %d bytes", DAB_MODEL_PARAMS);
  snprintf(h->params + len, sizeof h->params - len, "%s%s=%s", len ? "," : "", key, value);
  return DAB_OK;
}

dab_status dab_model_check_board(const char *path, const dab_model_header *h, const dab_geom *g,
                                 dab_err *err) {
  if (h->rows != g->rows || h->cols != g->cols)
    return dab_fail(err, DAB_EBOARD, "%s: a %dx%d model, the board is %dx%d", path, h->rows, h->cols,
                    g->rows, g->cols);
  return DAB_OK;
}
