/*
** tb_index_options.c: what other index schemes would cost, measured on a
** built file: the payload as stored (indexed positions, don't-care fill)
** against a canonical-only sequence (the lower bound of a dense canonical
** rank, before the rank directory such a scheme would also need).
** Usage: tb_index_options FILE [LEVEL]
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>
#include "tablebase/tb_internal.h"

static size_t zsize(const uint8_t *buf, size_t n, int level) {
  size_t cap = ZSTD_compressBound(n);
  void *out = malloc(cap);
  size_t z = ZSTD_compress(out, cap, buf, n, level);
  free(out);
  return ZSTD_isError(z) ? 0 : z;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: tb_index_options FILE [LEVEL]\n");
    return 2;
  }
  int level = argc > 2 ? atoi(argv[2]) : 12;
  dabtb *tb;
  dab_err err;
  if (dabtb_open(argv[1], NULL, &tb, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  const size_t B = 1u << 20;
  uint8_t *canon = malloc(B);
  size_t nc = 0, stored = 0, dense = 0, raw_canon = 0, blocks = 0;
  for (uint32_t i = 0; i < tb->nblocks; i++) {
    const dabtb_block *b = &tb->blocks[i];
    stored += b->size - DABTB_BLOCK_HEADER;
    uint8_t *owned;
    dab_status st;
    const uint8_t *pl = dabtb_block_payload(tb, i, &owned, &st, &err);
    if (!pl) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    dab_tbidx_iter it;
    dab_tbidx_seek(&tb->idx, &it, b->layer, (uint64_t)b->number * tb->block_entries);
    for (uint32_t e = 0; e < b->entries; e++) {
      if (dabtb_is_canonical(tb->sym, it.pos)) {
        canon[nc++] = pl[e];
        raw_canon++;
        if (nc == B) {
          dense += zsize(canon, nc, level);
          blocks++;
          nc = 0;
        }
      }
      if (e + 1 < b->entries) dab_tbidx_step(&tb->idx, &it);
    }
    free(owned);
  }
  if (nc) dense += zsize(canon, nc, level), blocks++;
  printf("%s: indexed entries with don't-care fill (as stored): %zu bytes of zstd frames\n", argv[1], stored);
  printf("canonical entries only (%zu values, zstd %d, 2^20 per block): %zu bytes, before any rank directory\n",
         raw_canon, level, dense);
  free(canon);
  dabtb_close(tb);
  return 0;
}
